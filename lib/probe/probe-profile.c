/*
 * Machine profiles: a probe saved under a name (table machine_profiles,
 * schema 2) so a spec can say `machine: NAME` and take its node sets from
 * what was measured. The stored form is the probe's JSON; the node sets
 * are read back with SQLite's JSON functions, so no second parser of our
 * own format exists.
 */
#include "probe/probe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sqlite3.h>
#include "util/error.h"
#include "store/store.h"

static double now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static int sql_fail(struct tl_store *st, const char *what)
{
	return error("database '%s': %s: %s", tl_store_path(st), what,
		     sqlite3_errmsg(tl_store_db(st))), -EIO;
}

int tl_probe_profile_save(struct tl_store *st, const char *name, const struct tl_probe *p)
{
	sqlite3_stmt *s = NULL;
	char *json = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!name || !*name)
		return error("a machine profile needs a name"), -EINVAL;
	f = open_memstream(&json, &len);
	if (!f)
		return -ENOMEM;
	rc = tl_probe_print_json(p, f);
	if (fclose(f) || rc) {
		free(json);
		return -ENOMEM;
	}
	if (sqlite3_prepare_v2(tl_store_db(st),
			       "INSERT OR REPLACE INTO machine_profiles (name, created_at, json)"
			       " VALUES (?, ?, ?)", -1, &s, NULL) != SQLITE_OK) {
		rc = sql_fail(st, "cannot save the machine profile");
		goto out;
	}
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 2, now());
	sqlite3_bind_text(s, 3, json, (int)len, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = sql_fail(st, "cannot save the machine profile");
out:
	sqlite3_finalize(s);
	free(json);
	return rc;
}

/* Runs sql with name bound; copies up to two text columns of the row. */
static int query(struct tl_store *st, const char *sql, const char *name, char **a, char **b)
{
	sqlite3_stmt *s;
	int rc = 0, step;

	if (sqlite3_prepare_v2(tl_store_db(st), sql, -1, &s, NULL) != SQLITE_OK)
		return sql_fail(st, "cannot read machine profiles");
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	step = sqlite3_step(s);
	if (step == SQLITE_DONE) {
		error("database '%s': no machine profile '%s' (save one with 'tierlab probe --save %s')",
		      tl_store_path(st), name, name);
		rc = -ENOENT;
	} else if (step != SQLITE_ROW) {
		rc = sql_fail(st, "cannot read machine profiles");
	} else {
		char **outs[] = { a, b };

		for (int i = 0; i < 2 && !rc; i++) {
			const unsigned char *t = sqlite3_column_text(s, i);

			if (!outs[i])
				continue;
			*outs[i] = t ? strdup((const char *)t) : NULL;
			if (t && !*outs[i])
				rc = -ENOMEM;
		}
	}
	sqlite3_finalize(s);
	return rc;
}

int tl_probe_profile_load(struct tl_store *st, const char *name, char **json)
{
	*json = NULL;
	return query(st, "SELECT json, NULL FROM machine_profiles WHERE name = ?", name, json, NULL);
}

int tl_probe_profile_nodes(struct tl_store *st, const char *name, char **fast, char **slow)
{
	int rc;

	*fast = *slow = NULL;
	rc = query(st, "SELECT json_extract(json, '$.recommendation.fast'),"
		       " json_extract(json, '$.recommendation.slow')"
		       " FROM machine_profiles WHERE name = ?", name, fast, slow);
	if (!rc && !*fast) {
		free(*slow);
		*slow = NULL;
		error("machine profile '%s' has no fast node set (no node with memory was probed)", name);
		rc = -EINVAL;
	}
	if (rc) {
		free(*fast);
		free(*slow);
		*fast = *slow = NULL;
	}
	return rc;
}
