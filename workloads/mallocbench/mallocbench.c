/*
 * mallocbench: malloc/free throughput as a standalone workload. Options
 * and presets, which allocator answers malloc, the threads' run, and the
 * figure of merit: nanoseconds per free+malloc pair, averaged over the
 * threads as glibc's bench-malloc-thread averages its per-thread times
 * (lower is better; it stays flat as threads are added when the allocator
 * scales).
 */
#include "mallocbench.h"
#include "wl.h"

#include <dlfcn.h>
#include <getopt.h>
#include <limits.h>

static const char *prog = "mallocbench";

/* Presets: the same names and values as workloads/mallocbench/workload.yaml. */
static const struct preset {
	const char *name;
	long blocks, iterations;
	int threads;
} presets[] = {
	{ "tiny", 100, 100000, 1 },
	{ "small", 400, 5000000, 1 },
	{ "mt", 400, 5000000, 2 },
};

static const struct range {
	const char *name;
	long min, max;
} ranges[] = {
	{ "small", 4, 4096 },
	{ "large", 4096, 262144 },   /* crosses glibc's default 128 KiB mmap threshold */
};

static void usage(void)
{
	printf("usage: %s [options]\n"
	       "malloc/free throughput in the manner of glibc's bench-malloc-thread: each\n"
	       "thread keeps its own slots of live blocks; an iteration frees a random slot\n"
	       "and mallocs a block of random size (uniform in the range) into it. Prints\n"
	       "nanoseconds per free+malloc pair (per thread, averaged over the threads).\n"
	       "\n"
	       "  --blocks N          live blocks per thread (default 400; glibc's counts:\n"
	       "                      25, 100, 400, 1600)\n"
	       "  --range small|large sizes 4..4096 (small, default) or 4096..262144 (large)\n"
	       "  --min-size N --max-size N\n"
	       "                      an explicit size range in bytes\n"
	       "  --threads N         threads (default $OMP_NUM_THREADS, else 1)\n"
	       "  --iterations N      free+malloc pairs per thread (default 5000000)\n"
	       "  --seconds S         run each thread for S seconds instead\n"
	       "  --no-fill           do not write and check blocks (pure allocator time,\n"
	       "                      weaker validation: only the last live blocks are\n"
	       "                      checked for overlap)\n"
	       "  --seed N            seed of the size and slot sequences (default 1)\n"
	       "  --size NAME         a preset; explicit options override it\n"
	       "  -h, --help          this text\n"
	       "\n"
	       "size presets:\n", prog);
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		printf("  %-6s --blocks %ld --iterations %ld --threads %d\n", presets[i].name,
		       presets[i].blocks, presets[i].iterations, presets[i].threads);
}

static int default_threads(void)
{
	const char *s = getenv("OMP_NUM_THREADS");
	char *end;
	long v;

	if (!s || !*s)
		return 1;
	v = strtol(s, &end, 10);
	if (v < 1 || v > 4096 || (*end && *end != ','))
		wl_usage_error(prog, "OMP_NUM_THREADS: '%s' is not a thread count", s);
	return (int)v;
}

/* The object that answers malloc for this process (a preload wins over libc). */
static void print_allocator(void)
{
	void *sym = dlsym(RTLD_DEFAULT, "malloc");
	Dl_info info;
	const char *file = NULL, *base;

	if (sym && dladdr(sym, &info) && info.dli_fname && *info.dli_fname)
		file = info.dli_fname;
	if (!file) {
		printf("allocator: unknown (malloc not found by dladdr)\n");
		return;
	}
	base = strrchr(file, '/');
	base = base ? base + 1 : file;
	printf("allocator: %s (malloc from %s)\n",
	       !strncmp(base, "libc.so", 7) ? "glibc" :
	       !strncmp(base, "libjemalloc", 11) ? "jemalloc" :
	       !strncmp(base, "libtcmalloc", 11) ? "tcmalloc" :
	       !strncmp(base, "libmimalloc", 11) ? "mimalloc" :
	       !strncmp(base, "libfatalloc", 11) ? "fatalloc" :
	       !strncmp(base, "libtiermem", 10) ? "tierlab runtime" : "other", file);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "blocks", required_argument, NULL, 'b' },
		{ "range", required_argument, NULL, 'r' },
		{ "min-size", required_argument, NULL, 'm' },
		{ "max-size", required_argument, NULL, 'M' },
		{ "threads", required_argument, NULL, 't' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "seconds", required_argument, NULL, 's' },
		{ "no-fill", no_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "size", required_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct mb_allocator sys = { malloc, free };
	long blocks = -1, iterations = -1, min_size = -1, max_size = -1;
	const struct range *rg = &ranges[0];
	const struct preset *ps = NULL;
	struct mb_config cfg = { .fill = 1, .seed = 1 };
	struct mb_thread_result *res;
	double sum_ns = 0, pairs = 0, longest = 0;
	int threads = -1, opt, err;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b': blocks = wl_parse_long(prog, "--blocks", optarg, 1, 1L << 24); break;
		case 'r':
			rg = NULL;
			for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
				if (!strcmp(optarg, ranges[i].name))
					rg = &ranges[i];
			if (!rg)
				wl_usage_error(prog, "--range: '%s' is not small or large", optarg);
			break;
		case 'm': min_size = wl_parse_long(prog, "--min-size", optarg, 1, 1L << 30); break;
		case 'M': max_size = wl_parse_long(prog, "--max-size", optarg, 1, 1L << 30); break;
		case 't': threads = (int)wl_parse_long(prog, "--threads", optarg, 1, 1024); break;
		case 'i': iterations = wl_parse_long(prog, "--iterations", optarg, 1, LONG_MAX); break;
		case 's':
			cfg.seconds = wl_parse_double(prog, "--seconds", optarg);
			if (cfg.seconds <= 0 || cfg.seconds > 86400)
				wl_usage_error(prog, "--seconds: '%s' is not in (0, 86400]", optarg);
			break;
		case 'n': cfg.fill = 0; break;
		case 'S': cfg.seed = (uint64_t)wl_parse_long(prog, "--seed", optarg, 0, LONG_MAX); break;
		case 'z':
			ps = NULL;
			for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
				if (!strcmp(optarg, presets[i].name))
					ps = &presets[i];
			if (!ps)
				wl_usage_error(prog, "--size: unknown preset '%s' (tiny, small, mt)", optarg);
			break;
		case 'h': usage(); return 0;
		case ':': wl_usage_error(prog, "%s needs a value", argv[optind - 1]);
		default: wl_usage_error(prog, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		wl_usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (iterations > 0 && cfg.seconds > 0)
		wl_usage_error(prog, "--iterations and --seconds exclude each other");
	cfg.blocks = (size_t)(blocks > 0 ? blocks : ps ? ps->blocks : 400);
	cfg.iterations = (uint64_t)(iterations > 0 ? iterations : ps ? ps->iterations : 5000000);
	cfg.min_size = (size_t)(min_size > 0 ? min_size : rg->min);
	cfg.max_size = (size_t)(max_size > 0 ? max_size : rg->max);
	if (cfg.min_size > cfg.max_size)
		wl_usage_error(prog, "the size range %zu..%zu is empty", cfg.min_size, cfg.max_size);
	if (threads < 0)
		threads = ps ? ps->threads : default_threads();

	printf("mallocbench: %d thread%s, %zu blocks per thread, sizes %zu..%zu bytes (uniform), ",
	       threads, threads == 1 ? "" : "s", cfg.blocks, cfg.min_size, cfg.max_size);
	if (cfg.seconds > 0)
		printf("%g s per thread", cfg.seconds);
	else
		printf("%llu iterations per thread", (unsigned long long)cfg.iterations);
	printf(", blocks %s\n", cfg.fill ? "filled and checked" : "not touched (--no-fill)");
	print_allocator();
	fflush(stdout);

	res = wl_alloc(prog, "thread results", sizeof(*res) * (size_t)threads);
	err = mb_run(&cfg, &sys, threads, res);
	if (err) {
		fprintf(stderr, "%s: cannot run: %s\n", prog, strerror(-err));
		return 1;
	}
	for (int t = 0; t < threads; t++) {
		double ns = res[t].iterations ? res[t].seconds * 1e9 / (double)res[t].iterations : 0;

		printf("thread %d: %llu pairs in %.3f s: %.2f ns/pair\n", t,
		       (unsigned long long)res[t].iterations, res[t].seconds, ns);
		sum_ns += ns;
		pairs += (double)res[t].iterations;
		if (res[t].seconds > longest)
			longest = res[t].seconds;
	}
	if (longest > 0)
		printf("throughput: %.2f M pairs/s over all threads\n", pairs / longest * 1e-6);
	wl_report(mb_failure(res, threads), sum_ns / threads, "ns/pair");
	free(res);
	return 0;
}
