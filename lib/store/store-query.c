/*
 * Reading the store (see query.h): the latest row of each run key of an
 * experiment (for report), one run by id or key (for show), experiment
 * names (for list), metrics, counters and environment rows, machine
 * profiles. SELECT statements only.
 */
#include "store/store-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/array.h"
#include "util/error.h"
#include "util/strings.h"
#include "util/visible.h"

/* Column positions of row_select(): fixed ones, the axes, then the rest. */
enum {
	C_ID, C_EXPERIMENT, C_RUN_KEY, C_CONFIG_KEY, C_REP,
	C_AXES,
	C_STATUS = C_AXES + TL_AXIS__COUNT, C_EXIT_CODE, C_SIGNAL, C_FOM, C_FOM_UNIT,
	C_HIGHER_IS_BETTER, C_WALL, C_USER, C_SYS, C_MAXRSS, C_STARTED, C_ENDED, C_ERROR,
	C_OUT_DIR, C_COMMAND, C_HIT_RATE, C_MIGRATED, C_SAMPLES, C_TICKS, C_RUN_NS, C_TO_FAST, C_TO_SLOW, C_SIMULATED,
	C_SESSION, C_SESSION_STARTED, C_ESTIMATE, C_LOAD_BEFORE, C_LOAD_AFTER, C_CPUS, C_DRAIN_NS, C_MOVES,
};

/*
 * "SELECT <row columns> FROM runs r JOIN experiments e ... <tail>",
 * malloc'd; NULL for the axis columns an older database does not have.
 */
static char *row_select(const struct tl_store *st, const char *tail)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&sql, &len);

	if (!f)
		return NULL;
	fputs("SELECT r.id, e.name, r.run_key, r.config_key, r.rep", f);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		fprintf(f, st->has_axis[a] ? ", r.\"%s\"" : ", NULL", tl_axes[a].name);
	fputs(", r.status, r.exit_code, r.signal, r.fom, r.fom_unit, r.higher_is_better,"
	      " r.wall_s, r.user_s, r.sys_s, r.maxrss_kb, r.started_at, r.ended_at, r.error,"
	      " r.out_dir, r.command,"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'hit_rate'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'migrated_bytes'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'rt.samples'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'rt.ticks'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'rt.run_ns'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'rt.bytes_slow_to_fast'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'rt.bytes_fast_to_slow'),", f);
	fputs(st->has_simulated ? " r.simulated" : " 0", f);
	fputs(st->has_session ? ", r.session_id, (SELECT started_at FROM sessions WHERE id = r.session_id)"
			      : ", r.experiment_id, e.created_at", f);
	fputs(", (SELECT value FROM metrics WHERE run_id = r.id AND name = 'sim.estimate'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'host.load1_before'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'host.load1_after'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'host.cpus'),"
	      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'rt.drain_ns_total'),"
	      " (SELECT SUM(value) FROM metrics WHERE run_id = r.id AND name IN ('rt.mig_slow_to_fast', 'rt.mig_fast_to_slow'))",
	      f);
	fputs(" FROM runs r JOIN experiments e ON e.id = r.experiment_id ", f);
	fputs(tail, f);
	if (fclose(f)) {
		free(sql);
		return NULL;
	}
	return sql;
}

/*
 * Prepares sql with parameters bound from 1 on (tl_store_bind's types);
 * with rows, sql is the tail of a query of run rows (row_select()). 0, or
 * -errno after reporting.
 */
static int query(struct tl_store *st, sqlite3_stmt **s, const char *what, bool rows, const char *sql,
		 const char *types, ...)
{
	char *full = rows ? row_select(st, sql) : NULL;
	va_list ap;
	int rc;

	if (rows && !full)
		return tl_store_fail(st, -ENOMEM, "%s: out of memory", what);
	rc = sqlite3_prepare_v2(st->db, rows ? full : sql, -1, s, NULL);
	free(full);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, what);
	va_start(ap, types);
	tl_store_vbind(*s, 1, types, ap);
	va_end(ap);
	if ((rc = tl_store_bind_error())) {
		sqlite3_finalize(*s);
		*s = NULL;
		return tl_store_sqlerr(st, rc, what);
	}
	return 0;
}

/* A copy of a text column; NULL stays NULL. *oom is set when the copy failed. */
static char *column_dup(sqlite3_stmt *s, int i, bool *oom)
{
	return tl_strdup_or_null((const char *)sqlite3_column_text(s, i), oom);
}

/*
 * A run's directory as a path to open: stored relative to the database's
 * directory. A row of a tierlab before that holds a path relative to
 * wherever it ran; it is kept as it is when only that one exists.
 */
static char *run_dir(const struct tl_store *st, const char *stored, bool *oom)
{
	struct stat sb;
	char *path;

	if (!stored || stored[0] == '/' || !st->dir)
		return tl_strdup_or_null(stored, oom);
	if (asprintf(&path, "%s/%s", st->dir, stored) < 0) {
		*oom = true;
		return NULL;
	}
	if (stat(path, &sb) && !stat(stored, &sb)) {
		free(path);
		return tl_strdup_or_null(stored, oom);
	}
	return path;
}

/* What each column of a run row may hold (the axes are text, checked in check_row). */
static const struct tl_value_check row_checks[] = {
	{ C_EXPERIMENT, "experiment", TL_CHECK_TEXT, true },
	{ C_RUN_KEY, "run_key", TL_CHECK_TEXT, true },
	{ C_CONFIG_KEY, "config_key", TL_CHECK_TEXT, true },
	{ C_REP, "rep", TL_CHECK_REP, true },
	{ C_EXIT_CODE, "exit_code", TL_CHECK_EXIT, false },
	{ C_SIGNAL, "signal", TL_CHECK_SIGNAL, false },
	{ C_FOM, "fom", TL_CHECK_NUMBER, false },
	{ C_FOM_UNIT, "fom_unit", TL_CHECK_TEXT, false },
	{ C_HIGHER_IS_BETTER, "higher_is_better", TL_CHECK_FLAG, true },
	{ C_WALL, "wall_s", TL_CHECK_AMOUNT, false },
	{ C_USER, "user_s", TL_CHECK_AMOUNT, false },
	{ C_SYS, "sys_s", TL_CHECK_AMOUNT, false },
	{ C_MAXRSS, "maxrss_kb", TL_CHECK_COUNT, false },
	{ C_STARTED, "started_at", TL_CHECK_AMOUNT, false },
	{ C_ENDED, "ended_at", TL_CHECK_AMOUNT, false },
	{ C_ERROR, "error", TL_CHECK_TEXT, false },
	{ C_OUT_DIR, "out_dir", TL_CHECK_TEXT, false },
	{ C_COMMAND, "command", TL_CHECK_TEXT, false },
	{ C_HIT_RATE, "metric hit_rate", TL_CHECK_FRACTION, false },
	{ C_MIGRATED, "metric migrated_bytes", TL_CHECK_AMOUNT, false },
	{ C_SAMPLES, "metric rt.samples", TL_CHECK_AMOUNT, false },
	{ C_TICKS, "metric rt.ticks", TL_CHECK_AMOUNT, false },
	{ C_RUN_NS, "metric rt.run_ns", TL_CHECK_AMOUNT, false },
	{ C_TO_FAST, "metric rt.bytes_slow_to_fast", TL_CHECK_AMOUNT, false },
	{ C_TO_SLOW, "metric rt.bytes_fast_to_slow", TL_CHECK_AMOUNT, false },
	{ C_SIMULATED, "simulated", TL_CHECK_FLAG, true },
	{ C_DRAIN_NS, "metric rt.drain_ns_total", TL_CHECK_AMOUNT, false },
	{ C_MOVES, "metrics rt.mig_slow_to_fast + rt.mig_fast_to_slow", TL_CHECK_AMOUNT, false },
};

/* 0 when the run row holds what the schema allows, else 1 with why; *status its status. */
static int check_row(sqlite3_stmt *s, int *status, char *why, size_t len)
{
	const char *text = (const char *)sqlite3_column_text(s, C_STATUS);
	int k;

	if (tl_store_check_values(s, row_checks, ARRAY_SIZE(row_checks), why, len))
		return 1;
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		struct tl_value_check axis = { C_AXES + a, tl_axes[a].name, TL_CHECK_TEXT, false };

		if (tl_store_check_values(s, &axis, 1, why, len))
			return 1;
	}
	for (k = 0; k < TL_STATUS__COUNT; k++)
		if (sqlite3_column_type(s, C_STATUS) == SQLITE_TEXT && !strcmp(text, tl_status_names[k]))
			break;
	if (k == TL_STATUS__COUNT) {
		struct tl_value_check st = { C_STATUS, "status", TL_CHECK_TEXT, true };

		/* the check's own words would say "not text" of a text */
		if (!tl_store_check_values(s, &st, 1, why, len))
			snprintf(why, len, "its status is '%.40s', not one of ok, failed, timeout, crashed", text);
		return 1;
	}
	*status = k;
	return 0;
}

/*
 * One run row; 0, -ENOMEM (the caller reports it), or 1 with why set when
 * a value is not what the schema allows (nothing of the row is copied).
 */
static int read_row(struct tl_store *st, sqlite3_stmt *s, struct tl_run_row *row, char *why, size_t len)
{
	bool oom = false;
	int k;

	memset(row, 0, sizeof(*row));
	if (check_row(s, &k, why, len))
		return 1;
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
	row->out_dir = run_dir(st, (const char *)sqlite3_column_text(s, C_OUT_DIR), &oom);
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
	row->simulated = sqlite3_column_int(s, C_SIMULATED) == 1;
	row->has_directions = sqlite3_column_type(s, C_TO_FAST) != SQLITE_NULL &&
			      sqlite3_column_type(s, C_TO_SLOW) != SQLITE_NULL;
	row->to_fast_bytes = sqlite3_column_double(s, C_TO_FAST);
	row->to_slow_bytes = sqlite3_column_double(s, C_TO_SLOW);
	row->session_id = sqlite3_column_int64(s, C_SESSION);
	row->session_started = sqlite3_column_double(s, C_SESSION_STARTED);
	row->has_estimate = sqlite3_column_type(s, C_ESTIMATE) != SQLITE_NULL;
	row->estimate = row->has_estimate ? sqlite3_column_double(s, C_ESTIMATE) : NAN;
	row->has_load = sqlite3_column_type(s, C_LOAD_BEFORE) != SQLITE_NULL &&
			sqlite3_column_type(s, C_LOAD_AFTER) != SQLITE_NULL &&
			sqlite3_column_type(s, C_CPUS) != SQLITE_NULL;
	row->load_before = sqlite3_column_double(s, C_LOAD_BEFORE);
	row->load_after = sqlite3_column_double(s, C_LOAD_AFTER);
	row->cpus = sqlite3_column_double(s, C_CPUS);
	row->has_drain = sqlite3_column_type(s, C_DRAIN_NS) != SQLITE_NULL && sqlite3_column_type(s, C_MOVES) != SQLITE_NULL;
	row->drain_ns = sqlite3_column_double(s, C_DRAIN_NS);
	row->moves = sqlite3_column_double(s, C_MOVES);
	if (oom) {
		tl_run_row_release(row);
		return -ENOMEM;
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

/*
 * Steps s to its end, calling row(arg, s) on each row; stops at the first
 * non-zero answer (-ENOMEM reported here). Finalizes s. 0 or -errno.
 */
static int each_row(struct tl_store *st, sqlite3_stmt *s, int (*row)(void *arg, sqlite3_stmt *s), void *arg,
		    const char *what)
{
	int rc, step;

	while ((step = sqlite3_step(s)) == SQLITE_ROW)
		if ((rc = row(arg, s)))
			goto out;
	rc = step == SQLITE_DONE ? 0 : tl_store_sqlerr(st, step, what);
out:
	sqlite3_finalize(s);
	if (rc == -ENOMEM)
		tl_store_fail(st, rc, "%s: out of memory", what);
	return rc;
}

/* The first row's text columns, copied into out[0..n) (NULL for NULL, or when there is no row). */
struct texts {
	char **out;
	int n;
	bool found;
};

static int first_texts(void *arg, sqlite3_stmt *s)
{
	struct texts *t = arg;
	bool oom = false;

	for (int i = 0; i < t->n; i++)
		t->out[i] = column_dup(s, i, &oom);
	t->found = true;
	return oom ? -ENOMEM : 1;	/* one row is all it reads */
}

/* Runs a query of text columns and keeps its first row: 0 (*found or not), or -errno. */
static int texts_of(struct tl_store *st, sqlite3_stmt *s, char **out, int n, bool *found, const char *what)
{
	struct texts t = { out, n, false };
	int rc;

	for (int i = 0; i < n; i++)
		out[i] = NULL;
	rc = each_row(st, s, first_texts, &t, what);
	if (rc < 0) {
		for (int i = 0; i < n; i++) {
			free(out[i]);
			out[i] = NULL;
		}
		return rc;
	}
	if (found)
		*found = t.found;
	return 0;
}

/* One text value: the first column of the first row, or NULL. */
static int text_of(struct tl_store *st, sqlite3_stmt *s, char **out, const char *what)
{
	return texts_of(st, s, out, 1, NULL, what);
}

/* The name of the most recently created experiment, or NULL (returning 0) when there is none. */
static int latest_experiment(struct tl_store *st, char **name)
{
	static const char what[] = "cannot find the latest experiment";
	sqlite3_stmt *s;

	*name = NULL;
	return query(st, &s, what, false, "SELECT name FROM experiments ORDER BY created_at DESC, id DESC LIMIT 1", "") ?:
	       text_of(st, s, name, what);
}

int tl_store_run_done(struct tl_store *st, const char *experiment, const char *run_key)
{
	static const char what[] = "cannot look up a finished run";
	sqlite3_stmt *s;
	char *latest = NULL, *status = NULL;
	int rc = 0;

	if (!experiment && (rc = latest_experiment(st, &latest)))
		return rc;
	if (!experiment && !latest)
		return 0;
	rc = query(st, &s, what, false, "SELECT r.status FROM runs r JOIN experiments e ON e.id = r.experiment_id"
		   " WHERE e.name = ?1 AND r.run_key = ?2 ORDER BY r.id DESC LIMIT 1", "tt",
		   experiment ? experiment : latest, run_key);
	rc = rc ?: text_of(st, s, &status, what);
	if (!rc)
		rc = status && !strcmp(status, tl_status_names[TL_STATUS_OK]);
	free(status);
	free(latest);
	return rc;
}

/*
 * Rows appended to a growing array of `size`-byte elements by fill(r,
 * slot, s), which may return LEFT_OUT for a row it did not copy.
 */
struct rows {
	struct tl_store *st;
	void **v;
	size_t *n, cap, size;
	int (*fill)(struct rows *r, void *slot, sqlite3_stmt *s);
	int64_t run_id;		/* whose rows (metrics), for a warning */
	size_t left_out;	/* rows left out for a bad value */
};

#define LEFT_OUT 2

/* At most this many warnings of rows left out, then one line of how many more. */
#define MAX_WARNINGS 10

/* A run whose row holds a bad value is left out of a list, with a warning while they are few. */
static void left_out(struct rows *r, const char *what, const char *why)
{
	if (r->left_out++ < MAX_WARNINGS)
		warning("database '%s': %s left out: %s", r->st->path, what, why);
}

static void left_out_total(struct rows *r, const char *what)
{
	if (r->left_out > MAX_WARNINGS)
		warning("database '%s': %zu more %s left out for values the schema does not allow", r->st->path,
			r->left_out - MAX_WARNINGS, what);
}

static int add_row(void *arg, sqlite3_stmt *s)
{
	struct rows *r = arg;
	int rc;

	if (*r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		void *grown = realloc(*r->v, cap * r->size);

		if (!grown)
			return -ENOMEM;
		*r->v = grown;
		r->cap = cap;
	}
	rc = r->fill(r, (char *)*r->v + *r->n * r->size, s);
	if (rc == LEFT_OUT)
		return 0;
	(*r->n)++;	/* counted even when a copy failed, so the caller's release frees what was copied */
	return rc;
}

/* "run 12 (k1-r1)": a run named in a message, by its id and key (made visible). */
static void run_name(sqlite3_stmt *s, int id_col, int key_col, char *buf, size_t len)
{
	char *key = sqlite3_column_type(s, key_col) == SQLITE_TEXT ?
		    tl_visible((const char *)sqlite3_column_text(s, key_col), 0) : NULL;

	snprintf(buf, len, "run %lld (%.80s)", (long long)sqlite3_column_int64(s, id_col), key ? key : "no key");
	free(key);
}

/* A run of a list: one with a bad value is left out, with a warning. */
static int fill_run(struct rows *r, void *slot, sqlite3_stmt *s)
{
	char why[256], name[128];
	int rc = read_row(r->st, s, slot, why, sizeof(why));

	if (rc != 1)
		return rc;
	run_name(s, C_ID, C_RUN_KEY, name, sizeof(name));
	left_out(r, name, why);
	return LEFT_OUT;
}

/* The one run asked for: a bad value is an error. */
static int fill_one_run(struct rows *r, void *slot, sqlite3_stmt *s)
{
	char why[256], name[128];
	int rc = read_row(r->st, s, slot, why, sizeof(why));

	if (rc != 1)
		return rc;
	run_name(s, C_ID, C_RUN_KEY, name, sizeof(name));
	return tl_store_fail(r->st, -EIO, "%s: %s (the database was changed by hand, or is damaged)", name, why);
}

/*
 * "runs.session_id = ..." conditions of a filter, over `runs` joined to
 * `experiments` in a subquery: ?2 the session (0: any), ?3 the earliest
 * start (0: any). Before schema 5 an experiment row is a session.
 */
static void filter_sql(const struct tl_store *st, char *buf, size_t len)
{
	const char *id = st->has_session ? "runs.session_id" : "runs.experiment_id";
	const char *started = st->has_session ? "(SELECT started_at FROM sessions WHERE id = runs.session_id)"
					      : "experiments.created_at";

	snprintf(buf, len, "(?2 = 0 OR %s = ?2) AND (?3 = 0 OR %s >= ?3)", id, started);
}

/* The experiment a reader reads: as named, else the session's, else the latest. 0 with *name NULL: none. */
static int reader_experiment(struct tl_store *st, const char *experiment, const struct tl_session_filter *f,
			     char **name)
{
	*name = NULL;
	if (experiment)
		return (*name = strdup(experiment)) ? 0 : tl_store_fail(st, -ENOMEM, "out of memory");
	if (f && f->session > 0)
		return tl_store_session_experiment(st, f->session, name);
	return latest_experiment(st, name);
}

/* Runs of the experiment within the filter: the latest of each key (replaced false), or those it replaced. */
static int query_filtered(struct tl_store *st, const char *experiment, const struct tl_session_filter *f,
			  bool replaced, struct tl_run_row **rows, size_t *n)
{
	static const char what[] = "cannot read runs";
	struct rows r = { st, (void **)rows, n, 0, sizeof(**rows), fill_run, 0, 0 };
	const char *session = st->has_session ? "runs.session_id" : "runs.experiment_id";
	char cond[256], *tail = NULL, *name = NULL;
	sqlite3_stmt *s;
	int rc;

	*rows = NULL;
	*n = 0;
	if ((rc = reader_experiment(st, experiment, f, &name)) || !name)
		return rc;
	filter_sql(st, cond, sizeof(cond));
	if (!replaced)
		/* the latest row of each key; keys in the order they first appeared */
		rc = asprintf(&tail, "JOIN (SELECT MIN(runs.id) AS first_id, MAX(runs.id) AS last_id FROM runs"
			      " JOIN experiments ON experiments.id = runs.experiment_id"
			      " WHERE experiments.name = ?1 AND %s GROUP BY runs.run_key) k ON r.id = k.last_id "
			      "ORDER BY k.first_id", cond);
	else
		/* the latest row of each key in each session, but the key's latest */
		rc = asprintf(&tail, "JOIN (SELECT MAX(runs.id) AS last_id FROM runs"
			      " JOIN experiments ON experiments.id = runs.experiment_id"
			      " WHERE experiments.name = ?1 AND %s GROUP BY runs.run_key, %s) k ON r.id = k.last_id "
			      "WHERE r.id NOT IN (SELECT MAX(runs.id) FROM runs"
			      " JOIN experiments ON experiments.id = runs.experiment_id"
			      " WHERE experiments.name = ?1 AND %s GROUP BY runs.run_key) ORDER BY r.id",
			      cond, session, cond);
	if (rc < 0) {
		free(name);
		return tl_store_fail(st, -ENOMEM, "%s: out of memory", what);
	}
	rc = query(st, &s, what, true, tail, "tId", name, f ? f->session : (int64_t)0, f ? f->since : 0.0);
	rc = rc ?: each_row(st, s, add_row, &r, what);
	left_out_total(&r, "runs");
	if (rc) {
		tl_run_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
	}
	free(tail);
	free(name);
	return rc;
}

int tl_store_query_runs(struct tl_store *st, const char *experiment, struct tl_run_row **rows,
			size_t *n)
{
	return query_filtered(st, experiment, NULL, false, rows, n);
}

int tl_store_query_runs_in(struct tl_store *st, const char *experiment, const struct tl_session_filter *f,
			   struct tl_run_row **rows, size_t *n)
{
	return query_filtered(st, experiment, f, false, rows, n);
}

int tl_store_query_replaced(struct tl_store *st, const char *experiment, const struct tl_session_filter *f,
			    struct tl_run_row **rows, size_t *n)
{
	return query_filtered(st, experiment, f, true, rows, n);
}

int tl_store_session_experiment(struct tl_store *st, int64_t session, char **name)
{
	static const char what[] = "cannot find the session";
	sqlite3_stmt *s;
	int rc;

	*name = NULL;
	rc = query(st, &s, what, false, st->has_session ?
		   "SELECT e.name FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE r.session_id = ?1"
		   " ORDER BY r.id DESC LIMIT 1" :
		   "SELECT name FROM experiments WHERE id = ?1", "I", session);
	rc = rc ?: text_of(st, s, name, what);
	if (!rc && !*name)
		rc = tl_store_fail(st, -ENOENT, "no run of session %lld (tierlab list sessions)", (long long)session);
	return rc;
}

/* One session for the caller's fn. */
struct sessions_each {
	int (*fn)(void *arg, const struct tl_session_row *s);
	void *arg;
};

static int each_session(void *arg, sqlite3_stmt *s)
{
	struct sessions_each *e = arg;
	struct tl_session_row row = {
		.id = sqlite3_column_int64(s, 0),
		.started_at = sqlite3_column_double(s, 1),
		.key = (const char *)sqlite3_column_text(s, 2),
		.command = (const char *)sqlite3_column_text(s, 3),
		.host = (const char *)sqlite3_column_text(s, 4),
		.experiment = (const char *)sqlite3_column_text(s, 5),
		.runs = sqlite3_column_int64(s, 6),
		.runs_ok = sqlite3_column_int64(s, 7),
	};

	return e->fn(e->arg, &row);
}

int tl_store_sessions_each(struct tl_store *st, const char *experiment,
			   int (*fn)(void *arg, const struct tl_session_row *s), void *arg)
{
	static const char what[] = "cannot list sessions";
	struct sessions_each e = { fn, arg };
	sqlite3_stmt *s;

	/* a session is listed under each experiment it stored runs of (one, unless a key was shared) */
	return query(st, &s, what, false, st->has_session ?
		     "SELECT s.id, s.started_at, s.key, s.command, s.host, e.name, count(r.id),"
		     " sum(r.status = 'ok') FROM sessions s JOIN runs r ON r.session_id = s.id"
		     " JOIN experiments e ON e.id = r.experiment_id WHERE ?1 IS NULL OR e.name = ?1"
		     " GROUP BY s.id, e.name ORDER BY s.started_at DESC, s.id DESC" :
		     "SELECT e.id, e.created_at, NULL, NULL, e.host, e.name, count(r.id), sum(r.status = 'ok')"
		     " FROM experiments e JOIN runs r ON r.experiment_id = e.id WHERE ?1 IS NULL OR e.name = ?1"
		     " GROUP BY e.id ORDER BY e.created_at DESC, e.id DESC", "t", experiment) ?:
	       each_row(st, s, each_session, &e, what);
}

int tl_store_experiment_baseline(struct tl_store *st, const char *experiment, char **out)
{
	static const char what[] = "cannot read the baseline";
	sqlite3_stmt *s;

	*out = NULL;
	if (experiment)
		return query(st, &s, what, false, "SELECT baseline FROM experiments WHERE name = ?1"
			     " ORDER BY created_at DESC, id DESC LIMIT 1", "t", experiment) ?:
		       text_of(st, s, out, what);
	return query(st, &s, what, false, "SELECT baseline FROM experiments ORDER BY created_at DESC, id DESC LIMIT 1",
		     "") ?: text_of(st, s, out, what);
}

static int fill_name(struct rows *r, void *slot, sqlite3_stmt *s)
{
	(void)r;
	const char *name = (const char *)sqlite3_column_text(s, 0);

	return (*(char **)slot = strdup(name ? name : "")) ? 0 : -ENOMEM;
}

int tl_store_experiments(struct tl_store *st, char ***names, size_t *n)
{
	static const char what[] = "cannot list experiments";
	struct rows r = { st, (void **)names, n, 0, sizeof(**names), fill_name, 0, 0 };
	sqlite3_stmt *s;
	int rc;

	*names = NULL;
	*n = 0;
	rc = query(st, &s, what, false, "SELECT name FROM experiments GROUP BY name"
		   " ORDER BY MAX(created_at) DESC, MAX(id) DESC", "");
	rc = rc ?: each_row(st, s, add_row, &r, what);
	if (rc) {
		for (size_t i = 0; i < *n; i++)
			free((*names)[i]);
		free(*names);
		*names = NULL;
		*n = 0;
	}
	return rc;
}

/* The latest run row with this id (key NULL) or key: 1 found, 0 none, -errno. */
static int run_where(struct tl_store *st, struct tl_run_row *row, const char *what, const char *key, int64_t id)
{
	struct tl_run_row *rows = NULL;
	size_t n = 0;
	struct rows r = { st, (void **)&rows, &n, 0, sizeof(*rows), fill_one_run, 0, 0 };
	sqlite3_stmt *s;
	int rc;

	rc = key ? query(st, &s, what, true, "WHERE r.run_key = ?1 ORDER BY r.id DESC LIMIT 1", "t", key)
		 : query(st, &s, what, true, "WHERE r.id = ?1", "I", id);
	rc = rc ?: each_row(st, s, add_row, &r, what);
	if (!rc && n) {
		*row = rows[0];
		memset(&rows[0], 0, sizeof(rows[0]));
		rc = 1;
	}
	tl_run_rows_free(rows, n);
	return rc;
}

#define MAX_CANDIDATES 5

/* Appends one run key to the candidates' list. */
struct list {
	char *buf;
	size_t len, used;
	long long total;
};

static int add_candidate(void *arg, sqlite3_stmt *s)
{
	struct list *l = arg;

	l->total = sqlite3_column_int64(s, 1);
	if (l->used < l->len)
		l->used += snprintf(l->buf + l->used, l->len - l->used, "%s%s", l->used ? ", " : "",
				    (const char *)sqlite3_column_text(s, 0));
	return 0;
}

/*
 * Up to MAX_CANDIDATES run keys, most recent first, starting with prefix
 * (all keys when prefix is ""), as ", "-separated text in buf; *total is
 * how many there are in all.
 */
static int candidates(struct tl_store *st, const char *prefix, char *buf, size_t len,
		      long long *total, const char *what)
{
	struct list l = { buf, len, 0, 0 };
	sqlite3_stmt *s;
	int rc;

	buf[0] = '\0';
	rc = query(st, &s, what, false, "SELECT run_key, count(*) OVER () FROM"
		   " (SELECT run_key, MAX(id) AS last_id FROM runs"
		   "  WHERE substr(run_key, 1, length(?1)) = ?1 GROUP BY run_key)"
		   " ORDER BY last_id DESC LIMIT ?2", "ti", prefix, MAX_CANDIDATES);
	rc = rc ?: each_row(st, s, add_candidate, &l, what);
	*total = l.total;
	return rc;
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
		rc = run_where(st, row, what, NULL, strtoll(which, NULL, 10));
		if (rc)
			return rc < 0 ? rc : 0;
	}
	rc = run_where(st, row, what, which, 0);
	if (rc)
		return rc < 0 ? rc : 0;
	rc = candidates(st, which, list, sizeof(list), &total, what);
	if (rc)
		return rc;
	if (total == 1)
		return run_where(st, row, what, list, 0) == 1 ? 0 : -EIO;
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

int tl_store_get_run_or_latest(struct tl_store *st, const char *which, bool logged, struct tl_run_row *row)
{
	static const char what[] = "cannot read the latest run";
	struct tl_run_row *rows = NULL;
	size_t n = 0;
	struct rows r = { st, (void **)&rows, &n, 0, sizeof(*rows), fill_run, 0, 0 };
	char tail[160];
	sqlite3_stmt *s;
	int rc;

	if (!which || strcmp(which, "latest"))
		return tl_store_get_run(st, which, row);
	memset(row, 0, sizeof(*row));
	/* an older database may lack the columns: a run of it was not replayed, its log mode unknown */
	snprintf(tail, sizeof(tail), "%s%s ORDER BY r.id DESC LIMIT 1",
		 logged && st->has_axis[TL_AXIS_LOG] ? "WHERE r.\"log\" = 'log'" : "WHERE 1",
		 logged && st->has_simulated ? " AND r.simulated = 0" : "");
	rc = query(st, &s, what, true, tail, "");
	rc = rc ?: each_row(st, s, add_row, &r, what);
	if (!rc && !n)
		rc = tl_store_fail(st, -ENOENT, "no run%s to be the latest", logged ? " recorded with log: log" : "");
	if (!rc) {
		*row = rows[0];
		memset(&rows[0], 0, sizeof(rows[0]));
	}
	tl_run_rows_free(rows, n);
	return rc;
}

/* What a metric may hold: a finite number or NULL; a hit rate a fraction, migrated bytes not below 0. */
static int check_metric(sqlite3_stmt *s, char *why, size_t len)
{
	const char *name = (const char *)sqlite3_column_text(s, 0);
	struct tl_value_check c[] = {
		{ 0, "name", TL_CHECK_TEXT, true },
		{ 2, "unit", TL_CHECK_TEXT, false },
		{ 1, "value", TL_CHECK_NUMBER, false },
	};

	if (sqlite3_column_type(s, 0) == SQLITE_TEXT && !strcmp(name, "hit_rate"))
		c[2].rule = TL_CHECK_FRACTION;
	else if (sqlite3_column_type(s, 0) == SQLITE_TEXT && !strcmp(name, "migrated_bytes"))
		c[2].rule = TL_CHECK_AMOUNT;
	return tl_store_check_values(s, c, ARRAY_SIZE(c), why, len);
}

/* A metric with a bad value is left out, with a warning naming the run and the metric. */
static int fill_metric(struct rows *r, void *slot, sqlite3_stmt *s)
{
	struct tl_metric *m = slot;
	char why[256], what[160];
	bool oom = false;

	if (check_metric(s, why, sizeof(why))) {
		char *name = sqlite3_column_type(s, 0) == SQLITE_TEXT ?
			     tl_visible((const char *)sqlite3_column_text(s, 0), 0) : NULL;

		snprintf(what, sizeof(what), "metric '%.60s' of run %lld", name ? name : "?", (long long)r->run_id);
		free(name);
		left_out(r, what, why);
		return LEFT_OUT;
	}
	m->name = column_dup(s, 0, &oom);
	m->value = sqlite3_column_type(s, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 1);
	m->unit = column_dup(s, 2, &oom);
	return oom ? -ENOMEM : 0;
}

int tl_store_run_metrics(struct tl_store *st, int64_t run_id, struct tl_metric **m, size_t *n)
{
	static const char what[] = "cannot read metrics";
	struct rows r = { st, (void **)m, n, 0, sizeof(**m), fill_metric, run_id, 0 };
	sqlite3_stmt *s;
	int rc;

	*m = NULL;
	*n = 0;
	rc = query(st, &s, what, false, "SELECT name, value, unit FROM metrics WHERE run_id = ?1 ORDER BY name", "I",
		   run_id);
	rc = rc ?: each_row(st, s, add_row, &r, what);
	left_out_total(&r, "metrics");
	if (rc) {
		tl_metrics_free(*m, *n);
		*m = NULL;
		*n = 0;
	}
	return rc;
}

/* ---- environment and counters ---- */

int tl_store_experiment_env(struct tl_store *st, const char *experiment, const char *key,
			    char **out)
{
	static const char what[] = "reading the environment";
	sqlite3_stmt *s;

	*out = NULL;
	return query(st, &s, what, false, "SELECT e.value FROM environment e JOIN experiments x ON x.id = e.experiment_id"
		     " WHERE x.name = ?1 AND e.run_id IS NULL AND e.key = ?2"
		     " ORDER BY x.created_at DESC, x.id DESC LIMIT 1", "tt", experiment, key) ?:
	       text_of(st, s, out, what);
}

int tl_store_env_latest(struct tl_store *st, const char *key, char **out)
{
	static const char what[] = "reading the environment";
	sqlite3_stmt *s;

	*out = NULL;
	return query(st, &s, what, false, "SELECT value FROM environment WHERE key = ?1 AND run_id IS NULL"
		     " ORDER BY experiment_id DESC LIMIT 1", "t", key) ?: text_of(st, s, out, what);
}

int tl_store_run_experiment(struct tl_store *st, int64_t run_id, int64_t *experiment_id)
{
	static const char what[] = "reading a run";
	char *id = NULL;
	bool found = false;
	sqlite3_stmt *s;
	int rc;

	rc = query(st, &s, what, false, "SELECT experiment_id FROM runs WHERE id = ?1", "I", run_id);
	rc = rc ?: texts_of(st, s, &id, 1, &found, what);
	if (!rc && !found)
		rc = tl_store_fail(st, -ENOENT, "no run %lld", (long long)run_id);
	if (!rc)
		*experiment_id = strtoll(id, NULL, 10);
	free(id);
	return rc;
}

/* A callback of the caller's for each (key, value) or counter row. */
struct each {
	void (*env)(void *arg, const char *key, const char *value);
	void (*counter)(void *arg, const char *event, const double *value, const char *status,
			const char *reason);
	void *arg;
	struct tl_env *into;
	struct tl_store *st;
	int64_t run_id;
	size_t left_out;
};

static int each_env(void *arg, sqlite3_stmt *s)
{
	struct each *e = arg;
	const char *key = (const char *)sqlite3_column_text(s, 0), *value = (const char *)sqlite3_column_text(s, 1);

	if (e->into)
		return tl_env_put(e->into, key, value);
	e->env(e->arg, key, value);
	return 0;
}

/* What a counter row may hold: its count a number from 0 up, or NULL (not counted). */
static const struct tl_value_check counter_checks[] = {
	{ 0, "event", TL_CHECK_TEXT, true },
	{ 1, "value", TL_CHECK_AMOUNT, false },
	{ 2, "status", TL_CHECK_TEXT, true },
	{ 3, "reason", TL_CHECK_TEXT, false },
};

/* A counter with a bad value is left out, with a warning naming the run and the event. */
static int each_counter(void *arg, sqlite3_stmt *s)
{
	struct each *e = arg;
	double v = sqlite3_column_double(s, 1);
	char why[256];

	if (tl_store_check_values(s, counter_checks, ARRAY_SIZE(counter_checks), why, sizeof(why))) {
		char *event = sqlite3_column_type(s, 0) == SQLITE_TEXT ?
			      tl_visible((const char *)sqlite3_column_text(s, 0), 0) : NULL;

		if (e->left_out++ < MAX_WARNINGS)
			warning("database '%s': counter '%.60s' of run %lld left out: %s", e->st->path,
				event ? event : "?", (long long)e->run_id, why);
		free(event);
		return 0;
	}
	e->counter(e->arg, (const char *)sqlite3_column_text(s, 0), sqlite3_column_type(s, 1) == SQLITE_NULL ?
		   NULL : &v, (const char *)sqlite3_column_text(s, 2), (const char *)sqlite3_column_text(s, 3));
	return 0;
}

int tl_store_env_each(struct tl_store *st, int64_t experiment_id, int64_t run_id,
		      void (*fn)(void *arg, const char *key, const char *value), void *arg)
{
	static const char what[] = "reading the environment";
	struct each e = { .env = fn, .arg = arg };
	sqlite3_stmt *s;

	return query(st, &s, what, false, "SELECT key, value FROM environment WHERE experiment_id = ?1 AND"
		     " ifnull(run_id, 0) = ?2 ORDER BY key", "II", experiment_id, run_id) ?:
	       each_row(st, s, each_env, &e, what);
}

int tl_store_counters_each(struct tl_store *st, int64_t run_id,
			   void (*fn)(void *arg, const char *event, const double *value,
				      const char *status, const char *reason), void *arg)
{
	static const char what[] = "reading counters";
	struct each e = { .counter = fn, .arg = arg, .st = st, .run_id = run_id };
	sqlite3_stmt *s;

	return query(st, &s, what, false, "SELECT event, value, status, reason FROM counters WHERE run_id = ?1"
		     " ORDER BY event", "I", run_id) ?: each_row(st, s, each_counter, &e, what);
}

int tl_store_env_load(struct tl_store *st, int64_t experiment_id, int64_t run_id, struct tl_env *env)
{
	static const char what[] = "reading the environment";
	struct tl_env got = { 0 };
	struct each e = { .into = &got };
	sqlite3_stmt *s;
	int rc;

	rc = query(st, &s, what, false, "SELECT key, value FROM environment WHERE experiment_id = ?1 AND run_id IS ?2"
		   " ORDER BY rowid", "IN", experiment_id, run_id != 0, run_id);
	rc = rc ?: each_row(st, s, each_env, &e, what);
	if (rc) {
		tl_env_release(&got);
		return rc;
	}
	tl_env_release(env);
	*env = got;
	return 0;
}

/* ---- machine profiles ---- */

/* The profile's row of sql, two text columns (b may be NULL). -ENOENT when no such profile. */
static int profile_row(struct tl_store *st, const char *sql, const char *name, char **a, char **b)
{
	static const char what[] = "cannot read machine profiles";
	char *out[2] = { NULL, NULL };
	bool found = false;
	sqlite3_stmt *s;
	int rc;

	rc = query(st, &s, what, false, sql, "t", name);
	rc = rc ?: texts_of(st, s, out, 2, &found, what);
	if (!rc && !found)
		rc = tl_store_fail(st, -ENOENT, "no machine profile '%s' (save one with 'tierlab probe --save %s')",
				   name, name);
	*a = out[0];
	if (b)
		*b = out[1];
	else
		free(out[1]);
	return rc;
}

int tl_store_profile(struct tl_store *st, const char *name, char **json)
{
	return profile_row(st, "SELECT json, NULL FROM machine_profiles WHERE name = ?1", name, json, NULL);
}

int tl_store_profile_read_gbs(struct tl_store *st, const char *name, int node, double *gbs)
{
	char sql[256], *v = NULL;
	int rc;

	/* node is a number: written into the statement, the name bound */
	/* machine_profiles.json: inside the subquery a bare json is json_each's own hidden column */
	snprintf(sql, sizeof(sql), "SELECT (SELECT json_extract(n.value, '$.read_gbs')"
		 " FROM json_each(machine_profiles.json, '$.nodes') n WHERE json_extract(n.value, '$.id') = %d), NULL FROM machine_profiles WHERE name = ?1", node);
	rc = profile_row(st, sql, name, &v, NULL);
	*gbs = !rc && v ? strtod(v, NULL) : 0;
	free(v);
	return rc;
}

int tl_store_profile_nodes(struct tl_store *st, const char *name, char **fast, char **slow)
{
	int rc;

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
