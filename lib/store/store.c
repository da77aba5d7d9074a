/*
 * The results store: opening (and creating, and migrating) the SQLite
 * database, and writing experiments and runs into it. Reading lives in
 * store-query.c, the schema history in store-schema.c.
 *
 * Opening is careful with files that are not ours to change: a file that
 * is not a SQLite database, or a database with a newer or foreign schema,
 * is refused before anything is written to it, and the -wal/-shm files
 * SQLite makes while finding that out are removed again.
 */
#include "store/store-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include "util/error.h"

/* Two tierlab processes may write one database; a run's write takes milliseconds. */
#define BUSY_TIMEOUT_MS 5000

int tl_store_fail(struct tl_store *st, int err, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error("database '%s': %s", st->path, msg);
	return err;
}

int tl_store_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
		return 0;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_PERM:
	case SQLITE_READONLY:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
	case SQLITE_TOOBIG:
		return -EINVAL;
	default:
		return -EIO;
	}
}

int tl_store_sqlerr(struct tl_store *st, int rc, const char *what)
{
	const char *msg = sqlite3_errstr(rc);

	if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT)
		st->bad_file = true;

	/* The connection's message is more precise ("no such table: x"), when it is about rc. */
	if (st->db && (sqlite3_errcode(st->db) & 0xff) == (rc & 0xff))
		msg = sqlite3_errmsg(st->db);
	if (what)
		error("database '%s': %s: %s", st->path, what, msg);
	else
		error("database '%s': %s", st->path, msg);
	return tl_store_errno(rc);
}

int tl_store_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	return v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
}

static double now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static int mkdir_parents(struct tl_store *st)
{
	char dir[PATH_MAX];
	char *slash;

	if (snprintf(dir, sizeof(dir), "%s", st->path) >= (int)sizeof(dir))
		return tl_store_fail(st, -ENAMETOOLONG, "path too long");
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(dir, 0777) && errno != EEXIST)
			return tl_store_fail(st, -errno, "cannot create directory '%s': %s", dir,
					     strerror(errno));
		*p = c;
		if (!c)
			break;
	}
	return 0;
}

/*
 * SQLite treats a file shorter than one page as an empty database and
 * would write over it; a file that does not start with SQLite's magic is
 * refused here with SQLite's own words, before it opens anything.
 */
static int check_header(struct tl_store *st, const struct stat *sb)
{
	static const char magic[16] = "SQLite format 3";
	unsigned char hdr[100];
	unsigned page;
	FILE *f;
	size_t got;

	if (sb->st_size == 0)
		return 0;
	f = fopen(st->path, "rb");
	if (!f)
		return tl_store_fail(st, -errno, "%s", strerror(errno));
	got = fread(hdr, 1, sizeof(hdr), f);
	fclose(f);
	if (got < sizeof(hdr) || memcmp(hdr, magic, sizeof(magic)))
		goto notadb;
	page = hdr[16] << 8 | hdr[17];
	if (page == 1)
		page = 65536;
	if (sb->st_size < (off_t)page)
		goto notadb;
	return 0;
notadb:
	return tl_store_fail(st, -EIO, "%s", sqlite3_errstr(SQLITE_NOTADB));
}

static bool exists(const char *path, const char *suffix)
{
	char buf[PATH_MAX];
	struct stat sb;

	snprintf(buf, sizeof(buf), "%s%s", path, suffix);
	return stat(buf, &sb) == 0;
}

/*
 * Removes the -wal and -shm files SQLite made next to a file that turned
 * out not to be a database (or a damaged one), so refusing it leaves the
 * directory as it was. Never for a good database: another process may be
 * using them.
 */
static void remove_sidecars(const char *path, bool had_wal, bool had_shm)
{
	char buf[PATH_MAX];
	struct stat sb;

	if (!had_wal) {
		snprintf(buf, sizeof(buf), "%s-wal", path);
		/* Only an empty one: a WAL with frames holds somebody's data. */
		if (stat(buf, &sb) == 0 && sb.st_size == 0)
			unlink(buf);
	}
	if (!had_shm && !exists(path, "-wal")) {
		snprintf(buf, sizeof(buf), "%s-shm", path);
		unlink(buf);
	}
}

static int set_journal_wal(struct tl_store *st)
{
	sqlite3_stmt *s;
	int rc, waited_ms = 0;

	rc = sqlite3_prepare_v2(st->db, "PRAGMA journal_mode = WAL", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, "cannot use WAL journal mode");
	/*
	 * Changing the journal mode reports SQLITE_BUSY at once, without the
	 * busy handler, while another process creates the same database: wait
	 * here as the busy timeout would.
	 */
	while ((rc = sqlite3_step(s)) == SQLITE_BUSY && waited_ms < BUSY_TIMEOUT_MS) {
		sqlite3_reset(s);
		usleep(10 * 1000);
		waited_ms += 10;
	}
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = 0;
	else
		rc = tl_store_sqlerr(st, rc, "cannot use WAL journal mode");
	sqlite3_finalize(s);
	return rc;
}

static int set_pragmas(struct tl_store *st)
{
	int rc;

	/* In WAL mode readers never block the writer, and a second tierlab may write. */
	rc = set_journal_wal(st);
	if (rc)
		return rc;
	rc = sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, "cannot enable foreign keys");
	return 0;
}

int tl_store_open_with(const char *path, bool create, const char *const *migrations, size_t n,
		       struct tl_store **out)
{
	struct tl_store *st;
	bool had_wal, had_shm, memory;
	struct stat sb;
	int rc;

	*out = NULL;
	if (!path || !*path) {
		error("database: no file name given");
		return -EINVAL;
	}
	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		error("database '%s': out of memory", path);
		return -ENOMEM;
	}
	memory = !strcmp(path, ":memory:");
	had_wal = exists(path, "-wal");
	had_shm = exists(path, "-shm");
	if (memory) {
		rc = 0;
	} else if (stat(path, &sb) == 0) {
		rc = S_ISDIR(sb.st_mode) ? tl_store_fail(st, -EISDIR, "is a directory")
					 : check_header(st, &sb);
	} else if (errno != ENOENT) {
		rc = tl_store_fail(st, -errno, "%s", strerror(errno));
	} else if (!create) {
		rc = tl_store_fail(st, -ENOENT, "no such file");
	} else {
		rc = mkdir_parents(st);
	}
	if (rc)
		goto free_st;

	rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0),
			     NULL);
	if (rc != SQLITE_OK) {
		rc = tl_store_sqlerr(st, rc, NULL);
		goto close_db;
	}
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	/* Refuse a newer or foreign schema before the journal mode changes a byte. */
	rc = tl_store_check_version(st, n);
	if (!rc)
		rc = set_pragmas(st);
	if (!rc)
		rc = tl_store_migrate(st, migrations, n);
	if (!rc)
		rc = tl_store_check_axes(st);
	if (rc)
		goto close_db;
	*out = st;
	return 0;

close_db:
	sqlite3_close(st->db);
	if (!memory && st->bad_file)
		remove_sidecars(path, had_wal, had_shm);
free_st:
	free(st->path);
	free(st);
	return rc;
}

int tl_store_open(const char *path, struct tl_store **out)
{
	return tl_store_open_with(path, true, tl_store_migrations, tl_store_nmigrations, out);
}

int tl_store_open_existing(const char *path, struct tl_store **out)
{
	return tl_store_open_with(path, false, tl_store_migrations, tl_store_nmigrations, out);
}

void tl_store_close(struct tl_store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

const char *tl_store_path(const struct tl_store *st)
{
	return st->path;
}

struct sqlite3 *tl_store_db(struct tl_store *st)
{
	return st->db;
}

int tl_store_add_experiment(struct tl_store *st, const struct tl_experiment_record *e, int64_t *id)
{
	static const char sql[] =
		"INSERT INTO experiments (name, description, spec_path, spec_text, spec_hash, baseline,"
		" host, kernel, tierlab_version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	sqlite3_stmt *s;
	int rc;

	if (!e->name)
		return tl_store_fail(st, -EINVAL, "an experiment needs a name");
	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, "cannot add experiment");
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
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return tl_store_sqlerr(st, rc, "cannot add experiment");
	if (id)
		*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

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

static int bind_run(sqlite3_stmt *s, const struct tl_run_record *r)
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
	if (r->has_fom)
		sqlite3_bind_double(s, i++, r->fom);
	else
		sqlite3_bind_null(s, i++);
	tl_store_bind_text(s, i++, r->fom_unit);
	sqlite3_bind_int(s, i++, r->higher_is_better);
	sqlite3_bind_double(s, i++, res->wall);
	sqlite3_bind_double(s, i++, res->user);
	sqlite3_bind_double(s, i++, res->sys);
	sqlite3_bind_int64(s, i++, res->maxrss_kb);
	sqlite3_bind_double(s, i++, res->started_at);
	sqlite3_bind_double(s, i++, res->ended_at);
	return tl_store_bind_text(s, i++, res->error[0] ? res->error : NULL);
}

/* Returns 0, or a negative errno after reporting (the caller rolls back). */
static int insert_metrics(struct tl_store *st, const struct tl_run_record *r, int64_t run_id,
			  const char *what)
{
	sqlite3_stmt *s;
	int rc;

	rc = sqlite3_prepare_v2(st->db,
				"INSERT INTO metrics (run_id, name, value, unit) VALUES (?, ?, ?, ?)",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, what);
	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct tl_metric *m = &r->metrics[i];

		sqlite3_bind_int64(s, 1, run_id);
		tl_store_bind_text(s, 2, m->name);
		sqlite3_bind_double(s, 3, m->value);	/* NaN binds as NULL */
		tl_store_bind_text(s, 4, m->unit);
		rc = sqlite3_step(s);
		if (rc != SQLITE_DONE) {
			rc = tl_store_sqlerr(st, rc, what);
			sqlite3_finalize(s);
			return rc;
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return 0;
}

int tl_store_add_run(struct tl_store *st, const struct tl_run_record *r, int64_t *run_id)
{
	sqlite3_stmt *s = NULL;
	char what[128];
	char *sql;
	int64_t id;
	int rc;

	if (!r->run_key || !r->config_key || !r->result)
		return tl_store_fail(st, -EINVAL, "a run needs a key, a configuration key and a result");
	if ((unsigned)r->result->status >= TL_STATUS__COUNT)
		return tl_store_fail(st, -EINVAL, "run '%s': bad status %d", r->run_key,
				     (int)r->result->status);
	for (size_t i = 0; i < r->nmetrics; i++)
		if (!r->metrics[i].name)
			return tl_store_fail(st, -EINVAL, "run '%s': metric %zu has no name", r->run_key, i);
	snprintf(what, sizeof(what), "cannot store run '%s'", r->run_key);
	sql = insert_run_sql();
	if (!sql)
		return tl_store_fail(st, -ENOMEM, "%s: out of memory", what);
	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return tl_store_sqlerr(st, rc, what);
	/* IMMEDIATE: take the write lock now, so a second writer waits instead of failing later. */
	rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		goto finalize;
	bind_run(s, r);
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE)
		goto rollback;
	id = sqlite3_last_insert_rowid(st->db);
	rc = insert_metrics(st, r, id, what);
	if (rc)
		goto rollback_reported;
	rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		goto rollback;
	sqlite3_finalize(s);
	if (run_id)
		*run_id = id;
	return 0;

rollback:
	/* Report before ROLLBACK replaces the connection's message. */
	rc = tl_store_sqlerr(st, rc, what);
rollback_reported:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_finalize(s);
	return rc;
finalize:
	rc = tl_store_sqlerr(st, rc, what);
	sqlite3_finalize(s);
	return rc;
}
