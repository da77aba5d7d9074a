/*
 * libfatalloc's logic, linked directly (no malloc override), so it can run
 * under AddressSanitizer, UBSan and ThreadSanitizer, which cannot share a
 * process with a preloaded malloc. The process's own malloc stays the
 * system's (or the sanitizer's); the pools are this allocator's alone.
 *
 * Checked: the size classes against their definition (every size gets the
 * smallest class that holds it), block bounds and alignment, reuse of
 * freed blocks, calloc zeroing of reused blocks, realloc in place and
 * moving, coalescing in the large list, pool growth and the counted
 * fallback past the last pool, the status file's keys, the options'
 * warnings, double free and stray pointers aborting, threads freeing
 * each other's blocks (spilling through the central lists, whose batches
 * are checked on their own), threads that come and go reusing what the
 * exited ones left, and a pool's free tail going back to the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "fatalloc/fatalloc.h"

#define MiB ((size_t)1 << 20)

extern char **environ;

/* A fresh allocator with these variables (NULL: unset). */
static void reset_with(const char *pool, const char *max_pools, const char *out)
{
	pool ? setenv("TIERLAB_FAT_POOL", pool, 1) : unsetenv("TIERLAB_FAT_POOL");
	max_pools ? setenv("TIERLAB_FAT_MAX_POOLS", max_pools, 1) : unsetenv("TIERLAB_FAT_MAX_POOLS");
	out ? setenv("TIERLAB_OUT", out, 1) : unsetenv("TIERLAB_OUT");
	/* the tests want THP or plain pages, never a hugetlb page someone reserved */
	setenv("TIERLAB_FAT_BACKING", "thp", 1);
	fat_test_reset();
	fat_options_load(environ, &fat_opt);
}

static int setup(void **state)
{
	(void)state;
	reset_with("16M", "4", NULL);
	return 0;
}

static void test_classes(void **state)
{
	(void)state;
	assert_int_equal(fat_class_size(0), 32);
	assert_int_equal(fat_class_size(FAT_NCLASSES - 1), FAT_CLASS_MAX);
	for (unsigned c = 0; c + 1 < FAT_NCLASSES; c++) {
		assert_true(fat_class_size(c) < fat_class_size(c + 1));
		assert_int_equal(fat_class_size(c) % 16, 0);
		assert_int_equal(fat_class_of(fat_class_size(c)), c);
		/* at most a quarter wasted above 128 bytes */
		if (fat_class_size(c) > 128)
			assert_true(fat_class_size(c + 1) - fat_class_size(c) <= fat_class_size(c) / 4);
	}
	for (size_t s = 1; s <= FAT_CLASS_MAX; s += (s < 5000 ? 1 : 97)) {
		unsigned c = fat_class_of(s);

		assert_true(c < FAT_NCLASSES);
		assert_true(fat_class_size(c) >= s);
		if (c)
			assert_true(fat_class_size(c - 1) < s || s <= 32);
	}
}

static void test_bounds_and_reuse(void **state)
{
	void *p[200];
	bool fresh;

	(void)state;
	for (int i = 0; i < 200; i++) {
		size_t n = (size_t)i * 53 + 1;

		p[i] = fat_alloc(n, 0, &fresh);
		assert_non_null(p[i]);
		assert_true(fat_in_pool(p[i]));
		assert_int_equal((uintptr_t)p[i] % 16, 0);
		assert_true(fat_usable(p[i]) >= n);
		assert_int_equal(fat_hdr_of(p[i])->magic, FAT_MAGIC_LIVE);
		memset(p[i], i, n);
	}
	for (int i = 0; i < 200; i++) {
		unsigned char *c = p[i];

		for (size_t j = 0; j < (size_t)i * 53 + 1; j++)
			assert_int_equal(c[j], (unsigned char)i);
	}
	/* freed blocks come back before new memory is bumped */
	void *again = p[7];
	fat_dealloc(p[7]);
	assert_int_equal(fat_hdr_of(again)->magic, FAT_MAGIC_FREE);
	assert_ptr_equal(fat_alloc(7 * 53 + 1, 0, &fresh), again);
	for (int i = 0; i < 200; i++)
		fat_dealloc(p[i]);
	assert_int_equal(fat_stat_get("mallocs"), 201);
	assert_int_equal(fat_stat_get("frees"), 201);	/* p[7] twice: freed, served again, freed */
	assert_int_equal(fat_stat_get("bytes_allocated"), 0);
	assert_true(fat_stat_get("bytes_allocated_peak") > 200 * 53);
	assert_string_equal(fat_backing_name(), "thp");
	assert_true(fat_owns(again));
	assert_false(fat_owns(&fresh));
}

static void test_aligned(void **state)
{
	bool fresh;

	(void)state;
	for (size_t align = 32; align <= 2 * MiB; align *= 2) {
		void *p = fat_alloc(100, align, &fresh), *q = fat_alloc(align * 3 + 5, align, &fresh);

		assert_non_null(p);
		assert_non_null(q);
		assert_int_equal((uintptr_t)p % align, 0);
		assert_int_equal((uintptr_t)q % align, 0);
		assert_true(fat_usable(p) >= 100);
		assert_true(fat_usable(q) >= align * 3 + 5);
		memset(q, 1, align * 3 + 5);
		memset(p, 2, 100);
		fat_dealloc(p);
		fat_dealloc(q);
	}
	/* the API's rules on bad and odd alignments */
	void *p = NULL;
	assert_int_equal(fat_posix_memalign(&p, 48, 10), EINVAL);
	assert_null(p);
	p = fat_memalign(48, 10);	/* rounds up to 64, as glibc */
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % 64, 0);
	fat_free(p);
}

static void test_calloc_reused(void **state)
{
	static const size_t sizes[] = { 10, 500, 5000, 100000, 3 * MiB };

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *p = fat_malloc(sizes[i]), *q;

		memset(p, 0xff, fat_usable(p));
		fat_free(p);
		q = fat_calloc(1, sizes[i]);
		assert_ptr_equal(q, p);	/* the same block, dirty: calloc must clear it */
		for (size_t j = 0; j < sizes[i]; j++)
			assert_int_equal(q[j], 0);
		fat_free(q);
	}
	errno = 0;
	assert_null(fat_calloc(SIZE_MAX / 2, 3));
	assert_int_equal(errno, ENOMEM);
}

static void test_realloc_paths(void **state)
{
	unsigned char *p, *q;

	(void)state;
	p = fat_malloc(100);
	memset(p, 7, 100);
	assert_ptr_equal(fat_realloc(p, 90), p);	/* small shrink: in place */
	q = fat_realloc(p, 1000);
	assert_ptr_not_equal(q, p);
	for (int i = 0; i < 90; i++)
		assert_int_equal(q[i], 7);
	/* a large block at the pool's top grows where it is */
	p = fat_malloc(2 * MiB);
	memset(p, 3, 2 * MiB);
	assert_ptr_equal(fat_realloc(p, 5 * MiB), p);
	assert_true(fat_usable(p) >= 5 * MiB);
	memset(p + 2 * MiB, 4, 3 * MiB);
	/* and gives a long tail back when it shrinks */
	assert_ptr_equal(fat_realloc(p, 1 * MiB + 1), p);
	assert_true(fat_usable(p) < 2 * MiB);
	for (size_t i = 0; i < MiB; i++)
		assert_int_equal(p[i], 3);
	assert_null(fat_realloc(q, 0));	/* frees, as glibc */
	fat_free(p);
}

static void test_large_coalescing(void **state)
{
	void *p[6];
	size_t ranges, bytes;
	bool fresh;

	(void)state;
	for (int i = 0; i < 6; i++)
		assert_non_null(p[i] = fat_alloc(MiB + 1000, 0, &fresh));
	fat_large_count(&ranges, &bytes);
	assert_int_equal(ranges, 0);
	fat_dealloc(p[1]);
	fat_dealloc(p[3]);
	fat_large_count(&ranges, &bytes);
	assert_int_equal(ranges, 2);
	fat_dealloc(p[2]);	/* joins both neighbours */
	fat_large_count(&ranges, &bytes);
	assert_int_equal(ranges, 1);
	assert_true(bytes >= 3 * (MiB + 1000));
	/* the joined range serves a block bigger than any one of them */
	void *big = fat_alloc(3 * MiB, 0, &fresh);
	assert_false(fresh);
	assert_true((char *)big >= (char *)p[1] && (char *)big < (char *)p[4]);
	fat_dealloc(big);
	for (int i = 0; i < 6; i += i == 0 ? 4 : 1)
		fat_dealloc(p[i]);
	fat_large_count(&ranges, &bytes);
	assert_int_equal(ranges, 1);
}

static void test_pool_growth_and_fallback(void **state)
{
	void *p[64];
	int in_pool = 0, fallback = 0;

	(void)state;
	reset_with("4M", "3", NULL);
	for (int i = 0; i < 64; i++) {
		p[i] = fat_malloc(300000);
		assert_non_null(p[i]);
		memset(p[i], i, 300000);
		if (fat_in_pool(p[i]))
			in_pool++;
		else
			fallback++;
	}
	/* three 4 MiB pools hold 13 blocks each at most; the rest is the system's */
	assert_int_equal(fat_stat_get("pools"), 3);
	assert_true(in_pool >= 30 && in_pool <= 40);
	assert_int_equal(fat_stat_get("fallback_allocs"), fallback);
	for (int i = 0; i < 64; i++)
		fat_free(p[i]);
	assert_int_equal(fat_stat_get("foreign_frees"), fallback);
	/* a block bigger than a pool gets a pool of its own (while pools are left) */
	reset_with("4M", "2", NULL);
	void *big = fat_malloc(10 * MiB);
	assert_true(fat_in_pool(big));
	assert_int_equal(fat_stat_get("pools"), 1);
	assert_true(fat_pools[0].size >= 10 * MiB);
	fat_free(big);
	reset_with("16M", "4", NULL);
}

static void test_status_file(void **state)
{
	char dir[] = "/tmp/fat-status.XXXXXX", path[128], text[4096];
	const char *keys[] = { "allocator: fat\n", "backing: thp\n", "pool_size: 8388608\n", "pools: 1\n",
			       "max_pools: 4\n", "pool_backings: thp\n", "fallback_allocs: 0\n",
			       "bytes_allocated_peak: ", "backing_note: " };
	ssize_t n;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	reset_with("8M", "4", dir);
	void *p = fat_malloc(10);
	snprintf(path, sizeof(path), "%s/fatalloc-%d.txt", dir, (int)getpid());
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	assert_true(n > 0);
	text[n] = '\0';
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strstr(text, keys[i]))
			fail_msg("'%s' not in the status file:\n%s", keys[i], text);
	fat_free(p);
	unlink(path);
	rmdir(dir);
	reset_with("16M", "4", NULL);
}

static void test_options(void **state)
{
	char *env[] = { "TIERLAB_FAT_POOL=3M", "TIERLAB_FAT_MAX_POOLS=0", "TIERLAB_FAT_BACKING=hugetlb-2M",
			"TIERLAB_FAT_VERBOSE=1", "TIERLAB_OUT=/x", NULL };
	char *bad[] = { "TIERLAB_FAT_POOL=lots", "TIERLAB_FAT_BACKING=gigantic", "TIERLAB_FAT_VERBOSE=yes",
			"TIERLAB_FAT_TRIM=some", NULL };
	char *trim_off[] = { "TIERLAB_FAT_TRIM=off", NULL }, *trim_8m[] = { "TIERLAB_FAT_TRIM=8M", NULL };
	struct fat_options o;

	(void)state;
	fat_options_load(env, &o);
	assert_int_equal(o.pool_size, 4 * MiB);	/* rounded up to 2 MiB */
	assert_int_equal(o.max_pools, 16);	/* 0 refused: the default stays */
	assert_int_equal(o.first, FAT_BACKING_HUGETLB_2M);
	assert_true(o.verbose);
	assert_string_equal(o.out, "/x");
	fat_options_load(bad, &o);
	assert_int_equal(o.pool_size, 1024 * MiB);
	assert_int_equal(o.first, FAT_BACKING_HUGETLB_1G);
	assert_false(o.verbose);
	assert_string_equal(o.out, "");
	assert_int_equal(o.trim, 64 * MiB);
	fat_options_load(trim_off, &o);
	assert_int_equal(o.trim, SIZE_MAX);
	fat_options_load(trim_8m, &o);
	assert_int_equal(o.trim, 8 * MiB);
}

/* Runs f in a child; returns its status (the sanitizers must not see our abort as theirs). */
static int in_child(void (*f)(void))
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		f();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return status;
}

static void double_free(void)
{
	void *p = fat_malloc(40);

	fat_free(p);
	fat_free(p);
}

static void stray_free(void)
{
	char *p = fat_malloc(4000);

	fat_free(p + 64);	/* in the pool, not a block */
}

static void test_bad_frees_abort(void **state)
{
	int st;

	(void)state;
	st = in_child(double_free);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	st = in_child(stray_free);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
}

#define T 4
#define BLOCKS 2000
static void *handoff[T][BLOCKS];
static pthread_barrier_t bar;

static void *worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;

	for (int r = 0; r < 10; r++) {
		for (int i = 0; i < BLOCKS; i++) {
			size_t n = (size_t)((i * 7 + r + t) % 3000) + 1;

			handoff[t][i] = fat_malloc(n);
			memset(handoff[t][i], (int)t, n);
		}
		pthread_barrier_wait(&bar);
		for (int i = 0; i < BLOCKS; i++) {
			unsigned o = (t + 1) % T;
			unsigned char *c = handoff[o][i];

			if (c[0] != o)
				abort();
			fat_free(c);
		}
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

static void test_threads_handoff(void **state)
{
	pthread_t th[T];

	(void)state;
	pthread_barrier_init(&bar, NULL, T);
	for (unsigned t = 0; t < T; t++)
		pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t);
	for (unsigned t = 0; t < T; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&bar);
	/* the threads' caches went back at exit; everything is accounted for */
	assert_int_equal(fat_stat_get("bytes_allocated"), 0);
	assert_int_equal(fat_stat_get("mallocs"), fat_stat_get("frees"));
	/* recycling, not growth: 10 rounds fit in little more than one round's memory */
	assert_true(fat_stat_get("pool_bytes_used") < 4 * (long long)T * BLOCKS * 1600);
}

/* Central lists move whole batches: spilled runs come back chained, newest first, none lost. */
static void test_central_batches(void **state)
{
	enum { CLS = 3 };
	struct fat_bin bin = { 0 }, got = { 0 };
	static const uint32_t runs[] = { 5, 7, 9 };
	void *blocks[21], *seen[32];
	unsigned k = 0, n = 0;

	(void)state;
	/* all first: an allocation would refill the thread's bin from the central list */
	for (k = 0; k < 21; k++)
		assert_non_null(blocks[k] = fat_alloc(fat_class_size(CLS) - FAT_HDR, 0, &(bool){ 0 }));
	k = 0;
	for (size_t r = 0; r < 3; r++) {
		for (uint32_t i = 0; i < runs[r]; i++, k++) {
			*(void **)blocks[k] = bin.head;
			bin.head = blocks[k];
			bin.count++;
		}
		fat_bin_spill(&bin, CLS, bin.count);
		assert_null(bin.head);
		assert_int_equal(bin.count, 0);
	}
	/* ten asked: the newest batch (9) is short of it, the next (7) is taken whole too */
	assert_int_equal(fat_central_take(&got, CLS, 10), 16);
	assert_int_equal(got.count, 16);
	for (void *p = got.head; p; p = *(void **)p) {
		assert_true(n < 16);
		for (unsigned i = 0; i < n; i++)
			assert_ptr_not_equal(seen[i], p);
		seen[n++] = p;
	}
	assert_int_equal(n, 16);
	for (unsigned i = 0; i < 16; i++)	/* the last 16 blocks spilled */
		assert_ptr_equal(seen[i], blocks[20 - i]);
	/* a bin that is not empty takes nothing; the oldest batch is left */
	assert_int_equal(fat_central_take(&got, CLS, 10), 0);
	memset(&got, 0, sizeof(got));
	assert_int_equal(fat_central_take(&got, CLS, 100), 5);
	assert_int_equal(fat_central_take(&bin, CLS, 100), 0);
}

/*
 * mleak's pattern: rounds of short-lived threads, each allocating one small
 * block, passing it on and freeing the one passed to it. Before exited
 * threads' segments were reused, each thread bumped a fresh 1 MiB segment
 * off the pool (1.6 GB for these 1600 threads; the pools here would have
 * overflowed into the system allocator).
 */
#define CHURN_ROUNDS 200
#define CHURN_THREADS 8
static void *_Atomic passed[64];
static _Atomic unsigned churn_seq;

static void *churn_one(void *arg)
{
	unsigned seq = atomic_fetch_add(&churn_seq, 1), slot = (seq * 2654435761u) % 64;
	unsigned char *p = fat_malloc(120), *q;

	(void)arg;
	memset(p, (int)(seq & 0xff), 120);
	p[0] = (unsigned char)slot;
	q = atomic_exchange(&passed[slot], p);
	if (q && q[0] != slot)
		abort();
	fat_free(q);
	return NULL;
}

static void test_threads_come_and_go(void **state)
{
	pthread_t th[CHURN_THREADS];
	long long carved;

	(void)state;
	for (int r = 0; r < CHURN_ROUNDS; r++) {
		for (int t = 0; t < CHURN_THREADS; t++)
			assert_int_equal(pthread_create(&th[t], NULL, churn_one, NULL), 0);
		for (int t = 0; t < CHURN_THREADS; t++)
			pthread_join(th[t], NULL);
	}
	for (int i = 0; i < 64; i++)
		fat_free(atomic_exchange(&passed[i], NULL));
	assert_int_equal(fat_stat_get("fallback_allocs"), 0);
	assert_int_equal(fat_stat_get("bytes_allocated"), 0);
	/* a thread's first segment is 64 KiB: the pool holds little more than one round of them */
	assert_true(fat_stat_get("pool_bytes_used") <= 2 * CHURN_THREADS * 65536);
	/* segments came from what exited threads left: few were bumped off the pool */
	carved = fat_stat_get("segments") - fat_stat_get("segments_reused");
	assert_true(carved <= 2 * CHURN_THREADS);
	assert_true(fat_stat_get("segments_reused") > 0);
}

/* Pages of [p, p + len) that are resident, from the first page boundary on. */
static size_t resident(void *p, size_t len)
{
	size_t pages = len / 4096, n = 0;
	unsigned char *vec = malloc(pages);

	p = (void *)(((uintptr_t)p + 4095) & ~(uintptr_t)4095);
	assert_int_equal(mincore(p, len, vec), 0);
	for (size_t i = 0; i < pages; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

static void test_free_tail_trimmed(void **state)
{
	char *small, *big[8];
	long long used;
	bool fresh;

	(void)state;
	setenv("TIERLAB_FAT_TRIM", "8M", 1);
	reset_with("64M", "2", NULL);
	small = fat_malloc(100);
	for (int i = 0; i < 8; i++) {
		assert_non_null(big[i] = fat_alloc(3 * MiB, 0, &fresh));
		assert_true(fresh);
		memset(big[i], 0x5a, 3 * MiB);
	}
	used = fat_stat_get("pool_bytes_used");
	assert_true(used >= 24 * (long long)MiB);
	assert_int_equal(resident(big[2], 2 * MiB), 512);	/* written: all of it in memory */
	/* freed from the top down: the tail grows past 8 MiB at the third */
	fat_free(big[7]);
	fat_free(big[6]);
	assert_int_equal(fat_stat_get("trims"), 0);
	fat_free(big[5]);
	assert_int_equal(fat_stat_get("trims"), 1);
	/* freed out of order: coalesced into the tail, given back again */
	fat_free(big[1]);
	fat_free(big[3]);
	fat_free(big[2]);
	assert_int_equal(fat_stat_get("trims"), 1);	/* a hole below the top is kept */
	fat_free(big[4]);
	assert_int_equal(fat_stat_get("trims"), 2);
	assert_true(fat_stat_get("bytes_trimmed") >= 20 * (long long)MiB);
	/* the top came down to the first 2 MiB boundary past big[0] (which ends at 3 MiB + 64 KiB) */
	assert_int_equal(fat_stat_get("pool_bytes_used"), 4 * (long long)MiB);
	assert_int_equal(fat_stat_get("pool_bytes_used"), used - fat_stat_get("bytes_trimmed"));
	/* gone from memory, whole 2 MiB pages of it */
	assert_int_equal(resident(big[4], 2 * MiB), 0);
	assert_int_equal(resident((char *)(((uintptr_t)big[3] + 2 * MiB - 1) & ~(2 * MiB - 1)), 2 * MiB), 0);
	/* and zero when bumped again: calloc's shortcut still holds above the top */
	unsigned char *again = fat_alloc(6 * MiB, 0, &fresh);
	assert_non_null(again);
	if (fresh)
		for (size_t i = 0; i < 6 * MiB; i += 4096)
			assert_int_equal(again[i], 0);
	fat_free(again);
	fat_free(big[0]);
	fat_free(small);
	unsetenv("TIERLAB_FAT_TRIM");
	reset_with("16M", "4", NULL);
}

static void test_free_tail_kept(void **state)
{
	void *p;

	(void)state;
	/* off: nothing goes back, however big the tail */
	setenv("TIERLAB_FAT_TRIM", "off", 1);
	reset_with("64M", "2", NULL);
	p = fat_malloc(40 * MiB);
	memset(p, 1, 40 * MiB);
	fat_free(p);
	assert_int_equal(fat_stat_get("trims"), 0);
	assert_true(resident(p, 40 * MiB) > 0);
	/* a tail under the bound stays too, and a whole pool's tail goes back to its front */
	setenv("TIERLAB_FAT_TRIM", "32M", 1);
	reset_with("64M", "2", NULL);
	p = fat_malloc(20 * MiB);
	fat_free(p);
	assert_int_equal(fat_stat_get("trims"), 0);
	p = fat_malloc(40 * MiB);
	memset(p, 1, 40 * MiB);
	fat_free(p);
	assert_int_equal(fat_stat_get("trims"), 1);
	assert_int_equal(fat_stat_get("pool_bytes_used"), 0);
	assert_int_equal(atomic_load(&fat_pools[0].top), 0);
	unsetenv("TIERLAB_FAT_TRIM");
	reset_with("16M", "4", NULL);
}

/* A block longer than the bound gives its pages back when freed below the top; a shorter one keeps them. */
static void test_big_block_released(void **state)
{
	char *small, *big, *mid, *above, *again;
	long long used;
	bool fresh;

	(void)state;
	setenv("TIERLAB_FAT_TRIM", "8M", 1);
	reset_with("64M", "2", NULL);
	small = fat_malloc(100);
	big = fat_alloc(20 * MiB, 0, &fresh);
	mid = fat_alloc(3 * MiB, 0, &fresh);
	above = fat_alloc(3 * MiB, 0, &fresh);	/* neither is the tail */
	memset(big, 1, 20 * MiB);
	memset(mid, 2, 3 * MiB);
	memset(above, 3, 3 * MiB);
	used = fat_stat_get("pool_bytes_used");
	fat_free(mid);
	assert_int_equal(fat_stat_get("bytes_released"), 0);
	assert_int_equal(resident(mid + 4096, MiB), 256);
	fat_free(big);
	assert_int_equal(fat_stat_get("trims"), 0);
	assert_true(fat_stat_get("bytes_released") >= 16 * (long long)MiB);
	assert_int_equal(resident(big + 2 * MiB, 16 * MiB), 0);
	assert_int_equal(fat_stat_get("pool_bytes_used"), used);	/* the top stays */
	/* the range is reused, first fit, and works as memory again */
	again = fat_alloc(10 * MiB, 0, &fresh);
	assert_false(fresh);
	assert_true(again >= big && again < big + 20 * MiB);
	memset(again, 4, 10 * MiB);
	for (size_t i = 0; i < 3 * MiB; i += 4096)
		assert_int_equal(above[i], 3);
	fat_free(again);
	fat_free(above);
	fat_free(small);
	unsetenv("TIERLAB_FAT_TRIM");
	reset_with("16M", "4", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test_setup(test_bounds_and_reuse, setup),
		cmocka_unit_test_setup(test_aligned, setup),
		cmocka_unit_test_setup(test_calloc_reused, setup),
		cmocka_unit_test_setup(test_realloc_paths, setup),
		cmocka_unit_test_setup(test_large_coalescing, setup),
		cmocka_unit_test_setup(test_pool_growth_and_fallback, setup),
		cmocka_unit_test_setup(test_status_file, setup),
		cmocka_unit_test(test_options),
		cmocka_unit_test_setup(test_bad_frees_abort, setup),
		cmocka_unit_test_setup(test_threads_handoff, setup),
		cmocka_unit_test_setup(test_central_batches, setup),
		cmocka_unit_test_setup(test_threads_come_and_go, setup),
		cmocka_unit_test_setup(test_free_tail_trimmed, setup),
		cmocka_unit_test_setup(test_free_tail_kept, setup),
		cmocka_unit_test_setup(test_big_block_released, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
