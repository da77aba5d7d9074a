/*
 * The SHAMBLES paper's figures, one command each: a metric against the
 * chunk count, one line per policy and rate (and any other axis that
 * varies), on a log2 axis of chunks: % of the baseline (its 95% interval
 * where both sides have three runs or more: the delta method of
 * report/stats.h), GiB migrated per run, or the hit rate. A policy keeps
 * its colour (plot-style.c); a rate its point type and dash.
 */
#include "plot/plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"
#include "util/quote.h"
#include "util/units.h"

/* Axes that name a line besides the policy; chunks is the x axis. */
static const enum tl_axis line_axes[] = { TL_AXIS_WORKLOAD, TL_AXIS_SIZE, TL_AXIS_RATE, TL_AXIS_WINDOW,
					  TL_AXIS_BUDGET, TL_AXIS_SAMPLER, TL_AXIS_ALLOCATOR };
#define NLINE_AXES (sizeof(line_axes) / sizeof(line_axes[0]))

static const char *const metric_names[] = { "pct", "migrated", "hit", "counters" };

int tl_plot_metric_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(metric_names) / sizeof(metric_names[0]); i++)
		if (!strcmp(name, metric_names[i]))
			return (int)i;
	return -1;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The row's value of the metric, NaN when it has none; *lo and *hi its interval or NaN. */
static double value_of(const struct tl_report *rep, const struct tl_report_row *r, enum tl_plot_metric m,
		       double *lo, double *hi)
{
	struct tl_stats a, b = { .n = r->n_fom, .mean = r->mean, .sd = r->sd };

	*lo = *hi = NAN;
	switch (m) {
	case TL_PLOT_MIGRATED:
		return r->n_migrated ? r->migrated_gib : NAN;
	case TL_PLOT_HIT:
		if (r->has_hit_samples) {
			*lo = 100 * r->hit_lo;
			*hi = 100 * r->hit_hi;
		}
		return r->n_hit_rate ? 100 * r->hit_rate : NAN;
	default:
		break;
	}
	if (!r->has_pct)
		return NAN;
	a = r->base_own ? r->base
			: (struct tl_stats){ .n = rep->rows[r->baseline].n_fom, .mean = rep->rows[r->baseline].mean,
					     .sd = rep->rows[r->baseline].sd };
	/* an interval from fewer than three runs a side says nothing (t = 12.7 at two) */
	if (a.n >= TL_STATS_FEW_RUNS && b.n >= TL_STATS_FEW_RUNS && tl_ratio_ci95(&a, &b, lo, hi)) {
		if (r->higher_is_better) {
			*lo *= 100;
			*hi *= 100;
		} else {
			double l = 100 / *hi, h = 100 / *lo;

			*lo = l;
			*hi = h;
		}
	}
	return r->pct_of_baseline;
}

/* Is r a point of a line: a configuration with a chunk count and the metric, not a baseline row? */
static bool is_point(const struct tl_report *rep, const struct tl_report_row *r, enum tl_plot_metric m)
{
	const char *p = r->values[TL_AXIS_POLICY];
	double lo, hi;
	char *end;

	if (!r->values[TL_AXIS_CHUNKS] || r->is_baseline || tl_policy_bounds(p))
		return false;
	strtod(r->values[TL_AXIS_CHUNKS], &end);
	return !*end && !isnan(value_of(rep, r, m, &lo, &hi));
}

/* Do r and s lie on one line: the same policy and the same value of every line axis? */
static bool one_line(const struct tl_report_row *r, const struct tl_report_row *s)
{
	if (!same(r->values[TL_AXIS_POLICY], s->values[TL_AXIS_POLICY]))
		return false;
	for (size_t i = 0; i < NLINE_AXES; i++)
		if (!same(r->values[line_axes[i]], s->values[line_axes[i]]))
			return false;
	return true;
}

static const struct tl_report *sort_rep;

static int cmp_chunks(const void *a, const void *b)
{
	double x = strtod(sort_rep->rows[*(const size_t *)a].values[TL_AXIS_CHUNKS], NULL);
	double y = strtod(sort_rep->rows[*(const size_t *)b].values[TL_AXIS_CHUNKS], NULL);

	return (x > y) - (x < y);
}

/* The index of a rate among the rates of the points, by value: its point type and dash. */
static size_t rate_rank(const struct tl_report *rep, const bool *point, const char *rate)
{
	double hz, v;
	size_t below = 0;

	if (!rate || tl_parse_rate(rate, &v))
		return 0;
	for (size_t i = 0; i < rep->nrows; i++) {
		const char *o = rep->rows[i].values[TL_AXIS_RATE];
		bool first = true;

		if (!point[i] || !o || tl_parse_rate(o, &hz) || !(hz < v))
			continue;
		for (size_t j = 0; j < i && first; j++)
			first = !(point[j] && same(rep->rows[j].values[TL_AXIS_RATE], o));
		below += first;
	}
	return below;
}

/* The line's title: its policy and the line axes that vary among the points ("lru 10Hz"). */
static void line_title(const struct tl_report *rep, const bool *point, const struct tl_report_row *r, char *t,
		       size_t size)
{
	size_t len = (size_t)snprintf(t, size, "%s", r->values[TL_AXIS_POLICY] ? r->values[TL_AXIS_POLICY] : "-");

	for (size_t i = 0; i < NLINE_AXES && len < size; i++) {
		enum tl_axis a = line_axes[i];
		bool varies = false;

		for (size_t j = 0; j < rep->nrows && !varies; j++)
			varies = point[j] && !same(rep->rows[j].values[a], r->values[a]);
		if (varies && r->values[a])
			len += (size_t)snprintf(t + len, size - len, " %s%s%s", a == TL_AXIS_RATE ? "" : tl_axes[a].name,
						a == TL_AXIS_RATE ? "" : "=", r->values[a]);
	}
}

int tl_plot_lines(const struct tl_report *rep, enum tl_plot_metric m, const struct tl_plot_files *f, FILE *gp,
		  FILE *dat)
{
	bool *point = calloc(rep->nrows + 1, sizeof(*point)), *done = calloc(rep->nrows + 1, sizeof(*done));
	size_t *members = calloc(rep->nrows + 1, sizeof(*members)), *firsts = calloc(rep->nrows + 1, sizeof(*firsts));
	size_t nlines = 0, npoints = 0, longest = 0, kcols, krows;
	double width = f->width_in > 0 ? f->width_in : TL_PLOT_COLUMN_IN, line = tl_plot_line_in(), height, ymax = 0;
	static const int points[] = { 7, 5, 9, 11, 13, 15 }, dashes[] = { 1, 2, 3, 4, 5, 6 };
	char t[512];
	int ret = -ENOMEM;

	if (!point || !done || !members || !firsts) {
		error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < rep->nrows; i++)
		npoints += point[i] = is_point(rep, &rep->rows[i], m);
	if (!npoints) {
		ret = -ENODATA;
		error("experiment '%s' has no configuration with a chunks value and %s", rep->experiment,
		      m == TL_PLOT_PCT ? "a % of baseline" : m == TL_PLOT_MIGRATED ? "migrated bytes" : "a hit rate");
		goto out;
	}
	fputs("# one block per line: chunks value lo hi n\n", dat);
	for (size_t i = 0; i < rep->nrows; i++) {
		size_t n = 0;

		if (!point[i] || done[i])
			continue;
		for (size_t j = i; j < rep->nrows; j++)
			if (point[j] && !done[j] && one_line(&rep->rows[i], &rep->rows[j])) {
				members[n++] = j;
				done[j] = true;
			}
		sort_rep = rep;
		qsort(members, n, sizeof(*members), cmp_chunks);
		fprintf(dat, "%s# line %zu\n", nlines ? "\n\n" : "", nlines);
		for (size_t k = 0; k < n; k++) {
			const struct tl_report_row *r = &rep->rows[members[k]];
			double lo, hi, v = value_of(rep, r, m, &lo, &hi);

			fprintf(dat, "%s ", r->values[TL_AXIS_CHUNKS]);
			tl_plot_number(dat, v);
			fputc(' ', dat);
			tl_plot_number(dat, lo);
			fputc(' ', dat);
			tl_plot_number(dat, hi);
			fprintf(dat, " %zu\n", r->n_fom);
			ymax = fmax(ymax, fmax(v, isnan(hi) ? v : hi));
		}
		firsts[nlines++] = i;
		line_title(rep, point, &rep->rows[i], t, sizeof(t));
		longest = strlen(t) > longest ? strlen(t) : longest;
	}
	/* the key under the plot, in as many columns as its longest title fits */
	kcols = (size_t)(0.96 * width / (((double)longest + 8) * 1.25 * TL_PLOT_FONT_PT * 0.6 / 72));
	kcols = kcols < 1 ? 1 : kcols;
	krows = (nlines + kcols - 1) / kcols;
	height = f->height_in > 0 ? f->height_in : 2.6 + (double)krows * line;
	tl_plot_preamble(gp, f, width, height);
	snprintf(t, sizeof(t), "%s: %s", rep->experiment,
		 m == TL_PLOT_PCT ? "% of baseline by chunk count" : m == TL_PLOT_MIGRATED ? "data migrated by chunk count"
											 : "hit rate by chunk count");
	fputs("set title ", gp);
	tl_quote_gnuplot(gp, t);
	fprintf(gp, "\nset tmargin at screen %.4f\nset bmargin at screen %.4f\nset lmargin at screen %.4f\n"
		"set rmargin at screen 0.96\n", 1 - 2 * line / height, ((double)krows + 3.6) * line / height + 0.02,
		0.62 / width);
	fputs("set logscale x 2\nset xlabel \"chunks (count, log scale)\"\nset grid ytics lc rgb \"#dddddd\"\n"
	      "set key at screen 0.5, screen 0.01 center bottom horizontal samplen 2.5 width 1 ", gp);
	fprintf(gp, "maxcols %zu\n", kcols);
	if (m == TL_PLOT_PCT) {
		snprintf(t, sizeof(t), "%% of %s", rep->baseline_text ? rep->baseline_text : "baseline");
		fputs("set ylabel ", gp);
		tl_quote_gnuplot(gp, t);
		fprintf(gp, "\nset yrange [0:%g]\n", fmax(110, ceil(ymax * 1.08 / 10) * 10));
	} else if (m == TL_PLOT_MIGRATED) {
		fprintf(gp, "set ylabel \"GiB migrated per run\"\nset yrange [0:%g]\n", ymax > 0 ? ymax * 1.1 : 1);
	} else {
		fputs("set ylabel \"hit rate (%)\"\nset yrange [0:100]\n", gp);
	}
	/* the chunk counts drawn, and no others: 2, 8, 32 rather than powers of two in between */
	fputs("set xtics (", gp);
	{
		size_t nt = 0;
		double lo = INFINITY, hi = 0;

		for (size_t i = 0; i < rep->nrows; i++) {
			bool first = point[i];
			double c;

			for (size_t j = 0; j < i && first; j++)
				first = !(point[j] && same(rep->rows[j].values[TL_AXIS_CHUNKS], rep->rows[i].values[TL_AXIS_CHUNKS]));
			if (!first)
				continue;
			c = strtod(rep->rows[i].values[TL_AXIS_CHUNKS], NULL);
			lo = fmin(lo, c);
			hi = fmax(hi, c);
			fprintf(gp, "%s%g", nt++ ? ", " : "", c);
		}
		fprintf(gp, ")\nset xrange [%g:%g]\n", lo / 1.4, hi * 1.4);
	}
	fputs("plot ", gp);
	if (m == TL_PLOT_PCT)
		fputs("100 with lines lc rgb \"#999999\" dt 2 notitle, ", gp);
	for (size_t l = 0; l < nlines; l++) {
		const struct tl_report_row *r = &rep->rows[firsts[l]];
		struct tl_plot_style s = tl_plot_style_of(r->values[TL_AXIS_POLICY]);
		size_t k = rate_rank(rep, point, r->values[TL_AXIS_RATE]), sub = 0;
		bool any_ci = false;

		/* lines of one policy and rate (window 16 and 128) differ in their point: the next shapes along */
		for (size_t o = 0; o < l; o++)
			sub += same(rep->rows[firsts[o]].values[TL_AXIS_POLICY], r->values[TL_AXIS_POLICY]) &&
			       same(rep->rows[firsts[o]].values[TL_AXIS_RATE], r->values[TL_AXIS_RATE]);
		k = (k + 3 * sub) % 6;

		for (size_t i = 0; i < rep->nrows; i++) {
			double lo, hi;

			if (point[i] && one_line(r, &rep->rows[i])) {
				value_of(rep, &rep->rows[i], m, &lo, &hi);
				any_ci |= !isnan(lo);
			}
		}
		line_title(rep, point, r, t, sizeof(t));
		fprintf(gp, "%sdata index %zu using 1:2 with linespoints pt %d ps 0.8 dt %d lw 1.5 lc rgb \"%s\" title ",
			l ? ", \\\n     " : "", l, points[k], dashes[k], s.colour);
		tl_quote_gnuplot(gp, t);
		if (any_ci)
			fprintf(gp, ", \\\n     data index %zu using 1:3:(0):($4 - $3) with vectors heads size screen 0.006,90 "
				"lc rgb \"%s\" notitle", l,
				s.colour);
	}
	fputc('\n', gp);
	ret = ferror(gp) || ferror(dat) ? -EIO : 0;
	if (ret)
		error("cannot write '%s' or '%s'", f->script, f->data);
out:
	free(firsts);
	free(members);
	free(done);
	free(point);
	return ret;
}
