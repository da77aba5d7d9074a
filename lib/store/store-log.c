/*
 * A run's event tables, streamed (see log.h). One SELECT per table, its
 * columns named as docs/schema.md names them, stepped row by row.
 */
#include "store/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "store/store-internal.h"
#include "util/array.h"
#include "util/error.h"

const char *const tl_log_table_names[TL_LOG__COUNT] = {
#define TL_X(id, name) [TL_LOG_##id] = #name,
	TL_LOG_TABLES(TL_X)
#undef TL_X
};

static const char *const table_sql[TL_LOG__COUNT] = {
	[TL_LOG_ALLOCATIONS] = "SELECT run_id, pid, seq, t_ns, addr, size, callsite, %s AS freed_ns FROM allocations"
			       " WHERE run_id = ?1 ORDER BY pid, seq",
	[TL_LOG_SAMPLES] = "SELECT run_id, pid, t_ns, addr, pc, tid, hit FROM samples WHERE run_id = ?1"
			   " ORDER BY pid, t_ns",
	[TL_LOG_MIGRATIONS] = "SELECT run_id, pid, t_ns, addr, bytes, direction, ok FROM migrations WHERE run_id = ?1"
			      " ORDER BY pid, t_ns",
	[TL_LOG_COUNTERS] = "SELECT run_id, event, encoding, value, enabled_ns, running_ns, multiplex_pct, status,"
			    " reason FROM counters WHERE run_id = ?1 ORDER BY event",
};
_Static_assert(ARRAY_SIZE(table_sql) == TL_LOG__COUNT, "one query per table");

static const char *const columns[TL_LOG__COUNT][10] = {
	[TL_LOG_ALLOCATIONS] = { "run_id", "pid", "seq", "t_ns", "addr", "size", "callsite", "freed_ns" },
	[TL_LOG_SAMPLES] = { "run_id", "pid", "t_ns", "addr", "pc", "tid", "hit" },
	[TL_LOG_MIGRATIONS] = { "run_id", "pid", "t_ns", "addr", "bytes", "direction", "ok" },
	[TL_LOG_COUNTERS] = { "run_id", "event", "encoding", "value", "enabled_ns", "running_ns", "multiplex_pct",
			      "status", "reason" },
};

/*
 * What each column may hold, in the order of columns[] (run_id, matched
 * by the query, is not checked): a row that holds anything else stops the
 * reading with an error, so a text address is never drawn as 0.
 */
#define REQ(name, rule) { 0, name, TL_CHECK_##rule, true }
#define OPT(name, rule) { 0, name, TL_CHECK_##rule, false }
static const struct tl_value_check checks[TL_LOG__COUNT][10] = {
	[TL_LOG_ALLOCATIONS] = { REQ("run_id", INTEGER), REQ("pid", COUNT), REQ("seq", COUNT), REQ("t_ns", COUNT),
				 REQ("addr", INTEGER), REQ("size", COUNT), OPT("callsite", TEXT),
				 OPT("freed_ns", COUNT) },
	[TL_LOG_SAMPLES] = { REQ("run_id", INTEGER), REQ("pid", COUNT), REQ("t_ns", COUNT), REQ("addr", INTEGER),
			     OPT("pc", INTEGER), OPT("tid", COUNT), OPT("hit", FLAG) },
	[TL_LOG_MIGRATIONS] = { REQ("run_id", INTEGER), REQ("pid", COUNT), REQ("t_ns", COUNT), REQ("addr", INTEGER),
				REQ("bytes", COUNT), REQ("direction", TEXT), REQ("ok", FLAG) },
	[TL_LOG_COUNTERS] = { REQ("run_id", INTEGER), REQ("event", TEXT), OPT("encoding", TEXT), OPT("value", AMOUNT),
			      OPT("enabled_ns", COUNT), OPT("running_ns", COUNT), OPT("multiplex_pct", AMOUNT),
			      REQ("status", TEXT), OPT("reason", TEXT) },
};
#undef REQ
#undef OPT

/* 0, or an error line naming the run, the table and the value when the row holds what the schema does not allow. */
static int check_row(struct tl_store *st, sqlite3_stmt *s, enum tl_log_table table, int64_t run_id,
		     const struct tl_value_check *c, int n)
{
	char why[256];

	if (!tl_store_check_values(s, c, (size_t)n, why, sizeof(why)))
		return 0;
	return tl_store_fail(st, -EIO, "run %lld: a row of %s: %s (the database was changed by hand, or is damaged)",
			     (long long)run_id, tl_log_table_names[table], why);
}

const char *const *tl_log_columns(enum tl_log_table table, size_t *n)
{
	*n = 0;
	if ((unsigned)table >= TL_LOG__COUNT)
		return NULL;
	while (*n < ARRAY_SIZE(columns[table]) && columns[table][*n])
		(*n)++;
	return columns[table];
}

/* Did the schema that made this file have allocations.freed_ns (schema 4)? A reader never migrates. */
static bool has_freed(struct tl_store *st)
{
	return sqlite3_table_column_metadata(st->db, NULL, "allocations", "freed_ns", NULL, NULL, NULL, NULL,
					     NULL) == SQLITE_OK;
}

int tl_store_log_each(struct tl_store *st, enum tl_log_table table, int64_t run_id,
		      int (*fn)(void *arg, const struct tl_value *v, size_t n), void *arg)
{
	char sql[512], what[64];
	struct tl_value v[16];
	struct tl_value_check c[16];
	sqlite3_stmt *s;
	int rc, step, n;

	if ((unsigned)table >= TL_LOG__COUNT)
		return tl_store_fail(st, -EINVAL, "no such table %d", (int)table);
	snprintf(what, sizeof(what), "reading %s", tl_log_table_names[table]);
	snprintf(sql, sizeof(sql), table_sql[table], has_freed(st) ? "freed_ns" : "NULL");
	if ((rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL)) != SQLITE_OK)
		return tl_store_sqlerr(st, rc, what);
	sqlite3_bind_int64(s, 1, run_id);
	n = sqlite3_column_count(s);
	if (n > (int)ARRAY_SIZE(v))
		n = ARRAY_SIZE(v);
	for (int i = 0; i < n; i++)
		if (!columns[table][i] || strcmp(columns[table][i], sqlite3_column_name(s, i)) ||
		    strcmp(checks[table][i].name, columns[table][i]))
			BUG("%s: column %d is '%s', the list says '%s'", tl_log_table_names[table], i,
			    sqlite3_column_name(s, i), columns[table][i] ? columns[table][i] : "(end)");
	for (int i = 0; i < n; i++) {
		c[i] = checks[table][i];
		c[i].column = i;
	}
	rc = 0;
	while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
		for (int i = 0; i < n && !rc; i++) {
			int type = sqlite3_column_type(s, i);

			memset(&v[i], 0, sizeof(v[i]));
			v[i].name = columns[table][i];
			switch (type) {
			case SQLITE_INTEGER:
				v[i].type = TL_VALUE_INT;
				v[i].i = sqlite3_column_int64(s, i);
				v[i].d = (double)v[i].i;
				break;
			case SQLITE_FLOAT:
				v[i].type = TL_VALUE_REAL;
				v[i].d = sqlite3_column_double(s, i);
				break;
			case SQLITE_NULL:
				v[i].type = TL_VALUE_NULL;
				break;
			default:
				v[i].type = TL_VALUE_TEXT;
				v[i].s = (const char *)sqlite3_column_text(s, i);
				if (!v[i].s)
					v[i].type = TL_VALUE_NULL;
			}
			if (!tl_store_value_allowed(&c[i], type, v[i].i, v[i].d))
				rc = check_row(st, s, table, run_id, c, n);
		}
		rc = rc ?: fn(arg, v, (size_t)n);
	}
	if (!rc && step != SQLITE_DONE)
		rc = tl_store_sqlerr(st, step, what);
	sqlite3_finalize(s);
	return rc;
}

/* Samples and moves count for an allocation while it lived: its address range, after it began, not after its free. */
#define ALIVE(t) " AND " t ".pid = a.pid AND " t ".addr >= a.addr AND " t ".addr < a.addr + a.size AND " t ".t_ns >= a.t_ns" \
	" AND (a.freed_ns IS NULL OR " t ".t_ns <= a.freed_ns)"

static int no_op(void *arg, const struct tl_value *v, size_t n)
{
	(void)arg;
	(void)v;
	(void)n;
	return 0;
}

int tl_store_allocations_summary(struct tl_store *st, int64_t run_id,
				 int (*fn)(void *arg, const struct tl_alloc_summary *a), void *arg)
{
	static const char what[] = "summarising allocations";
	char sql[4096];
	sqlite3_stmt *s;
	int rc, step;

	/*
	 * The sums below compare and add in SQL, where a text address is
	 * larger than any number and a text byte count adds 0: every row is
	 * checked first, as a reader of the log would (one more pass).
	 */
	for (int t = 0; t < TL_LOG_COUNTERS; t++)
		if ((rc = tl_store_log_each(st, (enum tl_log_table)t, run_id, no_op, NULL)))
			return rc;

	if ((size_t)snprintf(sql, sizeof(sql),
		 "SELECT a.pid, a.seq, a.t_ns, a.size, a.freed_ns, a.callsite,"
		 " (SELECT count(*) FROM samples s WHERE s.run_id = a.run_id" ALIVE("s") "),"
		 " (SELECT count(*) FROM samples s WHERE s.run_id = a.run_id AND s.hit = 1" ALIVE("s") "),"
		 " (SELECT count(*) FROM samples s WHERE s.run_id = a.run_id AND s.hit IS NOT NULL" ALIVE("s") "),"
		 " (SELECT ifnull(sum(CASE m.direction WHEN 'fast-to-slow' THEN -m.bytes WHEN 'initial-slow' THEN 0"
		 "   ELSE m.bytes END), 0) FROM migrations m WHERE m.run_id = a.run_id AND m.ok = 1" ALIVE("m") ")"
		 /* freed_ns NULL in a database from before schema 4, which a reader never migrates */
		 " FROM (SELECT run_id, pid, seq, t_ns, addr, size, callsite, %s AS freed_ns FROM allocations"
		 " WHERE run_id = ?1) a ORDER BY a.pid, a.seq",
		 has_freed(st) ? "freed_ns" : "NULL") >= sizeof(sql))
		BUG("the allocations summary does not fit its buffer");
	if ((rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL)) != SQLITE_OK)
		return tl_store_sqlerr(st, rc, what);
	sqlite3_bind_int64(s, 1, run_id);
	rc = 0;
	while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
		/* a sum over a text byte count comes out REAL: INTEGER refuses it with the rest */
		static const struct tl_value_check c[] = {
			{ 0, "pid", TL_CHECK_COUNT, true }, { 1, "seq", TL_CHECK_COUNT, true },
			{ 2, "t_ns", TL_CHECK_COUNT, true }, { 3, "size", TL_CHECK_COUNT, true },
			{ 4, "freed_ns", TL_CHECK_COUNT, false }, { 5, "callsite", TL_CHECK_TEXT, false },
			{ 9, "bytes moved", TL_CHECK_INTEGER, true },
		};
		char why[256];

		if (tl_store_check_values(s, c, ARRAY_SIZE(c), why, sizeof(why))) {
			rc = tl_store_fail(st, -EIO, "run %lld: an allocation: %s (the database was changed by hand, "
					   "or is damaged)", (long long)run_id, why);
			break;
		}
		struct tl_alloc_summary a = {
			.pid = sqlite3_column_int64(s, 0), .seq = sqlite3_column_int64(s, 1),
			.t_ns = sqlite3_column_int64(s, 2), .size = sqlite3_column_int64(s, 3),
			.freed = sqlite3_column_type(s, 4) != SQLITE_NULL, .freed_ns = sqlite3_column_int64(s, 4),
			.callsite = (const char *)sqlite3_column_text(s, 5),
			.samples = sqlite3_column_int64(s, 6), .hits = sqlite3_column_int64(s, 7),
			.samples_judged = sqlite3_column_int64(s, 8), .fast_bytes = sqlite3_column_int64(s, 9),
		};

		rc = fn(arg, &a);
	}
	if (!rc && step != SQLITE_DONE)
		rc = tl_store_sqlerr(st, step, what);
	sqlite3_finalize(s);
	return rc;
}
