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
#include "wl-options.h"
#include "wl-sizes.h"

#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *prog = WL_NAME;

#define DEFAULT_ACCESSES (1UL << 24)

static uint64_t parse_size(const char *opt, const char *s)
{
	uint64_t v;

	if (ma_parse_size(s, &v) || v < 2 * sizeof(struct ma_node))
		wl_usage_error(prog, "%s: '%s' is not a size of at least %zu bytes (e.g. 4M, 1G%s)",
			       opt, s, 2 * sizeof(struct ma_node), strcmp(opt, "--size") ? "" :
			       ", or a size preset");
	return v;
}

struct options {
	uint64_t size, from, to, seed, accesses;
	enum ma_order order;
	int thp, numa_maps;
};

enum { OPT_SIZE = 1, OPT_FROM, OPT_TO, OPT_ORDER, OPT_ACCESSES, OPT_SEED, OPT_THP, OPT_NUMA_MAPS };

static const struct wl_option options[] = {
	{ OPT_SIZE, 0, "size", "SIZE|NAME", 0, 0,
	  "working set, e.g. 256M (units K, M, G, T: binary), or a preset" },
	{ OPT_FROM, 0, "from", "SIZE", 0, OPT_SIZE,
	  "a doubling sweep from..to, one line per size; the\nfigure of merit is the largest size's" },
	{ OPT_TO, 0, "to", "SIZE", 0, OPT_SIZE, "the end of the sweep" },
	{ OPT_ORDER, 0, "order", "seq|random", 0, 0,
	  "link order (default random: one random cycle through\nevery node, from --seed)" },
	{ OPT_ACCESSES, 0, "accesses", "N", 0, 0, "time at least N accesses per size, in whole laps\n(default 16777216)" },
	{ OPT_SEED, 0, "seed", "N", 0, 0, "shuffle and payload seed (default 1)" },
	{ OPT_THP, 0, "thp", NULL, WL_FLAG, 0, "ask for transparent huge pages on the block (madvise)" },
	{ OPT_NUMA_MAPS, 0, "numa-maps", NULL, WL_FLAG, 0,
	  "print the memory policy the list, the heap and the stack\nare under (their /proc/self/numa_maps lines)" },
	{ 0, 0, NULL, NULL, 0, 0, NULL },
};

static void set(int key, const char *v, void *ctx)
{
	struct options *o = ctx;

	switch (key) {
	case OPT_SIZE: o->size = parse_size("--size", v); break;
	case OPT_FROM: o->from = parse_size("--from", v); break;
	case OPT_TO: o->to = parse_size("--to", v); break;
	case OPT_ORDER:
		if (!strcmp(v, "seq"))
			o->order = MA_SEQ;
		else if (!strcmp(v, "random"))
			o->order = MA_RANDOM;
		else
			wl_usage_error(prog, "--order: '%s' is not seq or random", v);
		break;
	case OPT_ACCESSES: o->accesses = (uint64_t)wl_parse_long(prog, "--accesses", v, 1, LONG_MAX); break;
	case OPT_SEED: o->seed = (uint64_t)wl_parse_long(prog, "--seed", v, 0, LONG_MAX); break;
	case OPT_THP: o->thp = 1; break;
	case OPT_NUMA_MAPS: o->numa_maps = 1; break;
	}
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

/* This process's page-table bytes (VmPTE), in KiB; -1 where the kernel does not say. */
static long vmpte_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPTE: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * The numa_maps lines (address, policy, pages per node) of the mapping
 * holding the list, of the heap and of the stack, once the list is built:
 * what memory policy each is under ("default", "interleave:0", ...).
 */
static void print_numa_maps(const void *list)
{
	char line[1024];
	FILE *f = fopen("/proc/self/numa_maps", "re");
	uintptr_t at = (uintptr_t)list, best = 0;
	char best_line[1024] = "";

	if (!f) {
		printf("numa_maps: %s\n", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		uintptr_t start = (uintptr_t)strtoull(line, NULL, 16);

		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, " heap"))
			printf("numa_maps heap: %s\n", line);
		else if (strstr(line, " stack"))
			printf("numa_maps stack: %s\n", line);
		/* the list's mapping: the last one starting at or below it */
		if (start <= at && start >= best) {
			best = start;
			snprintf(best_line, sizeof(best_line), "%s", line);
		}
	}
	fclose(f);
	printf("numa_maps list: %s\n", best_line);
}

/* One working-set size: returns ns per access, or sets *why. */
static double run_size(uint64_t bytes, enum ma_order order, uint64_t min_accesses,
		       uint64_t seed, int thp, int numa_maps, const char **why)
{
	static char failure[300];
	size_t n = bytes / sizeof(struct ma_node);
	long pte_before = vmpte_kib(), pte_with;
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
	pte_with = vmpte_kib();
	if (numa_maps)
		print_numa_maps(nodes);
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
	/* what mapping the list costs, apart from the program's own mappings (binary, libraries, stack) */
	if (pte_before >= 0 && pte_with >= 0)
		printf("page tables for the %s list: %ld KiB (VmPTE %ld KiB before it, %ld KiB with it)\n",
		       sz, pte_with - pte_before, pte_before, pte_with);
	fflush(stdout);
	free(nodes);
	return t * 1e9 / (double)steps;
}

int main(int argc, char **argv)
{
	struct options o = { .seed = 1, .accesses = DEFAULT_ACCESSES, .order = MA_RANDOM };
	const struct wl_cmd cmd = {
		WL_DESCRIPTOR, .default_size = WL_DEFAULT_SIZE, .size_key = OPT_SIZE,
		.options = options, .set = set, .ctx = &o,
	};
	const char *why = NULL;
	double ns = 0;

	wl_parse(&cmd, argc, argv);
	if (o.size && (o.from || o.to))
		wl_usage_error(prog, "--size and --from/--to exclude each other");
	if (!o.from != !o.to)
		wl_usage_error(prog, "a sweep needs both --from and --to");
	if (o.from && o.from > o.to)
		wl_usage_error(prog, "--from is larger than --to");

	printf("memaccess: %s order, %zu-byte nodes, at least %llu accesses per size, seed %llu%s\n",
	       o.order == MA_RANDOM ? "random" : "sequential", sizeof(struct ma_node),
	       (unsigned long long)o.accesses, (unsigned long long)o.seed,
	       o.thp ? ", transparent huge pages requested" : "");
	if (o.size) {
		ns = run_size(o.size, o.order, o.accesses, o.seed, o.thp, o.numa_maps, &why);
	} else {
		for (uint64_t s = o.from; s <= o.to && !why; s *= 2) {
			ns = run_size(s, o.order, o.accesses, o.seed, o.thp, o.numa_maps, &why);
			if (s > UINT64_MAX / 2)
				break;
		}
	}
	wl_report(why, ns, "ns/access");
	return 0;
}
