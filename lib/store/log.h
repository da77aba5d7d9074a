/*
 * Reading a run's per-event tables (allocations, samples, migrations) and
 * its counters row by row, for plots and exports: each row is handed to a
 * callback as SQLite steps through it, so a table of millions of samples
 * is never held in memory. Columns come as typed values with their names;
 * NULL stays NULL.
 */
#ifndef TL_STORE_LOG_H
#define TL_STORE_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/store.h"

/* The tables, X(ID, name): the name is the table's in docs/schema.md. */
#define TL_LOG_TABLES(X)           \
	X(ALLOCATIONS, allocations) \
	X(SAMPLES, samples)         \
	X(MIGRATIONS, migrations)   \
	X(COUNTERS, counters)

enum tl_log_table {
#define TL_X(id, name) TL_LOG_##id,
	TL_LOG_TABLES(TL_X)
#undef TL_X
	TL_LOG__COUNT
};
extern const char *const tl_log_table_names[TL_LOG__COUNT];

enum tl_value_type { TL_VALUE_NULL, TL_VALUE_INT, TL_VALUE_REAL, TL_VALUE_TEXT };

struct tl_value {
	const char *name;	/* the column's */
	enum tl_value_type type;
	int64_t i;
	double d;
	const char *s;		/* valid during the callback only */
};

/*
 * Calls fn(arg, values, n) for each row of the table that belongs to run
 * run_id, in time order per process (allocations by seq, counters by
 * event); the first column is run_id. A non-zero return from fn stops and
 * is returned. An allocations table from before schema 3 gives freed_ns
 * NULL. Returns 0 or a negative errno after an error line.
 */
int tl_store_log_each(struct tl_store *st, enum tl_log_table table, int64_t run_id,
		      int (*fn)(void *arg, const struct tl_value *v, size_t n), void *arg);

/* The column names of a table's rows as tl_store_log_each hands them, in order; *n of them. */
const char *const *tl_log_columns(enum tl_log_table table, size_t *n);

/*
 * One managed allocation of a run with what its log says about it: the
 * samples that fell in it while it lived, how many of those were hits, and
 * the bytes in the fast tier when it ended (initial-fast and slow-to-fast
 * less fast-to-slow, successful moves inside it; at its free, or at the
 * end of the process).
 */
struct tl_alloc_summary {
	int64_t pid, seq, t_ns, size;
	bool freed;
	int64_t freed_ns;
	const char *callsite;	/* NULL when unknown; valid during the callback only */
	int64_t samples, hits, samples_judged;	/* judged: with a hit or a miss (not NULL) */
	int64_t fast_bytes;
};

/* Calls fn for each managed allocation of run_id, by pid and seq. 0, fn's non-zero return, or -errno. */
int tl_store_allocations_summary(struct tl_store *st, int64_t run_id,
				 int (*fn)(void *arg, const struct tl_alloc_summary *a), void *arg);

#endif
