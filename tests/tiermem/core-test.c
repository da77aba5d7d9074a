/*
 * The runtime core linked directly (no malloc interposer), driven through
 * its tlrt_* entry points: placement by the policy, samples, hits and
 * misses, migrations in all four directions with bytes counted as bytes,
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
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "tiermem/rt.h"

#define MiB (1UL << 20)
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); _exit(1); } } while (0)

static char outdir[256];

static void setup_env(const char *extra1, const char *extra2)
{
	static char out[300];
	char *env[16];
	int n = 0;

	snprintf(out, sizeof(out), "TIERLAB_OUT=%s", outdir);
	env[n++] = "TIERLAB_POLICY=" TEST_POLICY;
	env[n++] = "TIERLAB_FAST_NODES=0";
	env[n++] = "TIERLAB_SLOW_NODES=0";
	env[n++] = "TIERLAB_SAMPLER=none";
	env[n++] = "TIERLAB_LOG=log";
	env[n++] = out;
	if (extra1)
		env[n++] = (char *)extra1;
	if (extra2)
		env[n++] = (char *)extra2;
	env[n] = NULL;
	CHECK(tlrt_setup(env) == 0);
}

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
		usleep(20000);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_budget_refused),
		cmocka_unit_test(test_dynamic_budget),
		cmocka_unit_test(test_bad_policy_stands_aside),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_threads),
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
