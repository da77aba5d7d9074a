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
 * warnings, double free and stray pointers aborting, and threads freeing
 * each other's blocks (spilling through the central lists).
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
	char *bad[] = { "TIERLAB_FAT_POOL=lots", "TIERLAB_FAT_BACKING=gigantic", "TIERLAB_FAT_VERBOSE=yes", NULL };
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
