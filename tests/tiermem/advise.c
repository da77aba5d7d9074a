/*
 * A program under the runtime that advises huge pages for one managed
 * array and none for another, as HPC codes do, then reads both: managed
 * memory must stay one mapping (so the fault sampler can arm it), carry
 * the last advice, keep its data, and be sampled. Prints what it saw;
 * tests/cli/tiermem-advise.sh checks it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define LEN (32UL << 20)

/* The mapping holding p: its size in KiB and whether VmFlags has `flag`. */
static int mapping(const void *p, unsigned long *kib, const char *flag)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0, has = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			if (in)
				*kib = (hi - lo) >> 10;
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			has = strstr(line, flag) != NULL;
			break;
		}
	}
	fclose(f);
	return has;
}

int main(void)
{
	/* page-aligned as madvise wants (glibc puts a header before its large blocks) */
	uint8_t *a = aligned_alloc(2UL << 20, LEN), *b = aligned_alloc(2UL << 20, LEN);
	unsigned long kib_a = 0, kib_b = 0;
	uint64_t sum = 0, x = 1;
	struct timespec t0, t;

	if (!a || !b)
		return 1;
	for (size_t i = 0; i < LEN; i++)
		a[i] = (uint8_t)i, b[i] = (uint8_t)(i * 3);
	if (madvise(a, LEN, MADV_HUGEPAGE) || madvise(b, LEN, MADV_NOHUGEPAGE) ||
	    madvise(a, LEN, MADV_HUGEPAGE)) {
		perror("advise: madvise");
		return 1;
	}
	printf("hugepage flag on a: %d, on b: %d\n", mapping(a, &kib_a, " hg"), mapping(b, &kib_b, " hg"));
	printf("mapping of a: %lu KiB, of b: %lu KiB\n", kib_a, kib_b);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int k = 0; k < 100000; k++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			sum += (x >> 63 ? a : b)[(x >> 20) % LEN];
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 < 0.5);
	for (size_t i = 0; i < LEN; i++)
		if (a[i] != (uint8_t)i || b[i] != (uint8_t)(i * 3)) {
			printf("data: lost at %zu\n", i);
			return 1;
		}
	printf("data: intact (%llu)\n", (unsigned long long)(sum & 1));
	free(a);
	free(b);
	return 0;
}
