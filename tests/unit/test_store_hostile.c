/*
 * The store against databases made to hang or fool its readers: the time
 * budget (an endless query ends with one error line; the caller's time
 * between rows is not charged; TIERLAB_DB_TIMEOUT), views and virtual
 * tables where the schema has tables, refused by readers, writers and
 * merges before any query runs over them, and a shard without its
 * indexes merged as one with them.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "scratch.h"

#include "store/store-internal.h"

static int setup(void **state)
{
	(void)state;
	unsetenv("TIERLAB_DB_TIMEOUT");
	return scratch_make("hostile");
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("TIERLAB_DB_TIMEOUT");
	return scratch_remove();
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sql_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	sqlite3_close(db);
}

/* A database of tierlab's schema holding one experiment with `runs` runs (keys k1, k2, ...). */
static const char *make_db(const char *name, int runs)
{
	struct tl_experiment_record e = { .name = "x", .spec_hash = "h" };
	const char *path = path_in(name);
	struct tl_store *st;
	int64_t exp;
	char key[32];

	assert_int_equal(tl_store_open(path, &st), 0);
	assert_int_equal(tl_store_add_experiment(st, &e, &exp), 0);
	for (int i = 1; i <= runs; i++) {
		struct tl_metric m[] = { { "hit_rate", 0.5, NULL }, { "migrated_bytes", 4096, "B" } };
		struct tl_run_result res = { .status = TL_STATUS_OK, .wall = 1, .started_at = i, .ended_at = i + 1 };
		struct tl_run_record r = { .experiment_id = exp, .run_key = key, .config_key = "c", .rep = 1,
					   .result = &res, .has_fom = true, .fom = i, .fom_unit = "GF/s",
					   .higher_is_better = true, .metrics = { m, 2, 0 } };

		snprintf(key, sizeof(key), "k%d", i);
		assert_int_equal(tl_env_put(&r.env, "node", "n1"), 0);
		assert_int_equal(tl_store_add_run(st, &r, NULL), 0);
		tl_env_release(&r.env);
	}
	tl_store_close(st);
	return path;
}

static const char endless[] =
	"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";

/* An endless query on a reader's connection ends at the budget, with one line naming the database. */
static void test_budget_ends_endless_query(void **state)
{
	const char *path = make_db("t.db", 1);
	struct tl_store *st;
	const char *err;
	double t0, took;
	int rc;

	(void)state;
	setenv("TIERLAB_DB_TIMEOUT", "0.5", 1);
	assert_int_equal(tl_store_open_existing(path, &st), 0);
	t0 = now();
	rc = sqlite3_exec(tl_store_db(st), endless, NULL, NULL, NULL);
	took = now() - t0;
	assert_int_equal(rc, SQLITE_INTERRUPT);
	assert_true(took >= 0.4 && took < 5);
	capture_begin();
	assert_int_equal(tl_store_sqlerr(st, rc, "cannot read runs"), -ETIMEDOUT);
	/* the budget is spent: a later query that runs past a few thousand steps fails at once, silently */
	t0 = now();
	rc = sqlite3_exec(tl_store_db(st), endless, NULL, NULL, NULL);
	assert_int_equal(rc, SQLITE_INTERRUPT);
	assert_true(now() - t0 < 0.1);
	assert_int_equal(tl_store_sqlerr(st, rc, "cannot read metrics"), -ETIMEDOUT);
	err = capture_end();
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, "error: database '"));
	assert_non_null(strstr(err, "t.db' is too slow or hostile: cannot read runs (gave up after 0.5 s; "
				    "TIERLAB_DB_TIMEOUT=SECONDS allows longer)"));
	tl_store_close(st);
}

/* What the caller does between rows is not the database's time. */
static void test_budget_counts_sqlite_only(void **state)
{
	const char *path = make_db("t.db", 8);
	struct tl_store *st;
	sqlite3_stmt *s;
	int rows = 0, rc;

	(void)state;
	setenv("TIERLAB_DB_TIMEOUT", "0.3", 1);
	assert_int_equal(tl_store_open_existing(path, &st), 0);
	assert_int_equal(sqlite3_prepare_v2(tl_store_db(st), "SELECT id FROM runs", -1, &s, NULL), SQLITE_OK);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		rows++;
		usleep(100 * 1000);	/* 0.8 s in all, as a slow pipe would hold the caller */
	}
	assert_int_equal(rc, SQLITE_DONE);
	assert_int_equal(rows, 8);
	sqlite3_finalize(s);
	assert_true(st->budget.used_s < 0.3);
	tl_store_close(st);
}

/* TIERLAB_DB_TIMEOUT: a duration; 0 is no limit; anything else is refused at the open. */
static void test_budget_setting(void **state)
{
	const char *path = make_db("t.db", 1);
	struct tl_store *st;
	const char *err;
	double limit;

	(void)state;
	assert_int_equal(tl_store_open_existing(path, &st), 0);
	assert_int_equal(tl_store_budget_limit(st, 0, &limit), 0);
	assert_true(limit == 60);
	assert_int_equal(tl_store_budget_limit(st, (off_t)3 << 30, &limit), 0);
	assert_true(limit == 960);
	assert_true(st->budget.limit_s > 60 && st->budget.limit_s < 61);
	setenv("TIERLAB_DB_TIMEOUT", "2m", 1);
	assert_int_equal(tl_store_budget_limit(st, (off_t)3 << 30, &limit), 0);
	assert_true(limit == 120);
	tl_store_close(st);

	setenv("TIERLAB_DB_TIMEOUT", "0", 1);
	assert_int_equal(tl_store_open_existing(path, &st), 0);
	assert_true(st->budget.limit_s == 0);
	tl_store_close(st);

	setenv("TIERLAB_DB_TIMEOUT", "soon", 1);
	capture_begin();
	assert_int_equal(tl_store_open_existing(path, &st), -EINVAL);
	err = capture_end();
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, "TIERLAB_DB_TIMEOUT: 'soon' is not a duration"));
}

/* A view, a trigger's name or a virtual table where the schema has a table: refused before a query. */
static void test_views_refused(void **state)
{
	static const struct {
		const char *sql, *said;
	} cases[] = {
		{ "DROP TABLE runs; CREATE VIEW runs AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
		  " SELECT x AS id, 1 AS experiment_id, 'k' || x AS run_key FROM c",
		  "its 'runs' is a view, not a table" },
		{ "DROP TABLE metrics; CREATE VIEW METRICS AS SELECT 1 AS run_id", "its 'METRICS' is a view, not a table" },
		{ "DROP TABLE samples; CREATE VIRTUAL TABLE samples USING fts4(x)",
		  "its 'samples' is a virtual table, not a table" },
		{ "DROP TABLE environment; CREATE INDEX environment ON runs (status)",
		  "its 'environment' is an index, not a table" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[32];
		const char *path, *err;
		struct tl_store *st;

		snprintf(name, sizeof(name), "v%zu.db", i);
		path = make_db(name, 1);
		sql_exec(path, cases[i].sql);
		capture_begin();
		assert_int_equal(tl_store_open_existing(path, &st), -EPROTO);
		assert_int_equal(tl_store_open(path, &st), -EPROTO);
		err = capture_end();
		assert_int_equal(count_lines(err), 2);
		if (!strstr(err, cases[i].said))
			fail_msg("case %zu: expected '%s' in: %s", i, cases[i].said, err);
	}
}

/* A shard with a view is refused, within the budget, and nothing of it is merged. */
static void test_merge_refuses_views(void **state)
{
	const char *shard = make_db("shard.db", 2);
	struct tl_merge_expect want = { "", "" };
	struct tl_merge_stats stats;
	struct tl_store *st;
	const char *err;

	(void)state;
	sql_exec(shard, "DROP TABLE runs; CREATE VIEW runs AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL"
			" SELECT x + 1 FROM c) SELECT x AS id, 'k' || x AS run_key, 0 AS started_at FROM c");
	assert_int_equal(tl_store_open(path_in("main.db"), &st), 0);
	capture_begin();
	assert_int_equal(tl_store_merge(st, shard, &want, &stats), -EPROTO);
	err = capture_end();
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, "shard.db' refused: its 'runs' is a view, not a table"));
	assert_int_equal(stats.added, 0);
	/* the budget ended with the merge: the writer's connection is not bounded */
	assert_true(st->budget.limit_s == 0);
	tl_store_close(st);
}

/* The rows of a main database, as text in one order, to compare two merges. */
static char *dump(const char *path)
{
	static const char *const sql[] = {
		"SELECT group_concat(x, '|') FROM (SELECT run_key || ',' || status || ',' || fom AS x"
		" FROM runs ORDER BY id)",
		"SELECT group_concat(x, '|') FROM (SELECT r.run_key || ',' || m.name || ',' || m.value AS x FROM metrics m"
		" JOIN runs r ON r.id = m.run_id ORDER BY r.id, m.name)",
		"SELECT group_concat(x, '|') FROM (SELECT ifnull(r.run_key, '-') || ',' || e.key || ',' || e.value AS x"
		" FROM environment e LEFT JOIN runs r ON r.id = e.run_id ORDER BY e.rowid)",
	};
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		sqlite3_stmt *s;

		assert_int_equal(sqlite3_prepare_v2(db, sql[i], -1, &s, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		fprintf(f, "%s\n", sqlite3_column_text(s, 0) ? (const char *)sqlite3_column_text(s, 0) : "");
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	fclose(f);
	return out;
}

/* A shard whose indexes were dropped merges into the same rows as one with them; the shard is unchanged. */
static void test_merge_without_indexes(void **state)
{
	const char *with = make_db("with.db", 40), *without = path_in("without.db");
	struct tl_merge_expect want = { "", "" };
	struct tl_merge_stats stats;
	struct tl_store *st;
	char *a, *b, cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", with, without);
	assert_int_equal(system(cmd), 0);
	sql_exec(without, "DROP INDEX runs_run_key; DROP INDEX environment_run; DROP INDEX runs_experiment");
	/* a re-run of k3 after it: its latest row is the one merged */
	sql_exec(without, "INSERT INTO runs (experiment_id, run_key, config_key, rep, status, fom, higher_is_better)"
			  " VALUES (1, 'k3', 'c', 1, 'ok', 99, 1)");
	sql_exec(with, "INSERT INTO runs (experiment_id, run_key, config_key, rep, status, fom, higher_is_better)"
		       " VALUES (1, 'k3', 'c', 1, 'ok', 99, 1)");
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s.before'", without, without);
	assert_int_equal(system(cmd), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(tl_store_open(path_in(i ? "m2.db" : "m1.db"), &st), 0);
		assert_int_equal(tl_store_merge(st, i ? without : with, &want, &stats), 0);
		assert_int_equal(stats.added, 40);
		assert_int_equal(tl_store_merge(st, i ? without : with, &want, &stats), 0);
		assert_int_equal(stats.added, 0);
		assert_int_equal(stats.present, 40);
		tl_store_close(st);
	}
	a = dump(path_in("m1.db"));
	b = dump(path_in("m2.db"));
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "k3,ok,99"));
	free(a);
	free(b);
	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s.before'", without, without);
	assert_int_equal(system(cmd), 0);
}

/*
 * Each value a run row may not hold: the run is left out of a list with
 * one warning naming it and the column, and asking for it is an error.
 */
static void test_bad_values(void **state)
{
	static const struct {
		const char *sql, *said;
	} cases[] = {
		{ "UPDATE runs SET fom = 'abc'", "its fom is text 'abc', not a number" },
		{ "UPDATE runs SET fom = x'0102'", "its fom is a blob of 2 bytes, not a number" },
		{ "UPDATE runs SET fom = 9e999", "its fom is inf, not a number" },
		{ "UPDATE metrics SET value = 5 WHERE name = 'hit_rate'",
		  "its metric hit_rate is 5, not a fraction from 0 to 1" },
		{ "UPDATE metrics SET value = -0.5 WHERE name = 'hit_rate'",
		  "its metric hit_rate is -0.5, not a fraction from 0 to 1" },
		{ "UPDATE metrics SET value = 'lots' WHERE name = 'migrated_bytes'",
		  "its metric migrated_bytes is text 'lots', not a number from 0 up" },
		{ "UPDATE runs SET maxrss_kb = -1", "its maxrss_kb is -1, not a whole number from 0 up" },
		{ "UPDATE runs SET maxrss_kb = 1.5", "its maxrss_kb is 1.5, not a whole number from 0 up" },
		{ "UPDATE runs SET wall_s = -3", "its wall_s is -3, not a number from 0 up" },
		{ "UPDATE runs SET exit_code = 300", "its exit_code is 300, not an exit status from 0 to 255" },
		{ "UPDATE runs SET signal = 0", "its signal is 0, not a signal number from 1 to 64" },
		{ "UPDATE runs SET policy = x'41'", "its policy is a blob of 1 bytes, not text" },
		{ "PRAGMA ignore_check_constraints = 1; UPDATE runs SET higher_is_better = 2",
		  "its higher_is_better is 2, not 0 or 1" },
		{ "PRAGMA ignore_check_constraints = 1; UPDATE runs SET rep = 0", "its rep is 0, not a whole number from 1 up" },
		{ "PRAGMA ignore_check_constraints = 1; UPDATE runs SET status = 'great'",
		  "its status is 'great', not one of ok, failed, timeout, crashed" },
		/* the message stays one line that cannot clear a screen */
		{ "UPDATE runs SET fom = 'a\nb\x1b[2J'", "its fom is text 'a\\nb\\x1b[2J', not a number" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[32], sql[256], want[256];
		struct tl_run_row *rows, row;
		struct tl_store *st;
		const char *path, *err;
		size_t n;
		int rc[3];

		snprintf(name, sizeof(name), "b%zu.db", i);
		path = make_db(name, 2);
		/* the first run only */
		snprintf(sql, sizeof(sql), "%s %s", cases[i].sql,
			 strstr(cases[i].sql, "WHERE") ? "AND run_id = 1" : "WHERE id = 1");
		sql_exec(path, sql);
		assert_int_equal(tl_store_open_existing(path, &st), 0);
		capture_begin();
		rc[0] = tl_store_query_runs(st, NULL, &rows, &n);
		rc[1] = tl_store_get_run(st, "k1", &row);
		rc[2] = tl_store_get_run(st, "k2", &row);
		err = capture_end();
		if (rc[0] || rc[1] != -EIO || rc[2] || n != 1)
			fail_msg("case %zu: %d %d %d, %zu runs: %s", i, rc[0], rc[1], rc[2], n, err);
		assert_string_equal(rows[0].run_key, "k2");
		tl_run_rows_free(rows, n);
		tl_run_row_release(&row);
		assert_int_equal(count_lines(err), 2);
		snprintf(want, sizeof(want), "warning: database '%s': run 1 (k1) left out: %s\n", path, cases[i].said);
		if (strncmp(err, want, strlen(want)))
			fail_msg("case %zu: expected\n%s in\n%s", i, want, err);
		snprintf(want, sizeof(want), "error: database '%s': run 1 (k1): %s (the database was changed by hand, "
			 "or is damaged)\n", path, cases[i].said);
		if (!strstr(err, want))
			fail_msg("case %zu: expected\n%s in\n%s", i, want, err);
		tl_store_close(st);
	}
}

/* A good database reads without a word; many bad runs give ten warnings and one line of the rest. */
static void test_bad_values_counted(void **state)
{
	const char *path = make_db("many.db", 30);
	struct tl_run_row *rows;
	struct tl_store *st;
	const char *err;
	size_t n;

	(void)state;
	assert_int_equal(tl_store_open_existing(path, &st), 0);
	capture_begin();
	assert_int_equal(tl_store_query_runs(st, NULL, &rows, &n), 0);
	err = capture_end();
	assert_string_equal(err, "");
	assert_int_equal(n, 30);
	tl_run_rows_free(rows, n);
	tl_store_close(st);

	sql_exec(path, "UPDATE runs SET fom = 'x' WHERE id > 5");
	assert_int_equal(tl_store_open_existing(path, &st), 0);
	capture_begin();
	assert_int_equal(tl_store_query_runs(st, NULL, &rows, &n), 0);
	err = capture_end();
	assert_int_equal(n, 5);
	assert_int_equal(count_lines(err), 11);
	assert_non_null(strstr(err, "run 15 (k15) left out: its fom is text 'x', not a number\n"));
	assert_null(strstr(err, "run 16 (k16)"));
	assert_non_null(strstr(err, "': 15 more runs left out for values the schema does not allow\n"));
	tl_run_rows_free(rows, n);
	tl_store_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_budget_ends_endless_query, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_counts_sqlite_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_setting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_views_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_refuses_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_without_indexes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_values_counted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
