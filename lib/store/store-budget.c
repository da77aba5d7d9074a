/*
 * The time a connection may spend inside SQLite: readers and merges are
 * bounded on any database, so a hostile or damaged one (a view that never
 * ends, a table of millions of rows whose index was dropped) ends the
 * command with an error instead of hanging it.
 *
 * What counts is the time statements run, less the caller's pauses: a
 * progress handler, called every few thousand virtual machine
 * instructions, and a trace of each statement's start, rows and end add
 * up the time between these events, but for a pause of a millisecond or
 * more after a row or a statement's end, which was the caller's (SQLite
 * is back in its handler within microseconds of resuming, so at most one
 * handler's interval of its own work goes uncounted). The caller's short
 * work between fast rows does count: rows microseconds apart cannot be
 * told from SQLite's own. So `tierlab export | less` may sit for an hour
 * on a full pipe, and a report's arithmetic after its reading is not
 * charged to the database.
 *
 * The budget is TIERLAB_DB_TIMEOUT when set (a duration: "90", "90s",
 * "10m"; 0 for none), else 60 s and 5 minutes more per GiB of the files
 * read. A legitimate database stays far inside it: here a report of
 * 30,000 runs was charged 0.2 s of its 62, and the slowest reading of a
 * 516 MiB database (plot --timeline of a run's 10 million samples, whose
 * every row's own work counts) 16 s of its 211.
 */
#include "store/store-internal.h"
#include "util/clock.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include "util/error.h"
#include "util/units.h"

/* Instructions between the handler's calls: some microseconds of work. */
#define PROGRESS_OPS 4096
/* A pause after a row at least this long was the caller's, not SQLite's. */
#define CALLER_GAP_S 0.001

/*
 * Adds the time since the last event, unless the caller held it: after a
 * row (or a statement's end) for a millisecond or more.
 */
static void count(struct tl_store_budget *b, bool sqlite_now)
{
	double t = tl_mono_s(), gap = t - b->last;

	if (b->in_sqlite || gap < CALLER_GAP_S)
		b->used_s += gap;
	b->last = t;
	b->in_sqlite = sqlite_now;
}

static int on_progress(void *arg)
{
	struct tl_store_budget *b = arg;

	count(b, true);
	if (b->used_s <= b->limit_s)
		return 0;
	b->spent = true;
	return 1;
}

static int on_trace(unsigned what, void *arg, void *p, void *x)
{
	struct tl_store_budget *b = arg;

	(void)p;
	(void)x;
	if (what == SQLITE_TRACE_STMT) {
		/* a statement starts: what came before was the caller's */
		b->last = tl_mono_s();
		b->in_sqlite = true;
	} else {
		/* a row handed back, or the statement done: the caller's turn */
		count(b, false);
	}
	return 0;
}

int tl_store_budget_limit(struct tl_store *st, off_t bytes, double *limit_s)
{
	const char *env = getenv("TIERLAB_DB_TIMEOUT");

	if (env && *env) {
		if (tl_parse_duration(env, limit_s))
			return tl_store_fail(st, -EINVAL, "TIERLAB_DB_TIMEOUT: '%s' is not a duration "
					     "(seconds, or 90s, 10m; 0 for no limit)", env);
		return 0;
	}
	*limit_s = TL_STORE_BUDGET_BASE_S + TL_STORE_BUDGET_PER_GIB_S * (double)bytes / (1 << 30);
	return 0;
}

off_t tl_store_file_size(const char *path)
{
	struct stat sb;

	return path && !stat(path, &sb) ? sb.st_size : 0;
}

void tl_store_budget_start(struct tl_store *st, double limit_s)
{
	struct tl_store_budget *b = &st->budget;

	tl_store_budget_stop(st);
	if (limit_s <= 0)
		return;
	b->limit_s = limit_s;
	b->used_s = 0;
	b->last = tl_mono_s();
	b->in_sqlite = false;
	b->spent = b->said = false;
	sqlite3_progress_handler(st->db, PROGRESS_OPS, on_progress, b);
	sqlite3_trace_v2(st->db, SQLITE_TRACE_STMT | SQLITE_TRACE_ROW | SQLITE_TRACE_PROFILE, on_trace, b);
}

void tl_store_budget_stop(struct tl_store *st)
{
	if (!st->db)
		return;
	sqlite3_progress_handler(st->db, 0, NULL, NULL);
	sqlite3_trace_v2(st->db, 0, NULL, NULL);
	st->budget.limit_s = 0;
}

bool tl_store_budget_spent(struct tl_store *st, int rc)
{
	return (rc & 0xff) == SQLITE_INTERRUPT && st->budget.spent;
}
