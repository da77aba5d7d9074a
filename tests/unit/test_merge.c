/*
 * Merging shards into the main database (store-merge.c): every row of a
 * run comes along (metrics, environment), a run directory relative to the
 * shard's directory is made relative to the main database's, merging
 * twice stores each run once, a failed run is followed by the shard's ok
 * one, and a shard of another experiment, spec or schema version is
 * refused whole, leaving the main database as it was.
 */
#include <errno.h>
#include <limits.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "scratch.h"

#include "store/store-internal.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("merge");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

/* A shard as an array task leaves it: one experiment, its runs, their directories under the shard's. */
static struct tl_store *shard(const char *name, const char *experiment, const char *hash)
{
	struct tl_env env = { 0 };
	struct tl_experiment_record e = { .name = experiment, .spec_hash = hash, .host = "node7", .env = &env };
	struct tl_store *st;
	int64_t id;

	assert_int_equal(tl_store_open(path_in(name), &st), 0);
	assert_int_equal(tl_env_put(&env, "machine.fast", "1"), 0);
	assert_int_equal(tl_store_add_experiment(st, &e, &id), 0);
	tl_env_release(&env);
	return st;
}

static void add_run(struct tl_store *st, const char *key, enum tl_run_status status, double started)
{
	struct tl_run_result res = { .status = status, .exit_code = status != TL_STATUS_OK, .wall = 1,
				     .started_at = started, .ended_at = started + 1 };
	struct tl_metric m[] = { { "hit_rate", 0.75, NULL }, { "migrated_bytes", 8192, "bytes" } };
	char out[PATH_MAX];
	struct tl_run_record r = {
		.experiment_id = 1, .run_key = key, .config_key = "cfg", .rep = 1, .result = &res,
		.has_fom = true, .fom = 2.5, .fom_unit = "GF/s", .higher_is_better = true,
		.metrics = { m, 2, 0 }, .out_dir = out,
	};

	/* beside the shard's database, as the executor puts them */
	snprintf(out, sizeof(out), "%s/%s", tl_store_dir(st), key);
	assert_int_equal(mkdir(out, 0755), 0);
	assert_int_equal(tl_env_put(&r.env, "node", "n1"), 0);
	r.values[TL_AXIS_POLICY] = "lru";
	assert_int_equal(tl_store_add_run(st, &r, NULL), 0);
	tl_env_release(&r.env);
}

static long long count(struct tl_store *st, const char *sql)
{
	sqlite3_stmt *s;
	long long n;

	assert_int_equal(sqlite3_prepare_v2(tl_store_db(st), sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

static void test_merge_twice(void **state)
{
	struct tl_merge_expect want;
	struct tl_merge_stats s;
	struct tl_store *a, *b, *m;
	struct tl_run_row *rows;
	size_t n;

	(void)state;
	memset(&want, 0, sizeof(want));
	assert_int_equal(mkdir(path_in("shards"), 0755), 0);
	assert_int_equal(mkdir(path_in("shards/1_0"), 0755), 0);
	assert_int_equal(mkdir(path_in("shards/1_1"), 0755), 0);
	a = shard("shards/1_0/shard.db", "demo", "h1");
	add_run(a, "k1-r1", TL_STATUS_OK, 10);
	add_run(a, "k2-r1", TL_STATUS_FAILED, 11);
	tl_store_close(a);
	b = shard("shards/1_1/shard.db", "demo", "h1");
	add_run(b, "k3-r1", TL_STATUS_OK, 12);
	tl_store_close(b);

	assert_int_equal(tl_store_open(path_in("main.db"), &m), 0);
	assert_int_equal(tl_store_merge(m, path_in("shards/1_0/shard.db"), &want, &s), 0);
	assert_string_equal(want.name, "demo");	/* the first shard says which experiment */
	assert_string_equal(want.spec_hash, "h1");
	assert_int_equal(s.added, 2);
	assert_int_equal(s.present, 0);
	assert_int_equal(tl_store_merge(m, path_in("shards/1_1/shard.db"), &want, &s), 0);
	assert_int_equal(s.added, 1);
	/* again: nothing new */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(tl_store_merge(m, path_in(i ? "shards/1_1/shard.db" : "shards/1_0/shard.db"),
						&want, &s), 0);
		assert_int_equal(s.added, 0);
		assert_int_equal(s.present, i ? 1 : 2);
	}
	assert_int_equal(count(m, "SELECT count(*) FROM runs"), 3);
	assert_int_equal(count(m, "SELECT count(*) FROM experiments"), 1);
	assert_int_equal(count(m, "SELECT count(*) FROM metrics"), 6);
	assert_int_equal(count(m, "SELECT count(*) FROM environment WHERE run_id IS NOT NULL AND key = 'node'"), 3);
	assert_int_equal(count(m, "SELECT count(*) FROM environment WHERE run_id IS NULL AND key = 'machine.fast'"), 1);
	assert_int_equal(count(m, "SELECT count(*) FROM runs WHERE out_dir = 'shards/1_1/k3-r1'"), 1);

	/* the failed run, run again by a resubmission into a new shard, is added after it */
	assert_int_equal(mkdir(path_in("shards/2_0"), 0755), 0);
	b = shard("shards/2_0/shard.db", "demo", "h1");
	add_run(b, "k2-r1", TL_STATUS_OK, 20);
	add_run(b, "k1-r1", TL_STATUS_OK, 21);	/* ran twice (a resumed task): stored ok once already */
	tl_store_close(b);
	assert_int_equal(tl_store_merge(m, path_in("shards/2_0/shard.db"), &want, &s), 0);
	assert_int_equal(s.added, 1);
	assert_int_equal(s.present, 1);
	assert_int_equal(tl_store_query_runs(m, "demo", &rows, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(rows[i].status, TL_STATUS_OK);
		assert_true(rows[i].has_hit_rate);
		assert_true(rows[i].hit_rate == 0.75);
		/* the run's directory, found through the main database */
		assert_int_equal(access(rows[i].out_dir, F_OK), 0);
	}
	tl_run_rows_free(rows, n);
	assert_int_equal(count(m, "SELECT count(*) FROM runs WHERE run_key = 'k1-r1'"), 1);
	assert_int_equal(count(m, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"), 1);
	assert_int_equal(count(m, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	tl_store_close(m);
}

/* A session of key in st: its id there. */
static int64_t session(struct tl_store *st, const char *key, double started)
{
	struct tl_session_record sr = { .key = key, .started_at = started, .command = "tierlab sweep --slurm x.yaml" };
	int64_t id = 0;

	assert_int_equal(tl_store_add_session(st, &sr, &id), 0);
	assert_true(id > 0);
	return id;
}

/*
 * The tasks of one Slurm array share their submission's session key; in
 * their shards the session has whatever id came next, and merged they are
 * one session of the main database again, whose own ids differ.
 */
static void test_merge_sessions(void **state)
{
	struct tl_merge_expect want;
	struct tl_merge_stats s;
	struct tl_store *a, *b, *m;
	int64_t sa, sb;

	(void)state;
	memset(&want, 0, sizeof(want));
	assert_int_equal(mkdir(path_in("1_0"), 0755), 0);
	assert_int_equal(mkdir(path_in("1_1"), 0755), 0);
	a = shard("1_0/shard.db", "demo", "h1");
	sa = session(a, "subm1", 100);
	add_run(a, "k1-r1", TL_STATUS_OK, 10);
	assert_int_equal(sqlite3_exec(tl_store_db(a), "UPDATE runs SET session_id = 1", NULL, NULL, NULL), SQLITE_OK);
	tl_store_close(a);
	b = shard("1_1/shard.db", "demo", "h1");
	session(b, "a-local-one", 50);
	sb = session(b, "subm1", 101);
	assert_true(sa != sb);
	add_run(b, "k2-r1", TL_STATUS_OK, 12);
	assert_int_equal(sqlite3_exec(tl_store_db(b), "UPDATE runs SET session_id = 2", NULL, NULL, NULL), SQLITE_OK);
	tl_store_close(b);

	assert_int_equal(tl_store_open(path_in("main.db"), &m), 0);
	session(m, "before", 1);
	session(m, "and-another", 2);
	assert_int_equal(tl_store_merge(m, path_in("1_0/shard.db"), &want, &s), 0);
	assert_int_equal(tl_store_merge(m, path_in("1_1/shard.db"), &want, &s), 0);
	assert_int_equal(count(m, "SELECT count(*) FROM sessions WHERE key = 'subm1'"), 1);
	/* the first shard merged says when it started */
	assert_int_equal(count(m, "SELECT started_at FROM sessions WHERE key = 'subm1'"), 100);
	assert_int_equal(count(m, "SELECT count(DISTINCT session_id) FROM runs"), 1);
	assert_int_equal(count(m, "SELECT count(*) FROM runs r JOIN sessions s ON s.id = r.session_id"
			      " WHERE s.key = 'subm1'"), 2);
	assert_int_equal(count(m, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	tl_store_close(m);
}

static void test_merge_refuses(void **state)
{
	struct tl_merge_expect want;
	struct tl_merge_stats s;
	struct tl_store *a, *m;

	(void)state;
	memset(&want, 0, sizeof(want));
	a = shard("a.db", "demo", "h1");
	add_run(a, "k1-r1", TL_STATUS_OK, 10);
	tl_store_close(a);
	a = shard("other.db", "other", "h1");
	add_run(a, "k9-r1", TL_STATUS_OK, 10);
	tl_store_close(a);
	a = shard("respec.db", "demo", "h2");	/* the same name, another spec */
	add_run(a, "k8-r1", TL_STATUS_OK, 10);
	tl_store_close(a);
	a = shard("newer.db", "demo", "h1");
	add_run(a, "k7-r1", TL_STATUS_OK, 10);
	assert_int_equal(sqlite3_exec(tl_store_db(a), "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	tl_store_close(a);

	assert_int_equal(tl_store_open(path_in("main.db"), &m), 0);
	assert_int_equal(tl_store_merge(m, path_in("a.db"), &want, &s), 0);
	assert_int_equal(tl_store_merge(m, path_in("other.db"), &want, &s), -EPROTO);
	assert_int_equal(tl_store_merge(m, path_in("respec.db"), &want, &s), -EPROTO);
	assert_int_equal(tl_store_merge(m, path_in("newer.db"), &want, &s), -EPROTO);
	assert_int_equal(tl_store_merge(m, path_in("missing.db"), &want, &s), -ENOENT);
	assert_int_equal(s.added, 0);
	assert_int_equal(count(m, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(count(m, "SELECT count(*) FROM experiments"), 1);
	/* named up front: the first shard is refused too */
	memset(&want, 0, sizeof(want));
	snprintf(want.name, sizeof(want.name), "other");
	assert_int_equal(tl_store_merge(m, path_in("a.db"), &want, &s), -EPROTO);
	assert_int_equal(tl_store_merge(m, path_in("other.db"), &want, &s), 0);
	assert_int_equal(count(m, "SELECT count(*) FROM runs"), 2);
	assert_int_equal(count(m, "SELECT count(*) FROM experiments"), 2);
	tl_store_close(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_merge_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_sessions, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
