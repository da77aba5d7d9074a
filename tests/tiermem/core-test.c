/*
 * The runtime core linked directly (no malloc interposer), driven through
 * its tlrt_* entry points: placement by the policy, samples, hits and
 * misses, migrations in all four directions with bytes counted as bytes
 * (a move's, the pages present on the tier it left),
 * the budget never exceeded (refusals counted), the dynamic percentage,
 * resize, free and id reuse, fork, the files, and threads. Built plain (a
 * cmocka unit test), with ASan+UBSan and with TSan (tiermem-sanitize.sh).
 *
 * The runtime's state is per process, so each scenario runs in a child
 * with its own environment; the child reports the first failed check.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
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

#include "tiermem/rt.h"
#include "tiermem/sampler-fault.h"

#define MiB (1UL << 20)
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); _exit(1); } } while (0)

static char outdir[256];

/* The test's variables; extras (up to 4, NULL-terminated) come first, so they override the defaults. */
static void setup_envl(const char *const *extra)
{
	static char out[300];
	char *env[16];
	int n = 0;

	snprintf(out, sizeof(out), "TIERLAB_OUT=%s", outdir);
	for (int i = 0; i < 4 && extra[i]; i++)
		env[n++] = (char *)extra[i];
	env[n++] = "TIERLAB_POLICY=" TEST_POLICY;
	env[n++] = "TIERLAB_FAST_NODES=0";
	env[n++] = "TIERLAB_SLOW_NODES=0";
	env[n++] = "TIERLAB_SAMPLER=none";
	env[n++] = "TIERLAB_LOG=log";
	env[n++] = out;
	env[n] = NULL;
	CHECK(tlrt_setup(env) == 0);
}
#define setup_env(...) setup_envl((const char *const[]){ __VA_ARGS__, NULL })

static void sample(const void *p)
{
	struct rt_sample s = { .t_ns = tlrt_now_ns(), .addr = (uintptr_t)p, .pc = 0x1234, .tid = 1 };

	tlrt_deliver(&s);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i += 512)
		p[i] = (unsigned char)(seed + i / 512);
}

static int intact(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i += 512)
		if (p[i] != (unsigned char)(seed + i / 512))
			return 0;
	return 1;
}

/* Runs fn in a child; the test fails with the child's first failed check. */
static void in_child(void (*fn)(void))
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();		/* the child said why */
	assert_int_equal(WEXITSTATUS(st), 0);
}

static uint64_t counter_in_file(pid_t pid, const char *name, uint32_t *complete)
{
	char path[512], buf[4096];
	struct rt_counters_header h;
	FILE *f;
	size_t n;
	const char *s;

	snprintf(path, sizeof(path), "%s/tiermem-%d.counters", outdir, (int)pid);
	f = fopen(path, "rb");
	CHECK(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	CHECK(n > sizeof(h));
	memcpy(&h, buf, sizeof(h));
	CHECK(!memcmp(h.magic, RT_COUNTERS_MAGIC, 8) && h.nstats == RT_STAT__COUNT);
	*complete = h.complete;
	s = buf + h.header_size + h.nstats * 8;
	for (uint32_t i = 0; i < h.nstats; i++, s += strlen(s) + 1)
		if (!strcmp(s, name)) {
			uint64_t v;

			memcpy(&v, buf + h.header_size + i * 8, 8);
			return v;
		}
	CHECK(0);
	return 0;
}

static void basic(void)
{
	unsigned char *p, *q, *r;

	setup_env("TIERLAB_CHUNKS=4", "TIERLAB_SAMPLER=none");
	CHECK(tlrt_state() == TLRT_READY);
	p = tlrt_alloc(9 * MiB, 0, 0x42);
	CHECK(p && tlrt_owns(p) && tlrt_state() == TLRT_ACTIVE);
	CHECK((uintptr_t)p % (2 * MiB) == 0);
	CHECK(tlrt_usable_size(p) == 9 * MiB);
	CHECK(tlrt_budget() == 4);
	/* the test policy starts even chunks fast: 0, 2, 4 (the last one 1 MiB) */
	for (int i = 0; i < 5; i++)
		CHECK(tlrt_tier_of(p + i * 2 * MiB) == (i % 2 == 0 ? TLP_FAST : TLP_SLOW));
	CHECK(tlrt_fast_chunks() == 3);
	CHECK(tlrt_stat(RT_STAT_allocs) == 1);
	CHECK(tlrt_stat(RT_STAT_mig_initial_fast) == 3 && tlrt_stat(RT_STAT_bytes_initial_fast) == 5 * MiB);
	CHECK(tlrt_stat(RT_STAT_mig_initial_slow) == 2 && tlrt_stat(RT_STAT_bytes_initial_slow) == 4 * MiB);
	fill(p, 9 * MiB, 3);

	q = tlrt_alloc(3 * MiB, 4 * MiB, 0x43);
	CHECK(q && (uintptr_t)q % (4 * MiB) == 0);
	CHECK(tlrt_tier_of(q) == TLP_FAST && tlrt_tier_of(q + 2 * MiB) == TLP_SLOW);
	CHECK(tlrt_fast_chunks() == 4);
	fill(q, 3 * MiB, 5);

	/* a miss in a slow chunk: the policy demotes its LRU tail and promotes */
	sample(p + 2 * MiB + 100);
	tlrt_process_pending();
	CHECK(tlrt_stat(RT_STAT_samples) == 1 && tlrt_stat(RT_STAT_misses) == 1 && tlrt_stat(RT_STAT_hits) == 0);
	CHECK(tlrt_tier_of(p + 2 * MiB) == TLP_FAST);
	CHECK(tlrt_fast_chunks() == 4);
	CHECK(tlrt_stat(RT_STAT_mig_slow_to_fast) == 1 && tlrt_stat(RT_STAT_bytes_slow_to_fast) == 2 * MiB);
	CHECK(tlrt_stat(RT_STAT_mig_fast_to_slow) == 1 && tlrt_stat(RT_STAT_bytes_fast_to_slow) == 2 * MiB);
	CHECK(tlrt_stat(RT_STAT_mig_failed) == 0);
	/* then a hit, and a sample outside managed memory */
	sample(p + 2 * MiB + 200);
	sample(&p);
	tlrt_process_pending();
	CHECK(tlrt_stat(RT_STAT_samples) == 3 && tlrt_stat(RT_STAT_samples_managed) == 2);
	CHECK(tlrt_stat(RT_STAT_hits) == 1);
	/* the partial last chunk counts its own bytes */
	sample(p + 8 * MiB + 5);
	sample(p + 6 * MiB);
	tlrt_process_pending();
	CHECK(tlrt_fast_chunks() <= tlrt_budget());
	CHECK(intact(p, 9 * MiB, 3) && intact(q, 3 * MiB, 5));

	/* resize in place only within the same pages */
	CHECK(tlrt_resize(p, 9 * MiB - 100) == p);
	CHECK(tlrt_usable_size(p) == 9 * MiB);
	CHECK(tlrt_resize(p, 9 * MiB + 100) == NULL);
	CHECK(tlrt_resize(p, 100) == NULL);

	tlrt_free(q);
	CHECK(tlrt_usable_size(q) == 0 && tlrt_tier_of(q) == -1);
	CHECK(tlrt_stat(RT_STAT_frees) == 1);
	/* ids and units are reused */
	r = tlrt_alloc(3 * MiB, 0, 0x44);
	CHECK(r && tlrt_owns(r));
	CHECK(tlrt_stat(RT_STAT_managed_bytes_peak) == 12 * MiB);
	CHECK(tlrt_alloc((size_t)1 << 62, 0, 0) == NULL);
	tlrt_free(r);
	tlrt_free(p);
	CHECK(tlrt_fast_chunks() == 0);
	tlrt_finish();
}

static void check_basic_files(void)
{
	char path[512], line[512];
	uint32_t complete;
	int a = 0, f = 0, s = 0, m = 0, dirs = 0;
	FILE *fp;
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0) {
		basic();
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(counter_in_file(pid, "allocs", &complete) == 3);
	CHECK(complete == 1);
	CHECK(counter_in_file(pid, "bytes_slow_to_fast", &complete) >= 2 * MiB);
	snprintf(path, sizeof(path), "%s/tiermem-%d.log", outdir, (int)pid);
	fp = fopen(path, "r");
	CHECK(fp);
	while (fgets(line, sizeof(line), fp)) {
		CHECK(strchr(line, '\n'));
		a += line[0] == 'A';
		f += line[0] == 'F';
		s += line[0] == 'S';
		m += line[0] == 'M';
		dirs |= strstr(line, "\tinitial-fast\t") ? 1 : strstr(line, "\tinitial-slow\t") ? 2 :
			strstr(line, "\tslow-to-fast\t") ? 4 : strstr(line, "\tfast-to-slow\t") ? 8 : 0;
		if (line[0] == 'A') {
			unsigned long long t, addr, bytes;
			unsigned seq, first, n;

			CHECK(sscanf(line, "A\t%llu\t%u\t%llx\t%llu\t%u\t%u\t", &t, &seq, &addr, &bytes, &first, &n) == 6);
			/* the third allocation reuses the ids the second freed */
			if (seq == 2)
				CHECK(first == 5 && n == 2);
		}
	}
	fclose(fp);
	if (!(a == 3 && f == 3 && s == 5 && dirs == 15 && m >= 9))
		fprintf(stderr, "log of %d: %d A, %d F, %d S, %d M lines, directions 0x%x\n", (int)pid, a, f, s, m, dirs);
	CHECK(a == 3 && f == 3 && s == 5 && dirs == 15 && m >= 9);
}

static void test_basic(void **state)
{
	(void)state;
	in_child(check_basic_files);
}

static void greedy(void)
{
	unsigned char *p;

	setup_env("TIERLAB_CHUNKS=1", "TIERLAB_POLICY_ARGS=greedy");
	p = tlrt_alloc(8 * MiB, 0, 0);
	CHECK(p && tlrt_fast_chunks() == 1);
	for (int i = 1; i < 4; i++)
		sample(p + i * 2 * MiB);
	tlrt_process_pending();
	CHECK(tlrt_stat(RT_STAT_budget_refused) == 3);
	CHECK(tlrt_fast_chunks() == 1);
	tlrt_free(p);
}

static void test_budget_refused(void **state)
{
	(void)state;
	in_child(greedy);
}

/*
 * A move counts the pages it found present and not yet where the chunk
 * goes (on one node, every page present), as the kernel's
 * pgmigrate_success does: a chunk never touched moves nothing,
 * a chunk only read is the shared zero page (on no tier), a chunk touched
 * in 100 of its 512 pages moves 100 (the runtime keeps THP off unless the
 * program asks, so pages are 4 KiB).
 */
static void sparse(void)
{
	const uint64_t page = 4096, partial = 100, few = 10;
	volatile unsigned char *p;
	unsigned char sum = 0;
	uint64_t down;

	setup_env("TIERLAB_CHUNKS=2");
	/* the test policy starts even chunks fast: 0 (full) and 2 (10 pages); 1 and 3 slow */
	p = tlrt_alloc(8 * MiB, 0, 0);
	CHECK(p && tlrt_tier_of((void *)p) == TLP_FAST && tlrt_tier_of((void *)(p + 2 * MiB)) == TLP_SLOW);
	for (uint64_t i = 0; i < 2 * MiB; i += page)
		p[i] = 1;
	for (uint64_t i = 0; i < partial; i++)
		p[2 * MiB + i * page] = 2;
	for (uint64_t i = 0; i < few; i++)
		p[4 * MiB + i * page] = 3;
	for (uint64_t i = 0; i < 50; i++)
		sum += p[6 * MiB + i * page];
	CHECK(sum == 0);

	sample((void *)(p + 2 * MiB));
	tlrt_process_pending();
	CHECK(tlrt_stat(RT_STAT_mig_slow_to_fast) == 1 && tlrt_stat(RT_STAT_bytes_slow_to_fast) == partial * page);
	down = tlrt_stat(RT_STAT_bytes_fast_to_slow);
	CHECK(tlrt_stat(RT_STAT_mig_fast_to_slow) == 1 && (down == 2 * MiB || down == few * page));
	/* only read: zero pages, nothing to move */
	sample((void *)(p + 6 * MiB));
	tlrt_process_pending();
	CHECK(tlrt_tier_of((void *)(p + 6 * MiB)) == TLP_FAST);
	CHECK(tlrt_stat(RT_STAT_mig_slow_to_fast) == 2 && tlrt_stat(RT_STAT_bytes_slow_to_fast) == partial * page);
	CHECK(tlrt_stat(RT_STAT_mig_failed) == 0);
	CHECK(p[0] == 1 && p[2 * MiB + (partial - 1) * page] == 2 && p[4 * MiB] == 3);
	tlrt_free((void *)p);
}

static void test_moves_count_present_pages(void **state)
{
	(void)state;
	in_child(sparse);
}

static void sample_at(const void *p, uint64_t t_ns)
{
	struct rt_sample s = { .t_ns = t_ns, .addr = (uintptr_t)p, .pc = 0x1234, .tid = 1 };

	tlrt_deliver(&s);
}

/*
 * A hit is where the chunk was when the sample was taken, not when the
 * drain reached it: samples queued before a move count the tier the chunk
 * left, a sample dated during the move is a miss (in motion).
 */
static void timed(void)
{
	unsigned char *p, *down;
	const struct tlrt_chunk *c;
	uint64_t before;

	setup_env("TIERLAB_CHUNKS=2");
	/* the test policy starts even chunks fast: 0 and 2; 1 and 3 slow */
	p = tlrt_alloc(8 * MiB, 0, 0);
	CHECK(p && tlrt_tier_of(p + 2 * MiB) == TLP_SLOW);
	fill(p, 8 * MiB, 1);
	before = tlrt_now_ns();
	/* two samples in slow chunk 1 before one drain: the first promotes it, the second was taken before the move */
	sample(p + 2 * MiB);
	sample(p + 2 * MiB + 8);
	tlrt_process_pending();
	CHECK(tlrt_tier_of(p + 2 * MiB) == TLP_FAST);
	CHECK(tlrt_stat(RT_STAT_samples_managed) == 2 && tlrt_stat(RT_STAT_misses) == 2 && tlrt_stat(RT_STAT_hits) == 0);
	/* the chunk that promotion demoted was fast at `before` */
	down = tlrt_tier_of(p) == TLP_SLOW ? p : p + 4 * MiB;
	CHECK(tlrt_tier_of(down) == TLP_SLOW);
	sample_at(down, before);
	tlrt_process_pending();
	CHECK(tlrt_stat(RT_STAT_hits) == 1);
	/* dated inside the promotion's move: a miss, counted as in motion */
	c = &tlrt.chunks[tlrt_chunk_of((uintptr_t)(p + 2 * MiB))];
	CHECK(c->move_start_ns < c->move_end_ns);
	sample_at(p + 2 * MiB, c->move_start_ns + (c->move_end_ns - c->move_start_ns) / 2);
	sample_at(p + 2 * MiB, c->move_end_ns);
	tlrt_process_pending();
	CHECK(tlrt_stat(RT_STAT_samples_in_motion) == 1 && tlrt_stat(RT_STAT_hits) == 2 && tlrt_stat(RT_STAT_misses) == 3);
	CHECK(intact(p, 8 * MiB, 1));
	tlrt_free(p);
}

static void test_hit_at_sample_time(void **state)
{
	(void)state;
	in_child(timed);
}

static void dynamic(void)
{
	unsigned char *p, *q;

	setup_env("TIERLAB_FAST_MEM=50%", "TIERLAB_CHUNK_SIZE=2MiB");
	p = tlrt_alloc(8 * MiB, 0, 0);
	CHECK(p && tlrt_budget() == 2 && tlrt_fast_chunks() == 2);
	q = tlrt_alloc(8 * MiB, 0, 0);
	CHECK(q && tlrt_budget() == 4 && tlrt_fast_chunks() == 4);
	for (int i = 0; i < 4; i++)
		sample(q + i * 2 * MiB);
	tlrt_process_pending();
	CHECK(tlrt_fast_chunks() <= 4);
	tlrt_free(p);
	/* the budget follows the footprint down; the policy demotes in on_budget */
	CHECK(tlrt_budget() == 2 && tlrt_fast_chunks() <= 2);
	tlrt_free(q);
	CHECK(tlrt_budget() == 0 && tlrt_fast_chunks() == 0);
}

static void test_dynamic_budget(void **state)
{
	(void)state;
	in_child(dynamic);
}

static void bad_policy(void)
{
	char *env[] = { "TIERLAB_POLICY=/nonexistent/policy.so", "TIERLAB_FAST_NODES=0",
			"TIERLAB_SLOW_NODES=0", "TIERLAB_SAMPLER=none", "TIERLAB_LOG=none", NULL };

	CHECK(tlrt_setup(env) == 0);
	CHECK(tlrt_alloc(4 * MiB, 0, 0) == NULL);
	CHECK(tlrt_state() == TLRT_PASSIVE);
}

static void test_bad_policy_stands_aside(void **state)
{
	(void)state;
	in_child(bad_policy);
}

static void forked(void)
{
	unsigned char *p;
	pid_t pid;
	int st;

	setup_env("TIERLAB_CHUNKS=2", "TIERLAB_RATE=1kHz");
	p = tlrt_alloc(6 * MiB, 0, 0);
	CHECK(p);
	fill(p, 6 * MiB, 7);
	/*
	 * Fork only once the runtime thread has ticked: GCC 12's ASan does not
	 * hold its allocator's locks across fork, and a thread still in ASan's
	 * thread start (which frees) can leave one locked in the child, where the
	 * child's runtime thread then waits on it forever (seen under gdb).
	 * glibc's malloc takes its locks in fork; the runtime is not the cause.
	 */
	for (int i = 0; i < 500 && !tlrt_stat(RT_STAT_ticks); i++)
		usleep(10000);
	CHECK(tlrt_stat(RT_STAT_ticks));
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		unsigned char *q;

		/* the child's memory works, and its runtime restarts at its next managed allocation */
		CHECK(intact(p, 6 * MiB, 7));
		fill(p, 6 * MiB, 8);
		q = tlrt_alloc(4 * MiB, 0, 0);
		CHECK(q && tlrt_stat(RT_STAT_allocs) == 1);
		sample(q);
		/* the runtime thread takes it in; under TSan on a loaded machine that can take a while */
		for (int i = 0; i < 500 && !tlrt_stat(RT_STAT_samples); i++)
			usleep(10000);
		/* whether the child's thread ran at all says where to look */
		if (tlrt_stat(RT_STAT_samples) != 1)
			fprintf(stderr, "child: samples %llu, ticks %llu, ticks late %llu, thread running %d\n",
				(unsigned long long)tlrt_stat(RT_STAT_samples), (unsigned long long)tlrt_stat(RT_STAT_ticks),
				(unsigned long long)tlrt_stat(RT_STAT_ticks_late), tlrt.thread_running);
		CHECK(tlrt_stat(RT_STAT_samples) == 1);
		tlrt_free(q);
		tlrt_free(p);
		tlrt_finish();
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(intact(p, 6 * MiB, 7));
	tlrt_free(p);
	tlrt_finish();
}

static void test_fork(void **state)
{
	(void)state;
	/* TSan cannot follow a thread started in the child of a threaded fork */
	if (getenv("TLRT_TEST_NO_FORK"))
		skip();
	in_child(forked);
}

static _Atomic int stop_threads;
static unsigned char *_Atomic live[8];

static void *alloc_thread(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	for (int i = 0; i < 60; i++) {
		size_t n = (1 + (seed + (unsigned)i) % 5) * MiB;
		unsigned char *p = tlrt_alloc(n, 0, 0);

		CHECK(p);
		fill(p, n, seed + (unsigned)i);
		atomic_store(&live[seed % 8], p);
		usleep(200);
		atomic_store(&live[seed % 8], NULL);
		CHECK(intact(p, n, seed + (unsigned)i));
		tlrt_free(p);
	}
	return NULL;
}

static void *sample_thread(void *arg)
{
	unsigned i = 0;

	(void)arg;
	while (!atomic_load(&stop_threads)) {
		unsigned char *p = atomic_load(&live[i++ % 8]);

		if (p)
			sample(p + (i % 4) * 4096);
		usleep(50);
	}
	return NULL;
}

static void threads(void)
{
	pthread_t t[5];

	setup_env("TIERLAB_CHUNKS=3", "TIERLAB_RATE=1kHz");
	pthread_create(&t[4], NULL, sample_thread, NULL);
	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, alloc_thread, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	atomic_store(&stop_threads, 1);
	pthread_join(t[4], NULL);
	tlrt_process_pending();
	CHECK(tlrt_stat(RT_STAT_allocs) == 240 && tlrt_stat(RT_STAT_frees) == 240);
	CHECK(tlrt_fast_chunks() == 0);
	CHECK(tlrt_stat(RT_STAT_mig_failed) == 0);
	tlrt_finish();
}

static void test_threads(void **state)
{
	(void)state;
	in_child(threads);
}


/* ---- the cache of freed regions ---- */

/* [from, to) of a block filled by fill(p, n, seed) still holds what fill wrote there */
static int intact_range(const unsigned char *p, size_t from, size_t to, unsigned seed)
{
	for (size_t i = (from + 511) / 512 * 512; i < to; i += 512)
		if (p[i] != (unsigned char)(seed + i / 512))
			return 0;
	return 1;
}

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Pages of [p, p + n) in memory. */
static size_t resident(const void *p, size_t n)
{
	static unsigned char vec[64 * MiB / 4096];
	size_t pages = n / 4096, in = 0;

	CHECK(pages <= sizeof(vec) && !mincore((void *)p, n, vec));
	for (size_t i = 0; i < pages; i++)
		in += vec[i] & 1;
	return in;
}

/*
 * A freed region is reused with its pages: the policy hears a free and an
 * allocation, chunks whose old pages are on their new tier keep them (the
 * old data is still there: nothing was faulted again), the others are
 * dropped and faulted afresh (zero), nothing counts as a migration, and
 * calloc's memory is zero everywhere.
 */
static void cache_placement(void)
{
	unsigned char *p, *q, *r;

	setup_env("TIERLAB_CHUNKS=2", "TIERLAB_CACHE=64MiB");
	/* the test policy starts even chunks fast while there is room: F s F s */
	p = tlrt_alloc(8 * MiB, 0, 0x51);
	CHECK(p);
	fill(p, 8 * MiB, 3);
	/* a miss in chunk 1 promotes it and demotes the LRU tail, chunk 0: s F F s */
	sample(p + 2 * MiB);
	tlrt_process_pending();
	CHECK(tlrt_tier_of(p) == TLP_SLOW && tlrt_tier_of(p + 2 * MiB) == TLP_FAST);
	CHECK(tlrt_tier_of(p + 4 * MiB) == TLP_FAST && tlrt_tier_of(p + 6 * MiB) == TLP_SLOW);
	tlrt_free(p);
	CHECK(tlrt_cache_held() == 8 * MiB);
	CHECK(tlrt_tier_of(p) == -1 && tlrt_usable_size(p) == 0);
	CHECK(resident(p, 8 * MiB) == 8 * MiB / 4096);

	/* the same size again: the same region; the policy places F s F s afresh */
	q = tlrt_alloc(8 * MiB, 0, 0x52);
	CHECK(q == p && tlrt_cache_held() == 0);
	CHECK(tlrt_stat(RT_STAT_cache_reuses) == 1 && tlrt_stat(RT_STAT_allocs) == 2 && tlrt_stat(RT_STAT_frees) == 1);
	for (int i = 0; i < 4; i++)
		CHECK(tlrt_tier_of(q + i * 2 * MiB) == (i % 2 == 0 ? TLP_FAST : TLP_SLOW));
	CHECK(tlrt_fast_chunks() == 2);
	/* chunks 0 (s -> F) and 1 (F -> s) were on the other tier: dropped; 2 and 3 kept their pages */
	CHECK(tlrt_stat(RT_STAT_cache_chunks_replaced) == 2);
	CHECK(all_zero(q, 4 * MiB));
	CHECK(intact_range(q, 4 * MiB, 8 * MiB, 3));
	CHECK(resident(q, 8 * MiB) == 8 * MiB / 4096);
	/* a placement, not a migration: the one promotion and demotion are the sample's */
	CHECK(tlrt_stat(RT_STAT_mig_slow_to_fast) == 1 && tlrt_stat(RT_STAT_mig_fast_to_slow) == 1);
	CHECK(tlrt_stat(RT_STAT_mig_initial_fast) == 4 && tlrt_stat(RT_STAT_bytes_initial_fast) == 8 * MiB);
	CHECK(tlrt_stat(RT_STAT_mig_initial_slow) == 4 && tlrt_stat(RT_STAT_bytes_initial_slow) == 8 * MiB);
	CHECK(tlrt_stat(RT_STAT_mig_failed) == 0);

	/* calloc of a reused region: zero, kept pages included */
	fill(q, 8 * MiB, 9);
	tlrt_free(q);
	r = tlrt_alloc_zeroed(8 * MiB, 0x53);
	CHECK(r == p && tlrt_stat(RT_STAT_cache_reuses) == 2);
	CHECK(tlrt_stat(RT_STAT_cache_chunks_replaced) == 2);	/* the same placement: all kept */
	CHECK(all_zero(r, 8 * MiB));
	tlrt_free(r);
	CHECK(tlrt_stat(RT_STAT_cache_bytes_peak) == 8 * MiB);
	tlrt_finish();
}

static void test_cache_placement(void **state)
{
	(void)state;
	in_child(cache_placement);
}

/* Size classes: exact fits, a larger region split (its rest stays cached), alignment, memory beyond what was used. */
static void cache_classes(void)
{
	unsigned char *a, *b, *c, *d, *e, *f;
	int aligned;

	setup_env("TIERLAB_CHUNKS=64", "TIERLAB_CACHE=64MiB");
	a = tlrt_alloc(10 * MiB, 0, 0);
	CHECK(a);
	fill(a, 10 * MiB, 1);
	tlrt_free(a);
	/* one unit of the five: the rest (8 MiB, with its pages) stays cached */
	b = tlrt_alloc(2 * MiB, 0, 0);
	CHECK(b == a && tlrt_cache_held() == 8 * MiB && tlrt_stat(RT_STAT_cache_reuses) == 1);
	CHECK(intact_range(b, 0, 2 * MiB, 1));
	/* five units do not fit in four: fresh memory */
	c = tlrt_alloc_zeroed(9 * MiB, 0);
	CHECK(c && (c < a || c >= a + 10 * MiB) && tlrt_stat(RT_STAT_cache_reuses) == 1);
	CHECK(all_zero(c, 9 * MiB));
	/* 4 MiB alignment: the rest (at a + 2 MiB) serves only if it is so aligned */
	aligned = (uintptr_t)(a + 2 * MiB) % (4 * MiB) == 0;
	d = tlrt_alloc(3 * MiB, 4 * MiB, 0);
	CHECK(d && (uintptr_t)d % (4 * MiB) == 0);
	CHECK((d == a + 2 * MiB) == aligned);
	CHECK(tlrt_stat(RT_STAT_cache_reuses) == 1 + (uint64_t)aligned);
	if (aligned)
		CHECK(intact_range(d, 0, 3 * MiB, 1 + 4 * 1024 / 2) && tlrt_cache_held() == 4 * MiB);
	tlrt_free(b);
	tlrt_free(c);
	tlrt_free(d);
	pthread_mutex_lock(&tlrt.lock);
	tlrt_cache_trim(0);
	pthread_mutex_unlock(&tlrt.lock);
	CHECK(tlrt_cache_held() == 0 && resident(a, 10 * MiB) == 0);

	/* calloc larger than the region's last use: kept pages zeroed, the rest faulted in */
	e = tlrt_alloc(3 * MiB, 0, 0);
	CHECK(e);
	memset(e, 0xab, 3 * MiB);
	tlrt_free(e);
	CHECK(tlrt_cache_held() == 3 * MiB);
	f = tlrt_alloc_zeroed(4 * MiB, 0);
	CHECK(f == e && all_zero(f, 4 * MiB));
	CHECK(resident(f, 4 * MiB) == 4 * MiB / 4096);
	tlrt_free(f);
	tlrt_finish();
}

static void test_cache_classes(void **state)
{
	(void)state;
	in_child(cache_classes);
}

/* The bound, as a size and as a percentage of the peak: the least recently freed go back to the kernel. */
static void cache_bound(void)
{
	unsigned char *big, *a, *b;

	setup_env("TIERLAB_CHUNKS=64", "TIERLAB_CACHE=6MiB");
	big = tlrt_alloc(8 * MiB, 0, 0);
	CHECK(big);
	memset(big, 1, 8 * MiB);
	tlrt_free(big);
	CHECK(tlrt_cache_held() == 0 && resident(big, 8 * MiB) == 0);
	a = tlrt_alloc(4 * MiB, 0, 0);
	b = tlrt_alloc(4 * MiB, 0, 0);
	CHECK(a && b && a != b);
	memset(a, 2, 4 * MiB);
	memset(b, 3, 4 * MiB);
	tlrt_free(a);
	CHECK(tlrt_cache_held() == 4 * MiB && resident(a, 4 * MiB) == 4 * MiB / 4096);
	tlrt_free(b);
	CHECK(tlrt_cache_held() == 4 * MiB);
	CHECK(resident(a, 4 * MiB) == 0 && resident(b, 4 * MiB) == 4 * MiB / 4096);
	CHECK(tlrt_stat(RT_STAT_cache_bytes_returned) == 4 * MiB);
	CHECK(tlrt_stat(RT_STAT_cache_bytes_peak) <= 6 * MiB);
	tlrt_finish();
}

static void cache_bound_percent(void)
{
	unsigned char *x, *y, *z, *w;

	setup_env("TIERLAB_CHUNKS=64", "TIERLAB_CACHE=50%");
	/* at least 32 MiB: a small block is kept whatever the peak */
	w = tlrt_alloc(4 * MiB, 0, 0);
	CHECK(w);
	tlrt_free(w);
	CHECK(tlrt_cache_held() == 4 * MiB);
	x = tlrt_alloc(40 * MiB, 0, 0);
	CHECK(x && x != w);
	tlrt_free(x);
	CHECK(tlrt_cache_held() == 4 * MiB);	/* 40 MiB > 32 MiB, 50% of a peak of 40 MiB */
	CHECK(resident(x, 40 * MiB) == 0);
	y = tlrt_alloc(40 * MiB, 0, 0);
	z = tlrt_alloc(40 * MiB, 0, 0);
	CHECK(y && z);
	tlrt_free(y);
	/* 50% of a peak of 80 MiB: y fits once w (the least recently freed) is gone */
	CHECK(tlrt_cache_held() == 40 * MiB && tlrt_stat(RT_STAT_cache_bytes_returned) == 4 * MiB);
	tlrt_free(z);
	CHECK(tlrt_cache_held() == 40 * MiB && tlrt_stat(RT_STAT_cache_bytes_returned) == 44 * MiB);
	tlrt_finish();
}

static void cache_off(void)
{
	unsigned char *x;

	setup_env("TIERLAB_CHUNKS=64", "TIERLAB_CACHE=0");
	x = tlrt_alloc(4 * MiB, 0, 0);
	CHECK(x);
	memset(x, 1, 4 * MiB);
	tlrt_free(x);
	CHECK(tlrt_cache_held() == 0 && resident(x, 4 * MiB) == 0);
	CHECK(tlrt_alloc(4 * MiB, 0, 0) == x && tlrt_stat(RT_STAT_cache_reuses) == 0);
	CHECK(all_zero(x, 4 * MiB));
	tlrt_free(x);
	tlrt_finish();
}

static void test_cache_bound(void **state)
{
	(void)state;
	in_child(cache_bound);
	in_child(cache_bound_percent);
	in_child(cache_off);
}

static void write_psi(const char *path, long long total)
{
	FILE *f = fopen(path, "w");

	CHECK(f);
	fprintf(f, "some avg10=0.00 avg60=0.00 avg300=0.00 total=%lld\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
		total);
	CHECK(!fclose(f));
}

/* Memory pressure as PSI reports it empties the cache: stalls over 1% of the time since the last look. */
static void cache_pressure(void)
{
	char path[300];
	struct tlrt_pressure pr = { .path = path, .last_total = -1 };
	uint64_t t = 1000000000000ULL;	/* the test's own clock: only differences matter */
	unsigned char *a;

	CHECK(tlrt_psi_some_total("some avg10=0.00 avg60=0.00 avg300=0.00 total=123456\n") == 123456);
	CHECK(tlrt_psi_some_total("full avg10=0.00 avg60=0.00 avg300=0.00 total=5\n") == -1);
	CHECK(tlrt_psi_some_total("some avg10=0.00\nfull avg10=0.00 total=5\n") == -1);
	CHECK(tlrt_psi_some_total("some avg10=0.00 total=\n") == -1);
	CHECK(tlrt_psi_some_total("") == -1);

	snprintf(path, sizeof(path), "%s/pressure-%d", outdir, (int)getpid());
	setup_env("TIERLAB_CHUNKS=64", "TIERLAB_CACHE=64MiB");
	a = tlrt_alloc(4 * MiB, 0, 0);
	CHECK(a);
	memset(a, 1, 4 * MiB);
	tlrt_free(a);
	CHECK(tlrt_cache_held() == 4 * MiB);
	write_psi(path, 1000);
	tlrt_cache_poll(&pr, t);			/* the first look only records */
	write_psi(path, 6000);
	tlrt_cache_poll(&pr, t + 1000000000);		/* 5 ms stalled in 1 s: 0.5% */
	CHECK(tlrt_cache_held() == 4 * MiB && tlrt_stat(RT_STAT_cache_pressure_trims) == 0);
	write_psi(path, 10000000);
	tlrt_cache_poll(&pr, t + 1500000000);		/* within a second of the last look: not read */
	CHECK(tlrt_cache_held() == 4 * MiB);
	write_psi(path, 26000);
	tlrt_cache_poll(&pr, t + 2000000000);		/* 20 ms in 1 s: 2% */
	CHECK(tlrt_cache_held() == 0 && resident(a, 4 * MiB) == 0);
	CHECK(tlrt_stat(RT_STAT_cache_pressure_trims) == 1 && tlrt_stat(RT_STAT_cache_bytes_returned) == 4 * MiB);
	unlink(path);
	tlrt_finish();
}

static void test_cache_pressure(void **state)
{
	(void)state;
	in_child(cache_pressure);
}

/*
 * With the fault sampler: a region reused while the sampler has all
 * managed memory armed is released before the core drops or zeroes
 * anything (else the move back would bring the old pages back: calloc
 * would not read zero), and a reused region is sampled.
 */
static void cache_sampled(void)
{
	struct tlrt_fault_counts after;
	unsigned char *keep, *p, *q;
	volatile unsigned char sink = 0;
	uint64_t t0, s0;

	setup_env("TIERLAB_CHUNKS=2", "TIERLAB_RATE=1kHz", "TIERLAB_SAMPLER=fault", "TIERLAB_CACHE=64MiB");
	keep = tlrt_alloc(2 * MiB, 0, 0);	/* something live, so the ticks have a span to arm */
	if (!keep && tlrt_state() == TLRT_PASSIVE) {
		printf("SKIP: the fault sampler cannot start here\n");
		_exit(77);
	}
	CHECK(keep);
	p = tlrt_alloc(8 * MiB, 0, 0);
	CHECK(p);
	fill(p, 8 * MiB, 5);	/* sampled: the fill's samples move chunks as LRU likes */
	usleep(100000);		/* and they are in; nothing touches managed memory from here */
	/* the two chunks sampled last are the fast ones, whatever came before: s F s F */
	sample(p + 2 * MiB);
	sample(p + 6 * MiB);
	for (t0 = tlrt_now_ns(); !(tlrt_tier_of(p + 2 * MiB) == TLP_FAST && tlrt_tier_of(p + 6 * MiB) == TLP_FAST) &&
				 tlrt_now_ns() - t0 < 5000000000ULL;)
		usleep(1000);
	CHECK(tlrt_tier_of(p) == TLP_SLOW && tlrt_tier_of(p + 2 * MiB) == TLP_FAST);
	CHECK(tlrt_tier_of(p + 4 * MiB) == TLP_SLOW && tlrt_tier_of(p + 6 * MiB) == TLP_FAST);
	tlrt_free(p);
	/*
	 * Nothing touches managed memory: a tick arms it (if none has yet) and
	 * it stays armed. Every arming ends in a sample or expires, so one more
	 * arming than those is the one in force. Under TSan on a loaded machine
	 * the first tick that arms may take a while.
	 */
	for (t0 = tlrt_now_ns(); tlrt_now_ns() - t0 < 5000000000ULL; usleep(10000)) {
		tlrt_sampler_fault_counts(&after);
		if (after.armed > after.samples + after.expired)
			break;
	}
	CHECK(after.armed > after.samples + after.expired);
	/* placed F s F s: every chunk's old pages are on the other tier */
	q = tlrt_alloc_zeroed(8 * MiB, 0);
	CHECK(q == p && tlrt_stat(RT_STAT_cache_reuses) == 1);
	CHECK(tlrt_stat(RT_STAT_cache_chunks_replaced) == 4);
	CHECK(all_zero(q, 8 * MiB));

	/* reads of the reused region only: the samples land in its chunks */
	s0 = tlrt_stat(RT_STAT_samples_managed);
	for (t0 = tlrt_now_ns(); tlrt_stat(RT_STAT_samples_managed) < s0 + 20 && tlrt_now_ns() - t0 < 10000000000ULL;)
		for (size_t i = 0; i < 8 * MiB; i += 4096)
			sink += q[(i * 7919) % (8 * MiB)];
	CHECK(tlrt_stat(RT_STAT_samples_managed) >= s0 + 20);
	(void)sink;
	tlrt_free(q);
	tlrt_free(keep);
	tlrt_finish();
}

static void test_cache_sampled(void **state)
{
	(void)state;
	in_child(cache_sampled);
}

/*
 * A sampler that outruns the runtime thread loses samples on the full
 * ring, never the program's time, and each one lost is counted: every
 * sample delivered is drained or counted dropped.
 */
static void ring_full(void)
{
	unsigned char *p;
	const int sent = 4096 + 100;

	setup_env("TIERLAB_CHUNKS=2");
	p = tlrt_alloc(8 * MiB, 0, 0);
	CHECK(p);
	for (int i = 0; i < sent; i++)
		sample(p + (size_t)(i % 4) * 2 * MiB);
	for (int i = 0; i < 1000 && tlrt_stat(RT_STAT_samples) + tlrt_stat(RT_STAT_samples_dropped) < (uint64_t)sent; i++)
		tlrt_process_pending();
	CHECK(tlrt_stat(RT_STAT_samples) + tlrt_stat(RT_STAT_samples_dropped) == (uint64_t)sent);
	CHECK(tlrt_stat(RT_STAT_samples_dropped) >= 1);
	tlrt_free(p);
}

static void test_ring_full(void **state)
{
	(void)state;
	in_child(ring_full);
}

/* Every sampler row finds the ops that answer to its name, or nothing when its file is not built in. */
static void test_sampler_table(void **state)
{
	(void)state;
	for (int i = 0; i < TLRT_SAMPLER__COUNT; i++) {
		const struct rt_sampler_ops *ops = tlrt_sampler_find((enum tlrt_sampler)i);

		if (ops)
			assert_string_equal(ops->name, tlrt_sampler_names[i]);
	}
	assert_ptr_equal(tlrt_sampler_find(TLRT_SAMPLER_FAULT), &rt_sampler_fault);
	assert_ptr_equal(tlrt_sampler_find(TLRT_SAMPLER_NONE), &rt_sampler_none);
	assert_null(tlrt_sampler_find(TLRT_SAMPLER__COUNT));
}

/*
 * The runtime thread's schedule: intervals jittered in [period/2,
 * 3*period/2) with the asked mean; a tick whose time has passed is
 * skipped, never fired at once, and the one returned is always later than
 * now (a burst right after a late tick would arm while the last sampled
 * thread has not made its access yet).
 */
static void test_tick_schedule(void **state)
{
	const uint64_t period = 1000000;
	uint64_t rng = 12345, at = 0, sum = 0, n = 20000;

	(void)state;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t next = tlrt_tick_after(at, at, period, &rng);

		assert_in_range(next - at, period / 2, period / 2 + period);
		sum += next - at;
		at = next;
	}
	/* the mean of n uniform draws: period, within 4 sd (period / sqrt(12 n)) */
	assert_in_range(sum / n, period - 4 * period / 490, period + 4 * period / 490);
	/* late by 10.3 periods: the next tick is after now and less than 1.5 periods later */
	for (int i = 0; i < 1000; i++) {
		uint64_t now = at + 10 * period + period / 3, next = tlrt_tick_after(at, now, period, &rng);

		assert_true(next > now);
		assert_true(next - now <= period + period / 2);
		at = next;
	}
	/* a stall of an hour at 1 kHz is skipped in a few draws, not millions */
	assert_true(tlrt_tick_after(0, 3600ULL * 1000000000ULL, period, &rng) > 3600ULL * 1000000000ULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tick_schedule),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_budget_refused),
		cmocka_unit_test(test_ring_full),
		cmocka_unit_test(test_moves_count_present_pages),
		cmocka_unit_test(test_hit_at_sample_time),
		cmocka_unit_test(test_dynamic_budget),
		cmocka_unit_test(test_bad_policy_stands_aside),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_cache_placement),
		cmocka_unit_test(test_cache_classes),
		cmocka_unit_test(test_cache_bound),
		cmocka_unit_test(test_cache_pressure),
		cmocka_unit_test(test_cache_sampled),
		cmocka_unit_test(test_sampler_table),
	};
	char tmpl[] = "/tmp/tiermem-core-test.XXXXXX";
	int rc;

	if (!mkdtemp(tmpl))
		return 1;
	snprintf(outdir, sizeof(outdir), "%s", tmpl);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (!getenv("KEEP")) {
		char cmd[300];

		/* only this run's directory: other runs of this test may be going on */
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", outdir);
		(void)!system(cmd);
	}
	return rc;
}
