/*
 * The SQLite store: everything written comes back as written, the latest
 * row of a run key wins, lookups by id, key and prefix, schema migrations
 * (from an empty database, from a hand-made one, with test-only migration
 * lists), refusal of newer and foreign files without changing a byte of
 * them, integrity after many writes, and two processes writing at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "scratch.h"

#include "store/store-internal.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("store");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

struct blob {
	char *data;
	size_t len;
};

static struct blob read_file(const char *path)
{
	struct blob b = { 0 };
	FILE *f = fopen(path, "rb");
	long len;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	b.data = malloc(len + 1);
	assert_non_null(b.data);
	b.len = fread(b.data, 1, len, f);
	assert_int_equal(b.len, (size_t)len);
	fclose(f);
	return b;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void assert_same_file(const char *path, const struct blob *before)
{
	struct blob now = read_file(path);

	assert_int_equal(now.len, before->len);
	assert_memory_equal(now.data, before->data, now.len);
	free(now.data);
}

static bool file_exists(const char *path, const char *suffix)
{
	char buf[512];
	struct stat sb;

	snprintf(buf, sizeof(buf), "%s%s", path, suffix);
	return stat(buf, &sb) == 0;
}

/* One integer from SQL run on an open store or raw connection. */
static long long sql_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	long long v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

static char *sql_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	char *v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_text(s, 0) ? strdup((const char *)sqlite3_column_text(s, 0)) : NULL;
	sqlite3_finalize(s);
	return v;
}

static void assert_sql_text(sqlite3 *db, const char *sql, const char *want)
{
	char *got = sql_text(db, sql);

	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
	free(got);
}

static void sql_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

static sqlite3 *raw_open(const char *path)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	return db;
}

static int64_t add_experiment(struct tl_store *st, const char *name, double created_at)
{
	struct tl_experiment_record e = { .name = name, .created_at = created_at };
	int64_t id = -1;

	assert_int_equal(tl_store_add_experiment(st, &e, &id), 0);
	assert_true(id > 0);
	return id;
}

/* A run with status and fom; everything else filled with plausible values. */
static int64_t add_run(struct tl_store *st, int64_t exp, const char *key,
		       enum tl_run_status status, double fom)
{
	struct tl_run_result res = {
		.status = status, .exit_code = status == TL_STATUS_OK ? 0 : 1,
		.wall = 1.5, .started_at = 1000, .ended_at = 1001.5,
	};
	struct tl_metric m[] = { { "hit_rate", 0.5, NULL }, { "migrated_bytes", 4096, "B" } };
	struct tl_run_record r = {
		.experiment_id = exp, .run_key = key, .config_key = "cfg", .rep = 1,
		.result = &res, .has_fom = status == TL_STATUS_OK, .fom = fom,
		.fom_unit = "GF/s", .higher_is_better = true, .metrics = { m, 2, 0 },
	};
	int64_t id = -1;

	if (status != TL_STATUS_OK)
		snprintf(res.error, sizeof(res.error), "exit status 1");
	r.values[TL_AXIS_POLICY] = "lru";
	assert_int_equal(tl_store_add_run(st, &r, &id), 0);
	assert_true(id > 0);
	return id;
}

static void test_axis_columns_match(void **state)
{
	(void)state;
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		assert_string_equal(tl_store_axis_columns[a], tl_axes[a].name);
	assert_int_equal(tl_store_nmigrations, TL_STORE_SCHEMA_VERSION);
}

/* The migrations table's CHECK (a past schema's text) takes exactly the directions of util/direction.h. */
static void test_directions_match_schema(void **state)
{
	struct tl_store *st;
	char sql[256];

	(void)state;
	assert_int_equal(tl_store_open(path_in("dir.db"), &st), 0);
	sql_exec(tl_store_db(st), "PRAGMA foreign_keys = OFF");	/* rows of migrations alone */
	for (int d = 0; d < TL_DIR__COUNT; d++) {
		snprintf(sql, sizeof(sql), "INSERT INTO migrations VALUES (1, 1, %d, 0, 4096, '%s', 1)", d,
			 tl_direction_name(d));
		sql_exec(tl_store_db(st), sql);
	}
	assert_int_not_equal(sqlite3_exec(tl_store_db(st), "INSERT INTO migrations VALUES (1, 1, 9, 0, 1, 'sideways', 1)",
					  NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(tl_direction_parse("slow-to-fast", 12), TL_DIR_SLOW_TO_FAST);
	assert_int_equal(tl_direction_parse("slow-to-fas", 11), -1);
	tl_store_close(st);
}

static void test_round_trip(void **state)
{
	const char *path = path_in("deep/er/tierlab.db");	/* parents do not exist yet */
	struct tl_store *st;
	struct tl_experiment_record e = {
		.name = "hpcg-40pct", .description = "HPCG, 40% fast",
		.spec_path = "experiments/hpcg-40pct.yaml", .spec_text = "name: hpcg-40pct\n",
		.spec_hash = "0123456789abcdef", .host = "node1", .kernel = "6.1.0",
		.tierlab_version = "v0.1", .baseline = "policy=all-fast", .created_at = 1700000000.25,
	};
	struct tl_run_result res1 = {
		.status = TL_STATUS_OK, .exit_code = 0, .signal = 0, .wall = 12.5, .user = 11.25,
		.sys = 0.75, .maxrss_kb = 123456, .started_at = 1700000001.5,
		.ended_at = 1700000014.0,
	};
	struct tl_run_result res2 = {
		.status = TL_STATUS_CRASHED, .exit_code = -1, .signal = 11, .wall = 0.5,
		.started_at = 1700000015.0, .ended_at = 1700000015.5,
	};
	struct tl_metric m1[] = {
		{ "hit_rate", 0.9375, NULL },
		{ "migrated_bytes", 3221225472.0, "B" },
		{ "gflops_rank0", 1.75, "GF/s" },
	};
	struct tl_run_record r1 = {
		.run_key = "aaaaaaaaaaaaaaaa-r1", .config_key = "aaaaaaaaaaaaaaaa", .rep = 1,
		.command = "xhpcg --nx=32", .out_dir = "results/hpcg-40pct/aaaaaaaaaaaaaaaa-r1",
		.result = &res1, .has_fom = true, .fom = 1.875, .fom_unit = "GF/s",
		.higher_is_better = true, .metrics = { m1, 3, 0 },
	};
	struct tl_run_record r2 = {
		.run_key = "bbbbbbbbbbbbbbbb-r2", .config_key = "bbbbbbbbbbbbbbbb", .rep = 2,
		.command = "xhpcg", .out_dir = "out/b", .result = &res2, .has_fom = false,
		.fom = 99, .fom_unit = "s", .higher_is_better = false,
	};
	struct tl_run_row *rows;
	struct tl_metric *m;
	size_t n;
	int64_t exp, id1, id2;
	char **names;
	char *baseline;
	char want[PATH_MAX];
	struct tl_store *w;

	(void)state;
	snprintf(res2.error, sizeof(res2.error), "killed by SIGSEGV");
	/* Every axis set on r1; r2 (all-fast) leaves the runtime axes NULL. */
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		r1.values[a] = tl_axes[a].name;	/* distinct per column, so a swap shows */
	r1.values[TL_AXIS_POLICY] = "lru";
	r2.values[TL_AXIS_WORKLOAD] = "hpcg";
	r2.values[TL_AXIS_POLICY] = "all-fast";

	assert_int_equal(tl_store_open(path, &st), 0);
	assert_string_equal(tl_store_path(st), path);
	assert_int_equal(tl_store_add_experiment(st, &e, &exp), 0);
	r1.experiment_id = r2.experiment_id = exp;
	assert_int_equal(tl_store_add_run(st, &r1, &id1), 0);
	assert_int_equal(tl_store_add_run(st, &r2, &id2), 0);
	assert_true(id2 > id1);
	tl_store_close(st);

	/* A fresh connection reads what the first one wrote. */
	assert_int_equal(tl_store_open_existing(path, &st), 0);
	assert_int_equal(tl_store_query_runs(st, NULL, &rows, &n), 0);
	assert_int_equal(n, 2);

	assert_int_equal(rows[0].id, id1);
	assert_string_equal(rows[0].experiment, "hpcg-40pct");
	assert_string_equal(rows[0].run_key, r1.run_key);
	assert_string_equal(rows[0].config_key, r1.config_key);
	assert_int_equal(rows[0].rep, 1);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		assert_string_equal(rows[0].values[a], r1.values[a]);
	assert_int_equal(rows[0].status, TL_STATUS_OK);
	assert_int_equal(rows[0].exit_code, 0);
	assert_int_equal(rows[0].signal, 0);
	assert_true(rows[0].has_fom);
	assert_true(rows[0].fom == 1.875);
	assert_string_equal(rows[0].fom_unit, "GF/s");
	assert_true(rows[0].higher_is_better);
	assert_true(rows[0].wall == 12.5 && rows[0].user == 11.25 && rows[0].sys == 0.75);
	assert_int_equal(rows[0].maxrss_kb, 123456);
	assert_true(rows[0].started_at == 1700000001.5 && rows[0].ended_at == 1700000014.0);
	assert_null(rows[0].error);
	/* stored relative to the database's directory, read back as a path to open */
	assert_sql_text(tl_store_db(st), "SELECT out_dir FROM runs ORDER BY id LIMIT 1", r1.out_dir);
	snprintf(want, sizeof(want), "%s/deep/er/%s", dir, r1.out_dir);
	assert_string_equal(rows[0].out_dir, want);
	assert_string_equal(rows[0].command, r1.command);
	assert_true(rows[0].has_hit_rate && rows[0].hit_rate == 0.9375);
	assert_true(rows[0].has_migrated && rows[0].migrated_bytes == 3221225472.0);

	assert_int_equal(rows[1].id, id2);
	assert_string_equal(rows[1].run_key, r2.run_key);
	assert_int_equal(rows[1].rep, 2);
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		if (a == TL_AXIS_WORKLOAD || a == TL_AXIS_POLICY)
			assert_string_equal(rows[1].values[a], r2.values[a]);
		else
			assert_null(rows[1].values[a]);
	}
	assert_int_equal(rows[1].status, TL_STATUS_CRASHED);
	assert_int_equal(rows[1].exit_code, -1);
	assert_int_equal(rows[1].signal, 11);
	assert_false(rows[1].has_fom);
	assert_string_equal(rows[1].fom_unit, "s");
	assert_false(rows[1].higher_is_better);
	assert_string_equal(rows[1].error, "killed by SIGSEGV");
	assert_false(rows[1].has_hit_rate);
	assert_false(rows[1].has_migrated);
	tl_run_rows_free(rows, n);

	/* In SQL: NULLs where nothing applies, not sentinels. */
	sqlite3 *db = tl_store_db(st);
	char sql[256];

	snprintf(sql, sizeof(sql), "SELECT typeof(fom) || typeof(exit_code) || typeof(\"chunks\")"
		 " || typeof(signal) FROM runs WHERE id = %lld", (long long)id2);
	assert_sql_text(db, sql, "nullnullnullinteger");
	snprintf(sql, sizeof(sql), "SELECT status FROM runs WHERE id = %lld", (long long)id2);
	assert_sql_text(db, sql, "crashed");

	/* The experiment row, column by column. */
	assert_sql_text(db, "SELECT name FROM experiments", e.name);
	assert_sql_text(db, "SELECT description FROM experiments", e.description);
	assert_sql_text(db, "SELECT spec_path FROM experiments", e.spec_path);
	assert_sql_text(db, "SELECT spec_text FROM experiments", e.spec_text);
	assert_sql_text(db, "SELECT spec_hash FROM experiments", e.spec_hash);
	assert_sql_text(db, "SELECT host FROM experiments", e.host);
	assert_sql_text(db, "SELECT kernel FROM experiments", e.kernel);
	assert_sql_text(db, "SELECT tierlab_version FROM experiments", e.tierlab_version);
	assert_sql_text(db, "SELECT baseline FROM experiments", e.baseline);
	assert_sql_text(db, "SELECT created_at = 1700000000.25 FROM experiments", "1");

	/*
	 * Connection settings and schema stamps: a writer works in WAL mode;
	 * the last one to close leaves the file in rollback mode, so readers
	 * make no -wal and -shm files.
	 */
	assert_sql_text(db, "PRAGMA journal_mode", "delete");
	assert_false(file_exists(path, "-wal"));
	assert_false(file_exists(path, "-shm"));
	assert_int_equal(tl_store_open(path, &w), 0);
	assert_sql_text(tl_store_db(w), "PRAGMA journal_mode", "wal");
	assert_int_equal(sql_int(tl_store_db(w), "PRAGMA foreign_keys"), 1);
	assert_true(sql_int(tl_store_db(w), "PRAGMA busy_timeout") >= 1000);
	tl_store_close(w);
	assert_int_equal(sql_int(db, "PRAGMA user_version"), TL_STORE_SCHEMA_VERSION);
	assert_int_equal(sql_int(db, "PRAGMA application_id"), TL_STORE_APPLICATION_ID);
	assert_int_equal(sql_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND"
				 " name IN ('runs_run_key', 'runs_experiment')"), 2);

	assert_int_equal(tl_store_run_metrics(st, id1, &m, &n), 0);
	assert_int_equal(n, 3);	/* by name */
	assert_string_equal(m[0].name, "gflops_rank0");
	assert_true(m[0].value == 1.75);
	assert_string_equal(m[0].unit, "GF/s");
	assert_string_equal(m[1].name, "hit_rate");
	assert_null(m[1].unit);
	assert_string_equal(m[2].name, "migrated_bytes");
	assert_string_equal(m[2].unit, "B");
	tl_metrics_free(m, n);
	assert_int_equal(tl_store_run_metrics(st, id2, &m, &n), 0);
	assert_int_equal(n, 0);
	tl_metrics_free(m, n);

	assert_int_equal(tl_store_experiment_baseline(st, "hpcg-40pct", &baseline), 0);
	assert_string_equal(baseline, "policy=all-fast");
	free(baseline);
	assert_int_equal(tl_store_experiment_baseline(st, "other", &baseline), 0);
	assert_null(baseline);

	assert_int_equal(tl_store_experiments(st, &names, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "hpcg-40pct");
	free(names[0]);
	free(names);

	/* The reading connection refuses writes. */
	assert_int_not_equal(sqlite3_exec(db, "DELETE FROM experiments", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sql_int(db, "SELECT count(*) FROM runs"), 2);
	tl_store_close(st);

	/* Deleting an experiment takes its runs and their metrics along. */
	assert_int_equal(tl_store_open(path, &st), 0);
	db = tl_store_db(st);
	sql_exec(db, "DELETE FROM experiments");
	assert_int_equal(sql_int(db, "SELECT count(*) FROM runs"), 0);
	assert_int_equal(sql_int(db, "SELECT count(*) FROM metrics"), 0);
	tl_store_close(st);
}

static void test_add_run_is_atomic(void **state)
{
	struct tl_store *st;
	struct tl_run_result res = { .status = TL_STATUS_OK };
	struct tl_metric twice[] = { { "x", 1, NULL }, { "x", 2, NULL } };
	struct tl_run_record r = {
		.run_key = "k-r1", .config_key = "k", .rep = 1, .result = &res,
		.metrics = { twice, 2, 0 },
	};
	const char *err;

	(void)state;
	assert_int_equal(tl_store_open(path_in("t.db"), &st), 0);
	r.experiment_id = add_experiment(st, "e", 0);

	/* A metric that cannot be written takes the run row with it. */
	capture_begin();
	assert_true(tl_store_add_run(st, &r, NULL) < 0);
	err = capture_end();
	assert_non_null(strstr(err, path_in("t.db")));
	assert_non_null(strstr(err, "k-r1"));
	assert_int_equal(count_lines(err), 1);
	assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM runs"), 0);
	assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM metrics"), 0);

	/* No such experiment: the foreign key refuses it. */
	r.metrics.n = 1;
	r.experiment_id = 4242;
	capture_begin();
	assert_true(tl_store_add_run(st, &r, NULL) < 0);
	err = capture_end();
	assert_non_null(strstr(err, "FOREIGN KEY"));
	assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM runs"), 0);

	/* A log row the schema refuses takes the run, its metrics and its other rows with it. */
	{
		struct tl_run_record bad = r;
		struct tl_sample_row good = { .pid = 1, .t_ns = 1, .addr = 4096, .hit = 1 }, wrong = good;

		memset(&bad.samples, 0, sizeof(bad.samples));
		bad.experiment_id = add_experiment(st, "e", 0);
		wrong.hit = 2;
		assert_int_equal(tl_record_add_sample(&bad, &good), 0);
		assert_int_equal(tl_record_add_sample(&bad, &wrong), 0);
		assert_int_equal(tl_env_put(&bad.env, "allocator.mapped", "libtiermem"), 0);
		capture_begin();
		assert_true(tl_store_add_run(st, &bad, NULL) < 0);
		err = capture_end();
		assert_non_null(strstr(err, "CHECK"));
		assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM runs"), 0);
		assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM metrics"), 0);
		assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM samples"), 0);
		assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM environment"), 0);
		bad.metrics = (__typeof__(bad.metrics)){ 0 };	/* borrowed from r */
		tl_record_release(&bad);
	}

	/* The connection is usable after every failure. */
	add_run(st, add_experiment(st, "e", 0), "k-r1", TL_STATUS_OK, 1);
	assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM metrics"), 2);
	tl_store_close(st);
}

static void test_latest_row(void **state)
{
	struct tl_store *st;
	struct tl_run_row *rows;
	char **names;
	size_t n;
	int64_t e1, e1b, e2, k2_last;

	(void)state;
	assert_int_equal(tl_store_open(path_in("t.db"), &st), 0);
	e1 = add_experiment(st, "e1", 100);
	add_run(st, e1, "k1-r1", TL_STATUS_OK, 1);
	add_run(st, e1, "k2-r1", TL_STATUS_FAILED, 0);
	e2 = add_experiment(st, "e2", 200);
	add_run(st, e2, "k1-r1", TL_STATUS_OK, 50);	/* same key, other experiment */
	/* A later execution of e1 re-runs k2 and k1 and adds k3. */
	e1b = add_experiment(st, "e1", 150);
	k2_last = add_run(st, e1b, "k2-r1", TL_STATUS_OK, 2);
	add_run(st, e1b, "k1-r1", TL_STATUS_TIMEOUT, 0);
	add_run(st, e1b, "k3-r1", TL_STATUS_OK, 3);

	assert_int_equal(tl_store_query_runs(st, "e1", &rows, &n), 0);
	assert_int_equal(n, 3);
	/* Order of first appearance, values of the latest row. */
	assert_string_equal(rows[0].run_key, "k1-r1");
	assert_int_equal(rows[0].status, TL_STATUS_TIMEOUT);
	assert_false(rows[0].has_fom);
	assert_string_equal(rows[1].run_key, "k2-r1");
	assert_int_equal(rows[1].id, k2_last);
	assert_int_equal(rows[1].status, TL_STATUS_OK);
	assert_true(rows[1].fom == 2);
	assert_string_equal(rows[2].run_key, "k3-r1");
	for (size_t i = 0; i < n; i++)
		assert_string_equal(rows[i].experiment, "e1");
	tl_run_rows_free(rows, n);

	/* NULL: the experiment created last (e2 at 200, though e1 has the last row). */
	assert_int_equal(tl_store_query_runs(st, NULL, &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].experiment, "e2");
	assert_true(rows[0].fom == 50);
	tl_run_rows_free(rows, n);

	assert_int_equal(tl_store_query_runs(st, "nope", &rows, &n), 0);
	assert_int_equal(n, 0);
	tl_run_rows_free(rows, n);

	assert_int_equal(tl_store_experiments(st, &names, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "e2");
	assert_string_equal(names[1], "e1");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	tl_store_close(st);

	/* An empty database: no rows, no error. */
	assert_int_equal(tl_store_open(path_in("empty.db"), &st), 0);
	assert_int_equal(tl_store_query_runs(st, NULL, &rows, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(tl_store_experiments(st, &names, &n), 0);
	assert_int_equal(n, 0);
	free(names);
	tl_store_close(st);
}

static void test_run_done(void **state)
{
	struct tl_store *st;
	int64_t e;

	(void)state;
	assert_int_equal(tl_store_open(path_in("t.db"), &st), 0);
	e = add_experiment(st, "exp", 0);
	add_run(st, e, "ok-r1", TL_STATUS_OK, 1);
	add_run(st, e, "bad-r1", TL_STATUS_FAILED, 0);
	add_run(st, e, "fixed-r1", TL_STATUS_CRASHED, 0);
	add_run(st, e, "fixed-r1", TL_STATUS_OK, 1);
	add_run(st, e, "broke-r1", TL_STATUS_OK, 1);
	add_run(st, e, "broke-r1", TL_STATUS_TIMEOUT, 0);

	assert_int_equal(tl_store_run_done(st, "exp", "ok-r1"), 1);
	assert_int_equal(tl_store_run_done(st, "exp", "bad-r1"), 0);
	assert_int_equal(tl_store_run_done(st, "exp", "fixed-r1"), 1);
	assert_int_equal(tl_store_run_done(st, "exp", "broke-r1"), 0);
	assert_int_equal(tl_store_run_done(st, "exp", "never-r1"), 0);
	assert_int_equal(tl_store_run_done(st, "other", "ok-r1"), 0);
	assert_int_equal(tl_store_run_done(st, NULL, "ok-r1"), 1);
	/*
	 * A parameter SQLite cannot take (here: longer than the connection's
	 * length limit; in the field: no memory to copy it) is an error, not
	 * a lookup of NULL that finds nothing: --resume would run and store
	 * a finished run again.
	 */
	sqlite3_limit(st->db, SQLITE_LIMIT_LENGTH, 8);	/* the stored keys fit */
	capture_begin();
	assert_true(tl_store_run_done(st, "exp", "ok-r1-longer") < 0);
	assert_non_null(strstr(capture_end(), "cannot look up a finished run"));
	tl_store_close(st);
}

static void test_get_run(void **state)
{
	const char *path = path_in("t.db");
	struct tl_store *st;
	struct tl_run_row row;
	const char *err;
	int64_t e, first, latest, digits;
	char id[32];

	(void)state;
	assert_int_equal(tl_store_open(path, &st), 0);
	e = add_experiment(st, "exp", 0);
	first = add_run(st, e, "abc1230000000000-r1", TL_STATUS_FAILED, 0);
	latest = add_run(st, e, "abc1230000000000-r1", TL_STATUS_OK, 7);
	add_run(st, e, "abc1230000000000-r10", TL_STATUS_OK, 8);
	add_run(st, e, "abd4560000000000-r1", TL_STATUS_OK, 9);
	digits = add_run(st, e, "9876500000000000-r1", TL_STATUS_OK, 10);

	/* By id: that row, even when it is not the latest of its key. */
	snprintf(id, sizeof(id), "%lld", (long long)first);
	assert_int_equal(tl_store_get_run(st, id, &row), 0);
	assert_int_equal(row.id, first);
	assert_int_equal(row.status, TL_STATUS_FAILED);
	tl_run_row_release(&row);

	/* By key: the latest row; exact beats being a prefix of "-r10". */
	assert_int_equal(tl_store_get_run(st, "abc1230000000000-r1", &row), 0);
	assert_int_equal(row.id, latest);
	assert_true(row.fom == 7);
	assert_string_equal(row.experiment, "exp");
	tl_run_row_release(&row);

	/* By unique prefix. */
	assert_int_equal(tl_store_get_run(st, "abd", &row), 0);
	assert_string_equal(row.run_key, "abd4560000000000-r1");
	tl_run_row_release(&row);
	assert_int_equal(tl_store_get_run(st, "abc1230000000000-r1", &row), 0);
	tl_run_row_release(&row);

	/* Digits that are no row id are still a key prefix. */
	assert_int_equal(tl_store_get_run(st, "98765", &row), 0);
	assert_int_equal(row.id, digits);
	tl_run_row_release(&row);

	/* Ambiguous: -EINVAL, one line with the candidates and the file. */
	capture_begin();
	assert_int_equal(tl_store_get_run(st, "ab", &row), -EINVAL);
	err = capture_end();
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "ambiguous"));
	assert_non_null(strstr(err, "abc1230000000000-r1"));
	assert_non_null(strstr(err, "abc1230000000000-r10"));
	assert_non_null(strstr(err, "abd4560000000000-r1"));
	assert_null(strstr(err, "9876500000000000-r1"));
	assert_null(row.run_key);

	/* None: -ENOENT, naming the latest runs. */
	capture_begin();
	assert_int_equal(tl_store_get_run(st, "zzz", &row), -ENOENT);
	err = capture_end();
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "'zzz'"));
	assert_non_null(strstr(err, "9876500000000000-r1"));

	/* More than five candidates: five named, and how many there are. */
	for (int i = 0; i < 5; i++) {
		char key[32];

		snprintf(key, sizeof(key), "ff%02d000000000000-r1", i);
		add_run(st, e, key, TL_STATUS_OK, i);
	}
	add_run(st, e, "ff00000000000000-r1", TL_STATUS_OK, 1);	/* a key twice counts once */
	capture_begin();
	assert_int_equal(tl_store_get_run(st, "ff", &row), -EINVAL);
	err = capture_end();
	assert_non_null(strstr(err, "ff04000000000000-r1"));
	assert_non_null(strstr(err, "5 runs match"));
	add_run(st, e, "ff05000000000000-r1", TL_STATUS_OK, 1);
	capture_begin();
	assert_int_equal(tl_store_get_run(st, "ff", &row), -EINVAL);
	err = capture_end();
	assert_non_null(strstr(err, ", ..."));
	assert_non_null(strstr(err, "6 runs match"));
	tl_store_close(st);
}

/* The v1 schema created by hand, as a user (or an old tierlab) could have. */
static void make_v1_by_hand(const char *path)
{
	sqlite3 *db = raw_open(path);

	sql_exec(db, tl_store_migrations[0]);
	sql_exec(db, "PRAGMA application_id = 0; PRAGMA user_version = 1;"
		     "INSERT INTO experiments (id, name, created_at) VALUES (1, 'old', 5);"
		     "INSERT INTO runs (experiment_id, run_key, config_key, rep, policy, status,"
		     " higher_is_better, fom) VALUES (1, 'old-r1', 'old', 1, 'lru', 'ok', 1, 3.5);");
	sqlite3_close(db);
}

/*
 * Schema 5 (sessions): each experiment row of an older database was one
 * invocation, and becomes one session; a reader of a schema-4 file (never
 * migrated) sees the same sessions through the experiment rows.
 */
static void test_sessions_from_schema_4(void **state)
{
	const char *path = path_in("v4.db"), *old = path_in("v4-readonly.db");
	struct tl_store *st;
	struct tl_run_row *rows;
	size_t n;
	sqlite3 *db;

	(void)state;
	for (int k = 0; k < 2; k++) {
		db = raw_open(k ? old : path);
		for (int i = 0; i < 4; i++)
			sql_exec(db, tl_store_migrations[i]);
		sql_exec(db, "PRAGMA user_version = 4;"
			     "INSERT INTO experiments (id, name, host, created_at) VALUES (1, 'e', 'h', 100), (2, 'e', 'h', 200);"
			     "INSERT INTO runs (experiment_id, run_key, config_key, rep, policy, status, higher_is_better,"
			     " fom) VALUES (1, 'a-r1', 'a', 1, 'all-fast', 'ok', 1, 1), (1, 'b-r1', 'b', 1, 'lru', 'ok', 1, 1),"
			     " (2, 'a-r1', 'a', 1, 'all-fast', 'ok', 1, 2);");
		sqlite3_close(db);
	}
	assert_int_equal(tl_store_open(path, &st), 0);
	assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM sessions"), 2);
	assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM runs r JOIN sessions s ON s.id = r.session_id"
				 " WHERE s.key = 'experiment-' || r.experiment_id"), 3);
	assert_int_equal(sql_int(tl_store_db(st), "SELECT started_at FROM sessions WHERE key = 'experiment-2'"), 200);
	tl_store_close(st);

	for (int k = 0; k < 2; k++) {
		struct tl_session_filter one = { .session = 1 }, since = { .since = 150 };

		assert_int_equal(tl_store_open_existing(k ? old : path, &st), 0);
		/* the latest row of each key; a-r1 of session 1 is a row session 2 replaced */
		assert_int_equal(tl_store_query_runs(st, "e", &rows, &n), 0);
		assert_int_equal(n, 2);
		assert_true(rows[0].fom == 2 && rows[0].session_started == 200);
		assert_true(rows[1].session_id == 1 && rows[1].session_started == 100);
		assert_int_equal(rows[0].session_id, 2);
		tl_run_rows_free(rows, n);
		assert_int_equal(tl_store_query_replaced(st, "e", NULL, &rows, &n), 0);
		assert_int_equal(n, 1);
		assert_true(!strcmp(rows[0].run_key, "a-r1") && rows[0].fom == 1 && rows[0].session_id == 1);
		tl_run_rows_free(rows, n);
		/* within session 1 its own a-r1 is the latest, and nothing is replaced */
		assert_int_equal(tl_store_query_runs_in(st, NULL, &one, &rows, &n), 0);
		assert_int_equal(n, 2);
		assert_true(rows[0].fom == 1 && rows[0].session_id == 1);
		tl_run_rows_free(rows, n);
		assert_int_equal(tl_store_query_replaced(st, "e", &one, &rows, &n), 0);
		assert_int_equal(n, 0);
		tl_run_rows_free(rows, n);
		assert_int_equal(tl_store_query_runs_in(st, "e", &since, &rows, &n), 0);
		assert_int_equal(n, 1);
		assert_int_equal(rows[0].session_id, 2);
		tl_run_rows_free(rows, n);
		tl_store_close(st);
	}
	/* the reader left the schema-4 file as it was */
	db = raw_open(old);
	assert_int_equal(sql_int(db, "PRAGMA user_version"), 4);
	sqlite3_close(db);
}

static void test_migrate_from_empty(void **state)
{
	const char *path = path_in("v0.db"), *zero = path_in("zero.db");
	struct tl_store *st;
	struct blob before;
	sqlite3 *db;

	(void)state;
	/* A SQLite file at user_version 0 with no tables: a new database. */
	db = raw_open(path);
	sql_exec(db, "PRAGMA user_version = 0; VACUUM;");
	sqlite3_close(db);
	assert_int_equal(tl_store_open(path, &st), 0);
	assert_int_equal(sql_int(tl_store_db(st), "PRAGMA user_version"), TL_STORE_SCHEMA_VERSION);
	add_run(st, add_experiment(st, "e", 0), "k-r1", TL_STATUS_OK, 1);
	tl_store_close(st);

	/*
	 * A zero-byte file is an empty database too, which a reader refuses
	 * (nothing to read) and leaves as it was: readers never write a schema.
	 */
	write_file(zero, "", 0);
	capture_begin();
	assert_int_equal(tl_store_open_existing(zero, &st), -ENOENT);
	assert_non_null(strstr(capture_end(), "holds no tierlab results (an empty database)"));
	assert_null(st);
	before = read_file(zero);
	assert_int_equal(before.len, 0);
	free(before.data);
	assert_false(file_exists(zero, "-wal"));
	assert_false(file_exists(zero, "-shm"));
	assert_int_equal(tl_store_open(zero, &st), 0);
	assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM experiments"), 0);
	tl_store_close(st);
}

/*
 * Readers open read-only: an older schema is read as it is (no migration,
 * NULL for the axis columns it lacks) and nothing about the file changes
 * (tests/cli/readers.sh shows a read-only directory, as a user other than
 * root).
 */
static void test_readers_never_write(void **state)
{
	const char *path = path_in("hand.db");
	struct tl_store *st;
	struct tl_run_row *rows;
	struct blob before;
	sqlite3 *db;
	size_t n;

	(void)state;
	make_v1_by_hand(path);
	db = raw_open(path);
	sql_exec(db, "ALTER TABLE runs DROP COLUMN \"sampler\"; PRAGMA journal_mode = WAL;");
	sqlite3_close(db);
	before = read_file(path);
	assert_int_equal(tl_store_open_existing(path, &st), 0);
	assert_int_equal(tl_store_query_runs(st, "old", &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].values[TL_AXIS_POLICY], "lru");
	assert_null(rows[0].values[TL_AXIS_SAMPLER]);
	tl_run_rows_free(rows, n);
	assert_int_equal(sql_int(tl_store_db(st), "PRAGMA user_version"), 1);
	tl_store_close(st);
	assert_same_file(path, &before);
	free(before.data);
}

static void test_open_hand_written_v1(void **state)
{
	const char *path = path_in("hand.db");
	struct tl_store *st;
	struct tl_run_row *rows;
	size_t n;

	(void)state;
	make_v1_by_hand(path);
	assert_int_equal(tl_store_open(path, &st), 0);
	/* Upgraded in place to the latest schema (2 added machine_profiles). */
	assert_int_equal(sql_int(tl_store_db(st), "PRAGMA user_version"), TL_STORE_SCHEMA_VERSION);
	assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM machine_profiles"), 0);
	assert_int_equal(tl_store_query_runs(st, "old", &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].values[TL_AXIS_POLICY], "lru");
	assert_true(rows[0].fom == 3.5);
	tl_run_rows_free(rows, n);
	tl_store_close(st);
}

static void test_fake_migrations(void **state)
{
	const char *path = path_in("hand.db"), *fresh = path_in("fresh.db");
	const char *two[] = {
		tl_store_migrations[0],
		"CREATE TABLE extra (x INTEGER); INSERT INTO extra SELECT count(*) FROM runs;",
	};
	const char *broken[] = {
		tl_store_migrations[0],
		"CREATE TABLE half (x); THIS IS NOT SQL;",
	};
	struct tl_store *st;
	struct blob before;
	const char *err;
	char want[512];

	(void)state;
	make_v1_by_hand(path);

	/* A failing migration rolls back whole and leaves the version alone. */
	capture_begin();
	assert_true(tl_store_open_with(path, true, broken, 2, &st) < 0);
	err = capture_end();
	assert_null(st);
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "migration to schema 2"));
	assert_non_null(strstr(err, "syntax error"));
	/* Opened by a tierlab that knows schema 1 only, so the real migration 2 does not run. */
	assert_int_equal(tl_store_open_with(path, true, tl_store_migrations, 1, &st), 0);
	assert_int_equal(sql_int(tl_store_db(st), "PRAGMA user_version"), 1);
	assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM sqlite_schema"
				 " WHERE name = 'half'"), 0);
	tl_store_close(st);

	/* v1 -> v2: the second migration runs once and sees the old data. */
	assert_int_equal(tl_store_open_with(path, true, two, 2, &st), 0);
	assert_int_equal(sql_int(tl_store_db(st), "PRAGMA user_version"), 2);
	assert_int_equal(sql_int(tl_store_db(st), "SELECT x FROM extra"), 1);
	tl_store_close(st);
	assert_int_equal(tl_store_open_with(path, true, two, 2, &st), 0);
	assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM extra"), 1);
	tl_store_close(st);

	/* A tierlab that knows only schema 1: refused, and not a byte changes. */
	before = read_file(path);
	capture_begin();
	assert_int_equal(tl_store_open_with(path, true, tl_store_migrations, 1, &st), -EPROTO);
	err = capture_end();
	snprintf(want, sizeof(want), "error: database '%s': written by a newer tierlab"
		 " (schema 2, this one knows 1)\n", path);
	assert_string_equal(err, want);
	assert_same_file(path, &before);
	assert_false(file_exists(path, "-wal"));
	assert_false(file_exists(path, "-shm"));
	free(before.data);

	/* 0 -> 2 in one open. */
	assert_int_equal(tl_store_open_with(fresh, true, two, 2, &st), 0);
	assert_int_equal(sql_int(tl_store_db(st), "PRAGMA user_version"), 2);
	assert_int_equal(sql_int(tl_store_db(st), "SELECT x FROM extra"), 0);
	tl_store_close(st);
}

static void test_axis_columns_added(void **state)
{
	/* A runs table without some axis columns (an axis added since the database was made) gets them. */
	const char *old[] = {
		"CREATE TABLE experiments (id INTEGER PRIMARY KEY, name TEXT);"
		"CREATE TABLE runs (id INTEGER PRIMARY KEY, run_key TEXT, \"policy\" TEXT);"
		"INSERT INTO runs (run_key, policy) VALUES ('k-r1', 'lru');",
	};
	const char *none[] = { "CREATE TABLE experiments (id INTEGER PRIMARY KEY, name TEXT);" };
	struct tl_store *st;
	const char *err;

	(void)state;
	assert_int_equal(tl_store_open_with(path_in("t.db"), true, old, 1, &st), 0);
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		char sql[128];

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM pragma_table_info('runs') WHERE name = '%s'",
			 tl_axes[a].name);
		assert_int_equal(sql_int(tl_store_db(st), sql), 1);
	}
	assert_sql_text(tl_store_db(st), "SELECT policy FROM runs", "lru");
	assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM runs WHERE workload IS NULL"), 1);
	tl_store_close(st);
	/* once is enough: opening again changes nothing */
	assert_int_equal(tl_store_open_with(path_in("t.db"), true, old, 1, &st), 0);
	tl_store_close(st);

	/* a database with no runs table at all is not one of ours */
	capture_begin();
	assert_int_equal(tl_store_open_with(path_in("u.db"), true, none, 1, &st), -EPROTO);
	err = capture_end();
	assert_non_null(strstr(err, "no table runs"));
	assert_null(st);
}

/*
 * A tierlab database someone dropped a table from: readers and writers say
 * it is damaged, in words for a user (no hint for developers), and change
 * nothing.
 */
static void test_damaged_database(void **state)
{
	const char *path = path_in("dropped.db");
	struct tl_store *st;
	struct blob before;
	const char *err;
	sqlite3 *db;

	(void)state;
	assert_int_equal(tl_store_open(path, &st), 0);
	tl_store_close(st);
	db = raw_open(path);
	sql_exec(db, "DROP TABLE runs");
	sqlite3_close(db);
	before = read_file(path);
	capture_begin();
	assert_int_equal(tl_store_open_existing(path, &st), -EPROTO);
	assert_int_equal(tl_store_open(path, &st), -EPROTO);
	err = capture_end();
	assert_int_equal(count_lines(err), 2);
	assert_non_null(strstr(err, "damaged: its table 'runs' is missing"));
	assert_null(strstr(err, "migration"));
	assert_null(strstr(err, "store-schema"));
	assert_same_file(path, &before);
	free(before.data);
}

static void test_refuses_newer_version(void **state)
{
	const char *path = path_in("t.db");
	struct tl_store *st;
	struct blob before;
	sqlite3 *db;
	const char *err;
	char want[64];

	(void)state;
	assert_int_equal(tl_store_open(path, &st), 0);
	add_run(st, add_experiment(st, "e", 0), "k-r1", TL_STATUS_OK, 1);
	tl_store_close(st);
	db = raw_open(path);
	sql_exec(db, "PRAGMA user_version = 7");
	sqlite3_close(db);

	before = read_file(path);
	capture_begin();
	assert_int_equal(tl_store_open(path, &st), -EPROTO);
	assert_int_equal(tl_store_open_existing(path, &st), -EPROTO);
	err = capture_end();
	assert_null(st);
	assert_int_equal(count_lines(err), 2);
	snprintf(want, sizeof(want), "(schema 7, this one knows %d)", TL_STORE_SCHEMA_VERSION);
	assert_non_null(strstr(err, want));
	assert_same_file(path, &before);
	free(before.data);
}

static void test_refuses_foreign_database(void **state)
{
	const char *path = path_in("other.db"), *app = path_in("app.db");
	struct tl_store *st;
	struct blob before;
	sqlite3 *db;
	const char *err;

	(void)state;
	/* Another program's tables, no version. */
	db = raw_open(path);
	sql_exec(db, "CREATE TABLE photos (id INTEGER PRIMARY KEY, file TEXT)");
	sqlite3_close(db);
	before = read_file(path);
	capture_begin();
	assert_int_equal(tl_store_open(path, &st), -EPROTO);
	err = capture_end();
	assert_non_null(strstr(err, "not a tierlab database"));
	assert_same_file(path, &before);
	free(before.data);

	/* Another program's application id. */
	db = raw_open(app);
	sql_exec(db, "PRAGMA application_id = 42; PRAGMA user_version = 1; CREATE TABLE t (x)");
	sqlite3_close(db);
	capture_begin();
	assert_int_equal(tl_store_open(app, &st), -EPROTO);
	err = capture_end();
	assert_non_null(strstr(err, "application id 0x2a"));
}

/* Opening fails with one line naming the file and SQLite's words; the file stays as it was. */
static void expect_refused(const char *path, const char *why)
{
	struct tl_store *st = (void *)1;
	struct blob before = read_file(path);
	const char *err;
	char want[512];
	size_t len;

	capture_begin();
	assert_true(tl_store_open(path, &st) < 0);
	err = capture_end();
	assert_null(st);
	assert_int_equal(count_lines(err), 1);
	len = snprintf(want, sizeof(want), "error: database '%s': ", path);
	assert_int_equal(strncmp(err, want, len), 0);
	snprintf(want, sizeof(want), "%s\n", why);
	assert_true(strlen(err) > strlen(want));
	assert_string_equal(err + strlen(err) - strlen(want), want);
	assert_same_file(path, &before);
	assert_false(file_exists(path, "-wal"));
	assert_false(file_exists(path, "-shm"));

	capture_begin();
	assert_true(tl_store_open_existing(path, &st) < 0);
	capture_end();
	assert_same_file(path, &before);
	free(before.data);
}

static void test_corrupt_files(void **state)
{
	const char *random = path_in("random.db"), *text = path_in("notes.txt");
	const char *short_file = path_in("short_file.db"), *cut = path_in("cut.db"), *real = path_in("real.db");
	struct tl_store *st;
	struct blob b;
	char bytes[8192];
	unsigned seed = 12345;

	(void)state;
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (char)(rand_r(&seed) >> 7);
	bytes[0] = 'X';	/* never SQLite's magic by chance */
	write_file(random, bytes, sizeof(bytes));
	expect_refused(random, "file is not a database");

	write_file(text, "name: hpcg\nworkload: hpcg\n", 26);
	expect_refused(text, "file is not a database");

	/* A real database, truncated: to its first page, and to its first 60 bytes. */
	assert_int_equal(tl_store_open(real, &st), 0);
	int64_t e = add_experiment(st, "e", 0);

	for (int i = 0; i < 100; i++) {
		char key[32];

		snprintf(key, sizeof(key), "%016d-r1", i);
		add_run(st, e, key, TL_STATUS_OK, i);
	}
	tl_store_close(st);
	assert_false(file_exists(real, "-wal"));	/* everything is in the main file */
	b = read_file(real);
	assert_true(b.len > 3 * 4096);
	write_file(cut, b.data, b.len / 2);
	expect_refused(cut, "database disk image is malformed");
	write_file(short_file, b.data, 60);
	expect_refused(short_file, "file is not a database");
	free(b.data);

	/* A directory is not a database either; a missing file is not made by open_existing. */
	capture_begin();
	assert_int_equal(tl_store_open(dir, &st), -EISDIR);
	assert_int_equal(tl_store_open_existing(path_in("missing.db"), &st), -ENOENT);
	capture_end();
	assert_false(file_exists(path_in("missing.db"), ""));
	assert_non_null(strstr(captured, "missing.db': no such file"));
}

static void test_integrity_after_many_inserts(void **state)
{
	struct tl_store *st;
	sqlite3 *db;
	int64_t e;

	(void)state;
	assert_int_equal(tl_store_open(path_in("many.db"), &st), 0);
	e = add_experiment(st, "many", 0);
	for (int i = 0; i < 1000; i++) {
		char key[32];

		snprintf(key, sizeof(key), "%016x-r%d", i / 3, i % 3 + 1);
		add_run(st, e, key, i % 7 ? TL_STATUS_OK : TL_STATUS_FAILED, i);
	}
	db = tl_store_db(st);
	assert_sql_text(db, "PRAGMA integrity_check", "ok");
	assert_int_equal(sql_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	assert_int_equal(sql_int(db, "SELECT count(*) FROM runs"), 1000);
	assert_int_equal(sql_int(db, "SELECT count(*) FROM metrics"), 2000);
	tl_store_close(st);
}

#define WRITER_RUNS 150

static int writer(const char *path, const char *name, int gate)
{
	struct tl_store *st;
	char c;
	int64_t e;

	if (read(gate, &c, 1) < 0)	/* returns 0 when the parent lets both go */
		return 1;
	if (tl_store_open(path, &st))
		return 2;
	{
		struct tl_experiment_record rec = { .name = name };

		if (tl_store_add_experiment(st, &rec, &e))
			return 3;
	}
	for (int i = 0; i < WRITER_RUNS; i++) {
		struct tl_run_result res = { .status = TL_STATUS_OK };
		struct tl_metric m[] = { { "hit_rate", i / 1000.0, NULL }, { "n", i, NULL } };
		struct tl_run_record r = {
			.experiment_id = e, .config_key = name, .rep = 1, .result = &res,
			.has_fom = true, .fom = i, .metrics = { m, 2, 0 },
		};
		char key[64];

		snprintf(key, sizeof(key), "%s-%04d-r1", name, i);
		r.run_key = key;
		if (tl_store_add_run(st, &r, NULL))
			return 4;
	}
	tl_store_close(st);
	return 0;
}

static void test_concurrent_writers(void **state)
{
	const char *path = path_in("sub/shared.db");	/* neither child finds it there */
	const char *names[2] = { "left", "right" };
	struct tl_store *st;
	struct tl_run_row *rows;
	pid_t pid[2];
	int gate[2];
	size_t n;

	(void)state;
	assert_int_equal(pipe(gate), 0);
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (pid[i] == 0) {
			close(gate[1]);
			_exit(writer(path, names[i], gate[0]));
		}
	}
	close(gate[0]);
	close(gate[1]);	/* both start now */
	for (int i = 0; i < 2; i++) {
		int status;

		assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}

	assert_int_equal(tl_store_open_existing(path, &st), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(tl_store_query_runs(st, names[i], &rows, &n), 0);
		assert_int_equal(n, WRITER_RUNS);
		for (size_t k = 0; k < n; k++) {
			assert_true(rows[k].fom == (double)k);	/* each writer's order kept */
			assert_true(rows[k].has_hit_rate);
		}
		tl_run_rows_free(rows, n);
	}
	assert_int_equal(sql_int(tl_store_db(st), "SELECT count(*) FROM metrics"), 4 * WRITER_RUNS);
	assert_sql_text(tl_store_db(st), "PRAGMA integrity_check", "ok");
	tl_store_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_axis_columns_match),
		cmocka_unit_test_setup_teardown(test_directions_match_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_run_is_atomic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_latest_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_done, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sessions_from_schema_4, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_hand_written_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readers_never_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_migrations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_axis_columns_added, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_newer_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_foreign_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_integrity_after_many_inserts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_writers, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
