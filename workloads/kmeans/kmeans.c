/*
 * kmeans: the Phoenix k-means benchmark as a standalone workload. Options
 * (presets from its descriptor), a reproducible input from the seed, the run, the checks,
 * and the figure of merit (milliseconds per iteration, lower is better).
 */
#include "kmeans.h"
#include "wl.h"
#include "wl-options.h"
#include "wl-sizes.h"

#include <limits.h>

static const char *prog = WL_NAME;

struct options {
	long points, dims, clusters, grid, max_iter;
	uint64_t seed;
	int threads;
};

enum { OPT_POINTS = 1, OPT_DIMS, OPT_CLUSTERS, OPT_GRID, OPT_SEED, OPT_THREADS, OPT_MAX_ITER };

static const struct wl_option options[] = {
	{ OPT_POINTS, 'p', "points", "N", 0, 0, "points (default 100000)" },
	{ OPT_DIMS, 'd', "dims", "N", 0, 0, "dimensions (default 3)" },
	{ OPT_CLUSTERS, 'c', "clusters", "N", 0, 0, "clusters (default 100)" },
	{ OPT_GRID, 's', "grid", "N", 0, 0, "coordinates in [0, N) (default 1000)" },
	{ OPT_SEED, 0, "seed", "N", 0, 0, "input seed (default 1)" },
	{ OPT_THREADS, 0, "threads", "N", 0, 0, "threads (default $OMP_NUM_THREADS, else 1)" },
	{ OPT_MAX_ITER, 0, "max-iter", "N", 0, 0, "give up (validation fails) after N passes (default 10000)" },
	{ 0, 0, NULL, NULL, 0, 0, NULL },
};

static void set(int key, const char *v, void *ctx)
{
	struct options *o = ctx;

	switch (key) {
	case OPT_POINTS: o->points = wl_parse_long(prog, "-p", v, 1, 100000000); break;
	case OPT_DIMS: o->dims = wl_parse_long(prog, "-d", v, 1, 4096); break;
	case OPT_CLUSTERS: o->clusters = wl_parse_long(prog, "-c", v, 1, 100000); break;
	case OPT_GRID: o->grid = wl_parse_long(prog, "-s", v, 1, INT_MAX); break;
	case OPT_SEED: o->seed = (uint64_t)wl_parse_long(prog, "--seed", v, 0, LONG_MAX); break;
	case OPT_THREADS: o->threads = (int)wl_parse_long(prog, "--threads", v, 1, 4096); break;
	case OPT_MAX_ITER: o->max_iter = wl_parse_long(prog, "--max-iter", v, 1, INT_MAX); break;
	}
}

static void print_size(const char *what, double bytes)
{
	const char *unit = "B";

	if (bytes >= 1 << 30) {
		bytes /= 1 << 30;
		unit = "GiB";
	} else if (bytes >= 1 << 20) {
		bytes /= 1 << 20;
		unit = "MiB";
	} else if (bytes >= 1 << 10) {
		bytes /= 1 << 10;
		unit = "KiB";
	}
	printf("%s: %.1f %s\n", what, bytes, unit);
}

int main(int argc, char **argv)
{
	struct options o = { .points = 100000, .dims = 3, .clusters = 100, .grid = 1000, .max_iter = 10000,
			     .seed = 1, .threads = -1 };
	const struct wl_cmd cmd = {
		WL_DESCRIPTOR, .options = options, .set = set, .ctx = &o,
		.footer = "The FAT paper's sweep: -d 40 -c 100 -s 1000 with 100000 to 350000 points.",
	};
	uint64_t state;
	int threads;
	struct km_problem pb;
	struct km_result res;
	const char *bad;
	int err;

	wl_parse(&cmd, argc, argv);
	threads = o.threads < 0 ? wl_default_threads(prog) : o.threads;
	if (o.grid > km_max_grid((int)o.dims))
		wl_usage_error(prog, "-s: %ld is too large for %ld dimensions (at most %ld: distances are 32-bit)",
			       o.grid, o.dims, km_max_grid((int)o.dims));

	pb.n = o.points;
	pb.d = (int)o.dims;
	pb.c = (int)o.clusters;
	pb.points = wl_alloc(prog, "points", sizeof(int) * (size_t)o.points * o.dims);
	pb.means = wl_alloc(prog, "means", sizeof(int) * (size_t)o.clusters * o.dims);
	pb.assign = wl_alloc(prog, "clusters", sizeof(int) * (size_t)o.points);

	printf("kmeans: %ld points, %ld dimensions, %ld clusters, grid %ld, seed %llu, %d thread%s\n",
	       o.points, o.dims, o.clusters, o.grid, (unsigned long long)o.seed, threads,
	       threads == 1 ? "" : "s");
	print_size("points (one block)", (double)sizeof(int) * o.points * o.dims);
	print_size("means (one block)", (double)sizeof(int) * o.clusters * o.dims);
	print_size("clusters", (double)sizeof(int) * o.points);

	/* Phoenix draws the o.points, then the initial means, from one generator */
	state = o.seed;
	km_generate(pb.points, (size_t)o.points * o.dims, (int)o.grid, &state);
	km_generate(pb.means, (size_t)o.clusters * o.dims, (int)o.grid, &state);

	err = km_run(&pb, threads, (int)o.max_iter, &res);
	if (err) {
		fprintf(stderr, "%s: %s\n", prog, strerror(-err));
		return 1;
	}
	printf("iterations: %d (%s)\n", res.iterations,
	       res.converged ? "converged" : "did not converge");
	printf("total time: %.3f s\n", res.seconds);

	if (!res.converged) {
		static char why[80];

		snprintf(why, sizeof(why), "did not converge in %d iterations (--max-iter)",
			 res.iterations);
		bad = why;
	} else {
		bad = km_check_assignment(&pb);
		if (!bad)
			bad = km_check_means(&pb);
	}
	wl_report(bad, res.seconds * 1e3 / res.iterations, "ms/iteration");
	free(pb.assign);
	free(pb.means);
	free(pb.points);
	return 0;
}
