/*
 * kmeans: the Phoenix k-means benchmark as a standalone workload. Options
 * and presets, a reproducible input from the seed, the run, the checks,
 * and the figure of merit (milliseconds per iteration, lower is better).
 */
#include "kmeans.h"
#include "wl.h"

#include <getopt.h>
#include <limits.h>

static const char *prog = "kmeans";

/* Presets: the same names and values as workloads/kmeans/workload.yaml. */
static const struct preset {
	const char *name;
	long points;
	int dims, clusters;
} presets[] = {
	{ "tiny", 2000, 3, 10 },
	{ "small", 100000, 40, 100 },
	{ "paper", 350000, 40, 100 },
};

static void usage(void)
{
	printf("usage: %s [options]\n"
	       "k-means clustering as in the Phoenix benchmark (pthreads): iterate until\n"
	       "no point changes cluster; prints the time per iteration.\n"
	       "\n"
	       "  -p, --points N      points (default 100000)\n"
	       "  -d, --dims N        dimensions (default 3)\n"
	       "  -c, --clusters N    clusters (default 100)\n"
	       "  -s, --grid N        coordinates in [0, N) (default 1000)\n"
	       "      --seed N        input seed (default 1)\n"
	       "      --threads N     threads (default $OMP_NUM_THREADS, else 1)\n"
	       "      --max-iter N    give up (validation fails) after N passes (default 10000)\n"
	       "      --size NAME     a preset; explicit options override it\n"
	       "  -h, --help          this text\n"
	       "\n"
	       "size presets:\n", prog);
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		printf("  %-6s -p %ld -d %d -c %d\n", presets[i].name, presets[i].points,
		       presets[i].dims, presets[i].clusters);
	printf("\nThe FAT paper's sweep: -d 40 -c 100 -s 1000 with 100000 to 350000 points.\n");
}

static int default_threads(void)
{
	const char *s = getenv("OMP_NUM_THREADS");
	char *end;
	long v;

	if (!s || !*s)
		return 1;
	v = strtol(s, &end, 10);
	/* OMP_NUM_THREADS may be a list ("4,2"): its first level counts */
	if (v < 1 || v > 4096 || (*end && *end != ','))
		wl_usage_error(prog, "OMP_NUM_THREADS: '%s' is not a thread count", s);
	return (int)v;
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
	static const struct option longopts[] = {
		{ "points", required_argument, NULL, 'p' },
		{ "dims", required_argument, NULL, 'd' },
		{ "clusters", required_argument, NULL, 'c' },
		{ "grid", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "threads", required_argument, NULL, 't' },
		{ "max-iter", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long points = -1, dims = -1, clusters = -1, grid = 1000, max_iter = 10000;
	uint64_t seed = 1, state;
	int threads = -1, opt;
	const struct preset *ps = NULL;
	struct km_problem pb;
	struct km_result res;
	const char *bad;
	int err;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":p:d:c:s:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': points = wl_parse_long(prog, "-p", optarg, 1, 100000000); break;
		case 'd': dims = wl_parse_long(prog, "-d", optarg, 1, 4096); break;
		case 'c': clusters = wl_parse_long(prog, "-c", optarg, 1, 100000); break;
		case 's': grid = wl_parse_long(prog, "-s", optarg, 1, INT_MAX); break;
		case 'S': seed = (uint64_t)wl_parse_long(prog, "--seed", optarg, 0, LONG_MAX); break;
		case 't': threads = (int)wl_parse_long(prog, "--threads", optarg, 1, 4096); break;
		case 'm': max_iter = wl_parse_long(prog, "--max-iter", optarg, 1, INT_MAX); break;
		case 'z':
			ps = NULL;
			for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
				if (!strcmp(optarg, presets[i].name))
					ps = &presets[i];
			if (!ps)
				wl_usage_error(prog, "--size: unknown preset '%s' (tiny, small, paper)", optarg);
			break;
		case 'h': usage(); return 0;
		case ':': wl_usage_error(prog, "%s needs a value", argv[optind - 1]);
		default: wl_usage_error(prog, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		wl_usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (points < 0)
		points = ps ? ps->points : 100000;
	if (dims < 0)
		dims = ps ? ps->dims : 3;
	if (clusters < 0)
		clusters = ps ? ps->clusters : 100;
	if (threads < 0)
		threads = default_threads();
	if (grid > km_max_grid((int)dims))
		wl_usage_error(prog, "-s: %ld is too large for %ld dimensions (at most %ld: distances are 32-bit)",
			       grid, dims, km_max_grid((int)dims));

	pb.n = points;
	pb.d = (int)dims;
	pb.c = (int)clusters;
	pb.points = wl_alloc(prog, "points", sizeof(int) * (size_t)points * dims);
	pb.means = wl_alloc(prog, "means", sizeof(int) * (size_t)clusters * dims);
	pb.assign = wl_alloc(prog, "clusters", sizeof(int) * (size_t)points);

	printf("kmeans: %ld points, %ld dimensions, %ld clusters, grid %ld, seed %llu, %d thread%s\n",
	       points, dims, clusters, grid, (unsigned long long)seed, threads,
	       threads == 1 ? "" : "s");
	print_size("points (one block)", (double)sizeof(int) * points * dims);
	print_size("means (one block)", (double)sizeof(int) * clusters * dims);
	print_size("clusters", (double)sizeof(int) * points);

	/* Phoenix draws the points, then the initial means, from one generator */
	state = seed;
	km_generate(pb.points, (size_t)points * dims, (int)grid, &state);
	km_generate(pb.means, (size_t)clusters * dims, (int)grid, &state);

	err = km_run(&pb, threads, (int)max_iter, &res);
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
