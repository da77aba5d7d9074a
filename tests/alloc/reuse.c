/*
 * A helper for tests/cli/alloc-suite.sh: whether an allocator reuses and
 * gives back memory, seen from outside (/proc/self/status) and, under
 * libfatalloc, from its own counters (found with dlsym, as fill does).
 *
 *   reuse threads ROUNDS THREADS   mleak's pattern: ROUNDS times, THREADS
 *                                  threads that each allocate a block, swap
 *                                  it for another thread's and free that,
 *                                  then exit; prints the peak RSS
 *   reuse tail MIB                 writes a MIB MiB block, frees it; prints
 *                                  RSS and hugetlb pages held before and
 *                                  after the free, and the free 2 MiB
 *                                  hugetlb pages of the system after it
 *
 * Prints key: value lines; the counters only under libfatalloc.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 1000

static void *_Atomic slots[SLOTS];
static _Atomic unsigned seq;

/* A field of /proc/self/status in kB, -1 when absent. */
static long status_kb(const char *field)
{
	char line[256];
	size_t len = strlen(field);
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			v = atol(line + len + 1);
	fclose(f);
	return v;
}

static long free_hugepages_2m(void)
{
	long v = -1;
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void print_stats(const char *const *names)
{
	long long (*stat)(const char *) = (long long (*)(const char *))dlsym(RTLD_DEFAULT, "fat_stat_get");
	const char *(*backing)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "fat_backing_name");

	if (!stat || !backing) {
		printf("allocator: not fat\n");
		return;
	}
	printf("backing: %s\n", backing());
	for (; *names; names++)
		printf("%s: %lld\n", *names, stat(*names));
}

static void *churn(void *arg)
{
	unsigned s = atomic_fetch_add(&seq, 1), slot = (s * 2654435761u) % SLOTS;
	unsigned char *p = calloc(16, sizeof(void *)), *q;

	(void)arg;
	if (!p)
		abort();
	p[0] = (unsigned char)(slot & 0xff);
	q = atomic_exchange(&slots[slot], p);
	if (q && q[0] != (unsigned char)(slot & 0xff))
		abort();	/* a block changed under its owner */
	free(q);
	return NULL;
}

static int threads(long rounds, long n)
{
	static const char *const names[] = { "segments", "segments_reused", "pool_bytes_used",
					     "fallback_allocs", NULL };
	pthread_t *th = calloc((size_t)n, sizeof(*th));

	for (long r = 0; r < rounds; r++) {
		for (long t = 0; t < n; t++)
			if (pthread_create(&th[t], NULL, churn, NULL)) {
				perror("pthread_create");
				return 1;
			}
		for (long t = 0; t < n; t++)
			pthread_join(th[t], NULL);
	}
	for (int i = 0; i < SLOTS; i++)
		free(atomic_exchange(&slots[i], NULL));
	free(th);
	printf("threads: %ld\n", rounds * n);
	printf("vmhwm_kb: %ld\n", status_kb("VmHWM"));
	print_stats(names);
	return 0;
}

static int tail(size_t mib)
{
	static const char *const names[] = { "trims", "bytes_trimmed", "bytes_released", "pool_bytes_used", NULL };
	size_t len = mib << 20;
	char *p = malloc(len);

	if (!p) {
		perror("malloc");
		return 1;
	}
	memset(p, 0x5a, len);
	/* the block escapes: else the compiler may drop the malloc, memset and free */
	__asm__ volatile("" : : "r"(p) : "memory");
	printf("rss_kb_before: %ld\n", status_kb("VmRSS"));
	printf("hugetlb_kb_before: %ld\n", status_kb("HugetlbPages"));
	free(p);
	printf("rss_kb_after: %ld\n", status_kb("VmRSS"));
	printf("hugetlb_kb_after: %ld\n", status_kb("HugetlbPages"));
	printf("free_hugepages_2m_after: %ld\n", free_hugepages_2m());
	print_stats(names);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "threads") && atol(argv[2]) > 0 && atol(argv[3]) > 0)
		return threads(atol(argv[2]), atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "tail") && atol(argv[2]) > 0)
		return tail((size_t)atol(argv[2]));
	fprintf(stderr, "usage: reuse threads ROUNDS THREADS | reuse tail MIB\n");
	return 2;
}
