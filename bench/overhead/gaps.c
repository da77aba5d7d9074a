/*
 * bench/overhead's direct view of what sampling costs a program: a
 * streaming read loop over one managed block (MiB, THP-advised,
 * pre-touched) that reads the TSC every 64 cache lines (~0.3 us of work
 * here) and sorts each interval into a histogram. Anything the runtime
 * does to the program - a blocking sample, a TLB shootdown IPI, a thread
 * of its own preempting the loop - shows up as a gap, with its length;
 * the time in gaps over 2 us, against a run with sampling off, is the
 * cost, measured without comparing two noisy wall times.
 *
 *   gaps [--mib M] [--seconds S] [--poison-ref HZ]
 * prints one line per gap class and "stalled: US us of US us (P%)".
 * --poison-ref HZ samples with the reference poison sampler
 * (poison-ref.h) instead of whatever runtime is preloaded.
 */
#include "poison-ref.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

#define HUGE_2M (2UL << 20)
#define NCLASS 8

static const double upper_us[NCLASS] = { 2, 5, 10, 20, 50, 100, 200, 1e300 };
static const char *const class_name[NCLASS] = {
	"<2", "2-5", "5-10", "10-20", "20-50", "50-100", "100-200", ">200",
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* TSC ticks per microsecond, over 100 ms. */
static double tsc_per_us(void)
{
	uint64_t t0 = now_ns(), c0 = __rdtsc();

	while (now_ns() - t0 < 100000000ULL)
		;
	return (double)(__rdtsc() - c0) / ((double)(now_ns() - t0) / 1e3);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mib", required_argument, NULL, 'm' },
		{ "seconds", required_argument, NULL, 's' },
		{ "poison-ref", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t count[NCLASS] = { 0 }, start, last, end, sum = 0;
	double us_in[NCLASS] = { 0 }, per_us, secs = 3, ref_hz = 0, stalled = 0, total;
	long mib = 256, samples = -1;
	volatile uint64_t *a;
	size_t n, i = 0;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			mib = strtol(optarg, NULL, 10);
			break;
		case 's':
			secs = strtod(optarg, NULL);
			break;
		case 'r':
			ref_hz = strtod(optarg, NULL);
			break;
		default:
			fprintf(stderr, "usage: gaps [--mib M] [--seconds S] [--poison-ref HZ]\n");
			return 2;
		}
	}
	if (mib < 2 || mib % 2 || secs <= 0 || secs > 3600 || ref_hz < 0 || ref_hz > 1e6) {
		fprintf(stderr, "gaps: need an even --mib >= 2, 0 < --seconds <= 3600, 0 <= --poison-ref <= 1e6\n");
		return 2;
	}
	n = (size_t)mib * 1048576 / sizeof(uint64_t);
	if (!(a = aligned_alloc(HUGE_2M, n * sizeof(uint64_t)))) {
		fprintf(stderr, "gaps: cannot allocate %ld MiB\n", mib);
		return 1;
	}
	madvise((void *)a, n * sizeof(uint64_t), MADV_HUGEPAGE);
	for (size_t k = 0; k < n; k++)
		a[k] = k;
	per_us = tsc_per_us();
	if (ref_hz > 0 && poison_ref_start((void *)a, n * sizeof(uint64_t), ref_hz)) {
		perror("gaps: --poison-ref");
		return 1;
	}
	start = last = __rdtsc();
	end = start + (uint64_t)(secs * 1e6 * per_us);
	for (;;) {
		sum += a[i];	/* volatile: one load a step, never folded */
		i += 8;		/* one cache line a step */
		if (i >= n)
			i = 0;
		if (!(i & 511)) {
			uint64_t t = __rdtsc();
			double us = (double)(t - last) / per_us;
			int k = 0;

			while (us >= upper_us[k])
				k++;
			count[k]++;
			if (k)
				us_in[k] += us;
			last = t;
			if (t > end)
				break;
		}
	}
	if (ref_hz > 0)
		samples = poison_ref_stop();
	total = (double)(last - start) / per_us;
	for (int k = 1; k < NCLASS; k++) {
		printf("gaps %7s us: %8lu, %10.0f us\n", class_name[k], (unsigned long)count[k], us_in[k]);
		stalled += us_in[k];
	}
	if (samples >= 0)
		printf("samples: %ld\n", samples);
	printf("stalled: %.0f us of %.0f us (%.2f%%)\n", stalled, total, 100 * stalled / total);
	__asm__ volatile("" : : "r"(sum));	/* the loads are the work: keep them */
	return 0;
}
