/*
 * The results store's connection: opening (and creating, and migrating)
 * the SQLite database, and its error messages. Writing lives in
 * store-write.c, reading in store-query.c, the schema history in
 * store-schema.c.
 *
 * Opening is careful with files that are not ours to change: a file that
 * is not a SQLite database, or a database with a newer or foreign schema,
 * is refused before anything is written to it, and the -wal/-shm files
 * SQLite makes while finding that out are removed again. Readers open the
 * file read-only and never create, migrate or change it.
 *
 * A writer waits 5 s for another process's write lock, and as long as it
 * takes once tl_store_wait_for_lock() asked for it (store-write.c).
 */
#include "store/store-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/error.h"
#include "util/fs.h"


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

	if (tl_store_budget_spent(st, rc)) {
		/* every statement after the first one interrupted fails too: one line says why */
		if (!st->budget.said)
			error("database '%s' is too slow or hostile: %s (gave up after %g s; "
			      "TIERLAB_DB_TIMEOUT=SECONDS allows longer)", st->path, what ? what : "reading it",
			      st->budget.limit_s);
		st->budget.said = true;
		return -ETIMEDOUT;
	}

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

/*
 * A bind that failed (SQLite could not copy a text: out of memory) would
 * leave its parameter NULL, and a lookup would then find nothing, or an
 * insert store NULL, with no error: noted here, answered by the next
 * tl_store_step() (or tl_store_bind_error()) in place of the statement.
 */
static _Thread_local int bind_failed;

static void bound(int rc)
{
	if (rc != SQLITE_OK && !bind_failed)
		bind_failed = rc;
}

int tl_store_bind_error(void)
{
	int rc = bind_failed;

	bind_failed = 0;
	return rc;
}

int tl_store_step(sqlite3_stmt *s)
{
	int rc = tl_store_bind_error();

	return rc ? rc : sqlite3_step(s);
}

int tl_store_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	int rc = v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);

	bound(rc);
	return rc;
}

int tl_store_vbind(sqlite3_stmt *s, int i, const char *types, va_list ap)
{
	for (const char *t = types; *t; t++, i++) {
		switch (*t) {
		case 'i':
			bound(sqlite3_bind_int(s, i, va_arg(ap, int)));
			break;
		case 'I':
			bound(sqlite3_bind_int64(s, i, va_arg(ap, int64_t)));
			break;
		case 'd': {
			double d = va_arg(ap, double);

			/* NaN is "not a number" in the schema: NULL */
			bound(d == d ? sqlite3_bind_double(s, i, d) : sqlite3_bind_null(s, i));
			break;
		}
		case 't':
			tl_store_bind_text(s, i, va_arg(ap, const char *));
			break;
		case 'N': {
			int has = va_arg(ap, int);
			int64_t v = va_arg(ap, int64_t);

			bound(has ? sqlite3_bind_int64(s, i, v) : sqlite3_bind_null(s, i));
			break;
		}
		default:
			BUG("bad bind type '%c' in \"%s\"", *t, types);
		}
	}
	return i;
}

int tl_store_bind(sqlite3_stmt *s, int i, const char *types, ...)
{
	va_list ap;

	va_start(ap, types);
	i = tl_store_vbind(s, i, types, ap);
	va_end(ap);
	return i;
}

/* The directories a new database file goes in. */
static int mkdir_parents(struct tl_store *st, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int rc;

	if (!slash || slash == path)
		return 0;
	if (snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path) >= (int)sizeof(dir))
		return tl_store_fail(st, -ENAMETOOLONG, "path too long");
	rc = tl_mkdir_p(dir);
	return rc ? tl_store_fail(st, rc, "cannot create directory '%s': %s", dir, strerror(-rc)) : 0;
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
	while ((rc = sqlite3_step(s)) == SQLITE_BUSY && waited_ms < TL_STORE_BUSY_TIMEOUT_MS) {
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

void tl_store_wait_for_lock(struct tl_store *st, const volatile sig_atomic_t *stop)
{
	st->wait_for_lock = true;
	st->stop = stop;
}

/* "file:PATH?immutable=1", with what a URI reserves in PATH escaped; sqlite3_free() it. */
static char *immutable_uri(const char *path)
{
	sqlite3_str *u = sqlite3_str_new(NULL);

	sqlite3_str_appendall(u, "file:");
	for (const char *p = path; *p; p++) {
		if (*p == '?' || *p == '#' || *p == '%')
			sqlite3_str_appendf(u, "%%%02X", (unsigned char)*p);
		else
			sqlite3_str_appendchar(u, 1, *p);
	}
	sqlite3_str_appendall(u, "?immutable=1");
	return sqlite3_str_finish(u);
}

/*
 * A writer needs the file and its directory: SQLite makes its journal (or
 * WAL) beside the database. Said here, in words, before SQLite's "unable
 * to open database file" can be all a user sees.
 */
static int check_writable(struct tl_store *st, bool exists)
{
	if (exists && access(st->path, W_OK)) {
		if (errno == EROFS)
			return tl_store_fail(st, -EROFS, "on a read-only file system: runs cannot be stored in it "
					     "(tierlab report, show and export can read it)");
		return tl_store_fail(st, -errno, "cannot write it: %s", strerror(errno));
	}
	if (access(st->dir, W_OK)) {
		int err = errno;

		if (err == EROFS)
			return tl_store_fail(st, -EROFS, "its directory '%s' is on a read-only file system: %s", st->dir,
					     exists ? "runs cannot be stored (SQLite writes its journal there)"
						    : "a new database cannot be made there");
		return tl_store_fail(st, -err, "its directory '%s' is read-only to you (%s): %s", st->dir,
				     strerror(err), exists ? "runs cannot be stored (SQLite writes its journal there)"
							   : "a new database cannot be made there");
	}
	return 0;
}

/*
 * The checks before SQLite opens anything, then the connection. A reader
 * that cannot read a WAL database (a read-only directory, where SQLite
 * cannot make the -shm file) opens it immutable: nobody can be writing it
 * there.
 */
static int open_connection(struct tl_store *st, bool create, double limit, bool *had_wal, bool *had_shm)
{
	const char *path = st->path;
	bool memory = !strcmp(path, ":memory:");
	struct stat sb;
	bool found = false;
	int rc, flags = SQLITE_OPEN_NOMUTEX;

	*had_wal = exists(path, "-wal");
	*had_shm = exists(path, "-shm");
	if (memory) {
		rc = 0;
	} else if (stat(path, &sb) == 0) {
		found = true;
		rc = S_ISDIR(sb.st_mode) ? tl_store_fail(st, -EISDIR, "is a directory")
					 : check_header(st, &sb);
	} else if (errno != ENOENT) {
		rc = tl_store_fail(st, -errno, "%s", strerror(errno));
	} else if (!create) {
		rc = tl_store_fail(st, -ENOENT, "no such file");
	} else {
		rc = mkdir_parents(st, path);
	}
	if (rc)
		return rc;
	if (!memory && !(st->dir = tl_dir_of(path)))
		return tl_store_fail(st, -errno, "%s", strerror(errno));
	if (!memory && !st->readonly && (rc = check_writable(st, found)))
		return rc;

	/* one thread per connection: no mutex around every call (a tenth of a bulk write) */
	flags |= st->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	rc = sqlite3_open_v2(path, &st->db, flags, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(st->db, TL_STORE_BUSY_TIMEOUT_MS);
		tl_store_budget_start(st, limit);
	}
	if (rc == SQLITE_OK && st->readonly && !*had_wal && access(st->dir, W_OK) &&
	    sqlite3_exec(st->db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL) != SQLITE_OK) {
		char *uri = immutable_uri(path);

		sqlite3_close(st->db);
		st->db = NULL;
		rc = uri ? sqlite3_open_v2(uri, &st->db, flags | SQLITE_OPEN_URI, NULL) : SQLITE_NOMEM;
		sqlite3_free(uri);
		if (rc == SQLITE_OK)
			tl_store_budget_start(st, limit);
	}
	return rc == SQLITE_OK ? 0 : tl_store_sqlerr(st, rc, NULL);
}

static struct tl_store *new_store(const char *path)
{
	struct tl_store *st;

	if (!path || !*path) {
		error("database: no file name given");
		return NULL;
	}
	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		error("database '%s': out of memory", path);
		return NULL;
	}
	return st;
}

static void free_store(struct tl_store *st, bool had_wal, bool had_shm)
{
	sqlite3_close(st->db);
	if (st->bad_file && strcmp(st->path, ":memory:"))
		remove_sidecars(st->path, had_wal, had_shm);
	free(st->dir);
	free(st->path);
	free(st);
}

int tl_store_open_with(const char *path, bool create, const char *const *migrations, size_t n,
		       struct tl_store **out)
{
	struct tl_store *st = new_store(path);
	bool had_wal = false, had_shm = false;
	int rc;

	*out = NULL;
	if (!st)
		return path && *path ? -ENOMEM : -EINVAL;
	rc = open_connection(st, create, 0, &had_wal, &had_shm);
	/* Refuse a newer, foreign or damaged schema before the journal mode changes a byte. */
	rc = rc ?: tl_store_check_version(st, n);
	rc = rc ?: tl_store_check_tables(st);
	rc = rc ?: set_pragmas(st);
	rc = rc ?: tl_store_migrate(st, migrations, n);
	rc = rc ?: tl_store_add_axis_columns(st);
	if (rc) {
		free_store(st, had_wal, had_shm);
		return rc;
	}
	*out = st;
	return 0;
}

int tl_store_open(const char *path, struct tl_store **out)
{
	return tl_store_open_with(path, true, tl_store_migrations, tl_store_nmigrations, out);
}

int tl_store_open_existing(const char *path, struct tl_store **out)
{
	struct tl_store *st = new_store(path);
	bool had_wal = false, had_shm = false;
	double limit;
	int rc;

	*out = NULL;
	if (!st)
		return path && *path ? -ENOMEM : -EINVAL;
	st->readonly = true;
	rc = tl_store_budget_limit(st, tl_store_file_size(path), &limit);
	/* a reader is bounded from its first statement on (store-budget.c) */
	rc = rc ?: open_connection(st, false, limit, &had_wal, &had_shm);
	rc = rc ?: tl_store_check_readable(st, tl_store_nmigrations);
	rc = rc ?: tl_store_read_axis_columns(st);
	if (rc) {
		free_store(st, had_wal, had_shm);
		return rc;
	}
	*out = st;
	return 0;
}

/*
 * The last writer to close leaves the database in rollback mode, one file
 * that readers open without making -wal and -shm files beside it (a
 * read-only reader could not remove them again); a writer still open
 * elsewhere keeps it in WAL mode, and the next writer switches it back.
 */
void tl_store_close(struct tl_store *st)
{
	if (!st)
		return;
	if (st->db && !st->readonly && strcmp(st->path, ":memory:")) {
		sqlite3_busy_timeout(st->db, 0);
		sqlite3_exec(st->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
	}
	free_store(st, true, true);
}

const char *tl_store_path(const struct tl_store *st)
{
	return st->path;
}

const char *tl_store_dir(const struct tl_store *st)
{
	return st->dir;
}

struct sqlite3 *tl_store_db(struct tl_store *st)
{
	return st->db;
}
