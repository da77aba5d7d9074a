/*
 * tierlab plot: a figure of an experiment (bars, or a heatmap of one
 * policy) or of one run's log (timeline), drawn by gnuplot from a script
 * and data file written beside the image.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "util/error.h"
#include "parse-options.h"
#include "util/paths.h"
#include "plan/plan.h"
#include "plot/plot.h"
#include "report/report.h"
#include "store/query.h"
#include "store/result.h"

/*
 * A figure cannot carry the report's notes: what it mixes is said on
 * stderr (the same words as the report's).
 */
static void say_sessions(const struct tl_report *rep)
{
	size_t other = 0;

	for (size_t i = 0; i < rep->nrows; i++)
		other += rep->rows[i].base_other_session;
	if (rep->nsessions > 1)
		warning("the runs drawn come from %zu sessions; each %% of baseline is against its baseline's runs of "
			"the same session (--session ID draws one)", rep->nsessions);
	if (other)
		warning("%zu %s no baseline run of %s own session: %s %% of baseline compares runs of different "
			"sessions", other, other == 1 ? "bar has" : "bars have", other == 1 ? "its" : "their",
			other == 1 ? "its" : "their");
}

/*
 * The page tables' peak size (metric proc.vmpte_peak) of each row: the
 * mean over its ok runs that stored it, NaN for none; the counters
 * figure draws it where no counter was counted. A malloc'd array of
 * rep->nrows, or NULL (out of memory, said).
 */
static double *load_vmpte(struct tl_store *st, const struct tl_report *rep, const struct tl_run_row *rows, size_t n)
{
	double *sum = calloc(rep->nrows + 1, sizeof(*sum));
	size_t *count = calloc(rep->nrows + 1, sizeof(*count));

	if (!sum || !count) {
		free(sum);
		free(count);
		error("out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		long row = tl_report_row_of(rep, &rows[i]);
		struct tl_metric *m = NULL;
		size_t nm = 0;

		if (row < 0 || rows[i].status != TL_STATUS_OK || tl_store_run_metrics(st, rows[i].id, &m, &nm))
			continue;
		for (size_t k = 0; k < nm; k++)
			if (!strcmp(m[k].name, "proc.vmpte_peak")) {
				sum[row] += m[k].value;
				count[row]++;
			}
		tl_metrics_free(m, nm);
	}
	for (size_t r = 0; r < rep->nrows; r++)
		sum[r] = count[r] ? sum[r] / (double)count[r] : NAN;
	free(count);
	return sum;
}

/* The experiment's report, as `tierlab report` builds it, over the runs --where keeps. */
static int load_report(struct tl_store *st, const char *db, const char *experiment, const char *baseline,
		       const char *where, const struct tl_session_filter *filter, bool counters, struct tl_report *rep,
		       double **vmpte)
{
	struct tl_run_row *rows = NULL, *older = NULL;
	struct tl_selector sel = { 0 }, wsel = { 0 };
	struct tl_error err = { { 0 } };
	char *stored = NULL;
	size_t n = 0, nolder = 0, kept;
	int ret = -EINVAL;

	if (tl_runs_load_in(st, db, experiment, filter, &rows, &n, &older, &nolder) ||
	    tl_baseline_load(st, rows[0].experiment, &baseline, &stored, &sel))
		goto out;
	if (where && tl_selector_parse(where, &wsel, &err)) {
		error("%s", err.msg);
		goto out;
	}
	/* the baseline's runs and the all-fast and all-slow lines stay whatever is chosen */
	kept = where ? tl_runs_where(rows, n, &wsel, baseline && *baseline ? &sel : NULL, true) : n;
	ret = tl_report_build(rows[0].experiment, rows, kept, baseline && *baseline ? &sel : NULL, rep);
	ret = ret ?: tl_report_match_sessions(rep, rows, kept, older, nolder);
	/* the hit rate's samples (its Wilson interval), and the counters for the figure of them */
	ret = ret ?: tl_report_load_samples(rep, st, rows, kept);
	ret = ret ?: counters ? tl_report_load_counters(rep, st, rows, kept) : 0;
	if (!ret && counters && !(*vmpte = load_vmpte(st, rep, rows, kept)))
		ret = -ENOMEM;
	if (!ret)
		say_sessions(rep);
out:
	tl_selector_release(&sel);
	tl_selector_release(&wsel);
	free(stored);
	tl_run_rows_free(rows, n);
	tl_run_rows_free(older, nolder);
	return ret;
}

/* "results/hpcg-40pct.svg" style default: the experiment's name made a file name. */
static char *default_image(const char *name, const char *suffix)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s.svg", name, suffix) < 0)
		return NULL;
	for (char *p = s; *p; p++)
		if (*p == '/' || (unsigned char)*p < 0x20)
			*p = '_';
	return s;
}

int cmd_plot(int argc, const char **argv)
{
	const char *db = NULL, *experiment = NULL, *baseline = NULL, *by_name = "rate", *output = NULL;
	const char *heatmap = NULL, *where = NULL, *timeline = NULL, *session = NULL, *since = NULL, *size = NULL;
	const char *map = NULL, *figure = NULL;
	int script_only = 0, pid = 0;
	static const char *const usage[] = {
		"tierlab plot [<options>]",
		NULL
	};
	const struct option options[] = {
		OPT_STRING('e', "experiment", &experiment, "name", "experiment to draw (default: the latest)"),
		OPT_STRING('b', "baseline", &baseline, "axis=value,..", "baseline of % of baseline (default: the spec's baseline)"),
		OPT_STRING(0, "by", &by_name, "axis", "one panel per value of this axis (default: rate)"),
		OPT_STRING(0, "heatmap", &heatmap, "policy", "a heatmap of this policy's % of baseline over chunks x rate"),
		OPT_STRING(0, "timeline", &timeline, "run", "the timeline of one run's log (id, run key or its prefix)"),
		OPT_STRING(0, "figure", &figure, "metric", "a paper's figure: pct, migrated or hit against chunks; counters per allocator"),
		OPT_STRING(0, "access-map", &map, "run", "a heatmap of one run's samples by address and time, per allocation"),
		OPT_INTEGER(0, "pid", &pid, "n", "with --timeline or --access-map: the process to draw (default: the first that allocated)"),
		OPT_STRING(0, "where", &where, "axis=value,..", "only runs whose configuration matches (and the baseline, all-fast, all-slow)"),
		OPT_STRING(0, "session", &session, "id", "only the runs of this session (tierlab list sessions)"),
		OPT_STRING(0, "since", &since, "time", "only the runs of sessions started since: 2024-05-01 14:00, or 2h ago"),
		OPT_STRING('o', "output", &output, "file", "the image, .svg, .png, .pdf or .eps; NAME.gp and NAME.dat go beside it"),
		OPT_STRING(0, "size", &size, "size", "column (3.5 in wide), page (7 in) or WxH in inches (default: page)"),
		OPT_BOOL(0, "script-only", &script_only, "write the script and data, do not run gnuplot"),
		OPT_DB(&db, "results database"),
		OPT_END(),
	};
	struct tl_store *st = NULL;
	struct tl_report rep = { 0 };
	struct tl_run_row run = { 0 };
	struct tl_plot_files files = { 0 }, sized = { 0 };
	struct tl_session_filter filter;
	struct tl_error err = { { 0 } };
	char *image = NULL, *filter_text = NULL;
	double *vmpte = NULL;
	FILE *gp = NULL, *dat = NULL;
	int by, ret = 2, rc, metric = -1;

	argc = parse_options(argc, argv, options, usage);
	if (argc) {
		error("unexpected argument '%s'", argv[0]);
		usage_with_options(usage, options);
	}
	if (figure && (timeline || heatmap || map)) {
		error("--figure and --%s: one figure at a time", timeline ? "timeline" : heatmap ? "heatmap" : "access-map");
		return 2;
	}
	if (figure && (metric = tl_plot_metric_lookup(figure)) < 0) {
		error("--figure: unknown figure '%s' (pct, migrated, hit or counters)", figure);
		return 2;
	}
	if (map && (timeline || heatmap)) {
		error("--access-map and --%s: one figure at a time", timeline ? "timeline" : "heatmap");
		return 2;
	}
	if (map)
		timeline = map;
	if (heatmap && timeline) {
		error("--heatmap and --timeline: one figure at a time");
		return 2;
	}
	if (size && tl_plot_size_parse(size, &sized))
		return 2;
	if ((by = tl_axis_lookup(by_name)) < 0) {
		error("--by: unknown axis '%s' (tierlab list axes)", by_name);
		return 2;
	}
	if ((rc = tl_session_filter_parse(session, since, &filter, &filter_text, &err))) {
		error("%s", rc == -EINVAL ? err.msg : "out of memory");
		return 2;
	}
	free(filter_text);
	if (!db)
		db = tl_path_default_db();
	if (tl_store_open_existing(db, &st))
		return 2;
	if (timeline ? tl_store_get_run_or_latest(st, timeline, true, &run)
		     : load_report(st, db, experiment, baseline, where, &filter, metric == TL_PLOT_COUNTERS, &rep, &vmpte))
		goto out;
	if (!output && !(output = image = default_image(timeline ? run.run_key : rep.experiment,
							heatmap ? "-heatmap" : map ? "-access-map" : timeline ? "-timeline" :
							figure ? "-figure" : ""))) {
		error("out of memory");
		goto out;
	}
	if (tl_plot_files_init(output, &files))
		goto out;
	files.width_in = sized.width_in;
	files.height_in = sized.height_in;
	if (!(gp = fopen(files.script, "w")) || !(dat = fopen(files.data, "w"))) {
		error("cannot write '%s': %m", gp ? files.data : files.script);
		goto out;
	}
	rc = timeline ? tl_plot_timeline(st, &run, pid, map != NULL, &files, gp, dat)
	     : heatmap ? tl_plot_heatmap(&rep, heatmap, &files, gp, dat)
	     : figure && metric == TL_PLOT_COUNTERS ? tl_plot_counters(&rep, vmpte, &files, gp, dat)
	     : figure  ? tl_plot_lines(&rep, (enum tl_plot_metric)metric, &files, gp, dat)
		       : tl_plot_bars(&rep, (enum tl_axis)by, &files, gp, dat);
	if ((fclose(gp) | fclose(dat)) && !rc)
		rc = error("cannot write '%s' or '%s': %m", files.script, files.data);
	gp = dat = NULL;
	if (rc)
		goto out;
	if (!script_only && tl_plot_render(&files))
		goto out;
	printf("%s\n", script_only ? files.script : files.image);
	ret = 0;
out:
	if (gp)
		fclose(gp);
	if (dat)
		fclose(dat);
	tl_plot_files_release(&files);
	free(vmpte);
	free(image);
	tl_report_release(&rep);
	tl_run_row_release(&run);
	tl_store_close(st);
	return ret;
}
