/*
 * The paper-style bar chart (SHAMBLES's Figure 1) over the report model.
 * The data file holds one block per panel (gnuplot's `index`), one line
 * per bar; the script draws, per panel, one clause per policy (its colour
 * and fill pattern from the one palette), the 95% intervals where three
 * runs or more stand behind a mean (the runs themselves otherwise), the
 * hit rate on the second axis, each bar's % of baseline above it, and the
 * baseline rows as lines; one key for the whole figure.
 */
#include "plot/plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/report-format.h"
#include "util/error.h"
#include "util/quote.h"
#include "util/units.h"

/* Axes that make a panel besides `by`: bars of two workloads share no scale. */
static const enum tl_axis panel_axes[] = { TL_AXIS_WORKLOAD, TL_AXIS_SIZE };
#define NPANEL_AXES (sizeof(panel_axes) / sizeof(panel_axes[0]))

/* A panel's plot area in inches: the bars' room, and the margins around it. */
#define BAR_IN 0.2		/* one bar and its share of the gaps */
#define LEFT_IN 0.62		/* y tics and label */
#define RIGHT_IN 0.55		/* hit-rate tics and label */
#define LINE_ROOM_IN 0.4	/* right of the bars: the baseline lines' values */
#define PLOT_H_IN 1.45		/* the plot area's height */
#define CHAR_IN (TL_PLOT_FONT_PT * 0.6 / 72.0)	/* an average character's width */

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/*
 * A row drawn as a line, not a bar: all-fast and all-slow, and the
 * baseline (an allocator experiment's glibc), which every bar is a % of.
 */
static bool is_line(const struct tl_report_row *r)
{
	const char *p = r->values[TL_AXIS_POLICY];

	return r->is_baseline || tl_policy_bounds(p);
}

/*
 * Do two bars hold different values of axis a? A bar without a value
 * differs from one with a value only when the axis applies to it (it ran
 * with the default): policy none has no budget, and that is no variation.
 */
static bool varies_among_bars(const struct tl_report *rep, enum tl_axis a)
{
	const char *first = NULL;
	bool defaulted = false;

	for (size_t i = 0; i < rep->nrows; i++) {
		const char *v = rep->rows[i].values[a];

		if (is_line(&rep->rows[i]))
			continue;
		if (!v) {
			defaulted |= a != TL_AXIS_POLICY && tl_axis_applies(a, rep->rows[i].values[TL_AXIS_POLICY]);
			continue;
		}
		if (first && strcmp(first, v))
			return true;
		first = first ? first : v;
	}
	return first && defaulted;
}

/* The figure's state: the report, the panel axis, what names a bar's colour. */
struct bars {
	const struct tl_report *rep;
	enum tl_axis by;
	enum tl_axis colour;		/* policy, or allocator when only it varies */
	const char **groups;		/* the distinct values of `colour` among the bars, in report order */
	size_t ngroups;
	bool tic_axes[TL_AXIS__COUNT];	/* the axes a tic label names besides `colour` */
	bool any_hits, any_few, any_ci;
};

static size_t group_of(const struct bars *b, const struct tl_report_row *r)
{
	const char *v = r->values[b->colour] ? r->values[b->colour] : "-";

	for (size_t g = 0; g < b->ngroups; g++)
		if (!strcmp(b->groups[g], v))
			return g;
	return b->ngroups;
}

/*
 * Does bar r belong in the panel whose first bar is p? A bar without a
 * value for `by` is in every panel only when the axis does not apply to
 * it (policy none has no rate); where it applies, its value was the
 * default, which is one value among the others, not all of them.
 */
static bool in_panel(const struct bars *b, const struct tl_report_row *r, const struct tl_report_row *p)
{
	for (size_t i = 0; i < NPANEL_AXES; i++)
		if (panel_axes[i] != b->by && !same(r->values[panel_axes[i]], p->values[panel_axes[i]]))
			return false;
	if (!r->values[b->by] && !tl_axis_applies(b->by, r->values[TL_AXIS_POLICY]))
		return true;
	return same(r->values[b->by], p->values[b->by]);
}

/* A bar's tic label: its colour axis's value (when more than one), then the other axes' values, and n when under 3. */
static void tic_label(const struct bars *b, const struct tl_report_row *r, char *t, size_t size)
{
	size_t len = 0;

	t[0] = '\0';
	if (b->ngroups > 1)
		len += (size_t)snprintf(t, size, "%s", r->values[b->colour] ? r->values[b->colour] : "-");
	/* an axis that does not apply to the bar's policy (window to lru) is left out, not "-" */
	for (int a = 0; a < TL_AXIS__COUNT && len < size; a++)
		if (b->tic_axes[a] && (r->values[a] || tl_axis_applies((enum tl_axis)a, r->values[TL_AXIS_POLICY])))
			len += (size_t)snprintf(t + len, size - len, "%s%s", len ? " " : "",
						r->values[a] ? r->values[a] : "default");
	if (r->n_fom < TL_STATS_FEW_RUNS && len < size)
		len += (size_t)snprintf(t + len, size - len, "%sn=%zu", len ? " " : "", r->n_fom);
	if (!len)
		snprintf(t, size, "%s", r->values[b->colour] ? r->values[b->colour] : "-");
}

/* What the tic labels hold, for the x axis's label: "policy, chunks, window". */
static void xlabel(FILE *gp, const struct bars *b)
{
	char t[256];
	size_t len = 0;

	t[0] = '\0';
	if (b->ngroups > 1)
		len += (size_t)snprintf(t, sizeof(t), "%s", tl_axes[b->colour].name);
	for (int a = 0; a < TL_AXIS__COUNT && len < sizeof(t); a++)
		if (b->tic_axes[a])
			len += (size_t)snprintf(t + len, sizeof(t) - len, "%s%s", len ? ", " : "", tl_axes[a].name);
	fputs("set xlabel ", gp);
	tl_quote_gnuplot(gp, len ? t : tl_axes[b->colour].name);
	fputc('\n', gp);
}

struct bar {
	size_t row, group;
};

static int cmp_bar(const void *a, const void *b)
{
	const struct bar *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* The bars of the panel whose first bar is p, in drawing order (groups together), into out[]; their count. */
static size_t panel_bars(const struct bars *b, const struct tl_report_row *p, struct bar *out)
{
	size_t n = 0;

	for (size_t i = 0; i < b->rep->nrows; i++)
		if (!is_line(&b->rep->rows[i]) && in_panel(b, &b->rep->rows[i], p))
			out[n++] = (struct bar){ i, group_of(b, &b->rep->rows[i]) };
	qsort(out, n, sizeof(*out), cmp_bar);
	return n;
}

/* The top of what a bar draws: its interval (n >= 3) or its largest run. */
static double bar_top(const struct tl_report_row *r)
{
	if (!r->n_fom)
		return 0;
	if (r->n_fom >= TL_STATS_FEW_RUNS && isfinite(r->ci95))
		return r->mean + r->ci95;
	return fmax(r->mean, r->max);
}

static double bar_bottom(const struct tl_report_row *r)
{
	if (!r->n_fom)
		return 0;
	if (r->n_fom >= TL_STATS_FEW_RUNS && isfinite(r->ci95))
		return r->mean - r->ci95;
	return fmin(r->mean, r->min);
}

/* One data block: the panel's bars in groups, a gap of half a bar between groups; returns the last x. */
static double write_block(FILE *dat, const struct bars *b, struct bar *bars, size_t n)
{
	double x = 0, xmax = 0;

	fputs("# x group tic_label fom_mean fom_ci95(n>=3) hit_rate_pct migrated_gib pct_of_baseline n fom_sd "
	      "run_min(n<3) run_max(n<3) label_y group_index\n", dat);
	for (size_t i = 0; i < n; i++) {
		const struct tl_report_row *r = &b->rep->rows[bars[i].row];
		bool few = r->n_fom < TL_STATS_FEW_RUNS;
		char t[512];

		if (i && bars[i].group != bars[i - 1].group)
			x += 0.5;
		tl_plot_number(dat, x);
		fputc(' ', dat);
		tl_quote_gnuplot_data(dat, r->values[b->colour] ? r->values[b->colour] : "-");
		fputc(' ', dat);
		tic_label(b, r, t, sizeof(t));
		tl_quote_gnuplot_data(dat, t);
		fputc(' ', dat);
		tl_plot_number(dat, r->n_fom ? r->mean : NAN);
		fputc(' ', dat);
		tl_plot_number(dat, !few ? r->ci95 : NAN);
		fputc(' ', dat);
		tl_plot_number(dat, r->n_hit_rate ? 100 * r->hit_rate : NAN);
		fputc(' ', dat);
		tl_plot_number(dat, r->n_migrated ? r->migrated_gib : NAN);
		fputc(' ', dat);
		tl_plot_number(dat, r->has_pct ? r->pct_of_baseline : NAN);
		fprintf(dat, " %zu ", r->n_fom);
		tl_plot_number(dat, r->n_fom ? r->sd : NAN);
		fputc(' ', dat);
		tl_plot_number(dat, few && r->n_fom ? r->min : NAN);
		fputc(' ', dat);
		tl_plot_number(dat, few && r->n_fom > 1 ? r->max : NAN);
		fputc(' ', dat);
		tl_plot_number(dat, r->n_fom ? bar_top(r) : 0);
		fprintf(dat, " %zu\n", bars[i].group);
		xmax = x;
		x += 1;
	}
	return xmax;
}

/* A panel's value of `by` as a number, for their order: 10Hz before 100Hz, chunks 2 before 16. */
static double by_value(enum tl_axis by, const char *text)
{
	double v;
	char *end;

	if (!text)
		return -INFINITY;	/* the default first */
	if (by == TL_AXIS_RATE && !tl_parse_rate(text, &v))
		return v;
	v = strtod(text, &end);
	return end != text ? v : NAN;
}

static const struct bars *sort_bars;

/* Panels of one workload and size together (in report order), then by the value of `by`: numbers, then names. */
static int cmp_panel(const void *a, const void *b)
{
	const struct tl_report_row *x = &sort_bars->rep->rows[*(const size_t *)a];
	const struct tl_report_row *y = &sort_bars->rep->rows[*(const size_t *)b];
	double vx, vy;

	for (size_t i = 0; i < NPANEL_AXES; i++)
		if (panel_axes[i] != sort_bars->by && !same(x->values[panel_axes[i]], y->values[panel_axes[i]]))
			return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
	vx = by_value(sort_bars->by, x->values[sort_bars->by]);
	vy = by_value(sort_bars->by, y->values[sort_bars->by]);
	if (!isnan(vx) && !isnan(vy) && vx != vy)
		return vx < vy ? -1 : 1;
	if (isnan(vx) != isnan(vy))
		return isnan(vx) ? 1 : -1;
	if (x->values[sort_bars->by] && y->values[sort_bars->by])
		return strcmp(x->values[sort_bars->by], y->values[sort_bars->by]);
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/*
 * Panels: the bars that first show a distinct (by, workload, size), in
 * order. A bar the axis does not apply to makes a panel only when no bar
 * has a value; one the axis applies to without a value (the default
 * chunks) makes its own panel.
 */
static size_t find_panels(const struct bars *b, size_t *first)
{
	const struct tl_report *rep = b->rep;
	size_t n = 0;
	bool any_value = false;

	for (size_t i = 0; i < rep->nrows; i++)
		any_value |= !is_line(&rep->rows[i]) && rep->rows[i].values[b->by];
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct tl_report_row *r = &rep->rows[i];
		size_t j;

		if (is_line(r) ||
		    (any_value && !r->values[b->by] && !tl_axis_applies(b->by, r->values[TL_AXIS_POLICY])))
			continue;
		for (j = 0; j < n; j++)
			if (in_panel(b, r, &rep->rows[first[j]]) &&
			    same(r->values[b->by], rep->rows[first[j]].values[b->by]))
				break;
		if (j == n)
			first[n++] = i;
	}
	sort_bars = b;
	qsort(first, n, sizeof(*first), cmp_panel);
	return n;
}

/* Do r and p share a scale: the same workload and size (other figures of merit, other units)? */
static bool same_scale(const struct tl_report_row *r, const struct tl_report_row *p)
{
	for (size_t i = 0; i < NPANEL_AXES; i++)
		if (!same(r->values[panel_axes[i]], p->values[panel_axes[i]]))
			return false;
	return true;
}

/* The range drawn among the panels of p's workload and size: bars, their intervals or runs, the lines. */
static void range_of(const struct tl_report *rep, const struct tl_report_row *p, double *lo, double *hi)
{
	*lo = 0;
	*hi = 0;
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct tl_report_row *r = &rep->rows[i];

		if (!r->n_fom || !same_scale(r, p))
			continue;
		*hi = fmax(*hi, is_line(r) ? r->mean : bar_top(r));
		*lo = fmin(*lo, is_line(r) ? r->mean : bar_bottom(r));
	}
	if (*hi <= 0)
		*hi = 1;
}

/* The panel's title: the workload and size when they vary, and by=value when `by` has values. */
static void panel_title(FILE *gp, const struct bars *b, const struct tl_report_row *p, bool any_value,
			const char *why)
{
	char t[512];
	size_t len = 0;

	t[0] = '\0';
	for (size_t i = 0; i < NPANEL_AXES; i++) {
		enum tl_axis a = panel_axes[i];

		if (a != b->by && varies_among_bars(b->rep, a) && p->values[a] && len < sizeof(t))
			len += (size_t)snprintf(t + len, sizeof(t) - len, "%s%s", len ? " " : "", p->values[a]);
	}
	if (any_value && len < sizeof(t))
		len += (size_t)snprintf(t + len, sizeof(t) - len, "%s%s %s", len ? ", " : "", tl_axes[b->by].name,
					p->values[b->by] ? p->values[b->by] : "default");
	/* why this panel has no hit-rate point when others have: in its title, where nothing else is */
	if (why && len < sizeof(t))
		snprintf(t + len, sizeof(t) - len, "%s(%s)", len ? " " : "", why);
	fputs("set title ", gp);
	tl_quote_gnuplot(gp, t);
	fputc('\n', gp);
}

/* The panel's figure of merit: its unit and direction, as its first bar has them. */
static void panel_ylabel(FILE *gp, const struct tl_report_row *p)
{
	char t[160];

	snprintf(t, sizeof(t), "%s (%s is better)", p->fom_unit ? p->fom_unit : "figure of merit",
		 p->higher_is_better ? "higher" : "lower");
	fputs("set ylabel ", gp);
	tl_quote_gnuplot(gp, t);
	/* gnuplot leaves room for wider tic labels than these; the label comes closer */
	fputs(" offset 1.5,0\n", gp);
}

/* The lines of a panel, by height: their rows. */
static size_t panel_lines(const struct bars *b, const struct tl_report_row *p, size_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < b->rep->nrows; i++) {
		const struct tl_report_row *r = &b->rep->rows[i];

		if (is_line(r) && r->n_fom && same_scale(r, p) &&
		    (!r->values[b->by] || same(r->values[b->by], p->values[b->by]))) {
			size_t j = n++;

			/* insertion by mean, so labels can step apart from the one below */
			while (j && b->rep->rows[out[j - 1]].mean > r->mean) {
				out[j] = out[j - 1];
				j--;
			}
			out[j] = i;
		}
	}
	return n;
}

/*
 * The baseline lines: each in its row's colour and dash, the wider drawn
 * first so that two at one height both show; each line's value written at
 * its right end, above it, or below it when the line under it would put
 * the two texts on one another.
 */
static void baseline_lines(FILE *gp, const struct bars *b, const size_t *lines, size_t n, double xlab,
			   double units_per_line)
{
	double last_text = -INFINITY;

	for (size_t i = 0; i < n; i++) {
		const struct tl_report_row *r = &b->rep->rows[lines[i]];
		struct tl_plot_style s = tl_plot_style_of(r->values[TL_AXIS_POLICY]);
		double y = r->mean;
		char mean[64];
		bool below = false;

		if (r->is_baseline && r->values[TL_AXIS_POLICY] && !strcmp(r->values[TL_AXIS_POLICY], "none"))
			s = tl_plot_style_of(r->values[TL_AXIS_ALLOCATOR]);
		tl_fmt_sig(mean, sizeof(mean), r->mean, 3);
		/* above unless the text would reach the previous line's text */
		if (y < last_text + units_per_line)
			below = false;
		if (i + 1 < n && b->rep->rows[lines[i + 1]].mean - y < units_per_line && y - units_per_line > last_text)
			below = true;
		fprintf(gp, "set label %zu ", 10 + i);
		tl_quote_gnuplot(gp, mean);
		fprintf(gp, " at first %g, first ", xlab);
		tl_plot_number(gp, y);
		fprintf(gp, " left front boxed textcolor rgb \"%s\" offset 0.3,%s\n", s.colour, below ? "-0.6" : "0.6");
		last_text = below ? y : y + units_per_line;
	}
}

static void baseline_plots(FILE *gp, const struct bars *b, const size_t *lines, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct tl_report_row *r = &b->rep->rows[lines[i]];
		struct tl_plot_style s = tl_plot_style_of(r->values[TL_AXIS_POLICY]);

		if (r->is_baseline && r->values[TL_AXIS_POLICY] && !strcmp(r->values[TL_AXIS_POLICY], "none"))
			s = tl_plot_style_of(r->values[TL_AXIS_ALLOCATOR]);
		fputs(", \\\n     ", gp);
		tl_plot_number(gp, r->mean);
		fprintf(gp, " with lines dt %d lw %.1f lc rgb \"%s\" notitle", s.dash, 2.5 - (double)i * 0.6 / (double)n,
			s.colour);
	}
}

/* The key's entries: colours, then symbols, then the lines by name. Returns their count, *chars the longest. */
static size_t key_entries(FILE *gp, const struct bars *b, bool write, size_t *longest)
{
	size_t chars = 0, nent = 0;
	char seen[16][64];
	size_t nseen = 0;

#define ENTRY(text, ...)                                                    \
	do {                                                                \
		if (write) {                                                \
			fprintf(gp, ", \\\n     keyentry " __VA_ARGS__);        \
			fputs(" title ", gp);                               \
			tl_quote_gnuplot(gp, text);                         \
		}                                                           \
		chars = strlen(text) > chars ? strlen(text) : chars;        \
		nent++;                                                     \
	} while (0)
	for (size_t g = 0; g < b->ngroups; g++) {
		struct tl_plot_style s = tl_plot_style_of(b->groups[g]);

		if (write)
			fprintf(gp, ", \\\n     keyentry with boxes fs solid 0.85 border -1 lc rgb \"%s\" title ",
				s.colour);
		if (write)
			tl_quote_gnuplot(gp, b->groups[g]);
		chars = strlen(b->groups[g]) > chars ? strlen(b->groups[g]) : chars;
		nent++;
	}
	if (b->any_ci)
		ENTRY("95% interval (n >= 3)", "with yerrorbars lc rgb \"black\" pt 7 ps 0");
	if (b->any_few)
		ENTRY("runs (n < 3: no interval)", "with points pt 6 ps 0.6 lc rgb \"black\"");
	if (b->any_hits)
		ENTRY("hit rate (right axis)", "with points pt 13 ps 0.8 lc rgb \"black\"");
	for (size_t i = 0; i < b->rep->nrows; i++) {
		const struct tl_report_row *r = &b->rep->rows[i];
		const char *name = r->values[TL_AXIS_POLICY];
		struct tl_plot_style s;
		char t[96];
		size_t j;

		if (!is_line(r) || !r->n_fom)
			continue;
		if (r->is_baseline && name && !strcmp(name, "none") && r->values[TL_AXIS_ALLOCATOR])
			name = r->values[TL_AXIS_ALLOCATOR];
		name = name ? name : "-";
		for (j = 0; j < nseen && strcmp(seen[j], name); j++)
			;
		if (j < nseen || nseen == 16)
			continue;
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", name);
		s = tl_plot_style_of(name);
		snprintf(t, sizeof(t), "%s%s (mean)", name, r->is_baseline ? ", baseline" : "");
		if (write)
			fprintf(gp, ", \\\n     keyentry with lines dt %d lw 2 lc rgb \"%s\" title ", s.dash, s.colour);
		if (write)
			tl_quote_gnuplot(gp, t);
		chars = strlen(t) > chars ? strlen(t) : chars;
		nent++;
	}
#undef ENTRY
	if (longest)
		*longest = chars;
	return nent;
}

/*
 * The key of the whole figure, as a last plot whose area is the strip
 * kept for it at the bottom: in a panel it would take that panel's width
 * and room.
 */
static void key_strip(FILE *gp, const struct bars *b, const struct tl_plot_grid *g, size_t kcols)
{
	fprintf(gp, "set lmargin at screen 0.02\nset rmargin at screen 0.98\nset tmargin at screen %.4f\n"
		"set bmargin at screen 0.005\n", g->key_in / g->height_in);
	fputs("unset title\nunset xlabel\nunset ylabel\nunset y2label\nunset tics\nunset border\nunset grid\n"
	      "set xrange [0:1]\nset yrange [0:1]\n"
	      "set key inside center center horizontal samplen 1.5 spacing 1.1 width 1 ", gp);
	/* the columns the strip's height was made for, not gnuplot's own guess from its text widths */
	fprintf(gp, "maxcols %zu\nplot NaN notitle", kcols);
	key_entries(gp, b, true, NULL);
	fputc('\n', gp);
}

/* The colour axis and the groups, the tic axes, and what the key will need. */
static int bars_init(struct bars *b, const struct tl_report *rep, enum tl_axis by)
{
	b->rep = rep;
	b->by = by;
	b->colour = !varies_among_bars(rep, TL_AXIS_POLICY) && varies_among_bars(rep, TL_AXIS_ALLOCATOR)
			    ? TL_AXIS_ALLOCATOR
			    : TL_AXIS_POLICY;
	if (!(b->groups = calloc(rep->nrows + 1, sizeof(*b->groups))))
		return -ENOMEM;
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct tl_report_row *r = &rep->rows[i];

		if (is_line(r))
			continue;
		if (group_of(b, r) == b->ngroups)
			b->groups[b->ngroups++] = r->values[b->colour] ? r->values[b->colour] : "-";
		b->any_hits |= r->n_hit_rate > 0;
		b->any_few |= r->n_fom && r->n_fom < TL_STATS_FEW_RUNS;
		b->any_ci |= r->n_fom >= TL_STATS_FEW_RUNS && isfinite(r->ci95);
	}
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		b->tic_axes[a] = a != TL_AXIS_POLICY && a != TL_AXIS_ALLOCATOR && a != (int)by &&
				 a != TL_AXIS_WORKLOAD && a != TL_AXIS_SIZE && varies_among_bars(rep, (enum tl_axis)a);
	/* the allocator names the bars when the policy does: "lru system" / "lru fat" */
	b->tic_axes[TL_AXIS_ALLOCATOR] = b->colour != TL_AXIS_ALLOCATOR && varies_among_bars(rep, TL_AXIS_ALLOCATOR);
	return 0;
}

/* Why a panel has no hit-rate point, in its words, or NULL when it has one. */
static const char *no_hits_why(const struct bars *b, const struct bar *bars, size_t n)
{
	bool sampling = false;

	for (size_t i = 0; i < n; i++) {
		const struct tl_report_row *r = &b->rep->rows[bars[i].row];

		if (r->n_hit_rate)
			return NULL;
		sampling |= tl_policy_uses_runtime(r->values[TL_AXIS_POLICY]);
	}
	return sampling ? "no samples: no hit rate" : "no policy samples: no hit rate";
}

static void caption(FILE *gp, const struct tl_report *rep, const struct tl_plot_grid *g)
{
	char t[512];

	snprintf(t, sizeof(t), "%s%s", rep->has_baseline ? "in each bar: its % of " : "bars: the mean figure of merit",
		 rep->has_baseline ? rep->baseline_text : "");
	fputs("set label 99 ", gp);
	tl_quote_gnuplot(gp, t);
	fprintf(gp, " at screen 0.5, screen %.4f center front\n",
		1 - (g->top_in - 0.4 * tl_plot_line_in()) / g->height_in);
}

static void panel(FILE *gp, FILE *dat, const struct bars *b, const struct tl_plot_grid *g, size_t k,
		  const struct tl_report_row *p, struct bar *bars, size_t *lines, bool any_value, bool rotate,
		  double bottom_in)
{
	size_t n = panel_bars(b, p, bars), nl;
	double lo, hi, xmax, plot_h, top, xlab;
	const char *why = no_hits_why(b, bars, n);
	bool ci = false, few = false, two = false;

	/* a clause whose column is empty in this panel would make gnuplot warn: only those with points */
	for (size_t i = 0; i < n; i++) {
		const struct tl_report_row *r = &b->rep->rows[bars[i].row];

		ci |= r->n_fom >= TL_STATS_FEW_RUNS && isfinite(r->ci95);
		few |= r->n_fom && r->n_fom < TL_STATS_FEW_RUNS;
		two |= r->n_fom > 1 && r->n_fom < TL_STATS_FEW_RUNS;
	}

	if (k)
		fputs("\n\n", dat);
	fprintf(dat, "# panel %zu\n", k);
	xmax = write_block(dat, b, bars, n);
	tl_plot_grid_place(gp, g, k, LEFT_IN, RIGHT_IN, 2 * tl_plot_line_in(), bottom_in);
	plot_h = g->panel_h_in - 2 * tl_plot_line_in() - bottom_in;
	/* a little room above the highest interval or run, so nothing touches the frame */
	range_of(b->rep, p, &lo, &hi);
	top = hi + (hi - lo) * 0.08;
	/* the lines' values stand right of the last bar, in a strip of the x range kept for them */
	xlab = xmax + 0.55;
	{
		/* LINE_ROOM_IN of the plot's width, in x units: the strip is a share of the width, not of the bars */
		double plot_w = g->width_in / (double)g->cols - LEFT_IN - RIGHT_IN;

		fprintf(gp, "set xrange [-0.7:%g]\n",
			xlab + LINE_ROOM_IN * (xlab + 0.7) / fmax(plot_w - LINE_ROOM_IN, 0.5));
	}
	fputs("set yrange [", gp);
	tl_plot_number(gp, lo);
	fputc(':', gp);
	tl_plot_number(gp, top);
	fputs("]\n", gp);
	fputs("set xtics (", gp);
	for (size_t i = 0, x2 = 0; i < n; i++) {
		char t[512];
		double x;

		if (i && bars[i].group != bars[i - 1].group)
			x2++;
		x = (double)i + 0.5 * (double)x2;
		tic_label(b, &b->rep->rows[bars[i].row], t, sizeof(t));
		fputs(i ? ", " : "", gp);
		tl_quote_gnuplot_tic(gp, t);
		fprintf(gp, " %g", x);
	}
	fputs(")\n", gp);
	fputs(rotate ? "set xtics rotate by 45 right\n" : "set xtics norotate center\n", gp);
	if (b->any_hits)
		fputs("set y2range [0:100]\nset y2tics 0,25,100\nset y2label \"hit rate (%)\" offset -1.5,0\n", gp);
	panel_title(gp, b, p, any_value, b->any_hits ? why : NULL);
	panel_ylabel(gp, p);
	nl = panel_lines(b, p, lines);
	baseline_lines(gp, b, lines, nl, xlab, (top - lo) * tl_plot_line_in() / (plot_h > 0.2 ? plot_h : 0.2));
	fprintf(gp, "plot NaN notitle");
	for (size_t g2 = 0; g2 < b->ngroups; g2++) {
		struct tl_plot_style s = tl_plot_style_of(b->groups[g2]);
		bool here = false;

		for (size_t i = 0; i < n; i++)
			here |= bars[i].group == g2;
		if (!here)
			continue;
		fprintf(gp, ", \\\n     data index %zu using 1:($14 == %zu ? $4 : NaN) with boxes fs solid 0.85 border -1 "
			"lc rgb \"%s\" notitle", k, g2, s.colour);
		/* grey print: a pattern over the colour, so two policies of one grey differ */
		if (s.pattern)
			fprintf(gp, ", \\\n     data index %zu using 1:($14 == %zu ? $4 : NaN) with boxes "
				"fs transparent pattern %d noborder lc rgb \"#404040\" notitle", k, g2, s.pattern);
	}
	baseline_plots(gp, b, lines, nl);
	/* the interval as a vector with flat heads: an error-bar style would draw a point at the mean too */
	if (ci)
		fprintf(gp, ", \\\n     data index %zu using 1:($4 - $5):(0):(2 * $5) with vectors heads "
			"size screen 0.006,90 lw 1.2 lc rgb \"black\" notitle", k);
	if (few)
		fprintf(gp, ", \\\n     data index %zu using 1:11 with points pt 6 ps 0.6 lc rgb \"black\" notitle", k);
	if (two)
		fprintf(gp, ", \\\n     data index %zu using 1:12 with points pt 6 ps 0.6 lc rgb \"black\" notitle", k);
	if (b->any_hits && !why)
		fprintf(gp, ", \\\n     data index %zu using 1:6 axes x1y2 with points pt 13 ps 0.8 lc rgb \"black\" notitle",
			k);
	if (b->rep->has_baseline) {
		/* in the bar when it is tall enough for the text, else standing on what the bar draws */
		double foot = lo > 0 ? lo : 0, need = 8.5 * CHAR_IN * (top - lo) / (plot_h > 0.2 ? plot_h : 0.2);

		fprintf(gp, ", \\\n     data index %zu using 1:($4 - %g > %g ? %g : $13 + %g):"
			"(valid(8) ? sprintf(\"%%.1f%%%%\", $8) : \"\") with labels rotate by 90 left boxed offset 0,0.3 notitle",
			k, foot, need, foot, 0.02 * (top - lo));
	}
	fputs("\nunset label\n", gp);
}

int tl_plot_bars(const struct tl_report *rep, enum tl_axis by, const struct tl_plot_files *f, FILE *gp,
		 FILE *dat)
{
	size_t *first = calloc(rep->nrows + 1, sizeof(*first)), *lines = calloc(rep->nrows + 1, sizeof(*lines));
	struct bar *bars = calloc(rep->nrows + 1, sizeof(*bars));
	struct bars b = { 0 };
	struct tl_plot_grid g;
	struct tl_plot_files sized;
	size_t npanels, most = 0, longest = 0, key_lines, kcols;
	double bottom_in, width;
	bool rotate, any_value = false;
	int ret = 0;

	if (!first || !bars || !lines || bars_init(&b, rep, by)) {
		ret = -ENOMEM;
		error("out of memory");
		goto out;
	}
	if (!(npanels = find_panels(&b, first))) {
		ret = -ENODATA;
		error("experiment '%s' has no configuration to draw as a bar (only all-fast, all-slow and the baseline)",
		      rep->experiment);
		goto out;
	}
	for (size_t i = 0; i < rep->nrows; i++)
		any_value |= !is_line(&rep->rows[i]) && rep->rows[i].values[by];
	for (size_t k = 0; k < npanels; k++) {
		size_t nb = panel_bars(&b, &rep->rows[first[k]], bars);
		char t[512];

		most = nb > most ? nb : most;
		for (size_t i = 0; i < nb; i++) {
			tic_label(&b, &rep->rows[bars[i].row], t, sizeof(t));
			longest = strlen(t) > longest ? strlen(t) : longest;
		}
	}
	/* a panel as wide as its bars need; tic labels wider than a bar turn 45 degrees */
	width = LEFT_IN + RIGHT_IN + LINE_ROOM_IN + BAR_IN * ((double)most + 0.5 * (double)b.ngroups + 1);
	width = fmax(width, 2.2);
	/*
	 * no size given: as wide as the panels need (a bar of 0.2 in), from
	 * a column to a page, rather than one panel's few bars stretched over
	 * a page
	 */
	if (!(f->width_in > 0)) {
		sized = *f;
		sized.width_in = fmin(TL_PLOT_PAGE_IN, fmax(TL_PLOT_COLUMN_IN, 1.15 * width * (double)npanels));
		f = &sized;
	}
	tl_plot_grid_init(&g, f, npanels, width, 0, 0);
	/* the x range (panel()): from -0.7 to the last bar, 0.55 and the lines' strip; a bar's pitch is one unit */
	rotate = (double)longest * CHAR_IN >
		 0.95 * (g.width_in / (double)g.cols - LEFT_IN - RIGHT_IN) /
			 ((double)most + 0.5 * (double)b.ngroups + 0.25 + LINE_ROOM_IN / BAR_IN);
	/* the tic labels (45 degrees: 0.71 of their length, and gnuplot's estimate is wider than ours), the x label, a gap */
	bottom_in = (rotate ? 0.8 * (double)longest * CHAR_IN + 0.15 : tl_plot_line_in()) + 2.6 * tl_plot_line_in();
	{
		/* gnuplot lays a horizontal key out in columns as wide as its longest entry and its sample */
		size_t longest_entry, nent = key_entries(NULL, &b, false, &longest_entry);

		/* gnuplot's SVG terminal reckons text a quarter wider than cairo draws it: its columns */
		kcols = (size_t)(0.96 * g.width_in / (((double)longest_entry + 8) * 1.25 * CHAR_IN));
		kcols = kcols ? kcols : 1;
		key_lines = (nent + kcols - 1) / kcols;
	}
	tl_plot_grid_init(&g, f, npanels, width, PLOT_H_IN + 2 * tl_plot_line_in() + bottom_in, key_lines);
	tl_plot_preamble(gp, f, g.width_in, g.height_in);
	fputs("set multiplot title ", gp);
	tl_quote_gnuplot(gp, rep->experiment);
	fputs("\nset style fill solid 0.85 border -1\nset boxwidth 0.8 absolute\n"
	      "set ytics nomirror\nset xtics nomirror scale 0\nset grid ytics lc rgb \"#dddddd\"\nset border 3\n", gp);
	if (b.any_hits)
		fputs("set border 11\n", gp);
	caption(gp, rep, &g);
	fputs("unset key\n", gp);
	xlabel(gp, &b);
	for (size_t k = 0; k < npanels; k++)
		panel(gp, dat, &b, &g, k, &rep->rows[first[k]], bars, lines, any_value, rotate, bottom_in);
	key_strip(gp, &b, &g, kcols);
	fputs("unset multiplot\n", gp);
	if (ferror(gp) || ferror(dat)) {
		ret = -EIO;
		error("cannot write '%s' or '%s'", f->script, f->data);
	}
out:
	free(b.groups);
	free(bars);
	free(lines);
	free(first);
	return ret;
}
