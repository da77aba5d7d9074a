/*
 * Reading the store (see query.h): the latest row of each run key of an
 * experiment (for report), one run by id or key (for show), experiment
 * names (for list), metrics, counters and environment rows, machine
 * profiles. SELECT statements only.
 */
#include "store/store-internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"

/* Column positions of row_select(): fixed ones, the axes, then the rest. */
enum {
	C_ID, C_EXPERIMENT, C_RUN_KEY, C_CONFIG_KEY, C_REP,
	C_AXES,
	C_STATUS = C_AXES + TL_AXIS__COUNT, C_EXIT_CODE, C_SIGNAL, C_FOM, C_FOM_UNIT,
	C_HIGHER_IS_BETTER, C_WALL, C_USER, C_SYS, C_MAXRSS, C_STARTED, C_ENDED, C_ERROR,
	C_OUT_DIR, C_COMMAND, C_HIT_RATE, C_MIGRATED, C_SAMPLES, C_TICKS, C_RUN_NS,
};

/* "SELECT <row columns> FROM runs r JOIN experiments e ... <tail>", malloc'd. */
static char *row_select(const char *tail)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&sql, &len);

	if (!f)
		return NULL;
	fputs("SELECT r.id, e.name, r.run_key, r.config_key, r.rep", f);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		fprintf(f, ", r.\"%s\"", tl_axes[a].name);
	fputs(", r.status, r.exit_code, r.signal, r.fom, r.fom_unit, r.higher_is_better,"
	      " r.wall_s, r.user_s, r.sys_s, r.maxrss_kb, r.started_at, r.ended_at, r.error,"
	      " r.out_dir, r.command,"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'hit_rate'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'migrated_bytes'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'rt.samples'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'rt.ticks'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'rt.run_ns')"
	      " FROM runs r JOIN experiments e ON e.id = r.experiment_id ", f);
	fputs(tail, f);
	if (fclose(f)) {
		free(sql);
		return NULL;
	}
	return sql;
}

static int prepare(struct tl_store *st, const char *sql, sqlite3_stmt **s, const char *what)
{
	int rc = sqlite3_prepare_v2(st->db, sql, -1, s, NULL);

	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, what);
}

static int prepare_rows(struct tl_store *st, const char *tail, sqlite3_stmt **s, const char *what)
{
	char *sql = row_select(tail);
	int rc;

	if (!sql)
		return tl_store_fail(st, -ENOMEM, "%s: out of memory", what);
	rc = prepare(st, sql, s, what);
	free(sql);
	return rc;
}

/* A copy of a text column; NULL stays NULL. *oom is set when the copy failed. */
static char *column_dup(sqlite3_stmt *s, int i, bool *oom)
{
	const char *v = (const char *)sqlite3_column_text(s, i);
	char *copy;

	if (!v)
		return NULL;
	copy = strdup(v);
	if (!copy)
		*oom = true;
	return copy;
}

static int read_row(struct tl_store *st, sqlite3_stmt *s, struct tl_run_row *row)
{
	const char *status = (const char *)sqlite3_column_text(s, C_STATUS);
	bool oom = false;
	int k;

	memset(row, 0, sizeof(*row));
	for (k = 0; k < TL_STATUS__COUNT; k++)
		if (status && !strcmp(status, tl_status_names[k]))
			break;
	if (k == TL_STATUS__COUNT)
		return tl_store_fail(st, -EIO, "run %lld has an unknown status '%s'",
				     (long long)sqlite3_column_int64(s, C_ID), status ? status : "");
	row->status = k;
	row->id = sqlite3_column_int64(s, C_ID);
	row->experiment = column_dup(s, C_EXPERIMENT, &oom);
	row->run_key = column_dup(s, C_RUN_KEY, &oom);
	row->config_key = column_dup(s, C_CONFIG_KEY, &oom);
	row->rep = sqlite3_column_int(s, C_REP);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		row->values[a] = column_dup(s, C_AXES + a, &oom);
	row->exit_code = sqlite3_column_type(s, C_EXIT_CODE) == SQLITE_NULL
				 ? -1 : sqlite3_column_int(s, C_EXIT_CODE);
	row->signal = sqlite3_column_int(s, C_SIGNAL);
	row->has_fom = sqlite3_column_type(s, C_FOM) != SQLITE_NULL;
	row->fom = row->has_fom ? sqlite3_column_double(s, C_FOM) : NAN;
	row->fom_unit = column_dup(s, C_FOM_UNIT, &oom);
	row->higher_is_better = sqlite3_column_int(s, C_HIGHER_IS_BETTER) != 0;
	row->wall = sqlite3_column_double(s, C_WALL);
	row->user = sqlite3_column_double(s, C_USER);
	row->sys = sqlite3_column_double(s, C_SYS);
	row->maxrss_kb = (long)sqlite3_column_int64(s, C_MAXRSS);
	row->started_at = sqlite3_column_double(s, C_STARTED);
	row->ended_at = sqlite3_column_double(s, C_ENDED);
	row->error = column_dup(s, C_ERROR, &oom);
	row->out_dir = column_dup(s, C_OUT_DIR, &oom);
	row->command = column_dup(s, C_COMMAND, &oom);
	row->has_hit_rate = sqlite3_column_type(s, C_HIT_RATE) != SQLITE_NULL;
	row->hit_rate = row->has_hit_rate ? sqlite3_column_double(s, C_HIT_RATE) : NAN;
	row->has_migrated = sqlite3_column_type(s, C_MIGRATED) != SQLITE_NULL;
	row->migrated_bytes = row->has_migrated ? sqlite3_column_double(s, C_MIGRATED) : NAN;
	row->has_sampling = sqlite3_column_type(s, C_SAMPLES) != SQLITE_NULL &&
			    sqlite3_column_type(s, C_TICKS) != SQLITE_NULL &&
			    sqlite3_column_type(s, C_RUN_NS) != SQLITE_NULL;
	row->samples = sqlite3_column_double(s, C_SAMPLES);
	row->ticks = sqlite3_column_double(s, C_TICKS);
	row->run_ns = sqlite3_column_double(s, C_RUN_NS);
	if (oom) {
		tl_run_row_release(row);
		return tl_store_fail(st, -ENOMEM, "out of memory");
	}
	return 0;
}

void tl_run_row_release(struct tl_run_row *row)
{
	if (!row)
		return;
	free(row->experiment);
	free(row->run_key);
	free(row->config_key);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		free(row->values[a]);
	free(row->fom_unit);
	free(row->error);
	free(row->out_dir);
	free(row->command);
	memset(row, 0, sizeof(*row));
}

void tl_run_rows_free(struct tl_run_row *rows, size_t n)
{
	if (!rows)
		return;
	for (size_t i = 0; i < n; i++)
		tl_run_row_release(&rows[i]);
	free(rows);
}

/* Runs s (one text column) and returns a copy of the first row's value, or NULL when none. */
static int first_text(struct tl_store *st, sqlite3_stmt *s, char **out, const char *what)
{
	int rc = sqlite3_step(s);

	*out = NULL;
	if (rc == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(s, 0);

		if (v && !(*out = strdup(v)))
			return tl_store_fail(st, -ENOMEM, "%s: out of memory", what);
		return 0;
	}
	return rc == SQLITE_DONE ? 0 : tl_store_sqlerr(st, rc, what);
}

/* The name of the most recently created experiment, or NULL (returning 0) when there is none. */
static int latest_experiment(struct tl_store *st, char **name)
{
	static const char what[] = "cannot find the latest experiment";
	sqlite3_stmt *s;
	int rc;

	rc = prepare(st, "SELECT name FROM experiments ORDER BY created_at DESC, id DESC LIMIT 1", &s,
		     what);
	if (rc)
		return rc;
	rc = first_text(st, s, name, what);
	sqlite3_finalize(s);
	return rc;
}

int tl_store_run_done(struct tl_store *st, const char *experiment, const char *run_key)
{
	static const char what[] = "cannot look up a finished run";
	sqlite3_stmt *s;
	char *latest = NULL, *status = NULL;
	int rc;

	if (!experiment) {
		rc = latest_experiment(st, &latest);
		if (rc || !latest)
			return rc;
		experiment = latest;
	}
	rc = prepare(st, "SELECT r.status FROM runs r JOIN experiments e ON e.id = r.experiment_id"
		     " WHERE e.name = ?1 AND r.run_key = ?2 ORDER BY r.id DESC LIMIT 1", &s, what);
	if (rc)
		goto out;
	tl_store_bind_text(s, 1, experiment);
	tl_store_bind_text(s, 2, run_key);
	rc = first_text(st, s, &status, what);
	sqlite3_finalize(s);
	if (!rc)
		rc = status && !strcmp(status, tl_status_names[TL_STATUS_OK]);
out:
	free(status);
	free(latest);
	return rc;
}

/* Steps s to the end, appending every row to *rows. */
static int collect_rows(struct tl_store *st, sqlite3_stmt *s, struct tl_run_row **rows, size_t *n,
			const char *what)
{
	struct tl_run_row *v = NULL, *grown;
	size_t len = 0, cap = 0;
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (len == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				rc = tl_store_fail(st, -ENOMEM, "%s: out of memory", what);
				goto fail;
			}
			v = grown;
		}
		rc = read_row(st, s, &v[len]);
		if (rc)
			goto fail;
		len++;
	}
	if (rc != SQLITE_DONE) {
		rc = tl_store_sqlerr(st, rc, what);
		goto fail;
	}
	*rows = v;
	*n = len;
	return 0;
fail:
	tl_run_rows_free(v, len);
	return rc;
}

int tl_store_query_runs(struct tl_store *st, const char *experiment, struct tl_run_row **rows,
			size_t *n)
{
	static const char what[] = "cannot read runs";
	/* The latest row of each key; keys in the order they first appeared. */
	static const char tail[] =
		"JOIN (SELECT MIN(runs.id) AS first_id, MAX(runs.id) AS last_id FROM runs"
		"      JOIN experiments ON experiments.id = runs.experiment_id"
		"      WHERE experiments.name = ?1 GROUP BY runs.run_key) k ON r.id = k.last_id "
		"ORDER BY k.first_id";
	sqlite3_stmt *s;
	char *latest = NULL;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!experiment) {
		rc = latest_experiment(st, &latest);
		if (rc || !latest)
			return rc;
		experiment = latest;
	}
	rc = prepare_rows(st, tail, &s, what);
	if (rc)
		goto out;
	tl_store_bind_text(s, 1, experiment);
	rc = collect_rows(st, s, rows, n, what);
	sqlite3_finalize(s);
out:
	free(latest);
	return rc;
}

int tl_store_experiment_baseline(struct tl_store *st, const char *experiment, char **out)
{
	static const char what[] = "cannot read the baseline";
	sqlite3_stmt *s;
	int rc;

	*out = NULL;
	rc = prepare(st, experiment
		     ? "SELECT baseline FROM experiments WHERE name = ?1"
		       " ORDER BY created_at DESC, id DESC LIMIT 1"
		     : "SELECT baseline FROM experiments ORDER BY created_at DESC, id DESC LIMIT 1",
		     &s, what);
	if (rc)
		return rc;
	if (experiment)
		tl_store_bind_text(s, 1, experiment);
	rc = first_text(st, s, out, what);
	sqlite3_finalize(s);
	return rc;
}

int tl_store_experiments(struct tl_store *st, char ***names, size_t *n)
{
	static const char what[] = "cannot list experiments";
	sqlite3_stmt *s;
	char **v = NULL, **grown;
	size_t len = 0, cap = 0;
	int rc;

	*names = NULL;
	*n = 0;
	rc = prepare(st, "SELECT name FROM experiments GROUP BY name"
		     " ORDER BY MAX(created_at) DESC, MAX(id) DESC", &s, what);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);

		if (len == cap) {
			cap = cap ? 2 * cap : 8;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown)
				goto oom;
			v = grown;
		}
		if (!(v[len] = strdup(name ? name : "")))
			goto oom;
		len++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		rc = tl_store_sqlerr(st, rc, what);
		goto fail;
	}
	*names = v;
	*n = len;
	return 0;
oom:
	sqlite3_finalize(s);
	rc = tl_store_fail(st, -ENOMEM, "%s: out of memory", what);
fail:
	for (size_t i = 0; i < len; i++)
		free(v[i]);
	free(v);
	return rc;
}

/* Steps s (bound by the caller), expecting at most one row. 1 = found, 0 = none. */
static int one_row(struct tl_store *st, sqlite3_stmt *s, struct tl_run_row *row, const char *what)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return tl_store_sqlerr(st, rc, what);
	rc = read_row(st, s, row);
	return rc ? rc : 1;
}

static int run_by_id(struct tl_store *st, long long id, struct tl_run_row *row, const char *what)
{
	sqlite3_stmt *s;
	int rc;

	rc = prepare_rows(st, "WHERE r.id = ?1", &s, what);
	if (rc)
		return rc;
	sqlite3_bind_int64(s, 1, id);
	rc = one_row(st, s, row, what);
	sqlite3_finalize(s);
	return rc;
}

static int run_by_key(struct tl_store *st, const char *key, struct tl_run_row *row,
		      const char *what)
{
	sqlite3_stmt *s;
	int rc;

	rc = prepare_rows(st, "WHERE r.run_key = ?1 ORDER BY r.id DESC LIMIT 1", &s, what);
	if (rc)
		return rc;
	tl_store_bind_text(s, 1, key);
	rc = one_row(st, s, row, what);
	sqlite3_finalize(s);
	return rc;
}

#define MAX_CANDIDATES 5

/*
 * Up to MAX_CANDIDATES run keys, most recent first, starting with prefix
 * (all keys when prefix is ""), as ", "-separated text in buf; *total is
 * how many there are in all.
 */
static int candidates(struct tl_store *st, const char *prefix, char *buf, size_t len,
		      long long *total, const char *what)
{
	sqlite3_stmt *s;
	size_t used = 0;
	int rc;

	buf[0] = '\0';
	*total = 0;
	rc = prepare(st, "SELECT run_key, count(*) OVER () FROM"
		     " (SELECT run_key, MAX(id) AS last_id FROM runs"
		     "  WHERE substr(run_key, 1, length(?1)) = ?1 GROUP BY run_key)"
		     " ORDER BY last_id DESC LIMIT ?2", &s, what);
	if (rc)
		return rc;
	tl_store_bind_text(s, 1, prefix);
	sqlite3_bind_int(s, 2, MAX_CANDIDATES);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*total = sqlite3_column_int64(s, 1);
		if (used < len)
			used += snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
					 (const char *)sqlite3_column_text(s, 0));
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : tl_store_sqlerr(st, rc, what);
}

int tl_store_get_run(struct tl_store *st, const char *which, struct tl_run_row *row)
{
	char what[300], list[512];
	long long total;
	int rc;

	memset(row, 0, sizeof(*row));
	if (!which || !*which)
		return tl_store_fail(st, -EINVAL, "no run given");
	snprintf(what, sizeof(what), "cannot read run '%s'", which);
	/* A number is a row id first; keys are hex, so a short all-digit prefix stays usable below. */
	if (strspn(which, "0123456789") == strlen(which) && strlen(which) < 19) {
		rc = run_by_id(st, strtoll(which, NULL, 10), row, what);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	rc = run_by_key(st, which, row, what);
	if (rc)
		return rc < 0 ? rc : 0;
	rc = candidates(st, which, list, sizeof(list), &total, what);
	if (rc)
		return rc;
	if (total == 1)
		return run_by_key(st, list, row, what) == 1 ? 0 : -EIO;
	if (total > 1)
		return tl_store_fail(st, -EINVAL, "run '%s' is ambiguous: %s%s (%lld runs match)", which,
				     list, total > MAX_CANDIDATES ? ", ..." : "", total);
	rc = candidates(st, "", list, sizeof(list), &total, what);
	if (rc)
		return rc;
	if (!total)
		return tl_store_fail(st, -ENOENT, "no run '%s' (the database has no runs)", which);
	return tl_store_fail(st, -ENOENT, "no run '%s' (latest runs: %s%s)", which, list,
			     total > MAX_CANDIDATES ? ", ..." : "");
}

int tl_store_run_metrics(struct tl_store *st, int64_t run_id, struct tl_metric **m, size_t *n)
{
	static const char what[] = "cannot read metrics";
	struct tl_metric *v = NULL, *grown;
	size_t len = 0, cap = 0;
	sqlite3_stmt *s;
	int rc;

	*m = NULL;
	*n = 0;
	rc = prepare(st, "SELECT name, value, unit FROM metrics WHERE run_id = ?1 ORDER BY name", &s,
		     what);
	if (rc)
		return rc;
	sqlite3_bind_int64(s, 1, run_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		bool oom = false;

		if (len == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown)
				goto oom;
			v = grown;
		}
		v[len].name = column_dup(s, 0, &oom);
		v[len].value = sqlite3_column_type(s, 1) == SQLITE_NULL ? NAN
									 : sqlite3_column_double(s, 1);
		v[len].unit = column_dup(s, 2, &oom);
		len++;
		if (oom)
			goto oom;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		rc = tl_store_sqlerr(st, rc, what);
		tl_metrics_free(v, len);
		return rc;
	}
	*m = v;
	*n = len;
	return 0;
oom:
	sqlite3_finalize(s);
	tl_metrics_free(v, len);
	return tl_store_fail(st, -ENOMEM, "%s: out of memory", what);
}

/* ---- environment and counters ---- */

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

int tl_store_env_load(struct tl_store *st, int64_t experiment_id, int64_t run_id, struct tl_env *env)
{
	static const char what[] = "reading the environment";
	struct tl_env e = { 0 };
	sqlite3_stmt *s;
	int rc, step;

	rc = prepare(st, "SELECT key, value FROM environment WHERE experiment_id = ?1 AND run_id IS ?2"
		     " ORDER BY rowid", &s, what);
	if (rc)
		return rc;
	sqlite3_bind_int64(s, 1, experiment_id);
	if (run_id)
		sqlite3_bind_int64(s, 2, run_id);
	while ((step = sqlite3_step(s)) == SQLITE_ROW && !rc)
		rc = tl_env_put(&e, (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1));
	if (!rc && step != SQLITE_DONE)
		rc = tl_store_sqlerr(st, step, what);
	else if (rc)
		rc = tl_store_fail(st, rc, "%s: out of memory", what);
	sqlite3_finalize(s);
	if (rc) {
		tl_env_release(&e);
		return rc;
	}
	tl_env_release(env);
	*env = e;
	return 0;
}

/* ---- machine profiles ---- */

/* Runs sql with name bound and copies the row's two text columns (b may be NULL). */
static int profile_row(struct tl_store *st, const char *sql, const char *name, char **a, char **b)
{
	static const char what[] = "cannot read machine profiles";
	char **outs[] = { a, b };
	sqlite3_stmt *s;
	int rc, step;

	rc = prepare(st, sql, &s, what);
	if (rc)
		return rc;
	tl_store_bind_text(s, 1, name);
	step = sqlite3_step(s);
	if (step == SQLITE_DONE) {
		rc = tl_store_fail(st, -ENOENT, "no machine profile '%s' (save one with 'tierlab probe --save %s')",
				   name, name);
	} else if (step != SQLITE_ROW) {
		rc = tl_store_sqlerr(st, step, what);
	} else {
		bool oom = false;

		for (int i = 0; i < 2; i++)
			if (outs[i])
				*outs[i] = column_dup(s, i, &oom);
		if (oom)
			rc = tl_store_fail(st, -ENOMEM, "%s: out of memory", what);
	}
	sqlite3_finalize(s);
	return rc;
}

int tl_store_profile(struct tl_store *st, const char *name, char **json)
{
	*json = NULL;
	return profile_row(st, "SELECT json, NULL FROM machine_profiles WHERE name = ?1", name, json, NULL);
}

int tl_store_profile_nodes(struct tl_store *st, const char *name, char **fast, char **slow)
{
	int rc;

	*fast = *slow = NULL;
	/* SQLite reads the probe's JSON, so there is no second parser of our own format */
	rc = profile_row(st, "SELECT json_extract(json, '$.recommendation.fast'),"
			 " json_extract(json, '$.recommendation.slow') FROM machine_profiles WHERE name = ?1",
			 name, fast, slow);
	if (rc) {
		free(*fast);
		free(*slow);
		*fast = *slow = NULL;
	}
	return rc;
}
