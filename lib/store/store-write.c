/*
 * Writing the store (see store.h): the only code in tierlab that changes
 * a database. A record goes in whole inside one immediate transaction
 * (the write lock taken at BEGIN, so a second tierlab waits instead of
 * failing halfway), or not at all.
 *
 * The log tables can hold a hundred thousand rows per run, so their rows
 * go in as multi-row INSERT statements of ROWS_PER_INSERT rows: one
 * statement step per batch instead of per row.
 */
#include "store/store-internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "util/error.h"

#define ROWS_PER_INSERT 64

static double now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* A statement that failed (or a COMMIT): reported before ROLLBACK replaces the connection's message. */
static int fail_rollback(struct tl_store *st, int rc, const char *what)
{
	rc = tl_store_sqlerr(st, rc, what);
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static int begin(struct tl_store *st, const char *what)
{
	int rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, what);
}

static int commit(struct tl_store *st, const char *what)
{
	int rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : fail_rollback(st, rc, what);
}

/* Steps a bound statement that returns no row, and resets it for the next bindings. */
static int step(sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static void bind_double_or_null(sqlite3_stmt *s, int i, bool has, double v)
{
	if (has && !isnan(v))
		sqlite3_bind_double(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

/* ---- rows that come in their hundreds of thousands ---- */

/*
 * "INSERT INTO <table> (<cols>) VALUES (?, ...), (?, ...)" for n rows of
 * ncols columns, prepared; NULL after reporting.
 */
static int prepare_rows(struct tl_store *st, const char *head, int ncols, int n, sqlite3_stmt **s,
			const char *what)
{
	size_t len = strlen(head) + sizeof(" VALUES ") + (size_t)n * (size_t)(3 * ncols + 4);
	char *sql = malloc(len), *p;
	int rc;

	if (!sql)
		return tl_store_fail(st, -ENOMEM, "%s: out of memory", what);
	p = stpcpy(sql, head);
	for (int r = 0; r < n; r++) {
		p = stpcpy(p, r ? ", (" : " VALUES (");
		for (int c = 0; c < ncols; c++)
			p = stpcpy(p, c ? ", ?" : "?");
		*p++ = ')';
	}
	*p = '\0';
	rc = sqlite3_prepare_v2(st->db, sql, -1, s, NULL);
	free(sql);
	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, what);
}

/*
 * Inserts n rows with bind(s, first parameter, row) in batches of
 * ROWS_PER_INSERT, the rest one by one. Returns 0 or a negative errno
 * after reporting (the caller rolls back).
 */
static int insert_rows(struct tl_store *st, const char *head, int ncols, const void *rows, size_t n,
		       size_t size, void (*bind)(sqlite3_stmt *s, int i, int64_t run_id, const void *row),
		       int64_t run_id, const char *what)
{
	sqlite3_stmt *many = NULL, *one = NULL;
	size_t done = 0;
	int rc = 0;

	if (!n)
		return 0;
	if (n >= ROWS_PER_INSERT)
		rc = prepare_rows(st, head, ncols, ROWS_PER_INSERT, &many, what);
	if (!rc && n % ROWS_PER_INSERT)
		rc = prepare_rows(st, head, ncols, 1, &one, what);
	while (!rc && done < n) {
		sqlite3_stmt *s = n - done >= ROWS_PER_INSERT ? many : one;
		int batch = s == many ? ROWS_PER_INSERT : 1, sqlrc;

		for (int r = 0; r < batch; r++)
			bind(s, 1 + r * ncols, run_id, (const char *)rows + (done + (size_t)r) * size);
		sqlrc = step(s);
		if (sqlrc != SQLITE_OK)
			rc = tl_store_sqlerr(st, sqlrc, what);
		done += (size_t)batch;
	}
	sqlite3_finalize(many);
	sqlite3_finalize(one);
	return rc;
}

static void bind_sample(sqlite3_stmt *s, int i, int64_t run_id, const void *row)
{
	const struct tl_sample_row *r = row;

	sqlite3_bind_int64(s, i, run_id);
	sqlite3_bind_int(s, i + 1, r->pid);
	sqlite3_bind_int64(s, i + 2, r->t_ns);
	sqlite3_bind_int64(s, i + 3, (int64_t)r->addr);
	sqlite3_bind_int64(s, i + 4, (int64_t)r->pc);
	sqlite3_bind_int64(s, i + 5, r->tid);
	sqlite3_bind_int(s, i + 6, r->hit);
}

static void bind_migration(sqlite3_stmt *s, int i, int64_t run_id, const void *row)
{
	const struct tl_migration_row *r = row;

	sqlite3_bind_int64(s, i, run_id);
	sqlite3_bind_int(s, i + 1, r->pid);
	sqlite3_bind_int64(s, i + 2, r->t_ns);
	sqlite3_bind_int64(s, i + 3, (int64_t)r->addr);
	sqlite3_bind_int64(s, i + 4, r->bytes);
	sqlite3_bind_text(s, i + 5, (unsigned)r->direction < TL_DIR__COUNT ? tl_direction_names[r->direction]
									  : "?", -1, SQLITE_STATIC);
	sqlite3_bind_int(s, i + 6, r->ok);
}

static void bind_alloc(sqlite3_stmt *s, int i, int64_t run_id, const void *row)
{
	const struct tl_alloc_row *r = row;

	sqlite3_bind_int64(s, i, run_id);
	sqlite3_bind_int(s, i + 1, r->pid);
	sqlite3_bind_int64(s, i + 2, r->seq);
	sqlite3_bind_int64(s, i + 3, r->t_ns);
	sqlite3_bind_int64(s, i + 4, (int64_t)r->addr);
	sqlite3_bind_int64(s, i + 5, r->size);
	tl_store_bind_text(s, i + 6, r->callsite);
}

static void bind_proc_stat(sqlite3_stmt *s, int i, int64_t run_id, const void *row)
{
	const struct tl_proc_stat *r = row;

	sqlite3_bind_int64(s, i, run_id);
	sqlite3_bind_int(s, i + 1, r->pid);
	sqlite3_bind_text(s, i + 2, r->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, i + 3, (int64_t)r->value);
}

static void bind_metric(sqlite3_stmt *s, int i, int64_t run_id, const void *row)
{
	const struct tl_metric *m = row;

	sqlite3_bind_int64(s, i, run_id);
	tl_store_bind_text(s, i + 1, m->name);
	bind_double_or_null(s, i + 2, true, m->value);
	tl_store_bind_text(s, i + 3, m->unit);
}

static void bind_counter(sqlite3_stmt *s, int i, int64_t run_id, const void *row)
{
	const struct tl_counter_row *c = row;

	sqlite3_bind_int64(s, i, run_id);
	tl_store_bind_text(s, i + 1, c->event);
	tl_store_bind_text(s, i + 2, c->encoding);
	bind_double_or_null(s, i + 3, c->has_value, c->value);
	if (c->has_times) {
		sqlite3_bind_int64(s, i + 4, (int64_t)c->enabled_ns);
		sqlite3_bind_int64(s, i + 5, (int64_t)c->running_ns);
	} else {
		sqlite3_bind_null(s, i + 4);
		sqlite3_bind_null(s, i + 5);
	}
	bind_double_or_null(s, i + 6, c->has_multiplex, c->multiplex_pct);
	tl_store_bind_text(s, i + 7, c->status);
	tl_store_bind_text(s, i + 8, c->reason);
}

static int insert_env(struct tl_store *st, int64_t experiment_id, int64_t run_id, const struct tl_env *env,
		      const char *what)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO environment (experiment_id, run_id, key, value) VALUES (?, ?, ?, ?)";
	sqlite3_stmt *s;
	int rc;

	if (!env || !env->n)
		return 0;
	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, what);
	for (size_t i = 0; i < env->n && rc == SQLITE_OK; i++) {
		sqlite3_bind_int64(s, 1, experiment_id);
		if (run_id)
			sqlite3_bind_int64(s, 2, run_id);
		else
			sqlite3_bind_null(s, 2);
		tl_store_bind_text(s, 3, env->v[i].key);
		tl_store_bind_text(s, 4, env->v[i].value);
		rc = step(s);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, what);
}

/* ---- experiments ---- */

int tl_store_add_experiment(struct tl_store *st, const struct tl_experiment_record *e, int64_t *id)
{
	static const char sql[] =
		"INSERT INTO experiments (name, description, spec_path, spec_text, spec_hash, baseline,"
		" host, kernel, tierlab_version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	static const char what[] = "cannot add experiment";
	sqlite3_stmt *s;
	int64_t new_id;
	int rc;

	if (!e->name)
		return tl_store_fail(st, -EINVAL, "an experiment needs a name");
	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, what);
	tl_store_bind_text(s, 1, e->name);
	tl_store_bind_text(s, 2, e->description);
	tl_store_bind_text(s, 3, e->spec_path);
	tl_store_bind_text(s, 4, e->spec_text);
	tl_store_bind_text(s, 5, e->spec_hash);
	tl_store_bind_text(s, 6, e->baseline);
	tl_store_bind_text(s, 7, e->host);
	tl_store_bind_text(s, 8, e->kernel);
	tl_store_bind_text(s, 9, e->tierlab_version);
	sqlite3_bind_double(s, 10, e->created_at > 0 ? e->created_at : now());
	rc = begin(st, what);
	if (rc) {
		sqlite3_finalize(s);
		return rc;
	}
	rc = step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_OK)
		return fail_rollback(st, rc, what);
	new_id = sqlite3_last_insert_rowid(st->db);
	rc = insert_env(st, new_id, 0, e->env, what);
	if (rc) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	rc = commit(st, what);
	if (!rc && id)
		*id = new_id;
	return rc;
}

/* ---- runs ---- */

/* The columns of a run row as add_run writes them; axis columns go after `rep`. */
static char *insert_run_sql(void)
{
	char *sql = NULL;
	size_t len = 0;
	int params = 4 + TL_AXIS__COUNT + 15;
	FILE *f = open_memstream(&sql, &len);

	if (!f)
		return NULL;
	fputs("INSERT INTO runs (experiment_id, run_key, config_key, rep", f);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		fprintf(f, ", \"%s\"", tl_axes[a].name);
	fputs(", command, out_dir, status, exit_code, signal, fom, fom_unit, higher_is_better,"
	      " wall_s, user_s, sys_s, maxrss_kb, started_at, ended_at, error) VALUES (?", f);
	for (int i = 1; i < params; i++)
		fputs(", ?", f);
	fputc(')', f);
	if (fclose(f)) {
		free(sql);
		return NULL;
	}
	return sql;
}

static void bind_run(sqlite3_stmt *s, const struct tl_run_record *r)
{
	const struct tl_run_result *res = r->result;
	int i = 1;

	sqlite3_bind_int64(s, i++, r->experiment_id);
	tl_store_bind_text(s, i++, r->run_key);
	tl_store_bind_text(s, i++, r->config_key);
	sqlite3_bind_int(s, i++, r->rep);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		tl_store_bind_text(s, i++, r->values[a]);
	tl_store_bind_text(s, i++, r->command);
	tl_store_bind_text(s, i++, r->out_dir);
	tl_store_bind_text(s, i++, tl_status_names[res->status]);
	/* NULL, not a sentinel, when the process did not exit or was not signalled. */
	if (res->exit_code >= 0)
		sqlite3_bind_int(s, i++, res->exit_code);
	else
		sqlite3_bind_null(s, i++);
	if (res->signal > 0)
		sqlite3_bind_int(s, i++, res->signal);
	else
		sqlite3_bind_null(s, i++);
	bind_double_or_null(s, i++, r->has_fom, r->fom);
	tl_store_bind_text(s, i++, r->fom_unit);
	sqlite3_bind_int(s, i++, r->higher_is_better);
	sqlite3_bind_double(s, i++, res->wall);
	sqlite3_bind_double(s, i++, res->user);
	sqlite3_bind_double(s, i++, res->sys);
	sqlite3_bind_int64(s, i++, res->maxrss_kb);
	sqlite3_bind_double(s, i++, res->started_at);
	sqlite3_bind_double(s, i++, res->ended_at);
	tl_store_bind_text(s, i++, res->error[0] ? res->error : NULL);
}

static int check_run(struct tl_store *st, const struct tl_run_record *r)
{
	if (!r->run_key || !r->config_key || !r->result)
		return tl_store_fail(st, -EINVAL, "a run needs a key, a configuration key and a result");
	if ((unsigned)r->result->status >= TL_STATUS__COUNT)
		return tl_store_fail(st, -EINVAL, "run '%s': bad status %d", r->run_key, (int)r->result->status);
	for (size_t i = 0; i < r->metrics.n; i++)
		if (!r->metrics.v[i].name)
			return tl_store_fail(st, -EINVAL, "run '%s': metric %zu has no name", r->run_key, i);
	for (size_t i = 0; i < r->counters.n; i++)
		if (!r->counters.v[i].event || !r->counters.v[i].status)
			return tl_store_fail(st, -EINVAL, "run '%s': counter %zu has no event or status",
					     r->run_key, i);
	return 0;
}

/* Every row of the record that hangs off the run row `id`. */
static int insert_measured(struct tl_store *st, const struct tl_run_record *r, int64_t id, const char *what)
{
	int rc;

	rc = insert_rows(st, "INSERT INTO metrics (run_id, name, value, unit)", 4, r->metrics.v, r->metrics.n,
			 sizeof(*r->metrics.v), bind_metric, id, what);
	rc = rc ?: insert_rows(st, "INSERT INTO counters (run_id, event, encoding, value, enabled_ns, running_ns,"
			       " multiplex_pct, status, reason)", 9, r->counters.v, r->counters.n,
			       sizeof(*r->counters.v), bind_counter, id, what);
	rc = rc ?: insert_rows(st, "INSERT INTO process_stats (run_id, pid, name, value)", 4, r->proc_stats.v,
			       r->proc_stats.n, sizeof(*r->proc_stats.v), bind_proc_stat, id, what);
	/* a process's log may repeat an allocation (its sequence numbers are its identity) */
	rc = rc ?: insert_rows(st, "INSERT OR IGNORE INTO allocations (run_id, pid, seq, t_ns, addr, size, callsite)",
			       7, r->allocations.v, r->allocations.n, sizeof(*r->allocations.v), bind_alloc, id,
			       what);
	rc = rc ?: insert_rows(st, "INSERT INTO samples (run_id, pid, t_ns, addr, pc, tid, hit)", 7, r->samples.v,
			       r->samples.n, sizeof(*r->samples.v), bind_sample, id, what);
	rc = rc ?: insert_rows(st, "INSERT INTO migrations (run_id, pid, t_ns, addr, bytes, direction, ok)", 7,
			       r->migrations.v, r->migrations.n, sizeof(*r->migrations.v), bind_migration, id,
			       what);
	return rc ?: insert_env(st, r->experiment_id, id, &r->env, what);
}

int tl_store_add_run(struct tl_store *st, const struct tl_run_record *r, int64_t *run_id)
{
	sqlite3_stmt *s = NULL;
	char what[128];
	char *sql;
	int64_t id;
	int rc;

	rc = check_run(st, r);
	if (rc)
		return rc;
	snprintf(what, sizeof(what), "cannot store run '%s'", r->run_key);
	sql = insert_run_sql();
	if (!sql)
		return tl_store_fail(st, -ENOMEM, "%s: out of memory", what);
	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, what);
	bind_run(s, r);
	rc = begin(st, what);
	if (rc) {
		sqlite3_finalize(s);
		return rc;
	}
	rc = step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_OK)
		return fail_rollback(st, rc, what);
	id = sqlite3_last_insert_rowid(st->db);
	rc = insert_measured(st, r, id, what);
	if (rc) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	rc = commit(st, what);
	if (!rc && run_id)
		*run_id = id;
	return rc;
}

/* ---- single facts ---- */

int tl_store_set_env(struct tl_store *st, int64_t experiment_id, int64_t run_id, const char *key,
		     const char *value)
{
	struct tl_env_entry e = { (char *)key, (char *)value };
	struct tl_env env = { &e, 1 };

	return insert_env(st, experiment_id, run_id, &env, "storing the environment");
}

int tl_store_save_profile(struct tl_store *st, const char *name, const char *json)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO machine_profiles (name, created_at, json) VALUES (?, ?, ?)";
	sqlite3_stmt *s;
	int rc;

	if (!name || !*name)
		return tl_store_fail(st, -EINVAL, "a machine profile needs a name");
	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, "cannot save the machine profile");
	tl_store_bind_text(s, 1, name);
	sqlite3_bind_double(s, 2, now());
	tl_store_bind_text(s, 3, json);
	rc = step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, "cannot save the machine profile");
}
