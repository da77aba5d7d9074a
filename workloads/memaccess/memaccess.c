/*
 * memaccess: the linked-list memory-access benchmark as a standalone
 * workload. For one working-set size, or for each size of a doubling
 * sweep, it builds the list in ONE block, checks it (which also warms it),
 * times whole laps of pointer chasing and checks the sum the timed laps
 * produced. Figure of merit: nanoseconds per access of the largest size
 * (lower is better).
 */
#include "memaccess.h"
#include "wl.h"

#include <getopt.h>
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *prog = "memaccess";

/* Presets: the same names and values as workloads/memaccess/workload.yaml. */
static const struct preset {
	const char *name, *size;
} presets[] = {
	{ "tiny", "4M" },
	{ "small", "256M" },
	{ "medium", "1G" },
	{ "paper", "4G" },
};

#define DEFAULT_ACCESSES (1UL << 24)

static void usage(void)
{
	printf("usage: %s [options]\n"
	       "Pointer chasing through a linked list of %zu-byte nodes held in one block\n"
	       "(the FAT paper's memory-access benchmark); prints nanoseconds per access.\n"
	       "\n"
	       "  --size SIZE|NAME    working set, e.g. 256M (units K, M, G, T: binary), or a preset\n"
	       "  --from SIZE --to SIZE\n"
	       "                      a doubling sweep from..to, one line per size; the\n"
	       "                      figure of merit is the largest size's\n"
	       "  --order seq|random  link order (default random: one random cycle through\n"
	       "                      every node, from --seed)\n"
	       "  --accesses N        time at least N accesses per size, in whole laps\n"
	       "                      (default %lu)\n"
	       "  --seed N            shuffle and payload seed (default 1)\n"
	       "  --thp               ask for transparent huge pages on the block (madvise)\n"
	       "  -h, --help          this text\n"
	       "\n"
	       "size presets:\n", prog, sizeof(struct ma_node), DEFAULT_ACCESSES);
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		printf("  %-7s --size %s\n", presets[i].name, presets[i].size);
	printf("\nDefault: --size 256M (small).\n");
}

static uint64_t parse_size(const char *opt, const char *s, int presets_ok)
{
	uint64_t v;

	for (size_t i = 0; presets_ok && i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(s, presets[i].name))
			s = presets[i].size;
	if (ma_parse_size(s, &v) || v < 2 * sizeof(struct ma_node))
		wl_usage_error(prog, "%s: '%s' is not a size of at least %zu bytes (e.g. 4M, 1G%s)",
			       opt, s, 2 * sizeof(struct ma_node),
			       presets_ok ? ", or tiny, small, medium, paper" : "");
	return v;
}

static void format_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.*f %s", v == (double)(uint64_t)v ? 0 : 2, v, units[u]);
}

/* Ask for huge pages on the 2 MiB-aligned interior of the block. */
static void advise_thp(void *p, size_t bytes)
{
	uintptr_t lo = ((uintptr_t)p + (2UL << 20) - 1) & ~((2UL << 20) - 1);
	uintptr_t hi = ((uintptr_t)p + bytes) & ~((2UL << 20) - 1);

	if (hi > lo && madvise((void *)lo, hi - lo, MADV_HUGEPAGE))
		fprintf(stderr, "%s: madvise(MADV_HUGEPAGE): %s\n", prog, strerror(errno));
}

/* One working-set size: returns ns per access, or sets *why. */
static double run_size(uint64_t bytes, enum ma_order order, uint64_t min_accesses,
		       uint64_t seed, int thp, const char **why)
{
	static char failure[300];
	size_t n = bytes / sizeof(struct ma_node);
	struct ma_node *nodes = wl_alloc(prog, "the list", n * sizeof(*nodes));
	uint64_t laps = (min_accesses + n - 1) / n, steps, sum, want;
	const char *bad;
	char sz[32];
	double t0, t;

	if (!laps)
		laps = 1;
	steps = laps * n;
	format_size(sz, sizeof(sz), bytes);
	if (thp)
		advise_thp(nodes, n * sizeof(*nodes));
	ma_build(nodes, n, order, seed);
	bad = ma_check(nodes, n, seed);
	if (bad) {
		snprintf(failure, sizeof(failure), "working set %s: %s", sz, bad);
		*why = failure;
		free(nodes);
		return 0;
	}

	t0 = wl_now();
	sum = ma_chase(nodes, steps);
	t = wl_now() - t0;

	/* the timed laps must have met every payload laps times */
	want = ma_expected_sum(n, seed) * laps;
	if (sum != want) {
		snprintf(failure, sizeof(failure),
			 "working set %s: timed laps summed %#llx, expected %#llx", sz,
			 (unsigned long long)sum, (unsigned long long)want);
		*why = failure;
	}
	printf("working set %s: %zu nodes, %llu laps, %llu accesses in %.3f s: %.3f ns/access\n",
	       sz, n, (unsigned long long)laps, (unsigned long long)steps, t, t * 1e9 / (double)steps);
	fflush(stdout);
	free(nodes);
	return t * 1e9 / (double)steps;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 'z' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "order", required_argument, NULL, 'o' },
		{ "accesses", required_argument, NULL, 'a' },
		{ "seed", required_argument, NULL, 'S' },
		{ "thp", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t size = 0, from = 0, to = 0, seed = 1, accesses = DEFAULT_ACCESSES;
	enum ma_order order = MA_RANDOM;
	const char *why = NULL;
	double ns = 0;
	int opt, thp = 0;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'z': size = parse_size("--size", optarg, 1); break;
		case 'f': from = parse_size("--from", optarg, 0); break;
		case 't': to = parse_size("--to", optarg, 0); break;
		case 'o':
			if (!strcmp(optarg, "seq"))
				order = MA_SEQ;
			else if (!strcmp(optarg, "random"))
				order = MA_RANDOM;
			else
				wl_usage_error(prog, "--order: '%s' is not seq or random", optarg);
			break;
		case 'a': accesses = (uint64_t)wl_parse_long(prog, "--accesses", optarg, 1, LONG_MAX); break;
		case 'S': seed = (uint64_t)wl_parse_long(prog, "--seed", optarg, 0, LONG_MAX); break;
		case 'T': thp = 1; break;
		case 'h': usage(); return 0;
		case ':': wl_usage_error(prog, "%s needs a value", argv[optind - 1]);
		default: wl_usage_error(prog, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		wl_usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (size && (from || to))
		wl_usage_error(prog, "--size and --from/--to exclude each other");
	if (!from != !to)
		wl_usage_error(prog, "a sweep needs both --from and --to");
	if (from && from > to)
		wl_usage_error(prog, "--from is larger than --to");
	if (!size && !from)
		size = 256UL << 20;

	printf("memaccess: %s order, %zu-byte nodes, at least %llu accesses per size, seed %llu%s\n",
	       order == MA_RANDOM ? "random" : "sequential", sizeof(struct ma_node),
	       (unsigned long long)accesses, (unsigned long long)seed,
	       thp ? ", transparent huge pages requested" : "");
	if (size) {
		ns = run_size(size, order, accesses, seed, thp, &why);
	} else {
		for (uint64_t s = from; s <= to && !why; s *= 2) {
			ns = run_size(s, order, accesses, seed, thp, &why);
			if (s > UINT64_MAX / 2)
				break;
		}
	}
	wl_report(why, ns, "ns/access");
	return 0;
}
