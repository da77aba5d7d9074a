/*
 * himeno: the Himeno benchmark as a tierlab workload. Parses the options,
 * allocates and initialises the grids, runs the Jacobi iterations (a fixed
 * count by default, so runs are reproducible; or, like the original, a
 * 3-iteration rehearsal and then as many as fit in --seconds), validates
 * the result and prints MFLOPS as the figure of merit.
 */
#include "himeno.h"
#include "../common/wl.h"

#include <omp.h>

#include "../common/wl-options.h"
#include "wl-sizes.h"

static const char *prog = WL_NAME;

struct options {
	const struct himeno_size *grid;
	int iterations;		/* 0: from the preset */
	double seconds;		/* > 0: time-targeted mode */
	int reference;
};

enum { OPT_GRID = 1, OPT_ITERATIONS, OPT_SECONDS, OPT_REFERENCE };

static const struct wl_option options[] = {
	{ OPT_GRID, 0, "grid", "G", WL_NOT_WITH_SIZE, 0,
	  "the original's grid sizes: XS 32x32x64, S 64x64x128,\nM 128x128x256, L 256x256x512, XL 512x512x1024" },
	{ OPT_ITERATIONS, 0, "iterations", "N", 0, OPT_SECONDS,
	  "run exactly N iterations (reproducible; the default mode)" },
	{ OPT_SECONDS, 0, "seconds", "T", 0, OPT_ITERATIONS,
	  "like the original: 3 rehearsal iterations, then as many\nas take about T seconds (the original uses 60)" },
	{ OPT_REFERENCE, 0, "reference", NULL, WL_FLAG, 0,
	  "print the Gosa of a plain double-precision implementation\nfor the grid and iteration count (to extend the table)" },
	{ 0, 0, NULL, NULL, 0, 0, NULL },
};

static void set(int key, const char *v, void *ctx)
{
	struct options *o = ctx;

	switch (key) {
	case OPT_GRID:
		o->grid = himeno_size_find(v);
		if (!o->grid)
			wl_usage_error(prog, "--grid: unknown grid '%s' (XS, S, M, L, XL)", v);
		break;
	case OPT_ITERATIONS:
		o->iterations = (int)wl_parse_long(prog, "--iterations", v, 1, 100000000);
		break;
	case OPT_SECONDS:
		o->seconds = wl_parse_double(prog, "--seconds", v);
		if (o->seconds <= 0 || o->seconds > 1e6)
			wl_usage_error(prog, "--seconds: '%s' is not a duration from 0 to 1e6", v);
		break;
	case OPT_REFERENCE:
		o->reference = 1;
		break;
	}
}

/* "32x32x64, 3.5 MiB" */
static void size_note(const struct wl_size *s, char *buf, size_t len)
{
	const struct himeno_size *g = himeno_size_find(wl_size_arg(s, "--grid") ? wl_size_arg(s, "--grid") : "");

	if (g)
		snprintf(buf, len, "%dx%dx%d, %.1f MiB", g->mimax, g->mjmax, g->mkmax,
			 14.0 * g->mimax * g->mjmax * g->mkmax * sizeof(float) / 1048576.0);
	else
		snprintf(buf, len, "no grid");
}

static void parse_options(int argc, char **argv, struct options *o)
{
	const struct wl_cmd cmd = {
		WL_DESCRIPTOR, .default_size = WL_DEFAULT_SIZE, .size_note = size_note,
		.footer = "Threads: OpenMP, OMP_NUM_THREADS.", .options = options, .set = set, .ctx = o,
	};

	*o = (struct options){ 0 };
	wl_parse(&cmd, argc, argv);
	if (o->iterations && o->seconds > 0)
		wl_usage_error(prog, "--iterations and --seconds exclude each other");
	if (o->reference && o->seconds > 0)
		wl_usage_error(prog, "--reference needs a fixed iteration count, not --seconds");
	/* A grid without a count runs as many iterations as the descriptor's preset of that grid. */
	for (const struct wl_size *s = wl_sizes; s->name && !o->iterations && o->seconds <= 0; s++)
		if (himeno_size_find(wl_size_arg(s, "--grid") ? wl_size_arg(s, "--grid") : "") == o->grid &&
		    wl_size_arg(s, "--iterations"))
			o->iterations = atoi(wl_size_arg(s, "--iterations"));
	if (!o->iterations && o->seconds <= 0)
		wl_usage_error(prog, "--grid %s: no preset of that grid gives a count; give --iterations", o->grid->name);
}

static int print_reference(const struct options *o)
{
	double gosa;
	int rc = himeno_reference_gosa(o->grid->mimax, o->grid->mjmax, o->grid->mkmax, o->iterations, &gosa);

	if (rc) {
		fprintf(stderr, "%s: reference: %s\n", prog, strerror(-rc));
		return 1;
	}
	printf("reference gosa: grid %s, %d iterations: %.17g\n", o->grid->name, o->iterations, gosa);
	return 0;
}

int main(int argc, char **argv)
{
	static char why[512];
	const char *failure = NULL;
	struct options o;
	struct himeno_grid g;
	struct himeno_snapshot snap;
	double gosa_rehearsal[3], *gosa_each, flop, t0, t_run = 0, expected, rtol, gosa;
	int total, rehearsal = 0, measured;

	parse_options(argc, argv, &o);
	if (o.reference)
		return print_reference(&o);

	if (himeno_grid_alloc(&g, o.grid->mimax, o.grid->mjmax, o.grid->mkmax)) {
		fprintf(stderr, "%s: cannot allocate %zu bytes for the grids\n", prog,
			(size_t)14 * o.grid->mimax * o.grid->mjmax * o.grid->mkmax * sizeof(float));
		return 1;
	}
	himeno_grid_init(&g);
	flop = himeno_flop(g.mimax, g.mjmax, g.mkmax);

	printf("grid: %s, mimax=%d mjmax=%d mkmax=%d (imax=%d jmax=%d kmax=%d)\n", o.grid->name,
	       g.mimax, g.mjmax, g.mkmax, g.mimax - 1, g.mjmax - 1, g.mkmax - 1);
	printf("memory: 14 grids x %.1f MiB = %.1f MiB in 7 blocks (p, bnd, wrk1, wrk2; a x4, b x3, c x3)\n",
	       g.npoints * sizeof(float) / 1048576.0, himeno_grid_bytes(&g) / 1048576.0);
	printf("threads: %d\n", omp_get_max_threads());

	measured = o.iterations;
	if (o.seconds > 0) {
		/* The original's scheme: time 3 iterations, then size the measured run from them. */
		double t;

		rehearsal = 3;
		t0 = wl_now();
		himeno_jacobi(&g, rehearsal, gosa_rehearsal);
		t = wl_now() - t0;
		printf("rehearsal: %d iterations in %.3f s, %.1f MFLOPS\n", rehearsal, t,
		       flop * rehearsal / t * 1e-6);
		measured = t > 0 ? (int)(o.seconds / (t / rehearsal)) : 1;
		if (measured < 1)
			measured = 1;
	}
	total = rehearsal + measured;
	gosa_each = wl_alloc(prog, "gosa history", (size_t)total * sizeof(double));

	/* The last iteration runs apart so a snapshot before it can check it; the snapshot is not timed. */
	t0 = wl_now();
	himeno_jacobi(&g, measured - 1, gosa_each + rehearsal);
	t_run = wl_now() - t0;
	if (himeno_snapshot_take(&g, &snap)) {
		fprintf(stderr, "%s: cannot allocate the check snapshot\n", prog);
		return 1;
	}
	t0 = wl_now();
	gosa = himeno_jacobi(&g, 1, gosa_each + total - 1);
	t_run += wl_now() - t0;
	memcpy(gosa_each, gosa_rehearsal, rehearsal * sizeof(double));

	printf("iterations: %d%s\n", measured,
	       rehearsal ? " (after 3 rehearsal ones; time-targeted)" : " (fixed)");
	printf("time: %.3f s\n", t_run);
	printf("gosa: %.9e\n", gosa);

	if (himeno_check_monotone(gosa_each, total, himeno_gosa_noise(&g), why, sizeof(why)) ||
	    himeno_check_planes(&g, &snap, why, sizeof(why)))
		failure = why;
	if (!failure && !himeno_expected_gosa(g.mimax, g.mjmax, g.mkmax, total, &expected, &rtol)) {
		printf("expected gosa: %.9e (double-precision reference, tolerance %g relative)\n",
		       expected, rtol);
		if (himeno_check_gosa(gosa, expected, rtol, why, sizeof(why)))
			failure = why;
	} else if (!failure) {
		printf("expected gosa: no stored value for %d iterations; checked by monotone decrease "
		       "and a scalar recomputation of the last iteration on %d planes\n", total, snap.nplanes);
	}

	himeno_snapshot_free(&snap);
	free(gosa_each);
	himeno_grid_free(&g);
	wl_report(failure, flop * measured / t_run * 1e-6, "MFLOPS");
	return 0;
}
