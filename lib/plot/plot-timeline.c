/*
 * One run's log over time: each managed allocation of the process is a
 * band (from its allocation to its free, or to the end), named by its call
 * site; a sample is a point at its time and at its place inside its
 * allocation's band (hit, miss, or outside managed memory below the
 * bands); a migration is a triangle at the start of the moved range,
 * pointing up into the fast tier or down out of it. Allocations sit one
 * band each, not at their addresses: the arena spreads them over a GiB and
 * more, where each would be a hairline.
 */
#include "plot/plot.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "store/log.h"
#include "util/error.h"
#include "util/quote.h"

struct band {
	int64_t seq, t_ns, freed_ns;	/* freed_ns: INT64_MAX while it lives */
	uint64_t addr, size;
	char *callsite;
};

struct timeline {
	struct band *b;
	size_t n;
	int64_t pid;			/* the process drawn: the first that allocated */
	int64_t last_pid;
	bool asked;			/* pid was given */
	size_t nprocs;
	int64_t t0, t_end;
	FILE *dat;
	size_t count[3];		/* samples drawn: hits, misses, outside */
	size_t migrations;
	bool map;			/* the access map: samples kept for binning */
	double *pts;			/* (seconds, y) pairs of the samples in a band */
	size_t npts, cap;
};

static int64_t int_of(const struct tl_value *v)
{
	return v->type == TL_VALUE_INT ? v->i : (int64_t)v->d;
}

static int add_band(void *arg, const struct tl_value *v, size_t n)
{
	struct timeline *tl = arg;
	struct band *b;

	/* run_id pid seq t_ns addr size callsite freed_ns */
	if (n < 8)
		return -EINVAL;
	/* rows come by pid: a new pid is a new process; the first is drawn unless one was asked for */
	if (!tl->nprocs || int_of(&v[1]) != tl->last_pid) {
		tl->last_pid = int_of(&v[1]);
		if (!tl->nprocs++ && !tl->asked)
			tl->pid = tl->last_pid;
	}
	if (int_of(&v[1]) != tl->pid)
		return 0;
	if (!(b = realloc(tl->b, (tl->n + 1) * sizeof(*b))))
		return -ENOMEM;
	tl->b = b;
	b = &tl->b[tl->n];
	b->seq = int_of(&v[2]);
	b->t_ns = int_of(&v[3]);
	b->addr = (uint64_t)int_of(&v[4]);
	b->size = (uint64_t)int_of(&v[5]);
	b->freed_ns = v[7].type == TL_VALUE_NULL ? INT64_MAX : int_of(&v[7]);
	b->callsite = strdup(v[6].type == TL_VALUE_TEXT ? v[6].s : "?");
	if (!b->callsite)
		return -ENOMEM;
	tl->n++;
	if (tl->n == 1 || b->t_ns < tl->t0)
		tl->t0 = b->t_ns;
	if (b->freed_ns != INT64_MAX && b->freed_ns > tl->t_end)
		tl->t_end = b->freed_ns;
	return 0;
}

/*
 * The y of an address at a time: inside band i (drawn from i to i + 0.8)
 * at i + 0.05 + 0.7 x its offset, clear of the band's edges where a point
 * at offset 0 would sit on the border; OUTSIDE_Y outside every band.
 */
#define OUTSIDE_Y (-0.35)
static double place(const struct timeline *tl, uint64_t addr, int64_t t)
{
	for (size_t i = 0; i < tl->n; i++) {
		const struct band *b = &tl->b[i];

		if (addr >= b->addr && addr - b->addr < b->size && t >= b->t_ns && t <= b->freed_ns)
			return (double)i + 0.05 + 0.7 * (double)(addr - b->addr) / (double)b->size;
	}
	return OUTSIDE_Y;
}

static double seconds(const struct timeline *tl, int64_t t)
{
	return (double)(t - tl->t0) / 1e9;
}

static int put_sample(void *arg, const struct tl_value *v, size_t n)
{
	struct timeline *tl = arg;
	int64_t t;
	double y;

	/* run_id pid t_ns addr pc tid hit */
	if (n < 7 || int_of(&v[1]) != tl->pid)
		return 0;
	t = int_of(&v[2]);
	y = place(tl, (uint64_t)int_of(&v[3]), t);
	tl_plot_number(tl->dat, seconds(tl, t));
	fputc(' ', tl->dat);
	tl_plot_number(tl->dat, y);
	fprintf(tl->dat, " %s\n", v[6].type == TL_VALUE_NULL ? "?" : int_of(&v[6]) ? "1" : "0");
	tl->count[v[6].type == TL_VALUE_NULL ? 2 : int_of(&v[6]) ? 0 : 1]++;
	if (t > tl->t_end)
		tl->t_end = t;
	if (tl->map && y >= 0) {
		if (tl->npts == tl->cap) {
			double *p = realloc(tl->pts, (tl->cap = tl->cap ? 2 * tl->cap : 1024) * 2 * sizeof(*p));

			if (!p)
				return -ENOMEM;
			tl->pts = p;
		}
		tl->pts[2 * tl->npts] = seconds(tl, t);
		tl->pts[2 * tl->npts++ + 1] = y;
	}
	return 0;
}

/* Direction codes in the data: the order of TL_DIRECTIONS (util/direction.h). */
static int put_migration(void *arg, const struct tl_value *v, size_t n)
{
	struct timeline *tl = arg;
	int d = -1;
	int64_t t;

	/* run_id pid t_ns addr bytes direction ok */
	if (n < 7 || int_of(&v[1]) != tl->pid || v[5].type != TL_VALUE_TEXT)
		return 0;
	d = tl_direction_parse(v[5].s, strlen(v[5].s));
	t = int_of(&v[2]);
	tl_plot_number(tl->dat, seconds(tl, t));
	fputc(' ', tl->dat);
	/* at the middle of the moved range: its start is the band's edge for a whole allocation */
	tl_plot_number(tl->dat, place(tl, (uint64_t)int_of(&v[3]) + (uint64_t)int_of(&v[4]) / 2, t));
	fprintf(tl->dat, " %d %" PRId64 " %" PRId64 "\n", d, int_of(&v[4]), int_of(&v[6]));
	tl->migrations++;
	if (t > tl->t_end)
		tl->t_end = t;
	return 0;
}

/* "#0 864 KiB\nhpcg+0x520b": its number and size, then the call site without its directories. */
static void band_name(char *buf, size_t len, const struct band *b)
{
	const char *slash = strrchr(b->callsite, '/');
	const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double size = (double)b->size;
	int u = 0;

	while (size >= 1024 && u < 4) {
		size /= 1024;
		u++;
	}
	/* two lines (tl_plot_two_lines): a call site is long, and a column is narrow */
	snprintf(buf, len, "#%" PRId64 " %.*f %s\n%s", b->seq, size < 10 && u ? 1 : 0, size, unit[u],
		 slash ? slash + 1 : b->callsite);
}

/*
 * Colours: samples in the tier they hit (blue fast, orange slow, grey
 * outside), migrations in two others (green up into the fast tier,
 * purple down out of it), so no sample and no migration share one; the
 * shapes differ too (filled and open circles, up and down triangles, a
 * cross), for grey print.
 */
static void script(FILE *gp, const struct timeline *tl, const struct tl_run_row *run, const struct tl_plot_files *f)
{
	char title[512], name[300];
	double width = f->width_in > 0 ? f->width_in : TL_PLOT_PAGE_IN, line = tl_plot_line_in();
	double height = f->height_in > 0 ? f->height_in : 1.6 + 0.4 * (double)(tl->n < 3 ? 3 : tl->n);
	double span = seconds(tl, tl->t_end) + 1e-3;
	bool outside = tl->count[2] > 0, narrow = width < 5;
	/* the key's entries in as many columns as fit (its longest entry is 22 characters), rows under them */
	size_t kcols = (size_t)(0.96 * width / (28 * TL_PLOT_FONT_PT * 0.6 / 72)), krows;
	double bottom, top;

	kcols = kcols < 1 ? 1 : kcols;
	krows = (6 + outside + kcols - 1) / kcols;
	height += (double)krows * line;
	bottom = ((double)krows * line + 0.1) / height;
	top = ((narrow ? 4 : 3) * line + 0.05) / height;

	tl_plot_preamble(gp, f, width, height);
	snprintf(title, sizeof(title), "run %s (%s), pid %" PRId64 "%s", run->run_key,
		 run->values[TL_AXIS_POLICY] ? run->values[TL_AXIS_POLICY] : "-", tl->pid,
		 tl->nprocs > 1 && !tl->asked ? " (the first of its processes)" : "");
	fputs("set label 2 ", gp);
	tl_quote_gnuplot(gp, title);
	fprintf(gp, " at screen 0.5, screen %.4f center\n", 1 - 1.1 * line / height);
	/* the counts: one line on a page, two in a column */
	snprintf(title, sizeof(title), "%zu samples (%zu hits, %zu misses, %zu outside)%s%zu migrations",
		 tl->count[0] + tl->count[1] + tl->count[2], tl->count[0], tl->count[1], tl->count[2],
		 narrow ? "\n" : ", ", tl->migrations);
	fputs("set label 1 ", gp);
	tl_plot_two_lines(gp, title, false);
	fprintf(gp, " at screen 0.5, screen %.4f center\n", 1 - (narrow ? 2.75 : 2.2) * line / height);
	fprintf(gp, "set tmargin at screen %.4f\nset bmargin at screen %.4f\n", 1 - top,
		bottom + (2.6 * line + 0.05) / height);
	/* the x range starts before 0, so what happened at the first allocation is not on the axis */
	fprintf(gp, "set xlabel \"seconds since the first allocation\"\nset xrange [%g:%g]\nset yrange [%g:%zu]\n",
		-0.03 * span, span * 1.03, outside ? -0.7 : -0.1, tl->n);
	fputs(outside ? "set ytics (\"outside managed memory\" -0.35" : "set ytics (", gp);
	for (size_t i = 0; i < tl->n; i++) {
		band_name(name, sizeof(name), &tl->b[i]);
		fputs(i || outside ? ", " : "", gp);
		tl_plot_two_lines(gp, name, true);
		fprintf(gp, " %g", (double)i + 0.4);
	}
	fprintf(gp, ")\nset style fill solid 0.15 border lc rgb \"#7f7f7f\"\n"
		"set key at screen 0.5, screen %.4f center top horizontal maxrows %zu samplen 1 width 1\n"
		"set grid xtics lc rgb \"#dddddd\"\n", bottom, krows);
	fputs("plot data index 2 using 1:2:3:4 with boxxyerror lc rgb \"#7f7f7f\" title \"allocation (live)\", \\\n"
	      "     '' index 0 using 1:($3 == 1 ? $2 : NaN) with points pt 7 ps 0.5 lc rgb \"#0072B2\" title \"sample, fast tier\", \\\n"
	      "     '' index 0 using 1:($3 == 0 ? $2 : NaN) with points pt 6 ps 0.6 lc rgb \"#E69F00\" title \"sample, slow tier\"", gp);
	if (outside)
		fputs(", \\\n     '' index 0 using 1:(valid(3) ? NaN : $2) with points pt 7 ps 0.5 lc rgb \"#999999\" "
		      "title \"sample, outside\"", gp);
	fputs(", \\\n     '' index 1 using 1:($3 == 2 ? $2 : NaN) with points pt 9 ps 1.1 lc rgb \"#009E73\" title \"migration slow-to-fast\", \\\n"
	      "     '' index 1 using 1:($3 == 3 ? $2 : NaN) with points pt 11 ps 1.1 lc rgb \"#CC79A7\" title \"migration fast-to-slow\", \\\n"
	      "     '' index 1 using 1:($3 == 0 || $3 == 1 ? $2 : NaN) with points pt 2 ps 0.9 lw 1.5 lc rgb \"black\" title \"initial placement\"\n",
	      gp);
}

/* The access map of the samples kept: the bands' names and what the title counts, to plot-accessmap.c. */
static int access_map(FILE *gp, FILE *dat, const struct timeline *tl, const struct tl_run_row *run,
		      const struct tl_plot_files *f)
{
	char **names = calloc(tl->n + 1, sizeof(*names)), title[512];
	int ret = -ENOMEM;

	for (size_t i = 0; names && i < tl->n; i++) {
		if (!(names[i] = malloc(300)))
			goto out;
		band_name(names[i], 300, &tl->b[i]);
	}
	if (!names)
		goto out;
	snprintf(title, sizeof(title), "run %s (%s), pid %" PRId64 ": samples by address and time",
		 run->run_key, run->values[TL_AXIS_POLICY] ? run->values[TL_AXIS_POLICY] : "-", tl->pid);
	ret = tl_plot_accessmap(gp, dat, f, title, (const char *const *)names, tl->n, tl->pts, tl->npts,
				seconds(tl, tl->t_end), tl->count[2]);
out:
	if (ret == -ENOMEM)
		error("out of memory");
	for (size_t i = 0; names && i < tl->n; i++)
		free(names[i]);
	free(names);
	return ret;
}

int tl_plot_timeline(struct tl_store *st, const struct tl_run_row *run, long pid, bool map,
		     const struct tl_plot_files *f, FILE *gp, FILE *dat)
{
	struct timeline tl = { .dat = dat, .pid = pid, .asked = pid > 0, .map = map };
	int ret;

	ret = tl_store_log_each(st, TL_LOG_ALLOCATIONS, run->id, add_band, &tl);
	if (ret == -ENOMEM)
		error("out of memory");
	if (ret)
		goto out;
	if (!tl.n) {
		ret = -ENODATA;
		if (tl.asked && tl.nprocs)
			error("process %ld of run '%s' logged no managed allocation", pid, run->run_key);
		else
			error("run '%s' logged no managed allocation (a timeline needs the runtime's log: `log: log`)",
			      run->run_key);
		goto out;
	}
	tl.t_end = tl.t0;
	fputs("# samples: seconds y hit (1 fast, 0 slow, ? outside managed memory)\n", dat);
	if ((ret = tl_store_log_each(st, TL_LOG_SAMPLES, run->id, put_sample, &tl))) {
		if (ret == -ENOMEM)
			error("out of memory");
		goto out;
	}
	fputs("\n\n# migrations: seconds y direction (0 initial-fast, 1 initial-slow, 2 slow-to-fast, "
	      "3 fast-to-slow) bytes ok\n", dat);
	if ((ret = tl_store_log_each(st, TL_LOG_MIGRATIONS, run->id, put_migration, &tl)))
		goto out;
	fputs("\n\n# allocations: x_center y_center x_half y_half seq\n", dat);
	for (size_t i = 0; i < tl.n; i++) {
		double a = seconds(&tl, tl.b[i].t_ns);
		double z = seconds(&tl, tl.b[i].freed_ns == INT64_MAX ? tl.t_end : tl.b[i].freed_ns);

		tl_plot_number(dat, (a + z) / 2);
		fputc(' ', dat);
		tl_plot_number(dat, (double)i + 0.4);
		fputc(' ', dat);
		tl_plot_number(dat, (z - a) / 2);
		fprintf(dat, " 0.4 %" PRId64 "\n", tl.b[i].seq);
	}
	if (map)
		ret = access_map(gp, dat, &tl, run, f);
	else
		script(gp, &tl, run, f);
	if (!ret && (ferror(gp) || ferror(dat))) {
		ret = -EIO;
		error("cannot write '%s' or '%s'", f->script, f->data);
	}
out:
	for (size_t i = 0; i < tl.n; i++)
		free(tl.b[i].callsite);
	free(tl.b);
	free(tl.pts);
	return ret;
}
