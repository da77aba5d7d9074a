/*
 * tierlab compare: two experiments, or two selectors within one, side by
 * side, with whether each difference is significant (report/compare.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "util/error.h"
#include "parse-options.h"
#include "util/paths.h"
#include "plan/plan.h"
#include "report/compare.h"
#include "report/report.h"
#include "store/query.h"

/* One side: the runs of an experiment, or those of `experiment` that match a selector; a report over them. */
static int load_side(struct tl_store *st, const char *db, const char *arg, const char *experiment,
		     const struct tl_session_filter *filter, bool compared[TL_AXIS__COUNT], struct tl_report *rep)
{
	bool selector = strchr(arg, '=') != NULL;
	struct tl_run_row *rows = NULL;
	struct tl_selector sel = { 0 };
	struct tl_error err = { { 0 } };
	size_t n = 0, k = 0;
	int ret = -1;

	if (selector && tl_selector_parse(arg, &sel, &err)) {
		error("'%s': %s", arg, strncmp(err.msg, "--where: ", 9) ? err.msg : err.msg + 9);
		goto out;
	}
	if (tl_store_query_runs_in(st, selector ? experiment : arg, filter, &rows, &n))
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (selector && !tl_selector_matches(&sel, rows[i].values))
			continue;
		struct tl_run_row t = rows[k];

		rows[k++] = rows[i];
		rows[i] = t;
	}
	const char *chosen = filter->session || filter->since ? " in the sessions chosen" : "";

	if (!n && (!selector || experiment))
		error("no runs of experiment '%s'%s in '%s'", selector ? experiment : arg, chosen, db);
	else if (!n)
		error("no runs%s in '%s'", chosen, db);
	else if (!k)
		error("'%s' matches no run of experiment '%s' in '%s'", arg, rows[0].experiment, db);
	if (!k)
		goto out;
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		compared[a] |= sel.values[a] != NULL;
	ret = tl_report_build(rows[0].experiment, rows, k, NULL, rep);
	/* no baseline here: it counts each row's sessions, which a pair is marked by */
	ret = ret ?: tl_report_match_sessions(rep, rows, k, NULL, 0);
out:
	tl_selector_release(&sel);
	tl_run_rows_free(rows, n);
	return ret;
}

int cmd_compare(int argc, const char **argv)
{
	const char *db = NULL, *experiment = NULL, *session = NULL, *since = NULL;
	/* the report's formats but markdown: a comparison is no table of a paper */
	static const char *const formats[] = { "text", "csv", "json", NULL };
	static const enum tl_report_format printers[] = { TL_FMT_TEXT, TL_FMT_CSV, TL_FMT_JSON };
	int format = 0;
	static const char *const usage[] = {
		"tierlab compare [<options>] <a> <b>",
		NULL
	};
	const struct option options[] = {
		OPT_STRING('e', "experiment", &experiment, "name", "the experiment two selectors choose from (default: the latest)"),
		OPT_FORMAT(&format, formats),
		OPT_STRING(0, "session", &session, "id", "only the runs of this session (tierlab list sessions)"),
		OPT_STRING(0, "since", &since, "time", "only the runs of sessions started since: 2024-05-01 14:00, or 2h ago"),
		OPT_DB(&db, "results database"),
		OPT_END(),
	};
	struct tl_store *st = NULL;
	struct tl_report a = { 0 }, b = { 0 };
	struct tl_compare c = { 0 };
	struct tl_error err = { { 0 } };
	struct tl_session_filter filter;
	bool compared[TL_AXIS__COUNT] = { false };
	char *filter_text = NULL;
	int ret = 2;

	argc = parse_options(argc, argv, options, usage);
	if (argc != 2) {
		error("compare takes two experiments or two selectors (axis=value,..), not %d", argc);
		usage_with_options(usage, options);
	}
	if (tl_session_filter_parse(session, since, &filter, &filter_text, &err)) {
		error("%s", err.msg);
		return 2;
	}
	free(filter_text);
	if (!db)
		db = tl_path_default_db();
	if (tl_store_open_existing(db, &st))
		return 2;
	if (load_side(st, db, argv[0], experiment, &filter, compared, &a) ||
	    load_side(st, db, argv[1], experiment, &filter, compared, &b))
		goto out;
	if (tl_compare_build(&a, &b, compared, argv[0], argv[1], &c))
		goto out;
	ret = tl_compare_print(&c, printers[format], stdout) ? 2 : 0;
out:
	tl_compare_release(&c);
	tl_report_release(&a);
	tl_report_release(&b);
	tl_store_close(st);
	return ret;
}
