/*
 * The environment record: facts about the machine and settings a run was
 * taken under (node sets, THP, kernel, ...), as key/value rows per
 * experiment or per run.
 */
#include "store/store-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int tl_store_set_env(struct tl_store *st, int64_t experiment_id, int64_t run_id, const char *key,
		     const char *value)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO environment (experiment_id, run_id, key, value) VALUES (?, ?, ?, ?)";
	sqlite3_stmt *s = NULL;
	int rc;

	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, experiment_id);
		if (run_id)
			sqlite3_bind_int64(s, 2, run_id);
		else
			sqlite3_bind_null(s, 2);
		tl_store_bind_text(s, 3, key);
		tl_store_bind_text(s, 4, value);
		rc = sqlite3_step(s);
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, "storing the environment");
}

int tl_store_experiment_env(struct tl_store *st, const char *experiment, const char *key,
			    char **out)
{
	static const char sql[] =
		"SELECT e.value FROM environment e JOIN experiments x ON x.id = e.experiment_id "
		"WHERE x.name = ? AND e.run_id IS NULL AND e.key = ? "
		"ORDER BY x.created_at DESC, x.id DESC LIMIT 1";
	sqlite3_stmt *s = NULL;
	int rc;

	*out = NULL;
	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc == SQLITE_OK) {
		tl_store_bind_text(s, 1, experiment);
		tl_store_bind_text(s, 2, key);
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			const unsigned char *v = sqlite3_column_text(s, 0);

			if (v && !(*out = strdup((const char *)v)))
				rc = SQLITE_NOMEM;
			else
				rc = SQLITE_OK;
		} else if (rc == SQLITE_DONE) {
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, "reading the environment");
}

int tl_store_run_experiment(struct tl_store *st, int64_t run_id, int64_t *experiment_id)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(st->db, "SELECT experiment_id FROM runs WHERE id = ?", -1, &s, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, run_id);
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			*experiment_id = sqlite3_column_int64(s, 0);
			rc = SQLITE_OK;
		} else if (rc == SQLITE_DONE) {
			sqlite3_finalize(s);
			return tl_store_fail(st, -ENOENT, "no run %lld", (long long)run_id);
		}
	}
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, "reading a run");
}

int tl_store_env_each(struct tl_store *st, int64_t experiment_id, int64_t run_id,
		      void (*fn)(void *arg, const char *key, const char *value), void *arg)
{
	static const char sql[] = "SELECT key, value FROM environment WHERE experiment_id = ? AND "
				  "ifnull(run_id, 0) = ? ORDER BY key";
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, experiment_id);
		sqlite3_bind_int64(s, 2, run_id);
		while ((rc = sqlite3_step(s)) == SQLITE_ROW)
			fn(arg, (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1));
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, "reading the environment");
}

int tl_store_counters_each(struct tl_store *st, int64_t run_id,
			   void (*fn)(void *arg, const char *event, const double *value,
				      const char *status, const char *reason), void *arg)
{
	static const char sql[] = "SELECT event, value, status, reason FROM counters WHERE run_id = ? "
				  "ORDER BY event";
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, run_id);
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			double v = sqlite3_column_double(s, 1);

			fn(arg, (const char *)sqlite3_column_text(s, 0),
			   sqlite3_column_type(s, 1) == SQLITE_NULL ? NULL : &v,
			   (const char *)sqlite3_column_text(s, 2), (const char *)sqlite3_column_text(s, 3));
		}
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, "reading counters");
}

int tl_store_env_latest(struct tl_store *st, const char *key, char **out)
{
	static const char sql[] = "SELECT value FROM environment WHERE key = ? AND run_id IS NULL "
				  "ORDER BY experiment_id DESC LIMIT 1";
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);

	*out = NULL;
	if (rc == SQLITE_OK) {
		tl_store_bind_text(s, 1, key);
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			const unsigned char *v = sqlite3_column_text(s, 0);

			rc = v && !(*out = strdup((const char *)v)) ? SQLITE_NOMEM : SQLITE_OK;
		} else if (rc == SQLITE_DONE) {
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, "reading the environment");
}
