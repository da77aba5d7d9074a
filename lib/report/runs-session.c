/*
 * --session and --since for the commands that read runs (report, compare,
 * plot): which sessions' runs they take, and the runs a later session
 * replaced, which a row's % of baseline may stand on
 * (tl_report_match_sessions).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report.h"
#include "util/error.h"
#include "util/units.h"

/* "2024-05-01", "2024-05-01 14:00", "2024-05-01T14:00:30" in local time: 0 and *t, else -EINVAL. */
static int parse_date(const char *s, double *t)
{
	static const char *const forms[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M",
					     "%Y-%m-%dT%H:%M", "%Y-%m-%d" };

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct tm tm = { .tm_isdst = -1 };
		const char *end = strptime(s, forms[i], &tm);
		time_t when;

		if (!end || *end)
			continue;
		when = mktime(&tm);
		if (when == (time_t)-1)
			return -EINVAL;
		*t = (double)when;
		return 0;
	}
	return -EINVAL;
}

int tl_session_filter_parse(const char *session, const char *since, struct tl_session_filter *f, char **text,
			    struct tl_error *err)
{
	char when[64] = "";
	double ago;

	memset(f, 0, sizeof(*f));
	*text = NULL;
	if (session) {
		char *end;
		long long id = strtoll(session, &end, 10);

		if (end == session || *end || id <= 0)
			return tl_error_set(err, "--session: '%s' is not a session id (a number from 'tierlab list "
					    "sessions')", session);
		f->session = id;
	}
	if (since) {
		/* a duration with its unit is how long ago; a bare number would be neither clearly */
		if (!parse_date(since, &f->since)) {
			snprintf(when, sizeof(when), "%s", since);
		} else if (strpbrk(since, "smh") && !tl_parse_duration(since, &ago)) {
			time_t t;
			struct tm tm;

			f->since = (double)time(NULL) - ago;
			t = (time_t)f->since;
			localtime_r(&t, &tm);
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		} else {
			return tl_error_set(err, "--since: '%s' is neither a date and time (2024-05-01, 2024-05-01 "
					    "14:00) nor how long ago (90m, 2h)", since);
		}
	}
	if (session && since && asprintf(text, "session %s, started since %s", session, when) < 0)
		return -ENOMEM;
	if (session && !since && asprintf(text, "session %s", session) < 0)
		return -ENOMEM;
	if (!session && since && asprintf(text, "sessions started since %s", when) < 0)
		return -ENOMEM;
	return 0;
}

int tl_runs_load_in(struct tl_store *st, const char *db, const char *experiment, const struct tl_session_filter *f,
		    struct tl_run_row **rows, size_t *n, struct tl_run_row **older, size_t *nolder)
{
	*older = NULL;
	*nolder = 0;
	if (!f || (!f->session && !f->since)) {
		if (tl_runs_load(st, db, experiment, rows, n))
			return -1;
	} else {
		if (tl_store_query_runs_in(st, experiment, f, rows, n))
			return -1;
		if (!*n) {
			if (f->session)
				error("no runs of %s%s%ssession %lld in '%s'", experiment ? "experiment '" : "",
				      experiment ? experiment : "", experiment ? "' in " : "", (long long)f->session, db);
			else
				error("no runs of %s%s%sa session started since then in '%s'",
				      experiment ? "experiment '" : "", experiment ? experiment : "",
				      experiment ? "' in " : "", db);
			return -1;
		}
	}
	if (tl_store_query_replaced(st, (*rows)[0].experiment, f, older, nolder)) {
		tl_run_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}
