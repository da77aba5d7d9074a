/*
 * The store's schema history and the code that applies it. The schema is
 * versioned with PRAGMA user_version: migration i (1-based) brings a
 * database from version i-1 to i, inside its own immediate transaction, so
 * a crash or a second tierlab process never sees half a migration. The
 * tables and every column are documented in docs/schema.md; change both
 * together.
 *
 * A migration is fixed SQL once it has shipped: databases in users' hands
 * were built by it. To change the schema, append a migration (ALTER TABLE,
 * CREATE TABLE, ...), bump TL_STORE_SCHEMA_VERSION and document it. The
 * one exception are the axis columns of runs, which follow the axis table:
 * an axis added since a database was made gets its column when tierlab
 * opens it (a nullable column older tierlabs do not read).
 */
#include "store/store-internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "util/error.h"
#include "util/array.h"

static const char migration_1[] =
	/* Marks the file as tierlab's, so another program's database is refused. */
	"PRAGMA application_id = 1414283586;\n"

	"CREATE TABLE experiments (\n"
	"  id              INTEGER PRIMARY KEY,\n"
	"  name            TEXT NOT NULL,\n"
	"  description     TEXT,\n"
	"  spec_path       TEXT,\n"
	"  spec_text       TEXT,\n"
	"  spec_hash       TEXT,\n"
	"  baseline        TEXT,\n"
	"  host            TEXT,\n"
	"  kernel          TEXT,\n"
	"  tierlab_version TEXT,\n"
	"  created_at      REAL NOT NULL\n"
	");\n"
	"CREATE INDEX experiments_name ON experiments (name, created_at);\n"

	"CREATE TABLE runs (\n"
	"  id               INTEGER PRIMARY KEY,\n"
	"  experiment_id    INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,\n"
	"  run_key          TEXT NOT NULL,\n"
	"  config_key       TEXT NOT NULL,\n"
	"  rep              INTEGER NOT NULL CHECK (rep >= 1),\n"
	/* One column per axis as of this migration; later axes are added by tl_store_add_axis_columns. */
	"  \"workload\"     TEXT,\n"
	"  \"size\"         TEXT,\n"
	"  \"threads\"      TEXT,\n"
	"  \"allocator\"    TEXT,\n"
	"  \"policy\"       TEXT,\n"
	"  \"budget\"       TEXT,\n"
	"  \"threshold\"    TEXT,\n"
	"  \"chunks\"       TEXT,\n"
	"  \"rate\"         TEXT,\n"
	"  \"window\"       TEXT,\n"
	"  \"sampler\"      TEXT,\n"
	"  \"log\"          TEXT,\n"
	"  command          TEXT,\n"
	"  out_dir          TEXT,\n"
	"  status           TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'timeout', 'crashed')),\n"
	"  exit_code        INTEGER,\n"
	"  signal           INTEGER,\n"
	"  fom              REAL,\n"
	"  fom_unit         TEXT,\n"
	"  higher_is_better INTEGER NOT NULL CHECK (higher_is_better IN (0, 1)),\n"
	"  wall_s           REAL,\n"
	"  user_s           REAL,\n"
	"  sys_s            REAL,\n"
	"  maxrss_kb        INTEGER,\n"
	"  started_at       REAL,\n"
	"  ended_at         REAL,\n"
	"  error            TEXT\n"
	");\n"
	"CREATE INDEX runs_run_key ON runs (run_key);\n"
	"CREATE INDEX runs_experiment ON runs (experiment_id);\n"

	"CREATE TABLE metrics (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
	"  name   TEXT NOT NULL,\n"
	"  value  REAL,\n"
	"  unit   TEXT,\n"
	"  PRIMARY KEY (run_id, name)\n"
	") WITHOUT ROWID;\n"

	"CREATE TABLE counters (\n"
	"  run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
	"  event         TEXT NOT NULL,\n"
	"  encoding      TEXT,\n"
	"  value         REAL,\n"
	"  enabled_ns    INTEGER,\n"
	"  running_ns    INTEGER,\n"
	"  multiplex_pct REAL,\n"
	"  status        TEXT NOT NULL CHECK (status IN ('ok', 'unavailable', 'failed')),\n"
	"  reason        TEXT,\n"
	"  PRIMARY KEY (run_id, event)\n"
	") WITHOUT ROWID;\n"

	"CREATE TABLE process_stats (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
	"  pid    INTEGER NOT NULL,\n"
	"  name   TEXT NOT NULL,\n"
	"  value  INTEGER,\n"
	"  PRIMARY KEY (run_id, pid, name)\n"
	") WITHOUT ROWID;\n"

	"CREATE TABLE allocations (\n"
	"  run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
	"  pid      INTEGER NOT NULL,\n"
	"  seq      INTEGER NOT NULL,\n"
	"  t_ns     INTEGER NOT NULL,\n"
	"  addr     INTEGER NOT NULL,\n"
	"  size     INTEGER NOT NULL,\n"
	"  callsite TEXT,\n"
	"  PRIMARY KEY (run_id, pid, seq)\n"
	") WITHOUT ROWID;\n"

	"CREATE TABLE samples (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
	"  pid    INTEGER NOT NULL,\n"
	"  t_ns   INTEGER NOT NULL,\n"
	"  addr   INTEGER NOT NULL,\n"
	"  pc     INTEGER,\n"
	"  tid    INTEGER,\n"
	"  hit    INTEGER CHECK (hit IN (0, 1))\n"
	");\n"
	"CREATE INDEX samples_run ON samples (run_id, pid, t_ns);\n"

	"CREATE TABLE migrations (\n"
	"  run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
	"  pid       INTEGER NOT NULL,\n"
	"  t_ns      INTEGER NOT NULL,\n"
	"  addr      INTEGER NOT NULL,\n"
	"  bytes     INTEGER NOT NULL,\n"
	"  direction TEXT NOT NULL CHECK (direction IN\n"
	"              ('initial-fast', 'initial-slow', 'slow-to-fast', 'fast-to-slow')),\n"
	"  ok        INTEGER NOT NULL CHECK (ok IN (0, 1))\n"
	");\n"
	"CREATE INDEX migrations_run ON migrations (run_id, pid, t_ns);\n"

	"CREATE TABLE environment (\n"
	"  experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,\n"
	"  run_id        INTEGER REFERENCES runs (id) ON DELETE CASCADE,\n"
	"  key           TEXT NOT NULL,\n"
	"  value         TEXT\n"
	");\n"
	/* One value per key and scope; NULL run_id (the experiment's scope) counts as one scope. */
	"CREATE UNIQUE INDEX environment_key ON environment (experiment_id, ifnull(run_id, 0), key);\n"
	"CREATE INDEX environment_run ON environment (run_id);\n";

/* Saved `tierlab probe --save NAME` results, for a spec's `machine: NAME` (lib/probe/probe-profile.c). */
static const char migration_2[] =
	"CREATE TABLE machine_profiles (\n"
	"  name       TEXT PRIMARY KEY,\n"
	"  created_at REAL,\n"
	"  json       TEXT\n"
	");\n";

/* Runs replayed by tierlab simulate rather than measured (docs/simulate.md). */
static const char migration_3[] =
	"ALTER TABLE runs ADD COLUMN simulated INTEGER NOT NULL DEFAULT 0 CHECK (simulated IN (0, 1));\n";

/* When each managed allocation was freed (the log's F records); NULL while it lived to the end. */
static const char migration_4[] =
	"ALTER TABLE allocations ADD COLUMN freed_ns INTEGER;\n";

/*
 * Sessions: one per invocation of run, sweep or simulate (or several
 * invocations given one key, TIERLAB_SESSION: a Slurm array's tasks), so
 * that a report compares runs with the baseline measured alongside them.
 * Each experiment row before this was one invocation: one session each,
 * started when it was created.
 */
static const char migration_5[] =
	"CREATE TABLE sessions (\n"
	"  id         INTEGER PRIMARY KEY,\n"
	"  key        TEXT NOT NULL UNIQUE,\n"
	"  started_at REAL NOT NULL,\n"
	"  command    TEXT,\n"
	"  host       TEXT\n"
	");\n"
	"ALTER TABLE runs ADD COLUMN session_id INTEGER REFERENCES sessions (id);\n"
	"INSERT INTO sessions (key, started_at, host) SELECT 'experiment-' || id, created_at, host FROM experiments;\n"
	"UPDATE runs SET session_id = (SELECT s.id FROM sessions s WHERE s.key = 'experiment-' || runs.experiment_id);\n"
	"CREATE INDEX runs_session ON runs (session_id);\n";

const char *const tl_store_migrations[] = {
	migration_1,
	migration_2,
	migration_3,
	migration_4,
	migration_5,
};
const size_t tl_store_nmigrations = ARRAY_SIZE(tl_store_migrations);

_Static_assert(ARRAY_SIZE(tl_store_migrations) == TL_STORE_SCHEMA_VERSION,
	       "TL_STORE_SCHEMA_VERSION must equal the number of migrations");

/* The axis columns of `runs`, one per axis, generated from the axis table (axis/axes.h). */
const char *const tl_store_axis_columns[] = {
#define TL_AXIS_COLUMN(id, name, ...) name,
	TL_AXES(TL_AXIS_COLUMN)
#undef TL_AXIS_COLUMN
};
_Static_assert(ARRAY_SIZE(tl_store_axis_columns) == TL_AXIS__COUNT, "one column per axis");

/*
 * The schema version, the application id and the number of schema objects,
 * read in one statement so they come from one snapshot: another process
 * may be migrating the same database.
 */
struct stamp {
	long long version, app_id, objects;
};

static int read_stamp(struct tl_store *st, struct stamp *out)
{
	static const char sql[] =
		"SELECT (SELECT user_version FROM pragma_user_version),"
		" (SELECT application_id FROM pragma_application_id),"
		" (SELECT count(*) FROM sqlite_schema)";
	sqlite3_stmt *s;
	int rc;

	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, "cannot read the schema");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->version = sqlite3_column_int64(s, 0);
		out->app_id = sqlite3_column_int64(s, 1);
		out->objects = sqlite3_column_int64(s, 2);
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_OK)
		rc = tl_store_sqlerr(st, rc, "cannot read the schema");
	sqlite3_finalize(s);
	return rc;
}

static int check_version(struct tl_store *st, const struct stamp *sp, size_t n)
{
	if (sp->version > (long long)n)
		return tl_store_fail(st, -EPROTO,
				     "written by a newer tierlab (schema %lld, this one knows %zu)",
				     sp->version, n);
	if (sp->version < 0)
		return tl_store_fail(st, -EPROTO, "not a tierlab database (schema version %lld)",
				     sp->version);
	/* 0: a new database, or a tierlab schema created by hand: both are fine. */
	if (sp->app_id != 0 && sp->app_id != TL_STORE_APPLICATION_ID)
		return tl_store_fail(st, -EPROTO, "not a tierlab database (application id 0x%llx)",
				     sp->app_id);
	/* Version 0 is a new database, unless another program put tables in it. */
	if (sp->version == 0 && sp->objects)
		return tl_store_fail(st, -EPROTO,
				     "not a tierlab database (it has tables but no schema version)");
	return 0;
}

static int apply(struct tl_store *st, const char *const *migrations, size_t n, size_t to)
{
	char what[64], pragma[64];
	struct stamp sp;
	int rc;

	snprintf(what, sizeof(what), "migration to schema %zu", to);
	rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, what);
	/* Another tierlab may have migrated while this one waited for the lock. */
	rc = read_stamp(st, &sp);
	if (rc)
		goto rollback;
	if (sp.version >= (long long)to) {
		rc = check_version(st, &sp, n);
		goto rollback;
	}
	rc = sqlite3_exec(st->db, migrations[to - 1], NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		rc = tl_store_sqlerr(st, rc, what);
		goto rollback;
	}
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %zu", to);
	rc = sqlite3_exec(st->db, pragma, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		rc = tl_store_sqlerr(st, rc, what);
		goto rollback;
	}
	return 0;
rollback:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int tl_store_check_version(struct tl_store *st, size_t n)
{
	struct stamp sp;
	int rc;

	rc = read_stamp(st, &sp);
	return rc ? rc : check_version(st, &sp, n);
}

int tl_store_check_readable(struct tl_store *st, size_t n)
{
	struct stamp sp;
	int rc;

	rc = read_stamp(st, &sp);
	rc = rc ?: check_version(st, &sp, n);
	if (!rc && sp.version == 0)
		rc = tl_store_fail(st, -ENOENT, "holds no tierlab results (an empty database)");
	return rc;
}

int tl_store_migrate(struct tl_store *st, const char *const *migrations, size_t n)
{
	struct stamp sp;
	int rc;

	rc = read_stamp(st, &sp);
	if (rc)
		return rc;
	rc = check_version(st, &sp, n);
	if (rc)
		return rc;
	for (size_t to = (size_t)sp.version + 1; to <= n; to++) {
		rc = apply(st, migrations, n, to);
		if (rc)
			return rc;
	}
	return 0;
}

/* Which axis columns table runs has; -errno after reporting. */
static int axis_columns(struct tl_store *st, bool found[TL_AXIS__COUNT], bool *have_runs)
{
	sqlite3_stmt *s;
	int rc;

	memset(found, 0, sizeof(bool) * TL_AXIS__COUNT);
	*have_runs = false;
	rc = sqlite3_prepare_v2(st->db, "SELECT name FROM pragma_table_info('runs')", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, "cannot read the schema");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(s, 0);

		*have_runs = true;
		if (col && !strcmp(col, "simulated"))
			st->has_simulated = true;
		if (col && !strcmp(col, "session_id"))
			st->has_session = true;
		for (int a = 0; a < TL_AXIS__COUNT; a++)
			if (col && !strcmp(col, tl_store_axis_columns[a]))
				found[a] = true;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : tl_store_sqlerr(st, rc, "cannot read the schema");
}

/*
 * A table every query needs is missing: the file is tierlab's but damaged
 * (someone dropped it), or another program's.
 */
static int missing_table(struct tl_store *st, const char *table)
{
	struct stamp sp;

	if (!read_stamp(st, &sp) && sp.app_id == TL_STORE_APPLICATION_ID)
		return tl_store_fail(st, -EPROTO, "damaged: its table '%s' is missing (restore the file from a "
				     "copy, or give another --db)", table);
	return tl_store_fail(st, -EPROTO, "not a tierlab database (it has no table %s)", table);
}

/* The tables the migrations create: the names a query of the store reads. */
static const char *const schema_tables[] = {
	"experiments", "runs", "metrics", "counters", "process_stats", "allocations", "samples",
	"migrations", "environment", "machine_profiles",
};

int tl_store_check_objects(struct tl_store *st, const char *schema, const char *who)
{
	char sql[512], *p = sql;
	sqlite3_stmt *s;
	int rc;

	/* names are case-blind in SQL: a view "RUNS" answers for runs */
	p += snprintf(p, sizeof(sql), "SELECT name, type, sql LIKE 'CREATE VIRTUAL%%' FROM \"%s\".sqlite_schema"
		      " WHERE (type <> 'table' OR sql NOT LIKE 'CREATE TABLE%%') AND lower(name) IN (", schema);
	for (size_t i = 0; i < ARRAY_SIZE(schema_tables); i++)
		p += snprintf(p, sizeof(sql) - (size_t)(p - sql), "%s'%s'", i ? ", " : "", schema_tables[i]);
	if ((size_t)snprintf(p, sizeof(sql) - (size_t)(p - sql), ") LIMIT 1") >= sizeof(sql) - (size_t)(p - sql))
		BUG("the schema check does not fit its buffer");
	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, "cannot read the schema");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		const char *type = (const char *)sqlite3_column_text(s, 1);
		const char *kind = sqlite3_column_int(s, 2) ? "a virtual table" : !type ? "something" :
				   !strcmp(type, "index") ? "an index" : type;

		if (!strcmp(kind, "view") || !strcmp(kind, "trigger"))
			kind = !strcmp(kind, "view") ? "a view" : "a trigger";
		rc = who ? tl_store_fail(st, -EPROTO, "%s refused: its '%s' is %s, not a table", who,
					 name ? name : "", kind)
			 : tl_store_fail(st, -EPROTO, "refused: its '%s' is %s, not a table (a tierlab database "
					 "holds its results in plain tables)", name ? name : "", kind);
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = tl_store_sqlerr(st, rc, "cannot read the schema");
	}
	sqlite3_finalize(s);
	return rc;
}

int tl_store_read_axis_columns(struct tl_store *st)
{
	bool have_runs;
	sqlite3_stmt *s;
	int rc;

	/* before pragma_table_info, which would read a view's columns as a table's */
	rc = tl_store_check_objects(st, "main", NULL);
	rc = rc ?: axis_columns(st, st->has_axis, &have_runs);
	if (rc)
		return rc;
	if (!have_runs)
		return missing_table(st, "runs");
	rc = sqlite3_prepare_v2(st->db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'experiments'",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, "cannot read the schema");
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? missing_table(st, "experiments") : tl_store_sqlerr(st, rc, "cannot read the schema");
}

int tl_store_check_tables(struct tl_store *st)
{
	struct stamp sp;
	int rc = read_stamp(st, &sp);

	return rc || sp.version == 0 ? rc : tl_store_read_axis_columns(st);
}

int tl_store_add_axis_columns(struct tl_store *st)
{
	bool found[TL_AXIS__COUNT], have_runs;
	char sql[160];
	int rc, missing = 0;

	for (int a = 0; a < TL_AXIS__COUNT; a++)
		st->has_axis[a] = true;	/* after this, or the open fails */
	rc = axis_columns(st, found, &have_runs);
	for (int a = 0; !rc && a < TL_AXIS__COUNT; a++)
		missing += !found[a];
	if (rc || !missing)
		return rc;
	if (!have_runs)
		return missing_table(st, "runs");
	rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, "cannot add the axis columns");
	/* another tierlab may have added them while this one waited for the lock */
	rc = axis_columns(st, found, &have_runs);
	for (int a = 0; !rc && a < TL_AXIS__COUNT; a++) {
		if (found[a])
			continue;
		snprintf(sql, sizeof(sql), "ALTER TABLE runs ADD COLUMN \"%s\" TEXT", tl_store_axis_columns[a]);
		if ((rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL)) != SQLITE_OK)
			rc = tl_store_sqlerr(st, rc, "cannot add the axis columns");
	}
	if (!rc && (rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		rc = tl_store_sqlerr(st, rc, "cannot add the axis columns");
	if (rc)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}
