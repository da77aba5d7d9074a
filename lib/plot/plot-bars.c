/*
 * The paper-style bar chart (SHAMBLES's Figure 1) over the report model.
 * The data file holds one block per panel (gnuplot's `index`), one line
 * per bar; the script draws, per panel, the bars, their 95% intervals, the
 * hit rate on the second axis and the baseline rows as dashed lines, and
 * labels each bar with its configuration, % of baseline and GiB migrated.
 */
#include "plot/plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/report-format.h"
#include "util/error.h"
#include "util/quote.h"

/* Axes that make a panel besides `by`: bars of two workloads share no scale. */
static const enum tl_axis panel_axes[] = { TL_AXIS_WORKLOAD, TL_AXIS_SIZE };

static bool is_line(const struct tl_report_row *r)
{
	const char *p = r->values[TL_AXIS_POLICY];

	return p && (!strcmp(p, "all-fast") || !strcmp(p, "all-slow"));
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Does row r belong in the panel whose first bar is p? (NULL on `by`: in every panel.) */
static bool in_panel(const struct tl_report_row *r, const struct tl_report_row *p, enum tl_axis by)
{
	for (size_t i = 0; i < sizeof(panel_axes) / sizeof(panel_axes[0]); i++)
		if (panel_axes[i] != by && !same(r->values[panel_axes[i]], p->values[panel_axes[i]]))
			return false;
	return !r->values[by] || same(r->values[by], p->values[by]);
}

/* Do two bars hold different values of axis a? (A bar the axis does not apply to has none.) */
static bool varies_among_bars(const struct tl_report *rep, enum tl_axis a)
{
	const char *first = NULL;

	for (size_t i = 0; i < rep->nrows; i++) {
		const char *v = rep->rows[i].values[a];

		if (is_line(&rep->rows[i]) || !v)
			continue;
		if (first && strcmp(first, v))
			return true;
		first = first ? first : v;
	}
	return false;
}

/* The panel's title: by=value, and the workload and size when they vary. */
static void panel_title(FILE *gp, const struct tl_report *rep, const struct tl_report_row *p, enum tl_axis by)
{
	char t[512];
	size_t len = 0;

	t[0] = '\0';
	for (size_t i = 0; i < sizeof(panel_axes) / sizeof(panel_axes[0]); i++) {
		enum tl_axis a = panel_axes[i];

		if (a != by && varies_among_bars(rep, a) && p->values[a] && len < sizeof(t))
			len += snprintf(t + len, sizeof(t) - len, "%s%s=%s", len ? " " : "", tl_axes[a].name,
					p->values[a]);
	}
	if (len < sizeof(t))
		snprintf(t + len, sizeof(t) - len, "%s%s=%s", len ? " " : "", tl_axes[by].name,
			 p->values[by] ? p->values[by] : "-");
	fputs("set title ", gp);
	tl_quote_gnuplot(gp, t);
	fputc('\n', gp);
}

/* The axes that vary among bars other than its policy and those the panel names: "chunks=8 window=16". */
static size_t other_axes(const struct tl_report *rep, const struct tl_report_row *r, enum tl_axis by, char *t,
			 size_t size)
{
	size_t len = 0;

	t[0] = '\0';
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		if (a == TL_AXIS_POLICY || a == (int)by || a == TL_AXIS_WORKLOAD || a == TL_AXIS_SIZE ||
		    !varies_among_bars(rep, a) || !r->values[a] || len >= size)
			continue;
		len += snprintf(t + len, size - len, "%s%s=%s", len ? " " : "", tl_axes[a].name, r->values[a]);
	}
	return len < size ? len : size - 1;
}

/* A bar's name: its policy, then (a second field) the other axes, "-" when none. */
static void bar_label(FILE *dat, const struct tl_report *rep, const struct tl_report_row *r, enum tl_axis by)
{
	char t[512];

	tl_quote_gnuplot_data(dat, r->values[TL_AXIS_POLICY] ? r->values[TL_AXIS_POLICY] : "-");
	fputc(' ', dat);
	tl_quote_gnuplot_data(dat, other_axes(rep, r, by, t, sizeof(t)) ? t : "-");
}

/* Index of the first row with this policy: bars of one policy stand together, in report order. */
static size_t policy_rank(const struct tl_report *rep, const struct tl_report_row *r)
{
	for (size_t i = 0; i < rep->nrows; i++)
		if (same(rep->rows[i].values[TL_AXIS_POLICY], r->values[TL_AXIS_POLICY]))
			return i;
	return rep->nrows;
}

struct bar {
	size_t row, rank;
};

static int cmp_bar(const void *a, const void *b)
{
	const struct bar *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* The bars of the panel whose first bar is p, in drawing order, into bars[]; returns their count. */
static size_t panel_bars(const struct tl_report *rep, const struct tl_report_row *p, enum tl_axis by,
			 struct bar *bars)
{
	size_t n = 0;

	for (size_t i = 0; i < rep->nrows; i++)
		if (!is_line(&rep->rows[i]) && in_panel(&rep->rows[i], p, by))
			bars[n++] = (struct bar){ i, policy_rank(rep, &rep->rows[i]) };
	qsort(bars, n, sizeof(*bars), cmp_bar);
	return n;
}

/* One data block: the panel's bars in policy groups, a gap of half a bar between groups. */
static void write_block(FILE *dat, const struct tl_report *rep, const struct tl_report_row *p,
			enum tl_axis by, struct bar *bars, double *xmax)
{
	size_t n = panel_bars(rep, p, by, bars);
	double x = 0;

	fputs("# x policy other_axes fom_mean fom_ci95 hit_rate_pct migrated_gib pct_of_baseline n fom_sd\n", dat);
	for (size_t i = 0; i < n; i++) {
		const struct tl_report_row *r = &rep->rows[bars[i].row];

		if (i && bars[i].rank != bars[i - 1].rank)
			x += 0.5;
		tl_plot_number(dat, x);
		fputc(' ', dat);
		bar_label(dat, rep, r, by);
		fputc(' ', dat);
		tl_plot_number(dat, r->n_fom ? r->mean : NAN);
		fputc(' ', dat);
		tl_plot_number(dat, r->n_fom > 1 ? r->ci95 : NAN);
		fputc(' ', dat);
		tl_plot_number(dat, r->n_hit_rate ? 100 * r->hit_rate : NAN);
		fputc(' ', dat);
		tl_plot_number(dat, r->n_migrated ? r->migrated_gib : NAN);
		fputc(' ', dat);
		tl_plot_number(dat, r->has_pct ? r->pct_of_baseline : NAN);
		fprintf(dat, " %zu ", r->n_fom);
		tl_plot_number(dat, r->n_fom ? r->sd : NAN);
		fputc('\n', dat);
		*xmax = x;
		x += 1;
	}
}

/* Panels: the rows that first show a distinct (by, workload, size) among the bars. */
static size_t find_panels(const struct tl_report *rep, enum tl_axis by, size_t *first)
{
	size_t n = 0;
	bool any_value = false;

	for (size_t i = 0; i < rep->nrows; i++)
		any_value |= !is_line(&rep->rows[i]) && rep->rows[i].values[by];
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct tl_report_row *r = &rep->rows[i];
		size_t j;

		/* a bar without a value for `by` makes a panel only when no bar has one */
		if (is_line(r) || (any_value && !r->values[by]))
			continue;
		for (j = 0; j < n; j++)
			if (in_panel(r, &rep->rows[first[j]], by) && same(r->values[by], rep->rows[first[j]].values[by]))
				break;
		if (j == n)
			first[n++] = i;
	}
	return n;
}

/* Do r and p share a scale: the same workload and size (other figures of merit, other units)? */
static bool same_scale(const struct tl_report_row *r, const struct tl_report_row *p)
{
	for (size_t i = 0; i < sizeof(panel_axes) / sizeof(panel_axes[0]); i++)
		if (!same(r->values[panel_axes[i]], p->values[panel_axes[i]]))
			return false;
	return true;
}

/* The highest point drawn among the panels of p's workload and size: a bar's interval or a line. */
static double top_of(const struct tl_report *rep, const struct tl_report_row *p)
{
	double top = 0;

	for (size_t i = 0; i < rep->nrows; i++) {
		const struct tl_report_row *r = &rep->rows[i];

		if (r->n_fom && same_scale(r, p))
			top = fmax(top, r->mean + (!is_line(r) && r->n_fom > 1 && isfinite(r->ci95) ? r->ci95 : 0));
	}
	return top > 0 ? top : 1;
}

/* Does a bar of the panel have a hit rate? (A point plot with none makes gnuplot complain.) */
static bool panel_hits(const struct tl_report *rep, const struct bar *bars, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rep->rows[bars[i].row].n_hit_rate)
			return true;
	return false;
}

/* The panel's figure of merit: its unit and direction, as its first bar has them. */
static void panel_ylabel(FILE *gp, const struct tl_report_row *p)
{
	char t[160];

	snprintf(t, sizeof(t), "figure of merit (%s%s%s is better)", p->fom_unit ? p->fom_unit : "",
		 p->fom_unit ? ", " : "", p->higher_is_better ? "higher" : "lower");
	fputs("set ylabel ", gp);
	tl_quote_gnuplot(gp, t);
	fputc('\n', gp);
}

/* The dashed baseline lines of a panel: `, 1.95 with lines dt 2 title "all-fast 1.95 GF/s"`. */
static void baseline_lines(FILE *gp, const struct tl_report *rep, const struct tl_report_row *p, enum tl_axis by)
{
	int style = 0;

	for (size_t i = 0; i < rep->nrows; i++) {
		const struct tl_report_row *r = &rep->rows[i];
		char mean[64], title[256];

		if (!is_line(r) || !r->n_fom || !in_panel(r, p, by))
			continue;
		tl_fmt_sig(mean, sizeof(mean), r->mean, 3);
		snprintf(title, sizeof(title), "%s %s %s", r->values[TL_AXIS_POLICY], mean,
			 r->fom_unit ? r->fom_unit : "");
		fputs(", \\\n     ", gp);
		tl_plot_number(gp, r->mean);
		fprintf(gp, " with lines dt %d lw 2 lc rgb \"%s\" title ", style ? 3 : 2,
			!strcmp(r->values[TL_AXIS_POLICY], "all-fast") ? "#1b9e77" : "#d95f02");
		tl_quote_gnuplot(gp, title);
		style++;
	}
}

int tl_plot_bars(const struct tl_report *rep, enum tl_axis by, const struct tl_plot_files *f, FILE *gp,
		 FILE *dat)
{
	size_t *first = calloc(rep->nrows + 1, sizeof(*first)), npanels, cols;
	struct bar *bars = calloc(rep->nrows + 1, sizeof(*bars));
	double most = 0, longest = 0;
	int ret = 0;

	if (!first || !bars) {
		ret = -ENOMEM;
		error("out of memory");
		goto out;
	}
	if (!(npanels = find_panels(rep, by, first))) {
		ret = -ENODATA;
		error("experiment '%s' has no configuration to draw as a bar (only all-fast and all-slow)",
		      rep->experiment);
		goto out;
	}
	cols = npanels < 3 ? npanels : 3;
	/*
	 * the widest panel sets the width: a bar as wide as the longest name
	 * under it (8 pixels a character), and room for the axes' margins
	 */
	for (size_t k = 0; k < npanels; k++) {
		size_t nb = panel_bars(rep, &rep->rows[first[k]], by, bars);
		char t[512];

		most = fmax(most, (double)nb);
		for (size_t b = 0; b < nb; b++)
			longest = fmax(longest, (double)other_axes(rep, &rep->rows[bars[b].row], by, t, sizeof(t)));
	}
	tl_plot_preamble(gp, f, 60 + (int)fmax(420, 220 + fmax(105, 8 * longest) * (most + 1)) * (int)cols,
			 60 + 420 * (int)((npanels + cols - 1) / cols));
	fprintf(gp, "set multiplot layout %zu,%zu title ", (npanels + cols - 1) / cols, cols);
	{
		char t[512];

		snprintf(t, sizeof(t), "%s: figure of merit per configuration (error bars: 95%% interval of the mean)%s%s",
			 rep->experiment, rep->has_baseline ? ", % of baseline " : "",
			 rep->has_baseline ? rep->baseline_text : "");
		tl_quote_gnuplot(gp, t);
	}
	fputs("\nset style fill solid 0.7 border -1\nset boxwidth 0.8 absolute\n"
	      "set ytics nomirror\nset xtics nomirror scale 0\n"
	      "set key outside bottom center horizontal\nset bmargin 10\nset grid ytics\n", gp);
	/* under each bar: its name, % of baseline and data migrated, in MiB below 0.01 GiB ("-" when none) */
	fputs("label(c, o, p, g) = strcol(c) . \"\\n\" . strcol(o) . \"\\n\" . (valid(p) ? sprintf(\"%.1f%%\", column(p)) : \"-\") . \"\\n\" . "
	      "(!valid(g) ? \"-\" : column(g) < 0.01 ? sprintf(\"%.1f MiB\", 1024 * column(g)) : "
	      "sprintf(\"%.2f GiB\", column(g)))\n", gp);
	for (size_t k = 0; k < npanels; k++) {
		const struct tl_report_row *p = &rep->rows[first[k]];
		double xmax = 0;
		bool hits;

		if (k)
			fputs("\n\n", dat);
		fprintf(dat, "# panel %zu\n", k);
		write_block(dat, rep, p, by, bars, &xmax);
		fprintf(gp, "set xrange [-0.7:%g]\n", xmax + 0.7);
		/* one scale for the panels of a workload and size, so their bars compare across them */
		fputs("set yrange [0:", gp);
		tl_plot_number(gp, 1.1 * top_of(rep, p));
		fputs("]\n", gp);
		hits = panel_hits(rep, bars, panel_bars(rep, p, by, bars));
		fputs(hits ? "set y2range [0:100]\nset y2tics 20\nset y2label \"hit rate (%)\"\n"
			   : "unset y2tics\nunset y2label\n", gp);
		panel_title(gp, rep, p, by);
		panel_ylabel(gp, p);
		fprintf(gp, "plot data index %zu using 1:4:xticlabels(label(2, 3, 8, 7)) with boxes "
			"lc rgb \"#7570b3\" title \"figure of merit\", \\\n"
			"     '' index %zu using 1:4:5 with yerrorbars lc rgb \"black\" pt -1 title \"95%% interval\"",
			k, k);
		if (hits)
			fprintf(gp, ", \\\n     '' index %zu using 1:6 axes x1y2 with points pt 7 ps 1.2 "
				"lc rgb \"#e7298a\" title \"hit rate\"", k);
		baseline_lines(gp, rep, p, by);
		fputc('\n', gp);
	}
	fputs("unset multiplot\n", gp);
	if (ferror(gp) || ferror(dat)) {
		ret = -EIO;
		error("cannot write '%s' or '%s'", f->script, f->data);
	}
out:
	free(bars);
	free(first);
	return ret;
}
