/*
 * The FAT paper's figure: each allocator's hardware counters (dTLB walks,
 * refills, cache misses, cycles: whatever the experiment counted) as a %
 * of the baseline's (glibc's), a cluster of bars per counter, one bar per
 * allocator in its colour. Where no counter was counted (a machine
 * without a PMU records them unavailable, never as zero) the figure draws
 * wall time and the page tables' peak size (VmPTE, where the runs stored
 * it) instead, and says so on the figure, with the reason.
 */
#include "plot/plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"
#include "util/quote.h"

static const char *name_of(const struct tl_report_row *r, enum tl_axis colour)
{
	return r->values[colour] ? r->values[colour] : "-";
}

/* Row i's event e as a % of its baseline's, NaN when either did not count it. */
static double pct_of(const struct tl_report *rep, size_t i, size_t e)
{
	const struct tl_report_row *r = &rep->rows[i];
	const struct tl_report_counter *c, *b;

	if (!rep->has_counters || r->baseline < 0 || !rep->nevents)
		return NAN;
	c = &rep->counters[i * rep->nevents + e];
	b = &rep->counters[(size_t)r->baseline * rep->nevents + e];
	return c->n && b->n && b->mean > 0 ? 100 * c->mean / b->mean : NAN;
}

/* Without counters: row i's wall time (m 0) or VmPTE (m 1) as a % of its baseline's, NaN when either lacks it. */
static double fallback_pct(const struct tl_report *rep, const double *vmpte, size_t i, size_t m)
{
	const struct tl_report_row *r = &rep->rows[i];
	double v, base;

	if (r->baseline < 0)
		return NAN;
	v = m ? vmpte[i] : r->n_ok ? r->wall_mean : NAN;
	base = m ? vmpte[r->baseline] : rep->rows[r->baseline].wall_mean;
	return base > 0 && !isnan(v) ? 100 * v / base : NAN;
}

/*
 * Is row i a bar: not the baseline, compared with one, with a value of
 * some metric drawn (nfall: wall time, and VmPTE when 2, without counters)?
 */
static bool is_bar(const struct tl_report *rep, size_t i, size_t nfall, const double *vmpte, const size_t *metric,
		   size_t nmetrics)
{
	if (rep->rows[i].is_baseline || rep->rows[i].baseline < 0)
		return false;
	for (size_t m = 0; m < nfall; m++)
		if (!isnan(fallback_pct(rep, vmpte, i, m)))
			return true;
	for (size_t m = 0; m < nmetrics; m++)
		if (!isnan(pct_of(rep, i, metric[m])))
			return true;
	return false;
}

int tl_plot_counters(const struct tl_report *rep, const double *vmpte, const struct tl_plot_files *f, FILE *gp,
		     FILE *dat)
{
	enum tl_axis colour = TL_AXIS_ALLOCATOR;
	size_t nbars = 0, nmetrics = 0, *metric = calloc(rep->nevents + 1, sizeof(*metric));
	double width = f->width_in > 0 ? f->width_in : TL_PLOT_COLUMN_IN, line = tl_plot_line_in(), height, top = 100;
	const char *missing = NULL;
	bool wall;
	size_t nfall = 0, ndrawn;
	char t[512];

	if (!metric) {
		error("out of memory");
		return -ENOMEM;
	}
	/* allocators when they vary, else policies: the bars are what the experiment compares */
	for (size_t i = 1; i < rep->nrows; i++)
		if (strcmp(name_of(&rep->rows[i], TL_AXIS_ALLOCATOR), name_of(&rep->rows[0], TL_AXIS_ALLOCATOR)))
			break;
		else if (i + 1 == rep->nrows)
			colour = TL_AXIS_POLICY;
	for (size_t e = 0; e < rep->nevents; e++) {
		bool any = false;

		for (size_t i = 0; i < rep->nrows; i++) {
			any |= !rep->rows[i].is_baseline && !isnan(pct_of(rep, i, e));
			if (rep->counters[i * rep->nevents + e].missing && !missing)
				missing = rep->counters[i * rep->nevents + e].missing;
		}
		if (any)
			metric[nmetrics++] = e;
	}
	wall = !nmetrics;
	if (wall) {
		nfall = 1;
		for (size_t i = 0; i < rep->nrows && nfall == 1; i++)
			if (!rep->rows[i].is_baseline && !isnan(fallback_pct(rep, vmpte, i, 1)))
				nfall = 2;
	}
	ndrawn = wall ? nfall : nmetrics;
	for (size_t i = 0; i < rep->nrows; i++)
		nbars += is_bar(rep, i, nfall, vmpte, metric, nmetrics);
	if (!nbars) {
		free(metric);
		error("experiment '%s' has no configuration compared with a baseline (--baseline allocator=system)",
		      rep->experiment);
		return -ENODATA;
	}
	fputs("# x metric_index bar_index pct_of_baseline\n", dat);
	for (size_t m = 0; m < ndrawn; m++) {
		size_t k = 0;

		for (size_t i = 0; i < rep->nrows; i++) {
			double v;

			if (!is_bar(rep, i, nfall, vmpte, metric, nmetrics))
				continue;
			v = wall ? fallback_pct(rep, vmpte, i, m) : pct_of(rep, i, metric[m]);
			tl_plot_number(dat, (double)m * ((double)nbars + 1) + (double)k);
			fprintf(dat, " %zu %zu ", m, k++);
			tl_plot_number(dat, v);
			fputc('\n', dat);
			top = fmax(top, isnan(v) ? 0 : v);
		}
	}
	height = f->height_in > 0 ? f->height_in : 2.6 + (wall ? 2 * line : 0) + (double)(nbars + 2) / 3 * line;
	tl_plot_preamble(gp, f, width, height);
	snprintf(t, sizeof(t), "%s: %s as %% of %s", rep->experiment,
		 !wall ? "counters" : nfall > 1 ? "wall time, page tables" : "wall time",
		 rep->baseline_text ? rep->baseline_text : "the baseline");
	fputs("set label 2 ", gp);
	tl_quote_gnuplot(gp, t);
	fprintf(gp, " at screen 0.5, screen %.4f center\n", 1 - 1.1 * line / height);
	if (wall) {
		/* said on the figure: a reader of the PDF never sees stderr */
		snprintf(t, sizeof(t), "no hardware counter was counted (%s),\nso wall time%s instead",
			 missing ? missing : "none asked for", nfall > 1 ? " and VmPTE" : "");
		fputs("set label 1 ", gp);
		tl_plot_two_lines(gp, t, false);
		fprintf(gp, " at screen 0.5, screen %.4f center\n", 1 - 2.75 * line / height);
	}
	fprintf(gp, "set tmargin at screen %.4f\nset bmargin at screen %.4f\nset lmargin at screen %.4f\n"
		"set rmargin at screen 0.97\n", 1 - ((wall ? 4.2 : 2.2) * line + 0.05) / height,
		((double)(nbars + 2) / 3 * line + 6 * line) / height, 0.6 / width);
	snprintf(t, sizeof(t), "%% of %s", rep->baseline_text ? rep->baseline_text : "baseline");
	fputs("set ylabel ", gp);
	tl_quote_gnuplot(gp, t);
	fprintf(gp, "\nset yrange [0:%g]\nset xrange [-0.8:%g]\nset style fill solid 0.85 border -1\nset boxwidth 0.8 "
		"absolute\nset grid ytics lc rgb \"#dddddd\"\nset xtics nomirror scale 0 rotate by 30 right\n"
		"set key at screen 0.5, screen 0.01 center bottom horizontal samplen 1.5\nset xtics (",
		ceil(top * 1.1 / 10) * 10, (double)ndrawn * ((double)nbars + 1) - 1.2);
	for (size_t m = 0; m < ndrawn; m++) {
		fputs(m ? ", " : "", gp);
		tl_quote_gnuplot_tic(gp, !wall ? rep->events[metric[m]] : m ? "VmPTE (page tables)" : "wall time");
		fprintf(gp, " %g", (double)m * ((double)nbars + 1) + ((double)nbars - 1) / 2);
	}
	fputs(")\nplot 100 with lines dt 2 lc rgb \"#999999\" notitle", gp);
	for (size_t i = 0, k = 0; i < rep->nrows; i++) {
		const struct tl_report_row *r = &rep->rows[i];
		struct tl_plot_style s;
		bool named = false;

		if (!is_bar(rep, i, nfall, vmpte, metric, nmetrics))
			continue;
		/* one key entry a name: two lru rows are one colour */
		for (size_t j = 0; j < i && !named; j++)
			named = is_bar(rep, j, nfall, vmpte, metric, nmetrics) &&
				!strcmp(name_of(&rep->rows[j], colour), name_of(r, colour));
		s = tl_plot_style_of(name_of(r, colour));
		fprintf(gp, ", \\\n     data using 1:($3 == %zu ? $4 : NaN) with boxes lc rgb \"%s\" ", k, s.colour);
		if (named) {
			fputs("notitle", gp);
		} else {
			fputs("title ", gp);
			tl_quote_gnuplot(gp, name_of(r, colour));
		}
		/* grey print: the allocator's pattern over its colour, as in the bar chart */
		if (s.pattern)
			fprintf(gp, ", \\\n     data using 1:($3 == %zu ? $4 : NaN) with boxes fs transparent pattern %d "
				"noborder lc rgb \"#404040\" notitle", k, s.pattern);
		k++;
	}
	fputc('\n', gp);
	free(metric);
	if (ferror(gp) || ferror(dat)) {
		error("cannot write '%s' or '%s'", f->script, f->data);
		return -EIO;
	}
	return 0;
}
