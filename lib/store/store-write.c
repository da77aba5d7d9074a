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
#include "util/clock.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"
#include "util/name.h"
#include "util/strings.h"

#define ROWS_PER_INSERT 64
/* While waiting for another process's lock, a line on stderr this often (seconds). */
#define WAIT_NOTE_S 60

/* A statement that failed (or a COMMIT): reported before ROLLBACK replaces the connection's message. */
static int fail_rollback(struct tl_store *st, int rc, const char *what)
{
	rc = tl_store_sqlerr(st, rc, what);
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/*
 * Takes the write lock. Past the busy timeout, a store asked to wait
 * (tl_store_wait_for_lock) keeps trying in steps of a second, so that its
 * stop flag is seen soon, and says so once a minute: what was measured
 * must not be dropped because another process held the database.
 */
static int begin(struct tl_store *st, const char *what)
{
	int rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	int waited_s = TL_STORE_BUSY_TIMEOUT_MS / 1000;

	if ((rc & 0xff) != SQLITE_BUSY || !st->wait_for_lock)
		return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, what);
	sqlite3_busy_timeout(st->db, 1000);
	for (; (rc & 0xff) == SQLITE_BUSY && !(st->stop && *st->stop); waited_s++) {
		if (waited_s % WAIT_NOTE_S == TL_STORE_BUSY_TIMEOUT_MS / 1000)
			warning("database '%s' is locked by another process (for %ds); waiting to store "
				"(interrupt to stop)", st->path, waited_s);
		rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	}
	sqlite3_busy_timeout(st->db, TL_STORE_BUSY_TIMEOUT_MS);
	if (rc == SQLITE_OK)
		fprintf(stderr, "database '%s': the lock is free after %ds; storing\n", st->path, waited_s);
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
	int rc = tl_store_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
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

/* One row's parameters from i on; the types are those of tl_store_bind. */
static void bind_sample(sqlite3_stmt *s, int i, int64_t run_id, const void *row)
{
	const struct tl_sample_row *r = row;

	/* NULL, not 0, for what the sampler could not see (docs/schema.md) */
	tl_store_bind(s, i, "IiIINNN", run_id, r->pid, r->t_ns, (int64_t)r->addr, r->pc != 0, (int64_t)r->pc,
		      r->tid != 0, r->tid, r->hit >= 0, (int64_t)r->hit);
}

static void bind_migration(sqlite3_stmt *s, int i, int64_t run_id, const void *row)
{
	const struct tl_migration_row *r = row;
	const char *dir = tl_direction_name(r->direction);

	tl_store_bind(s, i, "IiIIIti", run_id, r->pid, r->t_ns, (int64_t)r->addr, r->bytes, dir, r->ok);
}

static void bind_alloc(sqlite3_stmt *s, int i, int64_t run_id, const void *row)
{
	const struct tl_alloc_row *r = row;

	tl_store_bind(s, i, "IiIIIItN", run_id, r->pid, r->seq, r->t_ns, (int64_t)r->addr, r->size, r->callsite,
		      (int)r->freed, r->freed_ns);
}

static void bind_proc_stat(sqlite3_stmt *s, int i, int64_t run_id, const void *row)
{
	const struct tl_proc_stat *r = row;

	tl_store_bind(s, i, "IitI", run_id, r->pid, r->name, (int64_t)r->value);
}

static void bind_metric(sqlite3_stmt *s, int i, int64_t run_id, const void *row)
{
	const struct tl_metric *m = row;

	tl_store_bind(s, i, "Itdt", run_id, m->name, m->value, m->unit);
}

static void bind_counter(sqlite3_stmt *s, int i, int64_t run_id, const void *row)
{
	const struct tl_counter_row *c = row;

	tl_store_bind(s, i, "IttdNNdtt", run_id, c->event, c->encoding, c->has_value ? c->value : NAN,
		      (int)c->has_times, (int64_t)c->enabled_ns, (int)c->has_times, (int64_t)c->running_ns,
		      c->has_multiplex ? c->multiplex_pct : NAN, c->status, c->reason);
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
		tl_store_bind(s, 1, "INtt", experiment_id, run_id != 0, run_id, env->v[i].key, env->v[i].value);
		rc = step(s);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, what);
}

/*
 * One record in one immediate transaction: the record's own row (s,
 * prepared and bound; finalized here), then the rows that hang off its
 * id (rows()). 0 and *id, or -errno after reporting, with nothing written.
 */
static int write_record(struct tl_store *st, sqlite3_stmt *s,
			int (*rows)(struct tl_store *st, int64_t id, const void *arg, const char *what),
			const void *arg, const char *what, int64_t *id)
{
	int64_t new_id;
	int rc = begin(st, what);

	if (rc) {
		sqlite3_finalize(s);
		return rc;
	}
	rc = step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_OK)
		return fail_rollback(st, rc, what);
	new_id = sqlite3_last_insert_rowid(st->db);
	rc = rows(st, new_id, arg, what);
	if (rc) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	rc = commit(st, what);
	if (!rc && id)
		*id = new_id;
	return rc;
}

/* ---- experiments ---- */

static int experiment_rows(struct tl_store *st, int64_t id, const void *arg, const char *what)
{
	const struct tl_experiment_record *e = arg;

	return insert_env(st, id, 0, e->env, what);
}

int tl_store_add_experiment(struct tl_store *st, const struct tl_experiment_record *e, int64_t *id)
{
	static const char sql[] =
		"INSERT INTO experiments (name, description, spec_path, spec_text, spec_hash, baseline,"
		" host, kernel, tierlab_version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	static const char what[] = "cannot add experiment";
	struct tl_error bad;
	sqlite3_stmt *s;
	int rc;

	if (!e->name)
		return tl_store_fail(st, -EINVAL, "an experiment needs a name");
	/* the last gate of util/name.h's rule: the name becomes a results directory */
	if (tl_name_check("experiment", e->name, &bad))
		return tl_store_fail(st, -EINVAL, "%s: %s", what, bad.msg);
	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, what);
	tl_store_bind(s, 1, "tttttttttd", e->name, e->description, e->spec_path, e->spec_text, e->spec_hash,
		      e->baseline, e->host, e->kernel, e->tierlab_version, e->created_at > 0 ? e->created_at : tl_wall_s());
	return write_record(st, s, experiment_rows, e, what, id);
}

/* ---- runs ---- */

/* The columns of a run row as add_run writes them; axis columns go after `rep`. */
static char *insert_run_sql(void)
{
	char *sql = NULL;
	size_t len = 0;
	int params = 4 + TL_AXIS__COUNT + 17;
	FILE *f = open_memstream(&sql, &len);

	if (!f)
		return NULL;
	fputs("INSERT INTO runs (experiment_id, run_key, config_key, rep", f);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		fprintf(f, ", \"%s\"", tl_axes[a].name);
	fputs(", command, out_dir, status, exit_code, signal, fom, fom_unit, higher_is_better,"
	      " wall_s, user_s, sys_s, maxrss_kb, started_at, ended_at, error, simulated, session_id) VALUES (?", f);
	for (int i = 1; i < params; i++)
		fputs(", ?", f);
	fputc(')', f);
	if (fclose(f)) {
		free(sql);
		return NULL;
	}
	return sql;
}

/*
 * A run's directory as stored: relative to the database's directory when
 * under it (the results move with the database, and a reader anywhere
 * finds them), else absolute. malloc'd; NULL stays NULL.
 */
static char *stored_dir(const struct tl_store *st, const char *path, bool *oom)
{
	char *abs = path ? realpath(path, NULL) : NULL;
	const char *p = abs ? abs : path;
	size_t n = st->dir ? strlen(st->dir) : 0;
	char *out;

	if (p && n && !strncmp(p, st->dir, n) && (p[n] == '/' || n == 1) && p[n == 1 ? 1 : n + 1])
		p += n == 1 ? 1 : n + 1;
	out = tl_strdup_or_null(p, oom);
	free(abs);
	return out;
}

static void bind_run(sqlite3_stmt *s, const struct tl_run_record *r, const char *out_dir)
{
	const struct tl_run_result *res = r->result;
	int i = tl_store_bind(s, 1, "Itti", r->experiment_id, r->run_key, r->config_key, r->rep);

	for (int a = 0; a < TL_AXIS__COUNT; a++)
		tl_store_bind_text(s, i++, r->values[a]);
	/* NULL, not a sentinel, when the process did not exit or was not signalled */
	tl_store_bind(s, i, "tttNNdtidddIddtiN", r->command, out_dir, tl_status_names[res->status],
		      res->exit_code >= 0, (int64_t)res->exit_code, res->signal > 0, (int64_t)res->signal,
		      r->has_fom ? r->fom : NAN, r->fom_unit, (int)r->higher_is_better, res->wall, res->user,
		      res->sys, (int64_t)res->maxrss_kb, res->started_at, res->ended_at,
		      res->error[0] ? res->error : NULL, (int)r->simulated, r->session_id > 0, r->session_id);
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
static int run_rows(struct tl_store *st, int64_t id, const void *arg, const char *what)
{
	const struct tl_run_record *r = arg;
	int rc;

	rc = insert_rows(st, "INSERT INTO metrics (run_id, name, value, unit)", 4, r->metrics.v, r->metrics.n,
			 sizeof(*r->metrics.v), bind_metric, id, what);
	rc = rc ?: insert_rows(st, "INSERT INTO counters (run_id, event, encoding, value, enabled_ns, running_ns,"
			       " multiplex_pct, status, reason)", 9, r->counters.v, r->counters.n,
			       sizeof(*r->counters.v), bind_counter, id, what);
	rc = rc ?: insert_rows(st, "INSERT INTO process_stats (run_id, pid, name, value)", 4, r->proc_stats.v,
			       r->proc_stats.n, sizeof(*r->proc_stats.v), bind_proc_stat, id, what);
	/* a process's log may repeat an allocation (its sequence numbers are its identity) */
	rc = rc ?: insert_rows(st, "INSERT OR IGNORE INTO allocations (run_id, pid, seq, t_ns, addr, size, callsite, freed_ns)",
			       8, r->allocations.v, r->allocations.n, sizeof(*r->allocations.v), bind_alloc, id,
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
	char *sql, *out_dir;
	bool oom = false;
	int rc;

	rc = check_run(st, r);
	if (rc)
		return rc;
	snprintf(what, sizeof(what), "cannot store run '%s'", r->run_key);
	sql = insert_run_sql();
	out_dir = stored_dir(st, r->out_dir, &oom);
	if (!sql || oom) {
		free(sql);
		return tl_store_fail(st, -ENOMEM, "%s: out of memory", what);
	}
	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	free(sql);
	if (rc != SQLITE_OK) {
		free(out_dir);
		return tl_store_sqlerr(st, rc, what);
	}
	bind_run(s, r, out_dir);
	rc = write_record(st, s, run_rows, r, what, run_id);
	free(out_dir);
	return rc;
}

/* ---- sessions ---- */

int tl_store_add_session(struct tl_store *st, const struct tl_session_record *sr, int64_t *id)
{
	static const char what[] = "cannot add the session";
	sqlite3_stmt *s = NULL;
	int rc;

	if (!sr->key || !*sr->key)
		return tl_store_fail(st, -EINVAL, "a session needs a key");
	if ((rc = begin(st, what)))
		return rc;
	/* a key stored already (another task of the same Slurm array, a resumed shard) is that session */
	rc = sqlite3_prepare_v2(st->db, "INSERT OR IGNORE INTO sessions (key, started_at, command, host)"
				" VALUES (?, ?, ?, ?)", -1, &s, NULL);
	if (rc == SQLITE_OK) {
		tl_store_bind(s, 1, "tdtt", sr->key, sr->started_at > 0 ? sr->started_at : tl_wall_s(), sr->command,
			      sr->host);
		rc = step(s);
		sqlite3_finalize(s);
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(st->db, "SELECT id FROM sessions WHERE key = ?", -1, &s, NULL);
	if (rc == SQLITE_OK) {
		tl_store_bind_text(s, 1, sr->key);
		rc = tl_store_step(s);
		if (rc == SQLITE_ROW) {
			*id = sqlite3_column_int64(s, 0);
			rc = SQLITE_OK;
		}
		sqlite3_finalize(s);
	}
	if (rc != SQLITE_OK)
		return fail_rollback(st, rc, what);
	return commit(st, what);
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
	tl_store_bind(s, 1, "tdt", name, tl_wall_s(), json);
	rc = step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, "cannot save the machine profile");
}
