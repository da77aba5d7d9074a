/*
 * The workload of tests/cli/mempolicy-guest.sh: maps --mib MiB of
 * anonymous memory, touches its pages in order (first touch places them
 * under whatever mempolicy the process was given), optionally holds for
 * --hold seconds (a run to kill), then asks the kernel (move_pages, no
 * move) which node each page is on and prints:
 *
 *   placement: pages N node0 A node1 B other C
 *   placement: changes X       consecutive pages on different nodes
 *   placement: node0 after the first node1 page: Y (and the first's index)
 *
 * which is what the test judges: an interleave alternates (X near N - 1),
 * a weighted one has A:B in its weights' ratio, preferred fills node 0
 * first and spills to node 1 only once node 0 is full (Y near 0).
 * With --malloc the memory comes from malloc (under a memory policy of
 * scope managed, the tiering runtime's arena), and 16 MiB more are mapped
 * and touched as before, never the runtime's, and reported as
 *
 *   placement: unmanaged pages N node0 A node1 B other C changes X
 *
 * (under scope managed: the default policy, no alternation).
 * Dynamically linked: tierlab runs it as a workload.
 */
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* An mmap'd region of mib MiB touched in order, then its pages' nodes in one line. */
static int unmanaged(long mib, long page)
{
	long n = mib * (1L << 20) / page, counts[3] = { 0 }, changes = 0;
	char *mem = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void **pages = calloc((size_t)n, sizeof(*pages));
	int *status = calloc((size_t)n, sizeof(*status));

	if (mem == MAP_FAILED || !pages || !status) {
		perror("placement: unmanaged memory");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		mem[i * page] = (char)i;
		pages[i] = mem + i * page;
	}
	if (move_pages(0, (unsigned long)n, pages, NULL, status, 0)) {
		perror("placement: move_pages");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		counts[status[i] == 0 ? 0 : status[i] == 1 ? 1 : 2]++;
		changes += i && status[i - 1] != status[i];
	}
	printf("placement: unmanaged pages %ld node0 %ld node1 %ld other %ld changes %ld\n", n, counts[0], counts[1],
	       counts[2], changes);
	return 0;
}

int main(int argc, char **argv)
{
	long mib = 64, hold = 0, page = sysconf(_SC_PAGESIZE);
	long n, counts[3] = { 0 }, changes = 0, first_slow = -1, fast_after = 0, batch = 4096;
	struct timespec t0, t1;
	char *mem;
	void **pages;
	int *status;

	int use_malloc = 0;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--malloc"))
			use_malloc = 1;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--malloc"))
			i--;	/* a flag: the next word is an option */
		else if (!strcmp(argv[i], "--mib"))
			mib = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--hold"))
			hold = atol(argv[i + 1]);
	}
	n = mib * (1L << 20) / page;
	if (use_malloc) {
		mem = malloc((size_t)(n * page));
		mem = mem ? mem : MAP_FAILED;
	} else {
		mem = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	pages = calloc((size_t)n, sizeof(*pages));
	status = calloc((size_t)n, sizeof(*status));
	if (mem == MAP_FAILED || !pages || !status) {
		perror("placement: memory");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		mem[i * page] = (char)i;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (hold)
		sleep((unsigned)hold);
	for (long i = 0; i < n; i++)
		pages[i] = mem + i * page;
	/* in batches: one call for every page may not fit the kernel's limits */
	for (long i = 0; i < n; i += batch)
		if (move_pages(0, (unsigned long)(n - i < batch ? n - i : batch), pages + i, NULL, status + i, 0)) {
			perror("placement: move_pages");
			return 1;
		}
	for (long i = 0; i < n; i++) {
		int s = status[i];

		counts[s == 0 ? 0 : s == 1 ? 1 : 2]++;
		if (i && status[i - 1] != s)
			changes++;
		if (s == 1 && first_slow < 0)
			first_slow = i;
		if (s == 0 && first_slow >= 0)
			fast_after++;
	}
	for (long i = 0; i < n; i++)
		if (mem[i * page] != (char)i) {
			printf("placement: FAIL: page %ld changed\n", i);
			return 1;
		}
	printf("placement: pages %ld node0 %ld node1 %ld other %ld\n", n, counts[0], counts[1], counts[2]);
	printf("placement: changes %ld\n", changes);
	printf("placement: node0 after the first node1 page: %ld (first node1 page %ld)\n", fast_after, first_slow);
	if (use_malloc && unmanaged(16, page))
		return 1;
	printf("figure-of-merit: %.3f\n", (double)n / ((double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9) / 1e6);
	return 0;
}
