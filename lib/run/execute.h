/*
 * Executing a plan: for each selected run, compose its environment, run
 * it, extract its figure of merit and store it in its own transaction
 * before the next one starts (so a killed sweep loses nothing that
 * finished). Used by `tierlab run` and `tierlab sweep`.
 */
#ifndef TL_EXECUTE_H
#define TL_EXECUTE_H

#include <stdbool.h>
#include <stddef.h>
#include "plan/plan.h"
#include "run/quiet-host.h"
#include "store/query.h"

struct tl_execute_opts {
	bool resume;			/* skip runs stored with status ok */
	const char *only;		/* "3,5-7" (run numbers of --dry-run) or run-key prefixes; NULL = all */
	const struct tl_selector *where;	/* NULL = all */
	bool progress_tty;		/* one rewritten progress line instead of plain lines */
	const char *db;			/* the database; run outputs go beside it, <its dir>/<experiment>/<run key>/ */
	const char *command_line;	/* the invocation, stored with its session (run/session.h) */
	struct tl_quiet_host quiet;	/* --quiet-host: wait before each run (load 0: do not) */
};

struct tl_execute_summary {
	size_t selected, skipped, ok, failed;	/* failed: failed + timeout + crashed */
	size_t left;			/* selected but not stored: never started, cut short, or not storable */
	bool began;			/* the experiment was stored (else nothing was) */
	int64_t session;		/* the session the runs were stored under, once began */
	bool interrupted;		/* by SIGINT, SIGTERM or SIGHUP */
};

/*
 * Marks which runs the options select (selected[i] for plan->runs[i]).
 * Returns the count, or -EINVAL with an error line for a bad --only.
 */
long tl_execute_select(const struct tl_plan *plan, const struct tl_execute_opts *o, bool *selected);

/*
 * Checks what the plan needs of this machine before anything runs (node
 * sets given and present); prints one error line per problem, at its place
 * in the spec. Returns 0, or -EINVAL when a run could not be set up.
 */
int tl_execute_check(const struct tl_plan *plan, const bool *selected);

/*
 * Checks, then opens (or creates) the database, stores the experiment and
 * runs the selected runs, each stored before the next starts. SIGINT,
 * SIGTERM and SIGHUP stop it: the run in progress is killed (not stored)
 * and sum->interrupted set. Returns 0, or a negative errno after an error
 * line (nothing stored at all unless sum->began).
 */
int tl_execute(const struct tl_plan *plan, const struct tl_execute_opts *o, struct tl_execute_summary *sum);

#endif
