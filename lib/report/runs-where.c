/*
 * --where for the commands that read runs (report, plot): keep the runs
 * whose configuration matches, and those a figure is measured against, so
 * that a % of baseline (and plot's all-fast and all-slow lines) stay what
 * they are whatever is chosen. run's --where selects from the plan with
 * the same selector (tl_selector_parse, tl_selector_matches).
 */
#include <string.h>

#include "report/report.h"

size_t tl_runs_where(struct tl_run_row *rows, size_t n, const struct tl_selector *where,
		     const struct tl_selector *baseline, bool bounds)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const char *p = rows[i].values[TL_AXIS_POLICY];

		if (!tl_selector_matches(where, rows[i].values) &&
		    !(baseline && tl_selector_matches(baseline, rows[i].values)) &&
		    !(bounds && tl_policy_bounds(p)))
			continue;
		struct tl_run_row t = rows[k];

		rows[k++] = rows[i];
		rows[i] = t;
	}
	return k;
}
