/*
 * tierlab report: one row per configuration of an experiment, compared
 * with its baseline, in the chosen format.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "measure/environment.h"
#include "util/error.h"
#include "parse-options.h"
#include "util/paths.h"
#include "plan/plan.h"
#include "report/report.h"
#include "store/query.h"

static bool baseline_matches(const struct tl_report *rep)
{
	for (size_t i = 0; i < rep->nrows; i++)
		if (rep->rows[i].is_baseline)
			return true;
	return false;
}

/*
 * Runs of one experiment may come from several executions (a --resume on
 * another day): say when the settings they ran under differ.
 */
static int add_settings_note(struct tl_store *st, const struct tl_run_row *rows, size_t n,
			     struct tl_report *rep)
{
	int64_t first = -1, id;
	struct tl_env a = { 0 }, b = { 0 };
	struct tl_env_change *ch = NULL;
	size_t nch = 0;
	char desc[300], note[400];
	int rc = 0;

	for (size_t i = 0; i < n && !rc && !nch; i++) {
		rc = tl_store_run_experiment(st, rows[i].id, &id);
		if (rc || id == first)
			continue;
		if (first < 0) {
			first = id;
			rc = tl_store_env_load(st, id, 0, &a);
			continue;
		}
		tl_env_release(&b);
		rc = tl_store_env_load(st, id, 0, &b);
		if (!rc)
			rc = tl_env_diff(&a, &b, &ch, &nch);
	}
	if (!rc && nch) {
		tl_env_diff_describe(ch, nch, desc, sizeof(desc));
		snprintf(note, sizeof(note), "runs compared were taken under different settings: %s", desc);
		rc = tl_report_add_note(rep, note);
	}
	free(ch);
	tl_env_release(&a);
	tl_env_release(&b);
	return rc;
}

/* What the rows cannot tell: whether the tiers were real. */
static int add_machine_notes(struct tl_store *st, const char *experiment, struct tl_report *rep)
{
	char *simulated = NULL, *fast = NULL, *slow = NULL, *present = NULL;
	char note[320];
	int rc;

	rc = tl_store_experiment_env(st, experiment, "tiers.simulated", &simulated);
	rc = rc ?: tl_store_experiment_env(st, experiment, "machine.fast", &fast);
	rc = rc ?: tl_store_experiment_env(st, experiment, "machine.slow", &slow);
	rc = rc ?: tl_store_experiment_env(st, experiment, "nodes.present", &present);
	if (!rc && simulated && !strcmp(simulated, "yes")) {
		snprintf(note, sizeof(note),
			 "tiers were simulated (fast '%s', slow '%s', nodes present: %s): placement calls "
			 "were made and counted but no memory moved between tiers; differences between "
			 "placements are noise", fast ? fast : "-", slow ? slow : "-", present ? present : "?");
		rc = tl_report_add_note(rep, note);
	}
	free(simulated);
	free(fast);
	free(slow);
	free(present);
	return rc;
}

/* --by axis,..: the axes named, into by[]; -1 after an error line for a name that is no axis. */
static int parse_by(const char *list, bool by[TL_AXIS__COUNT])
{
	char *copy = strdup(list), *save = NULL;
	int ret = 0;

	if (!copy)
		return error("out of memory");
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int a = tl_axis_lookup(name);

		if (a < 0) {
			ret = error("--by: unknown axis '%s' (tierlab list axes)", name);
			break;
		}
		by[a] = true;
	}
	free(copy);
	return ret;
}

/* Does the selector name only axes in by[]? */
static bool selector_within(const struct tl_selector *sel, const bool by[TL_AXIS__COUNT])
{
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		if (sel->values[a] && !by[a])
			return false;
	return true;
}

static bool matches_any(const struct tl_run_row *rows, size_t n, const struct tl_selector *where)
{
	for (size_t i = 0; i < n; i++)
		if (tl_selector_matches(where, rows[i].values))
			return true;
	return false;
}

int cmd_report(int argc, const char **argv)
{
	const char *db = NULL, *experiment = NULL, *baseline = NULL, *by_list = NULL;
	const char *where = NULL, *columns = NULL, *session = NULL, *since = NULL;
	int with_counters = 0, directions = 0, stats = 0, wide = 0, fmt = TL_FMT_TEXT;
	static const char *const usage[] = {
		"tierlab report [<options>]",
		NULL
	};
	const struct option options[] = {
		OPT_STRING('e', "experiment", &experiment, "name", "experiment to report (default: the latest)"),
		OPT_STRING('b', "baseline", &baseline, "axis=value,..", "baseline selector (default: the spec's baseline)"),
		OPT_FORMAT(&fmt, tl_report_format_names),
		OPT_BOOL(0, "stats", &stats, "add median, min, max and the 95% confidence interval of the mean"),
		OPT_BOOL(0, "directions", &directions, "split GiB migrated into slow-to-fast and fast-to-slow"),
		OPT_BOOL(0, "counters", &with_counters, "add the perf events counted (mean per run) and ratios of them"),
		OPT_STRING(0, "by", &by_list, "axis,..", "one row per value of these axes, pooling the runs of every other axis"),
		OPT_STRING(0, "where", &where, "axis=value,..", "only runs whose configuration matches (and the baseline's)"),
		OPT_BOOL(0, "wide", &wide, "every column in text, however wide (default: fit 100 columns)"),
		OPT_STRING(0, "columns", &columns, "name,..", "text and markdown show these columns, in this order"),
		OPT_STRING(0, "session", &session, "id", "only the runs of this session (tierlab list sessions)"),
		OPT_STRING(0, "since", &since, "time", "only the runs of sessions started since: 2024-05-01 14:00, or 2h ago"),
		OPT_DB(&db, "results database"),
		OPT_END(),
	};
	struct tl_store *st = NULL;
	struct tl_run_row *rows = NULL, *older = NULL;
	struct tl_session_filter filter;
	struct tl_selector sel = { 0 }, wsel = { 0 };
	struct tl_report rep = { 0 };
	struct tl_error err = { { 0 } };
	bool by[TL_AXIS__COUNT] = { false };
	char *stored_baseline = NULL, note[256] = "", *filter_text = NULL;
	size_t n = 0, nolder = 0, kept;
	int ret = 2;

	argc = parse_options(argc, argv, options, usage);
	if (argc) {
		error("unexpected argument '%s'", argv[0]);
		usage_with_options(usage, options);
	}
	if (by_list && parse_by(by_list, by))
		return 2;
	if ((ret = tl_session_filter_parse(session, since, &filter, &filter_text, &err))) {
		error("%s", ret == -EINVAL ? err.msg : "out of memory");
		return 2;
	}
	ret = 2;
	/* as the report groups: never across workloads or sizes, so a baseline may name them */
	by[TL_AXIS_WORKLOAD] = by[TL_AXIS_SIZE] = true;
	if (!db)
		db = tl_path_default_db();
	if (tl_store_open_existing(db, &st))
		return 2;
	if (tl_runs_load_in(st, db, experiment, &filter, &rows, &n, &older, &nolder) ||
	    tl_baseline_load(st, rows[0].experiment, &baseline, &stored_baseline, &sel))
		goto out;
	if (by_list && baseline && *baseline && !selector_within(&sel, by)) {
		/* a group pools runs of every other axis: a baseline naming one of those has no row */
		snprintf(note, sizeof(note), "no %% of baseline: the baseline '%s' names an axis that --by pools", baseline);
		baseline = NULL;
	}
	if (where && tl_selector_parse(where, &wsel, &err)) {
		error("%s", err.msg);
		goto out;
	}
	if (where && !matches_any(rows, n, &wsel)) {
		error("--where '%s' matches no run of experiment '%s'", where, rows[0].experiment);
		goto out;
	}
	/* the baseline's runs stay: a % of baseline is the same whatever --where chooses */
	kept = where ? tl_runs_where(rows, n, &wsel, baseline && *baseline ? &sel : NULL, false) : n;
	if (tl_report_build_by(rows[0].experiment, rows, kept, baseline && *baseline ? &sel : NULL, by_list ? by : NULL,
			       &rep) ||
	    tl_report_match_sessions(&rep, rows, kept, older, nolder))
		goto out;
	rep.session_filter = filter_text;
	filter_text = NULL;
	if (columns && (ret = tl_report_choose_columns(&rep, columns, &err))) {
		error("--columns: %s", ret == -EINVAL ? err.msg : "out of memory");
		ret = 2;
		goto out;
	}
	if (tl_report_load_samples(&rep, st, rows, kept))
		goto out;
	if (note[0] && tl_report_add_note(&rep, note))
		goto out;
	if (with_counters && tl_report_load_counters(&rep, st, rows, kept))
		goto out;
	rep.show_directions = directions;
	rep.show_stats = stats;
	rep.show_wide = wide;
	if (add_machine_notes(st, rows[0].experiment, &rep) || add_settings_note(st, rows, kept, &rep))
		goto out;
	if (rep.has_baseline && !baseline_matches(&rep)) {
		error("baseline '%s' matches no configuration of experiment '%s'", baseline, rep.experiment);
		goto out;
	}
	ret = tl_report_print(&rep, fmt, stdout) ? 2 : 0;
out:
	tl_report_release(&rep);
	tl_selector_release(&sel);
	tl_selector_release(&wsel);
	free(stored_baseline);
	free(filter_text);
	tl_run_rows_free(rows, n);
	tl_run_rows_free(older, nolder);
	tl_store_close(st);
	return ret;
}
