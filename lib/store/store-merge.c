/*
 * Folding a shard into the main database (see store.h): the database one
 * Slurm array task wrote is attached to the main connection and its runs
 * are copied in one immediate transaction, so a merge interrupted half way
 * leaves nothing of that shard, and merging it again finishes the job.
 *
 * A run is known by its run key within its experiment's name: a key whose
 * latest row in the main database is ok, or is the very row of the shard
 * (the same key started at the same instant), is not copied again, so a
 * shard merged twice adds nothing the second time. A failed run the shard
 * holds ok is added (the latest row of a key is the one that counts).
 *
 * Rows are copied with INSERT ... SELECT over the columns both databases
 * have, so nothing is read into C and a run's rows of every table come
 * along; a run's directory stored relative to the shard's directory is
 * made relative to the main database's. Sessions are known by their key:
 * the tasks of one Slurm array share their submission's, so their runs
 * are one session here too, whatever the shards' row ids. A shard is any
 * file someone hands over: its experiment's name must pass the spec's rule
 * (util/name.h) and no run directory may leave the shard's directory.
 *
 * The shard is only read, and needs none of its indexes: the latest row
 * of each key is found by one GROUP BY, and each table of a run's rows is
 * copied by one statement that joins it with a temporary table of the
 * runs copied (shard id to main id), which SQLite reads once whatever the
 * shard's indexes. Looking a shard's rows up run by run took 24 s for a
 * shard of 30,000 runs whose run-key index was dropped (0.6 s with it).
 * The merge is bounded in time as a reader is (store-budget.c), for the
 * files of both databases, and a shard whose tables are views or
 * anything but tables is refused before any of it is read.
 */
#include "store/store-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/error.h"
#include "util/array.h"
#include "util/name.h"

#define SHARD "shard"
/* The runs a merge copies: their id in the shard and in the main database. */
#define IDS "merge_ids"

/* The tables a run owns rows of (besides environment, whose experiment_id is remapped too). */
static const char *const run_tables[] = {
	"metrics", "counters", "process_stats", "allocations", "samples", "migrations",
};

struct merge {
	struct tl_store *st;
	const char *shard;
	char *prefix;			/* what a relative run directory of the shard gets in front */
	sqlite3_stmt *latest, *insert_run, *insert_id, *children[ARRAY_SIZE(run_tables)], *env;
};

/*
 * "a", "b", ...: the columns of table in main that the shard has too, less
 * skip (NULL: none). moved: as a SELECT list copying a run, where the
 * experiment becomes ?1 and a relative run directory gets ?3 in front.
 */
static int common_columns(struct tl_store *st, const char *table, const char *skip, bool moved,
			  char **out)
{
	static const char sql[] =
		"SELECT m.name FROM pragma_table_info(?1, 'main') m"
		" JOIN pragma_table_info(?1, '" SHARD "') s ON s.name = m.name ORDER BY m.cid";
	sqlite3_stmt *s;
	size_t len = 0;
	char *buf = NULL;
	FILE *f;
	int rc, n = 0;

	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, "cannot read the shard's columns");
	tl_store_bind_text(s, 1, table);
	f = open_memstream(&buf, &len);
	if (!f) {
		sqlite3_finalize(s);
		return tl_store_fail(st, -ENOMEM, "out of memory");
	}
	while ((rc = tl_store_step(s)) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(s, 0);

		if (skip && !strcmp(col, skip))
			continue;
		fputs(n++ ? ", " : "", f);
		if (moved && !strcmp(col, "experiment_id"))
			fputs("?1", f);
		else if (moved && !strcmp(col, "session_id"))
			fputs("(SELECT m.id FROM main.sessions m JOIN " SHARD ".sessions s ON s.key = m.key"
			      " WHERE s.id = " SHARD ".runs.session_id)", f);
		else if (moved && !strcmp(col, "out_dir"))
			fputs("CASE WHEN out_dir IS NULL OR substr(out_dir, 1, 1) = '/' THEN out_dir"
			      " ELSE ?3 || out_dir END", f);
		else
			fprintf(f, "\"%s\"", col);
	}
	sqlite3_finalize(s);
	if (fclose(f) || !buf) {
		free(buf);
		return tl_store_fail(st, -ENOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE) {
		free(buf);
		return tl_store_sqlerr(st, rc, "cannot read the shard's columns");
	}
	*out = buf;
	return 0;
}

static int prepare(struct merge *m, sqlite3_stmt **s, const char *sql)
{
	int rc = sqlite3_prepare_v2(m->st->db, sql, -1, s, NULL);

	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(m->st, rc, "cannot prepare the merge");
}

/* The statements of a merge, built for the columns the two databases share. */
static int prepare_all(struct merge *m)
{
	char *cols = NULL, *sel = NULL, *sql = NULL;
	int rc;

	rc = prepare(m, &m->latest,
		     "SELECT r.status = 'ok' OR r.started_at IS ?3 FROM main.runs r"
		     " JOIN main.experiments e ON e.id = r.experiment_id"
		     " WHERE e.name = ?1 AND r.run_key = ?2 ORDER BY r.id DESC LIMIT 1");
	rc = rc ?: common_columns(m->st, "runs", "id", false, &cols);
	rc = rc ?: common_columns(m->st, "runs", "id", true, &sel);
	/* ?1 the experiment, ?2 the shard's run id, ?3 the prefix of a relative directory */
	if (!rc && asprintf(&sql, "INSERT INTO main.runs (%s) SELECT %s FROM " SHARD ".runs WHERE id = ?2",
			    cols, sel) < 0) {
		sql = NULL;
		rc = tl_store_fail(m->st, -ENOMEM, "out of memory");
	}
	free(cols);
	free(sel);
	rc = rc ?: prepare(m, &m->insert_run, sql);
	free(sql);
	sql = NULL;
	if (rc)
		return rc;
	rc = prepare(m, &m->insert_id, "INSERT INTO temp." IDS " (shard_id, main_id) VALUES (?1, ?2)");
	for (size_t t = 0; t < ARRAY_SIZE(run_tables) && !rc; t++) {
		rc = common_columns(m->st, run_tables[t], "run_id", false, &cols);
		if (rc)
			break;
		/* every row of the runs copied, in one pass over the shard's table */
		if (asprintf(&sql, "INSERT INTO main.%s (run_id, %s) SELECT i.main_id, %s FROM " SHARD ".%s"
			     " JOIN temp." IDS " i ON i.shard_id = run_id", run_tables[t], cols, cols, run_tables[t]) < 0)
			sql = NULL;
		free(cols);
		rc = sql ? prepare(m, &m->children[t], sql) : tl_store_fail(m->st, -ENOMEM, "out of memory");
		free(sql);
	}
	/* ?1 the experiment */
	return rc ?: prepare(m, &m->env,
			     "INSERT INTO main.environment (experiment_id, run_id, key, value)"
			     " SELECT ?1, i.main_id, key, value FROM " SHARD ".environment"
			     " JOIN temp." IDS " i ON i.shard_id = run_id");
}

static void finalize_all(struct merge *m)
{
	sqlite3_finalize(m->latest);
	sqlite3_finalize(m->insert_run);
	sqlite3_finalize(m->insert_id);
	for (size_t t = 0; t < ARRAY_SIZE(run_tables); t++)
		sqlite3_finalize(m->children[t]);
	sqlite3_finalize(m->env);
}

/* Steps a statement that returns no row and resets it. */
static int run_step(struct merge *m, sqlite3_stmt *s)
{
	int rc = tl_store_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : tl_store_sqlerr(m->st, rc, "cannot copy a run");
}

/* One integer of a one-row query on the connection. */
static int one_int(struct tl_store *st, const char *sql, long long *out)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, "cannot read the shard");
	rc = tl_store_step(s);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : tl_store_sqlerr(st, rc, "cannot read the shard");
}

/* The shard must be a tierlab database of this schema holding one experiment: the one expected. */
static int check_shard(struct merge *m, struct tl_merge_expect *want)
{
	static const char sql[] = "SELECT DISTINCT name, spec_hash FROM " SHARD ".experiments";
	struct tl_error bad;
	long long version, app;
	sqlite3_stmt *s;
	int rc, n = 0;

	rc = one_int(m->st, "PRAGMA " SHARD ".user_version", &version);
	rc = rc ?: one_int(m->st, "PRAGMA " SHARD ".application_id", &app);
	if (rc)
		return rc;
	if (app != TL_STORE_APPLICATION_ID)
		return tl_store_fail(m->st, -EPROTO, "shard '%s' refused: not a tierlab database", m->shard);
	if (version != TL_STORE_SCHEMA_VERSION)
		return tl_store_fail(m->st, -EPROTO, "shard '%s' refused: schema version %lld, this tierlab "
				     "writes %d (merge it with the tierlab that wrote it)", m->shard, version,
				     TL_STORE_SCHEMA_VERSION);
	rc = sqlite3_prepare_v2(m->st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(m->st, rc, "cannot read the shard's experiment");
	while (!rc && (rc = tl_store_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		const char *hash = (const char *)sqlite3_column_text(s, 1);

		rc = 0;
		if (n++) {
			rc = tl_store_fail(m->st, -EPROTO, "shard '%s' refused: it holds more than one experiment",
					   m->shard);
			break;
		}
		/* a shard is whatever file was given: its name is checked as a spec's would be */
		if (tl_name_check("its experiment", name ? name : "", &bad)) {
			rc = tl_store_fail(m->st, -EPROTO, "shard '%s' refused: %s", m->shard, bad.msg);
			break;
		}
		if (!want->name[0]) {
			snprintf(want->name, sizeof(want->name), "%s", name ? name : "");
			snprintf(want->spec_hash, sizeof(want->spec_hash), "%s", hash ? hash : "");
			continue;
		}
		if (strcmp(want->name, name ? name : "") ||
		    (want->spec_hash[0] && strcmp(want->spec_hash, hash ? hash : "")))
			rc = tl_store_fail(m->st, -EPROTO, "shard '%s' refused: it holds experiment '%s' "
					   "(spec %.12s), not '%s' (spec %.12s)", m->shard, name ? name : "",
					   hash ? hash : "-", want->name, want->spec_hash[0] ? want->spec_hash : "-");
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = tl_store_sqlerr(m->st, rc, "cannot read the shard's experiment");
	return rc;
}

/*
 * Every run directory of the shard stays under the shard's directory (it
 * is stored relative to it, and made relative to the main database's by
 * the prefix): one at /etc or ../.. would have readers open files there.
 */
static int check_run_dirs(struct merge *m)
{
	static const char sql[] = "SELECT run_key, out_dir FROM " SHARD ".runs WHERE out_dir IS NOT NULL";
	struct tl_error bad;
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(m->st->db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		return tl_store_sqlerr(m->st, rc, "cannot read the shard's runs");
	while ((rc = tl_store_step(s)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(s, 0);
		char what[160];

		snprintf(what, sizeof(what), "run '%.64s': its directory", key ? key : "?");
		if (tl_relpath_check(what, (const char *)sqlite3_column_text(s, 1), &bad)) {
			rc = tl_store_fail(m->st, -EPROTO, "shard '%s' refused: %s", m->shard, bad.msg);
			break;
		}
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = tl_store_sqlerr(m->st, rc, "cannot read the shard's runs");
	return rc;
}

/*
 * The main database's experiment the runs go to: the latest of the name
 * and spec; else the shard's latest experiment row, copied with its
 * environment.
 */
static int target_experiment(struct merge *m, const struct tl_merge_expect *want, int64_t *id)
{
	sqlite3_stmt *s;
	char *cols = NULL, *sql = NULL;
	long long shard_exp;
	int rc;

	rc = sqlite3_prepare_v2(m->st->db, "SELECT id FROM main.experiments WHERE name = ?1 AND"
				" ifnull(spec_hash, '') = ?2 ORDER BY id DESC LIMIT 1", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(m->st, rc, "cannot find the experiment");
	tl_store_bind(s, 1, "tt", want->name, want->spec_hash);
	rc = tl_store_step(s);
	*id = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return tl_store_sqlerr(m->st, rc, "cannot find the experiment");
	if (*id)
		return 0;
	rc = one_int(m->st, "SELECT max(id) FROM " SHARD ".experiments", &shard_exp);
	rc = rc ?: common_columns(m->st, "experiments", "id", false, &cols);
	if (rc)
		return rc;
	if (asprintf(&sql, "INSERT INTO main.experiments (%s) SELECT %s FROM " SHARD ".experiments WHERE id = %lld",
		     cols, cols, shard_exp) < 0)
		sql = NULL;
	free(cols);
	if (!sql)
		return tl_store_fail(m->st, -ENOMEM, "out of memory");
	rc = sqlite3_exec(m->st->db, sql, NULL, NULL, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(m->st, rc, "cannot copy the experiment");
	*id = sqlite3_last_insert_rowid(m->st->db);
	rc = sqlite3_prepare_v2(m->st->db, "INSERT INTO main.environment (experiment_id, run_id, key, value)"
				" SELECT ?1, NULL, key, value FROM " SHARD ".environment"
				" WHERE experiment_id = ?2 AND run_id IS NULL", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(m->st, rc, "cannot copy the experiment");
	tl_store_bind(s, 1, "II", *id, (int64_t)shard_exp);
	rc = tl_store_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : tl_store_sqlerr(m->st, rc, "cannot copy the experiment's environment");
}

/* The shard's sessions this database does not know yet (by key; the first one merged keeps its start). */
static int copy_sessions(struct merge *m)
{
	int rc = sqlite3_exec(m->st->db, "INSERT OR IGNORE INTO main.sessions (key, started_at, command, host)"
			      " SELECT key, started_at, command, host FROM " SHARD ".sessions ORDER BY id", NULL, NULL,
			      NULL);

	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(m->st, rc, "cannot copy the sessions");
}

/*
 * The latest row of each run key of the shard, in the order they were
 * stored: each run row that is not here yet, then the rows of every table
 * that belong to them.
 */
static int copy_runs(struct merge *m, const struct tl_merge_expect *want, int64_t exp_id,
		     struct tl_merge_stats *stats)
{
	static const char sql[] =
		"SELECT r.id, r.run_key, r.started_at FROM " SHARD ".runs r"
		" JOIN (SELECT max(id) AS id FROM " SHARD ".runs GROUP BY run_key) k ON k.id = r.id ORDER BY r.id";
	sqlite3_stmt *s;
	int rc;

	rc = sqlite3_prepare_v2(m->st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(m->st, rc, "cannot read the shard's runs");
	while ((rc = tl_store_step(s)) == SQLITE_ROW) {
		int64_t old = sqlite3_column_int64(s, 0), new_id;
		const char *key = (const char *)sqlite3_column_text(s, 1);
		int have, vrc;

		tl_store_bind_text(m->latest, 1, want->name);
		tl_store_bind_text(m->latest, 2, key);
		vrc = sqlite3_bind_value(m->latest, 3, sqlite3_column_value(s, 2));
		rc = tl_store_step(m->latest);
		rc = vrc == SQLITE_OK ? rc : vrc;
		have = rc == SQLITE_ROW && sqlite3_column_int(m->latest, 0);
		sqlite3_reset(m->latest);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
			rc = tl_store_sqlerr(m->st, rc, "cannot look up a run");
			break;
		}
		rc = 0;
		if (have) {
			stats->present++;
			continue;
		}
		tl_store_bind(m->insert_run, 1, "II", exp_id, old);
		tl_store_bind_text(m->insert_run, 3, m->prefix);
		if ((rc = run_step(m, m->insert_run)))
			break;
		new_id = sqlite3_last_insert_rowid(m->st->db);
		tl_store_bind(m->insert_id, 1, "II", old, new_id);
		if ((rc = run_step(m, m->insert_id)))
			break;
		stats->added++;
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = tl_store_sqlerr(m->st, rc, "cannot read the shard's runs");
	for (size_t t = 0; t < ARRAY_SIZE(run_tables) && !rc; t++)
		rc = run_step(m, m->children[t]);
	tl_store_bind(m->env, 1, "I", exp_id);
	return rc ?: run_step(m, m->env);
}

/* "shards/x/" when the shard's directory is under the main database's, else its absolute path and "/". */
static char *dir_prefix(const struct tl_store *st, const char *shard)
{
	char *abs = realpath(shard, NULL), *slash, *out = NULL;
	size_t n = st->dir ? strlen(st->dir) : 0;
	const char *p;

	if (!abs)
		return NULL;
	slash = strrchr(abs, '/');
	slash[1] = '\0';
	p = abs;
	if (n && !strncmp(p, st->dir, n) && p[n] == '/')
		p += n + 1;
	out = strdup(p);
	free(abs);
	return out;
}

int tl_store_merge(struct tl_store *st, const char *shard, struct tl_merge_expect *want,
		   struct tl_merge_stats *stats)
{
	struct merge m = { .st = st, .shard = shard };
	char who[PATH_MAX + 16];
	sqlite3_stmt *s;
	int64_t exp_id = 0;
	bool made_ids = false;
	double limit;
	int rc;

	memset(stats, 0, sizeof(*stats));
	if (access(shard, R_OK))
		return tl_store_fail(st, -errno, "shard '%s': %s", shard, strerror(errno));
	rc = tl_store_budget_limit(st, tl_store_file_size(shard) + tl_store_file_size(st->path), &limit);
	if (rc)
		return rc;
	m.prefix = dir_prefix(st, shard);
	if (!m.prefix)
		return tl_store_fail(st, -ENOMEM, "out of memory");
	/* from the attach on, which reads the shard's schema */
	tl_store_budget_start(st, limit);
	rc = sqlite3_prepare_v2(st->db, "ATTACH DATABASE ?1 AS " SHARD, -1, &s, NULL);
	if (rc == SQLITE_OK) {
		tl_store_bind_text(s, 1, shard);
		rc = tl_store_step(s);
		sqlite3_finalize(s);
	}
	if (rc != SQLITE_OK && rc != SQLITE_DONE) {
		rc = tl_store_budget_spent(st, rc) ? tl_store_sqlerr(st, rc, "cannot attach the shard")
						    : tl_store_fail(st, -EIO, "shard '%s': %s", shard, sqlite3_errmsg(st->db));
		tl_store_budget_stop(st);
		free(m.prefix);
		return rc;
	}
	rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		rc = tl_store_sqlerr(st, rc, "cannot begin the merge");
		goto detach;
	}
	snprintf(who, sizeof(who), "shard '%s'", shard);
	rc = tl_store_check_objects(st, SHARD, who);
	rc = rc ?: check_shard(&m, want);
	rc = rc ?: check_run_dirs(&m);
	if (!rc) {
		long long nexp;

		rc = one_int(st, "SELECT count(*) FROM " SHARD ".experiments", &nexp);
		if (!rc && !nexp)
			goto commit;	/* a task that stopped before it stored anything */
	}
	/* a rollback drops it with the rest; the commit below, after dropping it */
	if (!rc && (rc = sqlite3_exec(st->db, "CREATE TEMP TABLE " IDS " (shard_id INTEGER PRIMARY KEY,"
				      " main_id INTEGER NOT NULL)", NULL, NULL, NULL)) != SQLITE_OK)
		rc = tl_store_sqlerr(st, rc, "cannot begin the merge");
	else if (!rc)
		made_ids = true;
	rc = rc ?: prepare_all(&m);
	rc = rc ?: copy_sessions(&m);
	rc = rc ?: target_experiment(&m, want, &exp_id);
	rc = rc ?: copy_runs(&m, want, exp_id, stats);
commit:
	finalize_all(&m);
	if (!rc && made_ids && (rc = sqlite3_exec(st->db, "DROP TABLE temp." IDS, NULL, NULL, NULL)) != SQLITE_OK)
		rc = tl_store_sqlerr(st, rc, "cannot commit the merge");
	if (!rc && (rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		rc = tl_store_sqlerr(st, rc, "cannot commit the merge");
	/* undoing and detaching must not be cut short by the budget */
	tl_store_budget_stop(st);
	if (rc) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		stats->added = stats->present = 0;
	}
detach:
	tl_store_budget_stop(st);
	sqlite3_exec(st->db, "DETACH DATABASE " SHARD, NULL, NULL, NULL);
	free(m.prefix);
	return rc;
}
