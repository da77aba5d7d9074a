/*
 * The allocator test suite: one program, run unchanged against each
 * allocator (glibc as linked, jemalloc and libfatalloc through LD_PRELOAD;
 * tests/cli/alloc-suite.sh runs all three). It checks only what glibc's
 * documentation promises and every allocator keeps: sizes from 0 to 64 MiB
 * (odd ones too) with every usable byte writable and kept, alignments from
 * 8 to 1 MiB through every aligned entry point, realloc up and down with
 * the data kept, calloc zeroing (of reused blocks too), usable size, errno
 * on failure, blocks freed on another thread than the one that allocated
 * them, and fork with the child using what it inherited.
 *
 * It first says which allocator answers malloc (libfatalloc exports
 * fat_owns; the preload must really be in charge, not just loaded), so a
 * run that silently fell back to glibc cannot pass as a fat run:
 * ALLOC_SUITE_EXPECT=fat|jemalloc|glibc makes that a failing check.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MiB ((size_t)1 << 20)

/* Volatile sizes keep the compiler from judging the calls at build time. */
static volatile size_t huge_size = SIZE_MAX - 4096;
/* Called through pointers, so the compiler cannot call the block dead after a failed realloc. */
static void *(*volatile realloc_fn)(void *, size_t) = realloc;
static void *(*volatile reallocarray_fn)(void *, size_t, size_t) = reallocarray;

static const char *allocator;	/* which_allocator()'s answer */

/* Whether the allocator that serves malloc also defines name (jemalloc has no pvalloc). */
static bool same_object_as_malloc(const char *name)
{
	Dl_info a, b;
	void *m = dlsym(RTLD_DEFAULT, "malloc"), *f = dlsym(RTLD_DEFAULT, name);

	if (!m || !f || !dladdr(m, &a) || !dladdr(f, &b))
		return false;
	return a.dli_fbase == b.dli_fbase;
}

/* Where an allocator is known to leave errno alone on failure: said, not failed. */
static const struct {
	const char *allocator, *call;
} errno_deviations[] = {
	{ "jemalloc", "realloc" }, { "jemalloc", "memalign" }, { "jemalloc", "valloc" },
};

static void expect_enomem(const char *call)
{
	int e = errno;

	if (e == ENOMEM)
		return;
	for (size_t i = 0; i < sizeof(errno_deviations) / sizeof(errno_deviations[0]); i++)
		if (!strcmp(allocator, errno_deviations[i].allocator) && !strcmp(call, errno_deviations[i].call)) {
			printf("note: %s: failed %s left errno %d, not ENOMEM (known deviation)\n", allocator, call, e);
			return;
		}
	fail_msg("%s failed with errno %d, expected ENOMEM (%d)", call, e, ENOMEM);
}

/*
 * The pattern differs from word to word and from block to block (seed), so
 * an overlap or a lost copy shows. It is written and checked a word at a
 * time (8 times fewer steps than bytes: the suite stays fast on 64 MiB
 * blocks and under valgrind); byte i is byte i % 8 of word i / 8, the
 * order a little-endian store puts it in.
 */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the pattern assumes little-endian words");

static uint64_t word_pattern(size_t w, unsigned seed)
{
	return (w + 1) * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)seed + 1) * 0xff51afd7ed558ccdULL;
}

static unsigned char pattern(size_t i, unsigned seed)
{
	return (unsigned char)(word_pattern(i / 8, seed) >> (8 * (i % 8)));
}

static void fill(void *p, size_t n, unsigned seed)
{
	unsigned char *c = p;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v = word_pattern(i / 8, seed);

		memcpy(c + i, &v, 8);
	}
	for (; i < n; i++)
		c[i] = pattern(i, seed);
}

/* Index of the first byte that differs from the pattern, or n. */
static size_t check(const void *p, size_t n, unsigned seed)
{
	const unsigned char *c = p;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, c + i, 8);
		if (v != word_pattern(i / 8, seed))
			break;
	}
	for (; i < n; i++)
		if (c[i] != pattern(i, seed))
			return i;
	return n;
}

static size_t natural_align(size_t size)
{
	/* malloc's promise: aligned for any object that fits */
	return size >= 16 ? 16 : size >= 8 ? 8 : 1;
}

static void test_sizes(void **state)
{
	static const size_t sizes[] = {
		0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 33, 47, 63, 64, 65, 100, 127, 128, 129, 255, 257,
		511, 1000, 1023, 1025, 2047, 4095, 4096, 4097, 8191, 12345, 32767, 32768, 65519, 65520,
		65521, 65536, 65537, 99999, 131071, 262145, 524287, 1048575, 1048576, 1048577, 3 * MiB + 5,
		8 * MiB - 1, 16 * MiB + 7, 64 * MiB
	};
	void *p[N(sizes)];

	(void)state;
	for (size_t i = 0; i < N(sizes); i++) {
		size_t us;

		p[i] = malloc(sizes[i]);
		assert_non_null(p[i]);
		assert_int_equal((uintptr_t)p[i] % natural_align(sizes[i]), 0);
		us = malloc_usable_size(p[i]);
		assert_true(us >= sizes[i]);
		fill(p[i], us, (unsigned)i);
	}
	/* every block intact after all were written: none overlaps another */
	for (size_t i = 0; i < N(sizes); i++) {
		assert_int_equal(check(p[i], malloc_usable_size(p[i]), (unsigned)i), malloc_usable_size(p[i]));
		free(p[i]);
	}
	/* again, freeing in the other order first, so reuse is exercised */
	for (size_t i = 0; i < N(sizes); i++)
		p[i] = malloc(sizes[i]);
	for (size_t i = N(sizes); i-- > 0;) {
		assert_non_null(p[i]);
		fill(p[i], sizes[i], (unsigned)i + 1);
	}
	for (size_t i = 0; i < N(sizes); i++) {
		assert_int_equal(check(p[i], sizes[i], (unsigned)i + 1), sizes[i]);
		free(p[i]);
	}
	free(NULL);
	assert_int_equal(malloc_usable_size(NULL), 0);
}

static void test_distinct_zero_size(void **state)
{
	void *a = malloc(0), *b = malloc(0);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	free(a);
	free(b);
}

static void test_alignments(void **state)
{
	static const size_t sizes[] = { 1, 24, 100, 4096, 100000, 3 * MiB };
	size_t page = (size_t)getpagesize();

	(void)state;
	for (size_t align = 8; align <= MiB; align *= 2) {
		for (size_t s = 0; s < N(sizes); s++) {
			size_t size = sizes[s];
			void *p = NULL, *q, *r;

			assert_int_equal(posix_memalign(&p, align, size), 0);
			assert_non_null(p);
			assert_int_equal((uintptr_t)p % align, 0);
			assert_true(malloc_usable_size(p) >= size);
			fill(p, size, (unsigned)align);

			/* C11: the size a multiple of the alignment */
			q = aligned_alloc(align, (size + align - 1) / align * align);
			assert_non_null(q);
			assert_int_equal((uintptr_t)q % align, 0);
			fill(q, size, 3);

			r = memalign(align, size);
			assert_non_null(r);
			assert_int_equal((uintptr_t)r % align, 0);
			fill(r, size, 5);

			assert_int_equal(check(p, size, (unsigned)align), size);
			assert_int_equal(check(q, size, 3), size);
			assert_int_equal(check(r, size, 5), size);
			/* an aligned block reallocates like any other */
			p = realloc(p, size * 2 + 1);
			assert_non_null(p);
			assert_int_equal(check(p, size, (unsigned)align), size);
			free(p);
			free(q);
			free(r);
		}
	}
	/*
	 * glibc's pvalloc on another allocator's heap would be a crash, not a
	 * test; valgrind's replacement aborts on purpose
	 */
	if (!same_object_as_malloc("pvalloc") || !strcmp(allocator, "valgrind")) {
		printf("note: %s does not define pvalloc: pvalloc not tested\n", allocator);
		return;
	}
	for (size_t s = 0; s < N(sizes); s++) {
		void *v = valloc(sizes[s]), *pv = pvalloc(sizes[s]);

		assert_non_null(v);
		assert_non_null(pv);
		assert_int_equal((uintptr_t)v % page, 0);
		assert_int_equal((uintptr_t)pv % page, 0);
		assert_true(malloc_usable_size(v) >= sizes[s]);
		/* pvalloc rounds the size up to whole pages */
		assert_true(malloc_usable_size(pv) >= (sizes[s] + page - 1) / page * page);
		fill(v, sizes[s], 1);
		fill(pv, (sizes[s] + page - 1) / page * page, 2);
		free(v);
		free(pv);
	}
}

static void test_realloc_keeps_data(void **state)
{
	static const size_t steps[] = { 1, 13, 64, 200, 4000, 70000, 1 * MiB + 3, 5 * MiB, 40 * MiB + 1 };
	unsigned char *p = realloc(NULL, 10);
	size_t have = 10;

	(void)state;
	assert_non_null(p);
	fill(p, have, 9);
	/* up: every step keeps what was there and the new tail is writable */
	for (size_t i = 0; i < N(steps); i++) {
		size_t want = have + steps[i];

		p = realloc(p, want);
		assert_non_null(p);
		assert_int_equal(check(p, have, 9), have);
		for (size_t j = have; j < want; j++)
			p[j] = pattern(j, 9);
		have = want;
	}
	/* down, to a few bytes */
	while (have > 3) {
		have = have / 3;
		p = realloc(p, have);
		assert_non_null(p);
		assert_true(malloc_usable_size(p) >= have);
		assert_int_equal(check(p, have, 9), have);
	}
	free(p);

	/* many blocks growing in turns (no block can just extend into free space) */
	{
		unsigned char *b[16] = { 0 };
		size_t n[16] = { 0 };

		for (int round = 0; round < 12; round++)
			for (int k = 0; k < 16; k++) {
				size_t want = n[k] * 2 + 24 + (size_t)k;

				b[k] = realloc(b[k], want);
				assert_non_null(b[k]);
				assert_int_equal(check(b[k], n[k], (unsigned)k), n[k]);
				fill(b[k], want, (unsigned)k);
				n[k] = want;
			}
		for (int k = 0; k < 16; k++)
			free(b[k]);
	}

	/* reallocarray: the product, checked */
	p = reallocarray(NULL, 100, 7);
	assert_non_null(p);
	fill(p, 700, 4);
	p = reallocarray(p, 300, 7);
	assert_non_null(p);
	assert_int_equal(check(p, 700, 4), 700);
	free(p);
}

static void test_calloc_zeroes(void **state)
{
	static const size_t sizes[] = { 1, 16, 100, 1000, 4096, 50000, 70000, 300000, 2 * MiB, 9 * MiB };
	unsigned char *p[N(sizes)];

	(void)state;
	/* dirty blocks first, freed, so calloc may well get them back */
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < N(sizes); i++) {
			p[i] = malloc(sizes[i]);
			assert_non_null(p[i]);
			memset(p[i], 0xa5, malloc_usable_size(p[i]));
		}
		for (size_t i = 0; i < N(sizes); i++)
			free(p[i]);
		for (size_t i = 0; i < N(sizes); i++) {
			p[i] = calloc(sizes[i], 1);
			assert_non_null(p[i]);
			for (size_t j = 0; j < sizes[i]; j++)
				if (p[i][j])
					fail_msg("calloc(%zu) byte %zu is %#x", sizes[i], j, p[i][j]);
		}
		for (size_t i = 0; i < N(sizes); i++) {
			memset(p[i], 0x5a, sizes[i]);
			free(p[i]);
		}
	}
	p[0] = calloc(0, 0);
	assert_non_null(p[0]);
	free(p[0]);
	p[0] = calloc(1000, 3);
	assert_non_null(p[0]);
	for (size_t j = 0; j < 3000; j++)
		assert_int_equal(p[0][j], 0);
	free(p[0]);
}

static void test_errors(void **state)
{
	void *p = (void *)1;

	(void)state;
	/* valgrind's malloc is its own, with its own errno and warnings */
	if (RUNNING_ON_VALGRIND) {
		printf("note: errno checks skipped under valgrind\n");
		skip();
	}
	errno = 0;
	assert_null(malloc(huge_size));
	expect_enomem("malloc");
	errno = 0;
	assert_null(malloc((size_t)1 << 62));
	expect_enomem("malloc");
	errno = 0;
	assert_null(calloc(huge_size, 16));	/* overflows */
	expect_enomem("calloc");
	errno = 0;
	assert_null(calloc((size_t)1 << 31, (size_t)1 << 31));
	expect_enomem("calloc");

	/* a failed realloc leaves the block alone */
	p = malloc(64);
	assert_non_null(p);
	fill(p, 64, 1);
	errno = 0;
	assert_null(realloc_fn(p, huge_size));
	expect_enomem("realloc");
	assert_int_equal(check(p, 64, 1), 64);
	errno = 0;
	assert_null(reallocarray_fn(p, huge_size, 8));
	expect_enomem("reallocarray");
	assert_int_equal(check(p, 64, 1), 64);
	free(p);

	p = (void *)1;
	assert_int_equal(posix_memalign(&p, 3, 64), EINVAL);
	assert_int_equal(posix_memalign(&p, 0, 64), EINVAL);
	assert_int_equal(posix_memalign(&p, 4, 64), EINVAL);	/* not a multiple of sizeof(void *) */
	assert_int_equal(posix_memalign(&p, 24, 64), EINVAL);
	assert_ptr_equal(p, (void *)1);	/* untouched on failure */
	assert_int_equal(posix_memalign(&p, 64, huge_size), ENOMEM);
	errno = 0;
	assert_null(memalign(64, huge_size));
	expect_enomem("memalign");
	errno = 0;
	assert_null(aligned_alloc(4096, (size_t)1 << 62));
	expect_enomem("aligned_alloc");
	errno = 0;
	assert_null(valloc(huge_size));
	expect_enomem("valloc");
}

/* ---- threads --------------------------------------------------------- */

#define THREADS 8
#define PER_ROUND 300
#define ROUNDS (RUNNING_ON_VALGRIND ? 4 : 16)

static void *slots[THREADS][PER_ROUND];
static size_t slot_size[THREADS][PER_ROUND];
static pthread_barrier_t barrier;
static _Atomic int thread_errors;

static size_t thread_size(unsigned t, unsigned r, unsigned i)
{
	unsigned x = t * 2654435761u ^ r * 40503u ^ i * 97u;

	/* mostly small, some medium, a few large */
	return i % 97 == 0 ? 200000 + x % 1300000 : i % 11 == 0 ? 5000 + x % 60000 : 1 + x % 700;
}

static void *thread_main(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;

	for (unsigned r = 0; r < ROUNDS; r++) {
		for (unsigned i = 0; i < PER_ROUND; i++) {
			size_t n = thread_size(t, r, i);

			slots[t][i] = malloc(n);
			slot_size[t][i] = n;
			if (!slots[t][i]) {
				thread_errors++;
				continue;
			}
			fill(slots[t][i], n, t + r);
		}
		pthread_barrier_wait(&barrier);
		/* free the blocks of the next thread: malloc and free on different threads */
		unsigned o = (t + 1 + r) % THREADS;

		for (unsigned i = 0; i < PER_ROUND; i++) {
			if (slots[o][i] && check(slots[o][i], slot_size[o][i], o + r) != slot_size[o][i])
				thread_errors++;
			free(slots[o][i]);
		}
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t th[THREADS];

	(void)state;
	pthread_barrier_init(&barrier, NULL, THREADS);
	for (unsigned t = 0; t < THREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, thread_main, (void *)(uintptr_t)t), 0);
	for (unsigned t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&barrier);
	assert_int_equal(thread_errors, 0);
}

/* ---- fork ------------------------------------------------------------ */

static _Atomic int churn_stop;

static void *churn(void *arg)
{
	(void)arg;
	/* keeps every allocator path busy while the main thread forks */
	while (!churn_stop) {
		void *p[64];

		for (int i = 0; i < 64; i++)
			p[i] = malloc((size_t)(i * 977 % 200000) + 1);
		for (int i = 0; i < 64; i++)
			free(p[i]);
	}
	return NULL;
}

static int child_work(unsigned char **blk, const size_t *sizes, int n)
{
	/* the inherited blocks: intact, freeable, reallocatable */
	for (int i = 0; i < n; i++)
		if (check(blk[i], sizes[i], (unsigned)i) != sizes[i])
			return 10;
	for (int i = 0; i < n; i += 2)
		free(blk[i]);
	for (int i = 1; i < n; i += 2) {
		blk[i] = realloc(blk[i], sizes[i] * 3 + 1);
		if (!blk[i] || check(blk[i], sizes[i], (unsigned)i) != sizes[i])
			return 11;
	}
	for (int i = 0; i < 2000; i++) {
		void *p = malloc((size_t)i * 37 + 1);

		if (!p)
			return 12;
		fill(p, (size_t)i * 37 + 1, 1);
		free(p);
	}
	for (int i = 1; i < n; i += 2)
		free(blk[i]);
	return 0;
}

static void test_fork(void **state)
{
	static const size_t sizes[] = { 1, 48, 1000, 40000, 300000, 3 * MiB, 17, 4096 };
	unsigned char *blk[N(sizes)];
	pthread_t th;

	(void)state;
	for (size_t i = 0; i < N(sizes); i++) {
		blk[i] = malloc(sizes[i]);
		assert_non_null(blk[i]);
		fill(blk[i], sizes[i], (unsigned)i);
	}
	churn_stop = 0;
	assert_int_equal(pthread_create(&th, NULL, churn, NULL), 0);
	for (int k = 0; k < 20; k++) {
		int status;
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (!pid)
			_exit(child_work(blk, sizes, (int)N(sizes)));
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			fail_msg("fork %d: child status %#x", k, status);
	}
	churn_stop = 1;
	pthread_join(th, NULL);
	/* the parent's blocks are its own still */
	for (size_t i = 0; i < N(sizes); i++) {
		assert_int_equal(check(blk[i], sizes[i], (unsigned)i), sizes[i]);
		free(blk[i]);
	}
}

static const char *which_allocator(void)
{
	int (*owns)(const void *) = (int (*)(const void *))dlsym(RTLD_DEFAULT, "fat_owns");
	void *sym = dlsym(RTLD_DEFAULT, "malloc"), *p;
	Dl_info info;
	int ours;

	/* valgrind replaces malloc without changing what dlsym finds */
	if (RUNNING_ON_VALGRIND)
		return "valgrind";
	if (owns) {
		p = malloc(100);
		ours = owns(p);
		free(p);
		return ours ? "fat" : "fat-loaded-but-not-serving";
	}
	if (sym && dladdr(sym, &info) && info.dli_fname) {
		if (strstr(info.dli_fname, "jemalloc"))
			return "jemalloc";
		if (strstr(info.dli_fname, "libc.so"))
			return "glibc";
		return info.dli_fname;
	}
	return "unknown";
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_distinct_zero_size),
		cmocka_unit_test(test_alignments),
		cmocka_unit_test(test_realloc_keeps_data),
		cmocka_unit_test(test_calloc_zeroes),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_fork),
	};
	const char *who = allocator = which_allocator(), *want = getenv("ALLOC_SUITE_EXPECT");

	printf("allocator: %s\n", who);
	fflush(stdout);
	if (want && strcmp(want, who)) {
		fprintf(stderr, "alloc-suite: expected allocator '%s', malloc is served by '%s'\n", want, who);
		return 1;
	}
	return cmocka_run_group_tests_name(who, tests, NULL, NULL);
}
