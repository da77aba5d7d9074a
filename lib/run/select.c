/*
 * Which planned runs an invocation runs: --only (run numbers of
 * --dry-run, or run-key prefixes), then --where over their values.
 */
#include "run/execute.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"

/* "3,5-7" over 1-based run numbers, or comma-separated run-key prefixes. */
static int select_only(const struct tl_plan *plan, const char *only, bool *sel)
{
	char *copy = strdup(only), *save = NULL;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long a = strtol(tok, &end, 10), b = a;
		size_t hits = 0;

		if (end != tok && (*end == '\0' || *end == '-')) {
			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			if (*end || a < 1 || b < a || (size_t)b > plan->nruns) {
				rc = error("--only: '%s' is not a run number or range within 1-%zu", tok, plan->nruns);
				break;
			}
			for (long i = a; i <= b; i++)
				sel[i - 1] = true;
			continue;
		}
		for (size_t i = 0; i < plan->nruns; i++) {
			if (!strncmp(plan->runs[i].key, tok, strlen(tok))) {
				sel[i] = true;
				hits++;
			}
		}
		if (!hits) {
			rc = error("--only: no planned run has a key starting with '%s'", tok);
			break;
		}
	}
	free(copy);
	return rc;
}

long tl_execute_select(const struct tl_plan *plan, const struct tl_execute_opts *o, bool *selected)
{
	long n = 0;

	for (size_t i = 0; i < plan->nruns; i++)
		selected[i] = !o->only;
	if (o->only && select_only(plan, o->only, selected))
		return -EINVAL;
	for (size_t i = 0; i < plan->nruns; i++) {
		if (selected[i] && o->where && !tl_selector_matches(o->where, plan->runs[i].config->values))
			selected[i] = false;
		n += selected[i];
	}
	return n;
}
