/*
 * The environment record: facts about the machine and settings a run was
 * taken under (node sets, THP, kernel, ...), as key/value rows per
 * experiment or per run.
 */
#include "store-internal.h"

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
