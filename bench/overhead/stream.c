/*
 * bench/overhead's streaming kernel: one large block (1 GiB by default)
 * taken with aligned_alloc so the runtime, when preloaded, manages it, and
 * 2 MiB-aligned and THP-advised in both cases so the run with and without
 * the runtime differ only by the runtime. The block is pre-touched (first
 * touch is slow in these VMs and is not what is measured), then read
 * PASSES times; only those passes are timed.
 *
 *   stream [--gib G] [--passes P] [--poison-ref HZ]
 * prints "time: S s", "thp: KB kB" (AnonHugePages of the process) and
 * "validation: passed|failed" (the sum of the pattern it wrote).
 * --poison-ref HZ runs the reference poison sampler (poison-ref.h) over
 * the block during the timed passes and prints "samples: N".
 */
#include "poison-ref.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_2M (2UL << 20)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Four independent sums so the loop is bound by memory, not by one add chain. */
static __attribute__((noinline)) uint64_t pass(const uint64_t *p, size_t n)
{
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;

	for (size_t i = 0; i < n; i += 4) {
		s0 += p[i];
		s1 += p[i + 1];
		s2 += p[i + 2];
		s3 += p[i + 3];
	}
	return s0 + s1 + s2 + s3;
}

static long anon_huge_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "gib", required_argument, NULL, 'g' },
		{ "passes", required_argument, NULL, 'p' },
		{ "poison-ref", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	double gib = 1.0, ref_hz = 0, t;
	long passes = 40;
	uint64_t *a, want = 0, got = 0;
	size_t bytes, n;
	int c, ok = 1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			gib = strtod(optarg, NULL);
			break;
		case 'p':
			passes = strtol(optarg, NULL, 10);
			break;
		case 'r':
			ref_hz = strtod(optarg, NULL);
			break;
		default:
			fprintf(stderr, "usage: stream [--gib G] [--passes P] [--poison-ref HZ]\n");
			return 2;
		}
	}
	bytes = (size_t)(gib * 1073741824.0) / HUGE_2M * HUGE_2M;
	if (!bytes || passes < 1 || ref_hz < 0 || ref_hz > 1e6) {
		fprintf(stderr, "stream: need --gib >= 0.002, --passes >= 1, 0 <= --poison-ref <= 1e6\n");
		return 2;
	}
	n = bytes / sizeof(uint64_t);
	a = aligned_alloc(HUGE_2M, bytes);
	if (!a) {
		fprintf(stderr, "stream: cannot allocate %zu bytes\n", bytes);
		return 1;
	}
	madvise(a, bytes, MADV_HUGEPAGE);
	for (size_t i = 0; i < n; i++)
		a[i] = i & 0xffff;
	for (size_t i = 0; i < n; i++)
		want += i & 0xffff;
	pass(a, n);		/* warm: TLB and caches as in the timed passes */
	if (ref_hz > 0 && poison_ref_start(a, bytes, ref_hz)) {
		perror("stream: --poison-ref");
		return 1;
	}
	t = now_s();
	for (long k = 0; k < passes; k++) {
		uint64_t s;

		/* the block "may have changed": no pass is hoisted or merged with another */
		__asm__ volatile("" : : "r"(a) : "memory");
		s = pass(a, n);

		if (k == 0)
			got = s;
		else
			ok &= s == got;
	}
	t = now_s() - t;
	if (ref_hz > 0)
		printf("samples: %ld\n", poison_ref_stop());
	ok &= got == want;
	printf("stream: %.3f GiB, %ld passes\n", (double)bytes / 1073741824.0, passes);
	printf("time: %.4f s\n", t);
	printf("bandwidth: %.2f GB/s\n", (double)bytes * (double)passes / t / 1e9);
	printf("thp: %ld kB\n", anon_huge_kb());
	printf("validation: %s\n", ok ? "passed" : "failed");
	free(a);
	return ok ? 0 : 1;
}
