/*
 * bench/sampler: what the fault sampler costs a streaming program. Maps
 * 1 GiB (THP-advised, pre-touched), streams over it with the sampler
 * ticking at 0, 100, 1000 and 10000 Hz over its 2 MiB blocks, rounds
 * interleaved so drift hits every rate alike, and prints the slowdown of
 * each rate against 0 Hz, measured side by side in one run.
 *
 *   build/bench/sampler [GiB] [rounds]
 */
#include "sampler/harness.h"
#include "tiermem/sampler-fault.h"
#include "tiermem/sampler-uffd.h"

#include <stdio.h>
#include <stdlib.h>

#define NRATES 4
#define PASSES 4

static const double rates[NRATES] = { 0, 100, 1000, 10000 };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t stream(const uint64_t *p, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i += 4)
		s += p[i] ^ p[i + 1] ^ p[i + 2] ^ p[i + 3];
	return s;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t gib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1, nblocks = gib * 512, huge = 0;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	double *t[NRATES], med[NRATES];
	uint64_t samples[NRATES] = { 0 }, ticks[NRATES] = { 0 }, sink = 0;
	char why[256] = "";
	uintptr_t base;

	if (!gib || rounds < 1 || !(base = h_map(nblocks, 1))) {
		fprintf(stderr, "usage: sampler [GiB] [rounds]\n");
		return 2;
	}
	for (size_t b = 0; b < nblocks; b++)
		huge += tlrt_block_is_huge(base + b * H_BLOCK) == 1;
	printf("%zu GiB, %zu of %zu blocks THP before\n", gib, huge, nblocks);
	if (h_start(&rt_sampler_fault, 10000, why, sizeof(why))) {
		fprintf(stderr, "fault sampler: %s\n", why);
		return 1;
	}
	for (int r = 0; r < NRATES; r++)
		t[r] = calloc((size_t)rounds, sizeof(double));
	sink += stream((const uint64_t *)base, nblocks * H_BLOCK / 8);	/* warm */
	for (int k = 0; k < rounds; k++)
		for (int r = 0; r < NRATES; r++) {
			struct tlrt_fault_counts c0, c1;
			double t0;

			tlrt_sampler_fault_counts(&c0);
			if (rates[r] > 0)
				h_ticker_start(rates[r]);
			t0 = now_s();
			for (int p = 0; p < PASSES; p++)
				sink += stream((const uint64_t *)base, nblocks * H_BLOCK / 8);
			t[r][k] = now_s() - t0;
			if (rates[r] > 0) {
				h_ticker_stop();
				ticks[r] += atomic_load(&H.ticks);
			}
			/* nothing left armed for the next rate's measurement */
			rt_sampler_fault.release_range(base, nblocks * H_BLOCK);
			tlrt_sampler_fault_counts(&c1);
			samples[r] += c1.samples - c0.samples;
		}
	rt_sampler_fault.stop();
	for (int r = 0; r < NRATES; r++) {
		qsort(t[r], (size_t)rounds, sizeof(double), cmp);
		med[r] = t[r][rounds / 2];
	}
	printf("%10s %12s %10s %10s %12s\n", "rate_hz", "median_s", "slowdown", "ticks", "samples");
	for (int r = 0; r < NRATES; r++)
		printf("%10.0f %12.4f %10.4f %10llu %12llu\n", rates[r], med[r], med[r] / med[0],
		       (unsigned long long)ticks[r], (unsigned long long)samples[r]);
	huge = 0;
	for (size_t b = 0; b < nblocks; b++)
		huge += tlrt_block_is_huge(base + b * H_BLOCK) == 1;
	printf("%zu of %zu blocks THP after; data %s (%llx)\n", huge, nblocks,
	       ({ int ok = 1; for (size_t b = 0; b < nblocks && ok; b += 97) ok = h_check(b); ok ? "intact" : "CORRUPT"; }),
	       (unsigned long long)(sink & 0xff));
	return 0;
}
