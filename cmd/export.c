/*
 * tierlab export: a table of the store (the per-event logs, the counters,
 * or the report table) as CSV or JSON on stdout, for an experiment's runs
 * or one run, streamed row by row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "util/error.h"
#include "parse-options.h"
#include "util/paths.h"
#include "plan/plan.h"
#include "report/export.h"
#include "report/report.h"
#include "store/log.h"
#include "store/query.h"

struct row_out {
	struct tl_export x;
	const char *run_key;
};

/* A row of the store's table, after the run key it belongs to. */
static int put_row(void *arg, const struct tl_value *v, size_t n)
{
	struct row_out *o = arg;
	struct tl_value all[17];

	if (n > 16)
		n = 16;
	all[0] = (struct tl_value){ .name = "run_key", .type = TL_VALUE_TEXT, .s = o->run_key };
	memcpy(all + 1, v, n * sizeof(*v));
	tl_export_row(&o->x, all, n + 1);
	return 0;
}

static int export_table(struct tl_store *st, enum tl_log_table t, const struct tl_run_row *runs, size_t n,
			bool json)
{
	struct row_out o = { 0 };
	const char *names[17] = { "run_key" };
	const char *const *cols;
	size_t ncols;
	int rc = 0;

	cols = tl_log_columns(t, &ncols);
	for (size_t i = 0; i < ncols && i < 16; i++)
		names[i + 1] = cols[i];
	tl_export_begin(&o.x, stdout, json, names, ncols + 1);
	for (size_t i = 0; i < n && !rc; i++) {
		o.run_key = runs[i].run_key;
		rc = tl_store_log_each(st, t, runs[i].id, put_row, &o);
	}
	if (tl_export_end(&o.x) && !rc)
		rc = error("cannot write to stdout");
	return rc;
}

static int export_report(struct tl_store *st, const struct tl_run_row *runs, size_t n, bool json)
{
	struct tl_selector sel = { 0 };
	struct tl_report rep = { 0 };
	struct tl_error err = { { 0 } };
	struct tl_run_row *older = NULL;
	size_t nolder = 0;
	char *baseline = NULL;
	int rc;

	rc = tl_store_experiment_baseline(st, runs[0].experiment, &baseline);
	if (!rc && baseline && *baseline && tl_selector_parse(baseline, &sel, &err))
		rc = error("stored baseline '%s': %s", baseline, err.msg);
	rc = rc ?: tl_report_build(runs[0].experiment, runs, n, baseline && *baseline ? &sel : NULL, &rep);
	/* each % of baseline against the baseline of its own session, as report says */
	rc = rc ?: tl_store_query_replaced(st, runs[0].experiment, NULL, &older, &nolder);
	rc = rc ?: tl_report_match_sessions(&rep, runs, n, older, nolder);
	/* how many samples each hit rate stands on, as report says */
	rc = rc ?: tl_report_load_samples(&rep, st, runs, n);
	rc = rc ?: tl_report_print(&rep, json ? TL_FMT_JSON : TL_FMT_CSV, stdout);
	tl_report_release(&rep);
	tl_selector_release(&sel);
	tl_run_rows_free(older, nolder);
	free(baseline);
	return rc;
}

int cmd_export(int argc, const char **argv)
{
	const char *db = NULL, *experiment = NULL, *run = NULL;
	enum { CSV, JSON };
	static const char *const formats[] = { [CSV] = "csv", [JSON] = "json", NULL };
	int format = CSV;
	static const char *const usage[] = {
		"tierlab export [<options>] <samples|migrations|allocations|counters|report>",
		NULL
	};
	const struct option options[] = {
		OPT_STRING('e', "experiment", &experiment, "name", "the experiment's runs (default: the latest)"),
		OPT_STRING(0, "run", &run, "run", "one run (id, run key or its prefix) instead"),
		OPT_FORMAT(&format, formats),
		OPT_DB(&db, "results database"),
		OPT_END(),
	};
	struct tl_store *st = NULL;
	struct tl_run_row *rows = NULL, one = { 0 };
	size_t n = 0;
	int table = -1, ret = 2;

	argc = parse_options(argc, argv, options, usage);
	if (argc != 1) {
		error("export takes one table");
		usage_with_options(usage, options);
	}
	for (int t = 0; t < TL_LOG__COUNT; t++)
		if (!strcmp(argv[0], tl_log_table_names[t]))
			table = t;
	if (table < 0 && strcmp(argv[0], "report")) {
		error("no table '%s' to export (samples, migrations, allocations, counters or report)", argv[0]);
		return 2;
	}
	if (run && experiment) {
		error("--run and --experiment: choose one");
		return 2;
	}
	if (!db)
		db = tl_path_default_db();
	if (tl_store_open_existing(db, &st))
		return 2;
	if (run) {
		if (tl_store_get_run_or_latest(st, run, table >= 0 && table != TL_LOG_COUNTERS, &one))
			goto out;
	} else if (tl_runs_load(st, db, experiment, &rows, &n)) {
		goto out;
	}
	if (table < 0)
		ret = export_report(st, run ? &one : rows, run ? 1 : n, format == JSON) ? 2 : 0;
	else
		ret = export_table(st, (enum tl_log_table)table, run ? &one : rows, run ? 1 : n, format == JSON) ? 2 : 0;
out:
	tl_run_row_release(&one);
	tl_run_rows_free(rows, n);
	tl_store_close(st);
	return ret;
}
