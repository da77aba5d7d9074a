/*
 * A sweep at a glance: one policy's % of baseline over chunks x rate, one
 * coloured cell per configuration with its value written in it. Cells sit
 * on an even grid (chunk counts and rates are ordinal here, sorted by
 * value), the tics name the real values. The colours diverge around 100%
 * (as good as the baseline), symmetric, so a colour means the same
 * distance from the baseline whichever side it is on.
 */
#include "plot/plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"
#include "util/quote.h"
#include "util/units.h"

struct level {
	const char *text;
	double value;
};

static int cmp_level(const void *a, const void *b)
{
	const struct level *x = a, *y = b;

	return (x->value > y->value) - (x->value < y->value);
}

static double axis_value(enum tl_axis a, const char *text)
{
	double hz;

	if (a == TL_AXIS_RATE)
		return tl_parse_rate(text, &hz) ? 0 : hz;
	return strtod(text, NULL);
}

/* The distinct values of axis a among the chosen rows, sorted; returns their count. */
static size_t levels(const struct tl_report *rep, const bool *chosen, enum tl_axis a, struct level *out)
{
	size_t n = 0;

	for (size_t i = 0; i < rep->nrows; i++) {
		size_t j;

		if (!chosen[i])
			continue;
		for (j = 0; j < n && strcmp(out[j].text, rep->rows[i].values[a]); j++)
			;
		if (j == n)
			out[n++] = (struct level){ rep->rows[i].values[a], axis_value(a, rep->rows[i].values[a]) };
	}
	qsort(out, n, sizeof(*out), cmp_level);
	return n;
}

static size_t level_of(const struct level *l, size_t n, const char *text)
{
	size_t i;

	for (i = 0; i < n && strcmp(l[i].text, text); i++)
		;
	return i;
}

static void tics(FILE *gp, const char *which, const struct level *l, size_t n)
{
	fprintf(gp, "set %s (", which);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", gp);
		tl_quote_gnuplot_tic(gp, l[i].text);
		fprintf(gp, " %zu", i);
	}
	fputs(")\n", gp);
}

/*
 * Welch's two-sided p of the row's mean against its baseline's: the
 * baseline's runs of its own session when the % stands on them. NaN when
 * the test says nothing (a side with one run, or no spread on either).
 */
static double welch_p(const struct tl_report *rep, const struct tl_report_row *r)
{
	struct tl_stats a = { .n = r->n_fom, .mean = r->mean, .sd = r->sd }, b;
	struct tl_welch w;

	if (r->base_own)
		b = r->base;
	else if (r->baseline >= 0)
		b = (struct tl_stats){ .n = rep->rows[r->baseline].n_fom, .mean = rep->rows[r->baseline].mean,
				       .sd = rep->rows[r->baseline].sd };
	else
		return NAN;
	return tl_welch_test(&a, &b, &w) ? w.p : NAN;
}

/*
 * The colour is log2 of the ratio to the baseline: twice as fast and half
 * as fast are as far from white, and no % below 0 appears on the scale
 * (a linear scale symmetric about 100% ran to -800%).
 */
static double log2_pct(double pct)
{
	return pct > 0 ? log2(pct / 100) : -10;
}

/* The colour bar's tics: the % they stand for, at their log2 ratios within +-spread. */
static void colour_tics(FILE *gp, double spread)
{
	static const double pcts[] = { 1, 2, 5, 10, 25, 50, 67, 80, 90, 95, 100, 105, 110, 125, 150, 200, 400,
				       1000, 2000, 5000, 10000 };
	size_t n = 0;
	double last = -INFINITY;

	fputs("set cbtics (", gp);
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		double v = log2(pcts[i] / 100);

		/* at most ~9 tics: skip one closer than a ninth of the scale to the last, or to 100% (always one) */
		if (fabs(v) > spread * 1.0001 || v - last < 2 * spread / 9 || (v != 0 && fabs(v) < 2 * spread / 9))
			continue;
		fprintf(gp, "%s\"%g%%%%\" %g", n++ ? ", " : "", pcts[i], v);
		last = v;
	}
	fputs(")\n", gp);
}

/* The caption under the plot: what a cell's numbers and its hatching are, a line each (a column is narrow). */
static void caption(FILE *gp, size_t noise, double height_in)
{
	const char *lines[] = {
		"in a cell: % of baseline, runs n, Welch p (Holm)",
		noise ? "hatched: no significant difference from the baseline" : "every cell differs from the baseline",
		noise ? "(p >= 0.05, or untested: a side with one run)" : "(p < 0.05)",
	};

	for (int i = 0; i < 3; i++) {
		fprintf(gp, "set label %d ", i + 1);
		tl_quote_gnuplot(gp, lines[i]);
		fprintf(gp, " at screen 0.02, screen %.4f left\n", (2.6 - 1.1 * i) * tl_plot_line_in() / height_in);
	}
}

int tl_plot_heatmap(const struct tl_report *rep, const char *policy, const struct tl_plot_files *f,
		    FILE *gp, FILE *dat)
{
	bool *chosen = calloc(rep->nrows + 1, sizeof(*chosen));
	struct level *xs = calloc(rep->nrows + 1, sizeof(*xs)), *ys = calloc(rep->nrows + 1, sizeof(*ys));
	double *p = calloc(rep->nrows + 1, sizeof(*p)), *padj = calloc(rep->nrows + 1, sizeof(*padj));
	size_t *cell = NULL, nx, ny, n = 0, dropped = 0, noise = 0;
	char base[128], title[512];
	double spread = 0.05, width, height;	/* the largest |log2(% / 100)|: the colour scale's half width */
	int ret = -ENOMEM;

	if (!chosen || !xs || !ys || !p || !padj) {
		error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct tl_report_row *r = &rep->rows[i];
		const char *pol = r->values[TL_AXIS_POLICY];
		bool mine = pol && !strcmp(tl_policy_base(pol, base, sizeof(base)), policy);

		chosen[i] = mine && r->values[TL_AXIS_CHUNKS] && r->values[TL_AXIS_RATE] && r->has_pct;
		dropped += mine && !chosen[i] && r->has_pct;
		n += chosen[i];
		p[i] = chosen[i] ? welch_p(rep, r) : NAN;
		if (chosen[i])
			spread = fmax(spread, fabs(log2_pct(r->pct_of_baseline)));
	}
	if (!n) {
		ret = -ENODATA;
		error("policy '%s' has no configuration of experiment '%s' with chunks, rate and a %% of baseline",
		      policy, rep->experiment);
		goto out;
	}
	/* a row without a cell is said, not dropped in silence */
	if (dropped)
		warning("%zu %s of policy '%s' %s no chunks or rate value (the spec's default): not in the heatmap",
			dropped, dropped == 1 ? "configuration" : "configurations", policy, dropped == 1 ? "has" : "have");
	if (tl_holm(p, rep->nrows, padj) < 0) {
		error("out of memory");
		goto out;
	}
	nx = levels(rep, chosen, TL_AXIS_CHUNKS, xs);
	ny = levels(rep, chosen, TL_AXIS_RATE, ys);
	if (!(cell = calloc(nx * ny, sizeof(*cell)))) {
		error("out of memory");
		goto out;
	}
	fputs("# chunks_index rate_index pct_of_baseline chunks rate n p_holm significant(1 yes, 0 no or untested) "
	      "white_text runs_and_p log2_ratio\n", dat);
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct tl_report_row *r = &rep->rows[i];
		bool sig = padj[i] < 0.05;	/* false for NaN: untested */
		char note[64], pv[32];
		size_t x, y;

		if (!chosen[i])
			continue;
		x = level_of(xs, nx, r->values[TL_AXIS_CHUNKS]);
		y = level_of(ys, ny, r->values[TL_AXIS_RATE]);
		if (cell[y * nx + x]) {
			ret = -EINVAL;
			error("policy '%s' has two configurations at chunks=%s rate=%s ('%s' and '%s'): choose one "
			      "with --where", policy, xs[x].text, ys[y].text, rep->rows[cell[y * nx + x] - 1].config_key,
			      r->config_key);
			goto out;
		}
		cell[y * nx + x] = i + 1;
		noise += !sig;
		if (isnan(padj[i]))
			snprintf(pv, sizeof(pv), "untested");
		else if (padj[i] < 0.001)
			snprintf(pv, sizeof(pv), "p<0.001");
		else
			snprintf(pv, sizeof(pv), "p=%.2g", padj[i]);
		snprintf(note, sizeof(note), "n=%zu %s", r->n_fom, pv);
		fprintf(dat, "%zu %zu ", x, y);
		tl_plot_number(dat, r->pct_of_baseline);
		fputc(' ', dat);
		tl_quote_gnuplot_data(dat, xs[x].text);
		fputc(' ', dat);
		tl_quote_gnuplot_data(dat, ys[y].text);
		fprintf(dat, " %zu ", r->n_fom);
		tl_plot_number(dat, padj[i]);
		/* the palette's outer 45% is dark: white text there, black elsewhere */
		fprintf(dat, " %d %d ", sig, fabs(log2_pct(r->pct_of_baseline)) > 0.55 * spread);
		tl_quote_gnuplot_data(dat, note);
		fputc(' ', dat);
		tl_plot_number(dat, log2_pct(r->pct_of_baseline));
		fputc('\n', dat);
	}
	width = f->width_in > 0 ? f->width_in : TL_PLOT_COLUMN_IN;
	height = f->height_in > 0 ? f->height_in : 1.6 + 0.5 * (double)(ny < 3 ? 3 : ny);
	tl_plot_preamble(gp, f, width, height);
	snprintf(title, sizeof(title), "%s: %s, %% of %s", rep->experiment, policy,
		 rep->baseline_text ? rep->baseline_text : "baseline");
	fputs("set title ", gp);
	tl_quote_gnuplot(gp, title);
	fprintf(gp, "\nset xlabel \"chunks (count)\" offset 0,0.5\nset ylabel \"sampling rate\"\n"
		"set xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\n", nx - 1, ny - 1);
	fprintf(gp, "set bmargin at screen %.4f\n", (4.4 * tl_plot_line_in() + 0.3) / height);
	tics(gp, "xtics", xs, nx);
	tics(gp, "ytics", ys, ny);
	caption(gp, noise, height);
	/* diverging around 100%: white is as good as the baseline, red worse, blue better (ColorBrewer RdBu) */
	fputs("set cblabel \"% of baseline\" offset 1.0,0\nset palette defined (0 \"#b2182b\", 1 \"#f7f7f7\", 2 \"#2166ac\")\n", gp);
	fprintf(gp, "set cbrange [%g:%g]\n", -spread, spread);
	colour_tics(gp, spread);
	fputs("set style fill solid 1.0 noborder\nunset key\n"
	      "plot data using 1:2:(0.5):(0.5):11 with boxxyerror fc palette", gp);
	if (noise)
		fputs(", \\\n     '' using ($8 != 0 ? NaN : $1):2:(0.5):(0.5) with boxxyerror fs transparent pattern 4 noborder "
		      "lc rgb \"#303030\"", gp);
	fputs(", \\\n     '' using 1:($2 + 0.13):(sprintf(\"%.1f%%\", $3)):($9 != 0 ? 0xffffff : 0) with labels "
	      "tc rgb variable, \\\n"
	      "     '' using 1:($2 - 0.17):10:($9 != 0 ? 0xffffff : 0) with labels tc rgb variable\n", gp);
	ret = ferror(gp) || ferror(dat) ? -EIO : 0;
	if (ret)
		error("cannot write '%s' or '%s'", f->script, f->data);
out:
	free(cell);
	free(padj);
	free(p);
	free(ys);
	free(xs);
	free(chosen);
	return ret;
}
