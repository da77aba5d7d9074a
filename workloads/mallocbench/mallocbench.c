/*
 * mallocbench: malloc/free throughput as a standalone workload. Options
 * (presets from its descriptor), which allocator answers malloc, the threads' run, and the
 * figure of merit: nanoseconds per free+malloc pair, averaged over the
 * threads as glibc's bench-malloc-thread averages its per-thread times
 * (lower is better; it stays flat as threads are added when the allocator
 * scales).
 */
#include "mallocbench.h"
#include "wl.h"
#include "wl-options.h"
#include "wl-sizes.h"

#include <dlfcn.h>
#include <limits.h>

static const char *prog = WL_NAME;

static const struct range {
	const char *name;
	long min, max;
} ranges[] = {
	{ "small", 4, 4096 },
	{ "large", 4096, 262144 },   /* crosses glibc's default 128 KiB mmap threshold */
};

struct options {
	long blocks, iterations, min_size, max_size;
	const struct range *rg;
	struct mb_config cfg;
	int threads;
};

enum { OPT_BLOCKS = 1, OPT_RANGE, OPT_MIN, OPT_MAX, OPT_THREADS, OPT_ITERATIONS, OPT_SECONDS, OPT_NO_FILL,
       OPT_SEED };

static const struct wl_option options[] = {
	{ OPT_BLOCKS, 0, "blocks", "N", 0, 0, "live blocks per thread (default 400; glibc's counts:\n25, 100, 400, 1600)" },
	{ OPT_RANGE, 0, "range", "small|large", 0, 0, "sizes 4..4096 (small, default) or 4096..262144 (large)" },
	{ OPT_MIN, 0, "min-size", "N", 0, 0, "an explicit size range in bytes, with --max-size" },
	{ OPT_MAX, 0, "max-size", "N", 0, 0, "an explicit size range in bytes, with --min-size" },
	{ OPT_THREADS, 0, "threads", "N", 0, 0, "threads (default $OMP_NUM_THREADS, else 1)" },
	{ OPT_ITERATIONS, 0, "iterations", "N", 0, OPT_SECONDS, "free+malloc pairs per thread (default 5000000)" },
	{ OPT_SECONDS, 0, "seconds", "S", 0, OPT_ITERATIONS, "run each thread for S seconds instead" },
	{ OPT_NO_FILL, 0, "no-fill", NULL, WL_FLAG, 0,
	  "do not write and check blocks (pure allocator time,\nweaker validation: only the last live blocks are"
	  "\nchecked for overlap)" },
	{ OPT_SEED, 0, "seed", "N", 0, 0, "seed of the size and slot sequences (default 1)" },
	{ 0, 0, NULL, NULL, 0, 0, NULL },
};

static void set(int key, const char *v, void *ctx)
{
	struct options *o = ctx;

	switch (key) {
	case OPT_BLOCKS: o->blocks = wl_parse_long(prog, "--blocks", v, 1, 1L << 24); break;
	case OPT_RANGE:
		o->rg = NULL;
		for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
			if (!strcmp(v, ranges[i].name))
				o->rg = &ranges[i];
		if (!o->rg)
			wl_usage_error(prog, "--range: '%s' is not small or large", v);
		break;
	case OPT_MIN: o->min_size = wl_parse_long(prog, "--min-size", v, 1, 1L << 30); break;
	case OPT_MAX: o->max_size = wl_parse_long(prog, "--max-size", v, 1, 1L << 30); break;
	case OPT_THREADS: o->threads = (int)wl_parse_long(prog, "--threads", v, 1, 1024); break;
	case OPT_ITERATIONS: o->iterations = wl_parse_long(prog, "--iterations", v, 1, LONG_MAX); break;
	case OPT_SECONDS:
		o->cfg.seconds = wl_parse_double(prog, "--seconds", v);
		if (o->cfg.seconds <= 0 || o->cfg.seconds > 86400)
			wl_usage_error(prog, "--seconds: '%s' is not in (0, 86400]", v);
		break;
	case OPT_NO_FILL: o->cfg.fill = 0; break;
	case OPT_SEED: o->cfg.seed = (uint64_t)wl_parse_long(prog, "--seed", v, 0, LONG_MAX); break;
	}
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
	static const struct mb_allocator sys = { malloc, free };
	struct options o = { .blocks = -1, .iterations = -1, .min_size = -1, .max_size = -1, .rg = &ranges[0],
			     .cfg = { .fill = 1, .seed = 1 }, .threads = -1 };
	const struct wl_cmd cmd = { WL_DESCRIPTOR, .options = options, .set = set, .ctx = &o };
	struct mb_config cfg;
	struct mb_thread_result *res;
	double sum_ns = 0, pairs = 0, longest = 0;
	int threads, err;

	wl_parse(&cmd, argc, argv);
	cfg = o.cfg;
	if (o.iterations > 0 && cfg.seconds > 0)
		wl_usage_error(prog, "--iterations and --seconds exclude each other");
	cfg.blocks = (size_t)(o.blocks > 0 ? o.blocks : 400);
	cfg.iterations = (uint64_t)(o.iterations > 0 ? o.iterations : 5000000);
	cfg.min_size = (size_t)(o.min_size > 0 ? o.min_size : o.rg->min);
	cfg.max_size = (size_t)(o.max_size > 0 ? o.max_size : o.rg->max);
	if (cfg.min_size > cfg.max_size)
		wl_usage_error(prog, "the size range %zu..%zu is empty", cfg.min_size, cfg.max_size);
	threads = o.threads > 0 ? o.threads : wl_default_threads(prog);

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
