/*
 * What report, plot and export read first: the runs of an experiment, and
 * the baseline selector, with the same error for each when they fail.
 */
#include <string.h>

#include "report/report.h"
#include "util/error.h"

int tl_runs_load(struct tl_store *st, const char *db, const char *experiment, struct tl_run_row **rows, size_t *n)
{
	if (tl_store_query_runs(st, experiment, rows, n))
		return -1;
	if (*n)
		return 0;
	if (experiment)
		error("no runs of experiment '%s' in '%s'", experiment, db);
	else
		error("no runs in '%s'", db);
	return -1;
}

int tl_baseline_load(struct tl_store *st, const char *experiment, const char **baseline, char **stored,
		     struct tl_selector *sel)
{
	struct tl_error err = { { 0 } };

	if (!*baseline && !tl_store_experiment_baseline(st, experiment, stored))
		*baseline = *stored;
	if (!*baseline || !**baseline || !tl_selector_parse(*baseline, sel, &err))
		return 0;
	/* the selector parser speaks of --where; here the same syntax is --baseline */
	error("--baseline: %s", strncmp(err.msg, "--where: ", 9) ? err.msg : err.msg + 9);
	return -1;
}
