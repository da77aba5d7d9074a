/*
 * What the store's own files (store.c, store-schema.c, store-write.c,
 * store-query.c) and its unit tests share; not part of the store's
 * contract with other parts, which never see the SQLite connection.
 */
#ifndef TL_STORE_INTERNAL_H
#define TL_STORE_INTERNAL_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>
#include <sqlite3.h>
#include "store/query.h"
#include "store/store.h"

/* Two tierlab processes may write one database; a run's write takes milliseconds. */
#define TL_STORE_BUSY_TIMEOUT_MS 5000

/* Stamped into the header by migration 1 (PRAGMA application_id): "TLAB". */
#define TL_STORE_APPLICATION_ID 0x544c4142

/*
 * The time budget of a reading connection or a merge (store-budget.c): 60 s
 * and 5 minutes per GiB of the files read, unless TIERLAB_DB_TIMEOUT says.
 */
#define TL_STORE_BUDGET_BASE_S 60.0
#define TL_STORE_BUDGET_PER_GIB_S 300.0

struct tl_store_budget {
	double limit_s;		/* 0: no limit */
	double used_s;		/* time SQLite worked so far */
	double last;		/* the last event counted (CLOCK_MONOTONIC, s) */
	bool in_sqlite;		/* since then SQLite worked: no row or end was handed back */
	bool spent;		/* a statement was interrupted for the budget */
	bool said;		/* and the error line was printed */
};

struct tl_store {
	sqlite3 *db;
	char *path;
	/* The file's directory, absolute: run directories are stored relative to it. */
	char *dir;
	/* SQLite found the file is no database or a damaged one. */
	bool bad_file;
	/* Opened by tl_store_open_existing: the file is never written. */
	bool readonly;
	/* Which axis columns runs has (a reader of an older database selects NULL for the others). */
	bool has_axis[TL_AXIS__COUNT];
	/* runs has the simulated column (schema 3; a reader of an older database selects 0) */
	bool has_simulated;
	/* runs has session_id and the sessions table exists (schema 5; before it, an experiment row is a session) */
	bool has_session;
	/* tl_store_wait_for_lock: wait for another process's write lock until *stop is set. */
	bool wait_for_lock;
	const volatile sig_atomic_t *stop;
	struct tl_store_budget budget;
};

/*
 * The schema history: migrations[i] brings user_version i to i + 1. Never
 * edit one that has shipped; add the next instead.
 */
extern const char *const tl_store_migrations[];
extern const size_t tl_store_nmigrations;
/* The axis columns of `runs`, in enum tl_axis order (the axis names). */
extern const char *const tl_store_axis_columns[TL_AXIS__COUNT];

/*
 * tl_store_open with a migration list of the caller's (tests prove the
 * mechanism with lists of their own). create: make the file (and its
 * parent directories) when missing.
 */
int tl_store_open_with(const char *path, bool create, const char *const *migrations, size_t n,
		       struct tl_store **out);

/*
 * Reads the stored schema version and refuses (with an error line) a newer
 * one or a database that is not tierlab's. Writes nothing.
 */
int tl_store_check_version(struct tl_store *st, size_t n);
/*
 * For a reader: as tl_store_check_version, and refuses (-ENOENT) a
 * database with no schema yet (an empty file): there is nothing to read.
 */
int tl_store_check_readable(struct tl_store *st, size_t n);
/*
 * Brings st to schema n: checks the stored version as above, then applies
 * each missing migration in its own immediate transaction.
 */
int tl_store_migrate(struct tl_store *st, const char *const *migrations, size_t n);
/* Adds the column of every axis table runs does not have yet, in one transaction. */
int tl_store_add_axis_columns(struct tl_store *st);
/*
 * Fills st->has_axis from the runs table, writing nothing; -EPROTO with an
 * error line when the database has no runs or experiments table.
 */
int tl_store_read_axis_columns(struct tl_store *st);
/* The same for a database that has a schema already (a new one has none yet); writes nothing. */
int tl_store_check_tables(struct tl_store *st);

/*
 * The budget (store-budget.c). tl_store_budget_limit: TIERLAB_DB_TIMEOUT,
 * else the default for a database of `bytes` (-EINVAL with an error line
 * for a value that is no duration). tl_store_budget_start: from now on a
 * statement is interrupted once SQLite has worked limit_s seconds on this
 * connection in all (no limit when 0); _stop: no longer.
 * tl_store_budget_spent: rc is the interruption of a spent budget.
 */
int tl_store_budget_limit(struct tl_store *st, off_t bytes, double *limit_s);
void tl_store_budget_start(struct tl_store *st, double limit_s);
void tl_store_budget_stop(struct tl_store *st);
bool tl_store_budget_spent(struct tl_store *st, int rc);
/* A file's size in bytes; 0 when it cannot be read (or path is NULL). */
off_t tl_store_file_size(const char *path);

/*
 * Refuses (-EPROTO, with an error line) a database of schema `schema`
 * ("main", or an attached shard's name) where one of the tables the schema
 * defines is a view, a virtual table or anything but a plain table: a
 * reader's query over it could run forever, or show anything. who: how
 * the error names the database ("shard 'X'"), NULL for the store's own.
 */
int tl_store_check_objects(struct tl_store *st, const char *schema, const char *who);

/*
 * What a column read from the store may hold (store-check.c), NULL or:
 * TEXT text; NUMBER a finite number; AMOUNT a finite number >= 0 (times,
 * bytes); FRACTION a finite number in [0, 1] (a hit rate); INTEGER an
 * integer (an address); COUNT an integer >= 0; REP an integer >= 1; EXIT
 * an integer 0..255; SIGNAL an integer 1..64; FLAG the integer 0 or 1.
 * not_null: NULL is not allowed either.
 */
enum tl_check {
	TL_CHECK_TEXT, TL_CHECK_NUMBER, TL_CHECK_AMOUNT, TL_CHECK_FRACTION, TL_CHECK_INTEGER,
	TL_CHECK_COUNT, TL_CHECK_REP, TL_CHECK_EXIT, TL_CHECK_SIGNAL, TL_CHECK_FLAG,
};
struct tl_value_check {
	int column;		/* in the statement's result */
	const char *name;	/* as the schema names it: "fom", "hit_rate" */
	enum tl_check rule;
	bool not_null;
};
/*
 * 0 when the current row of s holds what each check allows; else 1, with
 * why set to "its fom is text 'abc', not a number" (one line: text from
 * the store is made visible and cut short).
 */
int tl_store_check_values(sqlite3_stmt *s, const struct tl_value_check *checks, size_t n, char *why,
			  size_t len);
/* The same for one value already read: its SQLite type and, as the type has it, integer or double. */
bool tl_store_value_allowed(const struct tl_value_check *c, int type, int64_t i, double d);

/* Prints "database 'PATH': MESSAGE" and returns err. */
int tl_store_fail(struct tl_store *st, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prints "database 'PATH': WHAT: sqlite message" and maps the SQLite code to a negative errno. */
int tl_store_sqlerr(struct tl_store *st, int rc, const char *what);
int tl_store_errno(int rc);

/* The connection, for the store's files and tests that look at rows directly. */
struct sqlite3 *tl_store_db(struct tl_store *st);

/* Binds a string, or NULL for a NULL pointer. */
int tl_store_bind_text(sqlite3_stmt *s, int i, const char *v);
/*
 * sqlite3_step(), unless a bind since the last step failed: then that
 * error, and the statement is not run (a NULL parameter would answer
 * wrongly). tl_store_bind_error(): that error, or 0, cleared.
 */
int tl_store_step(sqlite3_stmt *s);
int tl_store_bind_error(void);
/*
 * Binds parameters i, i+1, ... one per letter of types: 'i' int, 'I'
 * int64_t, 'd' double (NaN: NULL), 't' text (NULL: NULL), 'N' an int
 * then an int64_t (the int 0: NULL). Returns the next parameter's index.
 */
int tl_store_bind(sqlite3_stmt *s, int i, const char *types, ...);
int tl_store_vbind(sqlite3_stmt *s, int i, const char *types, va_list ap);

#endif
