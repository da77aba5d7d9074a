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
		tl_quote_gnuplot(gp, l[i].text);
		fprintf(gp, " %zu", i);
	}
	fputs(")\n", gp);
}

int tl_plot_heatmap(const struct tl_report *rep, const char *policy, const struct tl_plot_files *f,
		    FILE *gp, FILE *dat)
{
	bool *chosen = calloc(rep->nrows + 1, sizeof(*chosen));
	struct level *xs = calloc(rep->nrows + 1, sizeof(*xs)), *ys = calloc(rep->nrows + 1, sizeof(*ys));
	size_t *cell = NULL, nx, ny, n = 0;
	char base[128], title[512];
	double spread = 1;
	int ret = -ENOMEM;

	if (!chosen || !xs || !ys) {
		error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct tl_report_row *r = &rep->rows[i];
		const char *p = r->values[TL_AXIS_POLICY];

		chosen[i] = p && !strcmp(tl_policy_base(p, base, sizeof(base)), policy) &&
			    r->values[TL_AXIS_CHUNKS] && r->values[TL_AXIS_RATE] && r->has_pct;
		n += chosen[i];
	}
	if (!n) {
		ret = -ENODATA;
		error("policy '%s' has no configuration of experiment '%s' with chunks, rate and a %% of baseline",
		      policy, rep->experiment);
		goto out;
	}
	nx = levels(rep, chosen, TL_AXIS_CHUNKS, xs);
	ny = levels(rep, chosen, TL_AXIS_RATE, ys);
	if (!(cell = calloc(nx * ny, sizeof(*cell))))
		goto out;
	fputs("# chunks_index rate_index pct_of_baseline chunks rate\n", dat);
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct tl_report_row *r = &rep->rows[i];
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
		spread = fmax(spread, ceil(fabs(r->pct_of_baseline - 100)));
		fprintf(dat, "%zu %zu ", x, y);
		tl_plot_number(dat, r->pct_of_baseline);
		fputc(' ', dat);
		tl_quote_gnuplot_data(dat, xs[x].text);
		fputc(' ', dat);
		tl_quote_gnuplot_data(dat, ys[y].text);
		fputc('\n', dat);
	}
	tl_plot_preamble(gp, f, f->width_in > 0 ? f->width_in : TL_PLOT_COLUMN_IN,
			 f->height_in > 0 ? f->height_in : 1.2 + 0.45 * (double)(ny < 3 ? 3 : ny));
	snprintf(title, sizeof(title), "%s: %s, %% of baseline %s", rep->experiment, policy,
		 rep->baseline_text ? rep->baseline_text : "");
	fputs("set title ", gp);
	tl_quote_gnuplot(gp, title);
	fprintf(gp, "\nset xlabel \"chunks\"\nset ylabel \"rate\"\nset xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\n",
		nx - 1, ny - 1);
	tics(gp, "xtics", xs, nx);
	tics(gp, "ytics", ys, ny);
	/* diverging around 100%: white is as good as the baseline, red worse, blue better */
	fputs("set cblabel \"% of baseline\"\nset palette defined (0 \"#b2182b\", 1 \"#f7f7f7\", 2 \"#2166ac\")\n", gp);
	fprintf(gp, "set cbrange [%g:%g]\n", 100 - spread, 100 + spread);
	fputs("set style fill solid 1.0 noborder\nunset key\n"
	      "plot data using 1:2:(0.5):(0.5):3 with boxxyerror fc palette, \\\n"
	      "     '' using 1:2:(sprintf(\"%.1f\", $3)) with labels\n", gp);
	ret = ferror(gp) || ferror(dat) ? -EIO : 0;
	if (ret)
		error("cannot write '%s' or '%s'", f->script, f->data);
out:
	free(cell);
	free(ys);
	free(xs);
	free(chosen);
	return ret;
}
