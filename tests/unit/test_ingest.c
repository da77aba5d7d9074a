/*
 * Ingest of the runtime's counters and log files and the FAT allocator's
 * status file, written here in their documented layouts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "measure/ingest.h"
#include "store/store-internal.h"
#include "tiermem/rt-stats.h"

static const char *const names[] = {
#define N(name, unit, desc) #name,
	RT_STATS(N)
#undef N
};

static char dir[64];

static void write_counters_as(const char *name, int pid, const uint64_t *vals, int complete, const char *policy)
{
	struct rt_counters_header h = { 0 };
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	memcpy(h.magic, RT_COUNTERS_MAGIC, 8);
	h.version = RT_COUNTERS_VERSION;
	h.nstats = RT_STAT__COUNT;
	h.header_size = sizeof(h);
	h.pid = pid;
	h.complete = complete;
	h.same_node = 1;
	snprintf(h.policy, sizeof(h.policy), "%s", policy);
	fwrite(&h, sizeof(h), 1, f);
	fwrite(vals, 8, RT_STAT__COUNT, f);
	for (int i = 0; i < RT_STAT__COUNT; i++)
		fwrite(names[i], 1, strlen(names[i]) + 1, f);
	fclose(f);
}

static void write_counters(int pid, const uint64_t *vals, int complete, const char *policy)
{
	char name[64];

	snprintf(name, sizeof(name), "tiermem-%d.counters", pid);
	write_counters_as(name, pid, vals, complete, policy);
}

static void put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/tierlab-ingest.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static double metric(const struct tl_ingest *ing, const char *name)
{
	for (size_t i = 0; i < ing->nmetrics; i++)
		if (!strcmp(ing->metrics[i].name, name))
			return ing->metrics[i].value;
	fail_msg("no metric %s", name);
	return 0;
}

/*
 * A counters file with the sampler's own counts (names[i], vals[i]) after
 * the stats' names, as record.c lays it out; v1: the layout before the
 * sampler slots (a header without sampler_offset and nsampler).
 */
static void write_with_sampler(int pid, const uint64_t *stats, size_t n, const char *const *cn,
			       const uint64_t *cv, int v1)
{
	struct rt_counters_header h = { 0 };
	struct rt_counters_sampler slot[RT_SAMPLER_COUNTS_MAX] = { 0 };
	size_t hs = v1 ? offsetof(struct rt_counters_header, sampler_offset) : sizeof(h), at;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tiermem-%d.counters", dir, pid);
	f = fopen(path, "wb");
	assert_non_null(f);
	memcpy(h.magic, RT_COUNTERS_MAGIC, 8);
	h.version = RT_COUNTERS_VERSION;
	h.nstats = RT_STAT__COUNT;
	h.header_size = (uint32_t)hs;
	h.pid = pid;
	h.complete = 1;
	at = hs + 8 * RT_STAT__COUNT;
	for (int i = 0; i < RT_STAT__COUNT; i++)
		at += strlen(names[i]) + 1;
	at = (at + 7) & ~(size_t)7;
	h.sampler_offset = (uint32_t)at;
	h.nsampler = (uint32_t)n;
	fwrite(&h, hs, 1, f);
	fwrite(stats, 8, RT_STAT__COUNT, f);
	for (int i = 0; i < RT_STAT__COUNT; i++)
		fwrite(names[i], 1, strlen(names[i]) + 1, f);
	if (!v1) {
		for (size_t i = 0; i < n; i++) {
			snprintf(slot[i].name, sizeof(slot[i].name), "%s", cn[i]);
			slot[i].value = cv[i];
		}
		fseek(f, (long)at, SEEK_SET);
		fwrite(slot, sizeof(slot[0]), RT_SAMPLER_COUNTS_MAX, f);
	}
	fclose(f);
}

/*
 * The sampler's own counts become sampler.NAME metrics summed over the
 * processes that have them; a file from before the sampler slots is
 * read as it was; a slot whose name is not [a-z_] makes the file unread.
 */
static void sampler_counts(void **state)
{
	uint64_t st[RT_STAT__COUNT] = { 0 };
	const char *const n1[] = { "armed", "samples" }, *const n2[] = { "samples", "arm_wait_ns" };
	const char *const bad[] = { "ok", "rm -rf" };
	const uint64_t v1[] = { 10, 7 }, v2[] = { 5, 1000 };
	struct tl_ingest ing;

	(void)state;
	st[RT_STAT_samples] = 3;
	write_with_sampler(200, st, 2, n1, v1, 0);
	write_with_sampler(201, st, 2, n2, v2, 0);
	write_with_sampler(202, st, 0, NULL, NULL, 1);	/* an older runtime's file */
	assert_int_equal(tl_ingest_scan(dir, &ing), 0);
	assert_int_equal(ing.nprocs, 3);
	assert_float_equal(metric(&ing, "sampler.armed"), 10, 0);
	assert_float_equal(metric(&ing, "sampler.samples"), 12, 0);
	assert_float_equal(metric(&ing, "sampler.arm_wait_ns"), 1000, 0);
	assert_float_equal(metric(&ing, "rt.samples"), 9, 0);	/* the old file's stats count too */
	tl_ingest_release(&ing);

	write_with_sampler(203, st, 2, bad, v1, 0);
	assert_int_equal(tl_ingest_scan(dir, &ing), 0);
	assert_int_equal(ing.nprocs, 3);	/* 203 skipped with a warning */
	tl_ingest_release(&ing);
}

static void sums_over_processes(void **state)
{
	uint64_t a[RT_STAT__COUNT] = { 0 }, b[RT_STAT__COUNT] = { 0 };
	struct tl_ingest ing;
	FILE *f;
	char path[128];

	(void)state;
	/* hit rate: hits / samples_managed pooled over processes (40 / 100), not the mean of theirs */
	a[RT_STAT_samples] = 45;	/* 5 outside managed chunks: not in the hit rate */
	a[RT_STAT_samples_managed] = 40;
	a[RT_STAT_hits] = 30;
	a[RT_STAT_misses] = 10;
	a[RT_STAT_bytes_slow_to_fast] = 4 << 20;
	a[RT_STAT_bytes_fast_to_slow] = 2 << 20;
	a[RT_STAT_bytes_initial_fast] = 64 << 20;	/* placement before first touch: not migration */
	b[RT_STAT_samples] = 60;
	b[RT_STAT_samples_managed] = 60;
	b[RT_STAT_hits] = 10;
	b[RT_STAT_misses] = 50;
	b[RT_STAT_bytes_slow_to_fast] = 1 << 20;
	write_counters(100, a, 1, "lru");
	write_counters(101, b, 0, "lru");
	snprintf(path, sizeof(path), "%s/fatalloc-100.txt", dir);
	f = fopen(path, "w");
	fprintf(f, "backing: thp\npool_size: 1073741824\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/tiermem-7.counters", dir);	/* truncated: skipped */
	f = fopen(path, "w");
	fprintf(f, "TLRT");
	fclose(f);

	assert_int_equal(tl_ingest_scan(dir, &ing), 0);
	assert_true(ing.runtime_seen);
	assert_true(ing.same_node);
	assert_int_equal(ing.nprocs, 2);	/* 100 and 101; the truncated 7 left no trace */
	assert_float_equal(metric(&ing, "hit_rate"), 40.0 / 100.0, 1e-12);
	assert_float_equal(metric(&ing, "migrated_bytes"), (double)(7 << 20), 0);
	assert_float_equal(metric(&ing, "rt.hits"), 40, 0);
	assert_float_equal(metric(&ing, "rt.samples"), 105, 0);
	assert_float_equal(metric(&ing, "rt.processes"), 2, 0);
	assert_string_equal(ing.allocator_backing, "thp");
	tl_ingest_release(&ing);
}

/*
 * MPI ranks (tiermem-rankR-PID.*): the same pid on two nodes is two
 * processes; rank rows kept; the ranks' perf counts (perf-rankR-PID.txt)
 * replace the launcher's, summed, and an event one rank could not count
 * has no value.
 */
static void ranks_are_one_run(void **state)
{
	uint64_t a[RT_STAT__COUNT] = { 0 }, b[RT_STAT__COUNT] = { 0 };
	struct tl_counter_row launcher = { .event = "page-faults", .status = "ok", .has_value = true, .value = 3 };
	struct tl_run_record r = { 0 };
	struct tl_ingest ing;
	int ranks[2] = { -1, -1 }, nrank = 0, nperf = 0;

	(void)state;
	a[RT_STAT_samples_managed] = 10;
	a[RT_STAT_hits] = 9;
	a[RT_STAT_bytes_fast_to_slow] = 1 << 20;
	b[RT_STAT_samples_managed] = 30;
	b[RT_STAT_hits] = 3;
	b[RT_STAT_bytes_slow_to_fast] = 2 << 20;
	write_counters_as("tiermem-rank0-500.counters", 500, a, 1, "lru");
	write_counters_as("tiermem-rank1-500.counters", 500, b, 1, "lru");
	put("perf-rank0-500.txt", "page-faults\tok\t100\t10\t10\t\ncycles\tok\t7\t10\t5\t\n");
	put("perf-rank1-500.txt", "page-faults\tok\t250\t20\t20\t\ncycles\tunavailable\t0\t0\t0\tno PMU\n");
	assert_int_equal(tl_ingest_scan(dir, &ing), 0);
	assert_int_equal(ing.nprocs, 2);
	assert_float_equal(metric(&ing, "hit_rate"), 12.0 / 40.0, 1e-12);
	assert_float_equal(metric(&ing, "migrated_bytes"), (double)(3 << 20), 0);
	assert_float_equal(metric(&ing, "rt.ranks"), 2, 0);

	assert_int_equal(tl_record_add_counter(&r, &launcher), 0);
	assert_int_equal(tl_ingest_record(&ing, dir, &r), 0);
	assert_int_equal(tl_ingest_counters(&ing, &r), 0);
	for (size_t i = 0; i < r.proc_stats.n; i++) {
		if (!strcmp(r.proc_stats.v[i].name, "rank"))
			ranks[nrank++ % 2] = (int)r.proc_stats.v[i].value;
		if (!strcmp(r.proc_stats.v[i].name, "perf.page-faults"))
			nperf++;
	}
	assert_int_equal(nrank, 2);
	assert_int_equal(ranks[0] + ranks[1], 1);	/* ranks 0 and 1 */
	assert_int_equal(nperf, 2);
	assert_int_equal(r.counters.n, 2);
	assert_string_equal(r.counters.v[0].event, "page-faults");
	assert_string_equal(r.counters.v[0].status, "ok");
	assert_true(r.counters.v[0].has_value);
	assert_float_equal(r.counters.v[0].value, 350, 0);	/* the ranks', not the launcher's 3 */
	assert_string_equal(r.counters.v[1].event, "cycles");
	assert_string_equal(r.counters.v[1].status, "unavailable");
	assert_false(r.counters.v[1].has_value);
	assert_string_equal(r.counters.v[1].reason, "no PMU");
	tl_record_release(&r);
	tl_ingest_release(&ing);
}

static void log_goes_to_tables(void **state)
{
	uint64_t a[RT_STAT__COUNT] = { 0 };
	struct tl_ingest ing;
	struct tl_store *st;
	struct tl_run_result res = { .status = TL_STATUS_OK };
	struct tl_experiment_record e = { .name = "x", .created_at = 1 };
	struct tl_run_record r = { .run_key = "k-r1", .config_key = "k", .rep = 1, .result = &res };
	int64_t exp_id, run_id;
	char path[128];
	FILE *f;
	sqlite3_stmt *s;

	(void)state;
	a[RT_STAT_samples] = 2;
	write_counters(200, a, 1, "window");
	snprintf(path, sizeof(path), "%s/tiermem-200.log", dir);
	f = fopen(path, "w");
	fprintf(f, "A\t100\t0\t0x7f0000000000\t67108864\t0\t32\t0x401234 app+0x1234\n"
		   "S\t200\t0x7f0000001000\t0x401300\t42\t0\t1\t0\n"
		   "S\t210\t0x7f0000201000\t0\t43\t1\t0\t1\n"
		   "M\t220\t1\t0x7f0000200000\t2097152\tslow-to-fast\t1\n"
		   "M\t230\t1\t0x7f0000200000\t2097152\tsideways\t1\n"	/* bad direction: dropped */
		   "S\t240\tnot-a-number\t0\t43\t1\t0\t1\n"		/* malformed: dropped */
		   "A\t250\t1\t0x7f0040000000\t4194304\t32\t2\t0x401300\tapp+0x1300\n"	/* record.c's form */
		   "S\t260\t0x7f00\n"					/* cut short by a crash */
		   "S\t270\t0x500000\t0\t0\t-1\t0\t0\n"			/* outside managed memory, no PC, no thread */
		   "garbage line\n"
		   "F\t300\t0\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/t.db", dir);
	assert_int_equal(tl_store_open(path, &st), 0);
	assert_int_equal(tl_store_add_experiment(st, &e, &exp_id), 0);
	r.experiment_id = exp_id;
	assert_int_equal(tl_ingest_scan(dir, &ing), 0);
	assert_int_equal(tl_ingest_record(&ing, dir, &r), 0);
	assert_int_equal(tl_store_add_run(st, &r, &run_id), 0);
	tl_record_release(&r);
	tl_ingest_release(&ing);

	static const struct { const char *sql; long long want; } checks[] = {
		{ "SELECT count(*) FROM allocations WHERE size = 67108864 AND callsite LIKE '%app+0x1234'", 1 },
		{ "SELECT count(*) FROM samples", 3 },
		/* NULL, not 0: outside managed memory there is no hit or miss; no PC, no thread seen */
		{ "SELECT count(*) FROM samples WHERE hit IS NULL AND pc IS NULL AND tid IS NULL AND addr = 0x500000", 1 },
		{ "SELECT count(*) FROM samples WHERE hit = 0", 1 },	/* the miss at 210 only, not the stray at 270 */
		{ "SELECT freed_ns FROM allocations WHERE seq = 0", 300 },
		{ "SELECT count(*) FROM allocations WHERE seq = 1 AND freed_ns IS NULL", 1 },
		{ "SELECT count(*) FROM allocations WHERE seq = 1 AND callsite = 'app+0x1300'", 1 },
		{ "SELECT sum(hit) FROM samples", 1 },
		{ "SELECT pc FROM samples WHERE tid = 42", 0x401300 },
		{ "SELECT count(*) FROM migrations", 1 },
		{ "SELECT bytes FROM migrations WHERE direction = 'slow-to-fast'", 2097152 },
		{ "SELECT value FROM process_stats WHERE pid = 200 AND name = 'samples'", 2 },
	};
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		assert_int_equal(sqlite3_prepare_v2(tl_store_db(st), checks[i].sql, -1, &s, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		if (sqlite3_column_int64(s, 0) != checks[i].want)
			fail_msg("%s: %lld, expected %lld", checks[i].sql, sqlite3_column_int64(s, 0), checks[i].want);
		sqlite3_finalize(s);
	}
	tl_store_close(st);
}

static void empty_dir_is_nothing(void **state)
{
	struct tl_ingest ing;

	(void)state;
	assert_int_equal(tl_ingest_scan("/nonexistent/tierlab", &ing), 0);
	assert_int_equal(ing.nmetrics, 0);
	assert_false(ing.runtime_seen);
	tl_ingest_release(&ing);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(sums_over_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(sampler_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(log_goes_to_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(ranks_are_one_run, setup, teardown),
		cmocka_unit_test(empty_dir_is_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
