/*
 * accessgen: a program whose access distribution is known exactly, the
 * ground truth against which every sampler's samples are measured
 * (bench/fidelity/run, tests/cli/fidelity.sh, docs/samplers.md).
 *
 * It mallocs its arrays (a runtime preloaded above a threshold manages
 * them), fills them, then for a set time runs one pattern from every
 * thread, each with its own random stream:
 *   hotcold   a fraction f of the accesses uniform in a hot set of H bytes
 *             at an offset of the first array, the rest uniform over
 *             everything else;
 *   sweep     forward sequential sweeps over all arrays;
 *   sweep-fb  forward then backward (as a symmetric Gauss-Seidel);
 *   zipf      2 MiB blocks ranked in a random order, block popularity
 *             Zipf(s), uniform within a block;
 *   phase     hotcold whose hot set moves to the last array halfway;
 *   lockstep  sequential steps through the first and the last array at
 *             once, one access to each per step, the second after a chain
 *             of dependent divisions (as HPCG's x[i] = sum / diag): equal
 *             counts, unequal time before each access.
 * An access is one 8-byte word: a load (read), a store (write), or half
 * of them stores (rw: alternating pairs of loads and of stores). Each
 * thread counts its own accesses per block in private memory (mmap'd, so
 * never managed) without atomics: random patterns add one to a cached
 * counter per access, sweeps add a block's count once per block; the
 * counts are merged at the end.
 *
 * The truth file (tab-separated, like the runtime's log):
 *   U  block_bytes                                 the block size
 *   A  index  addr  bytes  first_block             an array; blocks are numbered across arrays
 *   P  part  t_start_ns  t_end_ns  accesses        a part of the run ("all"; phase: "first", "second")
 *   B  part  index  addr  array  share  accesses   a block: its start address as the program sees it
 *   H  part  addr  bytes  share  accesses          the hot set (hotcold, phase; lockstep:
 *                                                  the part of the last array it steps through)
 * Times are CLOCK_MONOTONIC, the runtime's sample clock, so a sample
 * belongs to the part whose interval holds it; the fill before and the
 * check after are outside every part. On stdout: "accesses: N",
 * "seconds: S" (wall), "cpu-seconds: S" (the threads' CPU time in the
 * pattern: on a shared machine a thread that blocks often gets a larger
 * share of the CPU, so wall time alone misjudges a sampler's cost), and as
 * workloads print it, "validation: passed" (every word still holds what
 * was written) and "figure-of-merit: N accesses/s" (per wall second).
 * On stderr, "accessgen: pattern started" once the fill is done, for a
 * watcher that measures the steady state (bench/fidelity/tick-cost).
 */
#include "util/units.h"

#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MAX_ARRAYS 16
#define MAX_THREADS 256
#define MAX_PARTS 2
#define BATCH 4096

/* The names must follow the enums. */
enum pattern { HOTCOLD, SWEEP, SWEEP_FB, ZIPF, PHASE, LOCKSTEP, NPATTERNS };
static const char *const pattern_names[] = { "hotcold", "sweep", "sweep-fb", "zipf", "phase", "lockstep" };
_Static_assert(sizeof(pattern_names) / sizeof(pattern_names[0]) == NPATTERNS, "a name per pattern");
enum mode { READ, WRITE, RW, NMODES };
static const char *const mode_names[] = { "read", "write", "rw" };
_Static_assert(sizeof(mode_names) / sizeof(mode_names[0]) == NMODES, "a name per mode");

/* Everything the threads share; read-only once they run, but for part and stop. */
static struct {
	enum pattern pattern;
	enum mode mode;
	int narrays, nthreads, nparts;
	uint64_t bytes[MAX_ARRAYS];
	uint64_t *base[MAX_ARRAYS];
	uint64_t words[MAX_ARRAYS];
	uint32_t block_first[MAX_ARRAYS + 1];	/* global index of each array's first block; then the count */
	uint32_t nblocks;
	uint64_t block, stride, total_words;
	uint64_t hot_word[MAX_PARTS], hot_words;	/* hot set per part, in words of the concatenation */
	uint64_t lockstep_words;	/* words of each array lockstep steps through */
	double hot_frac, zipf_s;
	double seconds;
	int uncached;		/* each access flushed from the caches after it: every access costs the same */
	uint64_t seed;
	double *zipf_cdf;	/* by rank */
	uint32_t *zipf_block;	/* rank -> global block */
	pthread_barrier_t go;
	_Atomic int part, stop;
} G;

struct worker {
	pthread_t thread;
	uint64_t rng;
	uint64_t *count;	/* [part][block] */
	uint64_t hot[MAX_PARTS];
	uint64_t accesses, sink;
	uint64_t cpu_ns;	/* the thread's CPU time in the pattern */
};

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void *map_private(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("accessgen: mmap");
		exit(1);
	}
	return p;
}

/* splitmix64: independent streams from consecutive seeds */
static uint64_t next_random(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (Lemire's multiply-shift: a relative bias of n / 2^64, nothing at these sizes). */
static uint64_t below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)next_random(s) * n) >> 64);
}

/* What word w of array a holds: written at the fill and by every store. */
static inline uint64_t word_value(int a, uint64_t w)
{
	return (w * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)(a + 1);
}

/*
 * Word w of array a, accessed as the mode says. rw stores in every other
 * pair of accesses, not every other access: lockstep alternates its two
 * arrays, and parity would give all the stores to one of them.
 */
static inline void touch(struct worker *me, int a, uint64_t w)
{
	int store = G.mode == WRITE || (G.mode == RW && (me->accesses & 2));

	if (store)
		G.base[a][w] = word_value(a, w);
	else
		me->sink += ((volatile uint64_t *)G.base[a])[w];
#if defined(__x86_64__) || defined(__i386__)
	if (G.uncached)
		__builtin_ia32_clflush(&G.base[a][w]);
#endif
	me->accesses++;
}

/* A word of the concatenated arrays: its array, its index there and its global block. */
static inline void locate(uint64_t gw, int *a, uint64_t *w, uint32_t *blk)
{
	int i = 0;

	while (gw >= G.words[i])
		gw -= G.words[i++];
	*a = i;
	*w = gw;
	*blk = G.block_first[i] + (uint32_t)(gw * 8 / G.block);
}

static void run_hotcold(struct worker *me)
{
	uint64_t cold_words = G.total_words - G.hot_words;
	uint64_t hot_cut = (uint64_t)(G.hot_frac * 9007199254740992.0);	/* f x 2^53 */

	while (!atomic_load_explicit(&G.stop, memory_order_relaxed)) {
		int part = atomic_load_explicit(&G.part, memory_order_relaxed);
		uint64_t h0 = G.hot_word[part], *count = me->count + (size_t)part * G.nblocks, hot = 0;

		for (int i = 0; i < BATCH; i++) {
			uint64_t gw, w;
			uint32_t blk;
			int a;

			if ((next_random(&me->rng) >> 11) < hot_cut) {
				gw = h0 + below(&me->rng, G.hot_words);
				hot++;
			} else {
				gw = below(&me->rng, cold_words);
				if (gw >= h0)
					gw += G.hot_words;
			}
			locate(gw, &a, &w, &blk);
			touch(me, a, w);
			count[blk]++;
		}
		me->hot[part] += hot;
	}
}

static void run_zipf(struct worker *me)
{
	while (!atomic_load_explicit(&G.stop, memory_order_relaxed)) {
		for (int i = 0; i < BATCH; i++) {
			double u = (double)(next_random(&me->rng) >> 11) * (1.0 / 9007199254740992.0);
			uint32_t lo = 0, hi = G.nblocks - 1, blk;
			uint64_t first, n;
			int a = 0;

			while (lo < hi) {
				uint32_t mid = (lo + hi) / 2;

				if (G.zipf_cdf[mid] > u)
					hi = mid;
				else
					lo = mid + 1;
			}
			blk = G.zipf_block[lo];
			while (a + 1 < G.narrays && G.block_first[a + 1] <= blk)
				a++;
			first = (uint64_t)(blk - G.block_first[a]) * G.block / 8;
			n = G.words[a] - first < G.block / 8 ? G.words[a] - first : G.block / 8;
			touch(me, a, first + below(&me->rng, n));
			me->count[blk]++;
		}
	}
}

/*
 * The first access of a step is cheap to reach, the second waits for four
 * dependent divisions (its address depends on their result, so neither
 * compiler nor CPU can issue it earlier). A sampler whose sample is "the
 * first access after a moment" sees each access in proportion to the
 * time before it, not to its count: this pattern measures that.
 */
static void run_lockstep(struct worker *me)
{
	int last = G.narrays - 1;
	uint64_t step = G.stride / 8, n = G.lockstep_words / step, i = 0, second = 0;
	double acc = 1.0;

	while (!atomic_load_explicit(&G.stop, memory_order_relaxed)) {
		for (int b = 0; b < BATCH; b++) {
			uint64_t w = i * step;

			touch(me, 0, w);
			me->count[G.block_first[0] + w * 8 / G.block]++;
			for (int k = 0; k < 4; k++)
				acc = 1.0 + acc / 3.0;	/* stays near 1.5: no denormals */
			w += acc < 0;
			touch(me, last, w);
			me->count[G.block_first[last] + w * 8 / G.block]++;
			second++;
			i = i + 1 == n ? 0 : i + 1;
		}
	}
	me->hot[0] += second;
	me->sink += (uint64_t)acc;
}

/* One sweep over every array, forward or backward; 0 once told to stop. */
static int sweep_once(struct worker *me, int backward)
{
	uint64_t step = G.stride / 8;

	for (int i = 0; i < G.narrays; i++) {
		int a = backward ? G.narrays - 1 - i : i;
		uint32_t nb = G.block_first[a + 1] - G.block_first[a];

		for (uint32_t j = 0; j < nb; j++) {
			uint32_t b = backward ? nb - 1 - j : j;
			uint64_t first = (uint64_t)b * G.block / 8;
			uint64_t end = first + G.block / 8 < G.words[a] ? first + G.block / 8 : G.words[a];
			uint64_t n = 0;

			if (atomic_load_explicit(&G.stop, memory_order_relaxed))
				return 0;
			/* every step-th word of the block, in the sweep's direction */
			if (backward) {
				for (uint64_t w = first + (end - 1 - first) / step * step + step; w > first; n++) {
					w -= step;
					touch(me, a, w);
				}
			} else {
				for (uint64_t w = first; w < end; w += step, n++)
					touch(me, a, w);
			}
			me->count[G.block_first[a] + b] += n;
		}
	}
	return 1;
}

static void *worker_main(void *arg)
{
	struct worker *me = arg;
	int backward = 0;
	uint64_t cpu0;

	pthread_barrier_wait(&G.go);
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	switch (G.pattern) {
	case HOTCOLD:
	case PHASE:
		run_hotcold(me);
		break;
	case ZIPF:
		run_zipf(me);
		break;
	case LOCKSTEP:
		run_lockstep(me);
		break;
	case SWEEP:
	case SWEEP_FB:
		while (sweep_once(me, backward))
			if (G.pattern == SWEEP_FB)
				backward = !backward;
		break;
	case NPATTERNS:
		break;
	}
	me->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	return NULL;
}

/* Block ranks in a random order fixed by the seed, popularity 1/rank^s. */
static void zipf_setup(void)
{
	uint64_t s = G.seed ^ 0x5a17f00dULL;
	double sum = 0;

	G.zipf_cdf = map_private(G.nblocks * sizeof(double));
	G.zipf_block = map_private(G.nblocks * sizeof(uint32_t));
	for (uint32_t i = 0; i < G.nblocks; i++)
		G.zipf_block[i] = i;
	for (uint32_t i = G.nblocks - 1; i > 0; i--) {
		uint32_t j = (uint32_t)below(&s, i + 1), t = G.zipf_block[i];

		G.zipf_block[i] = G.zipf_block[j];
		G.zipf_block[j] = t;
	}
	for (uint32_t r = 0; r < G.nblocks; r++)
		G.zipf_cdf[r] = (sum += 1.0 / pow((double)(r + 1), G.zipf_s));
	for (uint32_t r = 0; r < G.nblocks; r++)
		G.zipf_cdf[r] /= sum;
	G.zipf_cdf[G.nblocks - 1] = 1.0;
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / 1000000000ULL), .tv_nsec = (long)(t_ns % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

/* 0 when every word holds what the fill and the stores wrote. */
static int check_arrays(void)
{
	for (int a = 0; a < G.narrays; a++)
		for (uint64_t w = 0; w < G.words[a]; w++)
			if (G.base[a][w] != word_value(a, w)) {
				fprintf(stderr, "accessgen: array %d word %llu holds %#llx, not %#llx\n", a,
					(unsigned long long)w, (unsigned long long)G.base[a][w],
					(unsigned long long)word_value(a, w));
				return -1;
			}
	return 0;
}

static const char *const part_names[2][MAX_PARTS] = { { "all" }, { "first", "second" } };

static int write_truth(const char *path, struct worker *wk, const uint64_t *t)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "# accessgen truth: pattern %s, mode %s, %d threads, block %llu bytes\n",
		pattern_names[G.pattern], mode_names[G.mode], G.nthreads, (unsigned long long)G.block);
	fprintf(f, "U\t%llu\n", (unsigned long long)G.block);
	for (int a = 0; a < G.narrays; a++)
		fprintf(f, "A\t%d\t%p\t%llu\t%u\n", a, (void *)G.base[a], (unsigned long long)G.bytes[a],
			G.block_first[a]);
	for (int p = 0; p < G.nparts; p++) {
		const char *name = part_names[G.nparts > 1][p];
		uint64_t total = 0, hot = 0;

		for (uint32_t b = 0; b < G.nblocks; b++)
			for (int i = 0; i < G.nthreads; i++)
				total += wk[i].count[(size_t)p * G.nblocks + b];
		for (int i = 0; i < G.nthreads; i++)
			hot += wk[i].hot[p];
		fprintf(f, "P\t%s\t%llu\t%llu\t%llu\n", name, (unsigned long long)t[p],
			(unsigned long long)t[p + 1], (unsigned long long)total);
		for (int a = 0; a < G.narrays; a++)
			for (uint32_t b = G.block_first[a]; b < G.block_first[a + 1]; b++) {
				uint64_t n = 0;

				for (int i = 0; i < G.nthreads; i++)
					n += wk[i].count[(size_t)p * G.nblocks + b];
				fprintf(f, "B\t%s\t%u\t%p\t%d\t%.9f\t%llu\n", name, b,
					(void *)((char *)G.base[a] + (uint64_t)(b - G.block_first[a]) * G.block), a,
					total ? (double)n / (double)total : 0.0, (unsigned long long)n);
			}
		if (G.pattern == HOTCOLD || G.pattern == PHASE || G.pattern == LOCKSTEP) {
			uint64_t gw = G.hot_word[p], w;
			uint32_t blk;
			int a;

			locate(gw, &a, &w, &blk);
			fprintf(f, "H\t%s\t%p\t%llu\t%.9f\t%llu\n", name, (void *)(G.base[a] + w),
				(unsigned long long)(G.hot_words * 8), total ? (double)hot / (double)total : 0.0,
				(unsigned long long)hot);
		}
	}
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static const char usage[] =
	"usage: accessgen [--pattern hotcold|sweep|sweep-fb|zipf|phase|lockstep] [--arrays SIZE,SIZE...]\n"
	"                 [--seconds S] [--threads N] [--mode read|write|rw] [--hot-size SIZE]\n"
	"                 [--hot-offset SIZE] [--hot-frac F] [--phase-offset SIZE] [--zipf-s S]\n"
	"                 [--stride BYTES] [--block SIZE] [--seed N] [--uncached] [--truth FILE]\n"
	"Runs one access pattern with a known distribution over malloc'd arrays for S seconds\n"
	"and writes the exact accesses per block to FILE (default accessgen-truth.tsv).\n"
	"Defaults: hotcold, 64M,64M, 3 s, 1 thread, read, hot set 8M at offset 0 of the first\n"
	"array taking 0.9 of the accesses (phase: then at --phase-offset, default 0, of the last\n"
	"array), Zipf s 1, sweep stride 64 bytes, blocks of 2M, seed 1.\n";

__attribute__((noreturn)) static void bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "accessgen: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see --help)\n");
	exit(2);
}

static uint64_t size_arg(const char *opt, const char *s)
{
	uint64_t v;

	if (tl_parse_size(s, &v))
		bad("%s: not a size with its unit (e.g. 64M, 2MiB, 4096B)", opt);
	return v;
}

static double number_arg(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v >= min && v <= max))
		bad("%s: not a number in range", opt);
	return v;
}

static int name_arg(const char *opt, const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	bad("%s: unknown name", opt);
}

static void parse_arrays(const char *list)
{
	char buf[512], *save = NULL, *tok;

	if (strlen(list) >= sizeof(buf))
		bad("--arrays: '%s' is too long", list);
	strcpy(buf, list);
	G.narrays = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (G.narrays == MAX_ARRAYS)
			bad("--arrays: more than 16 in '%s'", list);
		G.bytes[G.narrays] = size_arg("--arrays", tok);
		if (G.bytes[G.narrays] < 8 || G.bytes[G.narrays] % 8)
			bad("--arrays: '%s': sizes are whole 8-byte words", tok);
		G.narrays++;
	}
	if (!G.narrays)
		bad("--arrays: '%s' lists no size", list);
}

/*
 * Each array is one malloc'd block, THP-advised as the runtime advises
 * managed memory, so that a run with the runtime and one without differ
 * by the runtime and not by the page size (the advice covers the 2 MiB
 * aligned interior; on managed memory it changes nothing).
 */
static void alloc_arrays(void)
{
	uint32_t blocks = 0;

	for (int a = 0; a < G.narrays; a++) {
		uintptr_t lo, hi;

		if (!(G.base[a] = malloc(G.bytes[a]))) {
			fprintf(stderr, "accessgen: cannot allocate %llu bytes\n", (unsigned long long)G.bytes[a]);
			exit(1);
		}
		lo = ((uintptr_t)G.base[a] + (2UL << 20) - 1) & ~((2UL << 20) - 1);
		hi = ((uintptr_t)G.base[a] + G.bytes[a]) & ~((2UL << 20) - 1);
		if (hi > lo)
			madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
		G.words[a] = G.bytes[a] / 8;
		G.total_words += G.words[a];
		G.block_first[a] = blocks;
		blocks += (uint32_t)((G.bytes[a] + G.block - 1) / G.block);
		for (uint64_t w = 0; w < G.words[a]; w++)
			G.base[a][w] = word_value(a, w);
	}
	G.block_first[G.narrays] = blocks;
	G.nblocks = blocks;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pattern", required_argument, NULL, 'p' },	{ "arrays", required_argument, NULL, 'a' },
		{ "seconds", required_argument, NULL, 's' },	{ "threads", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'm' },	{ "hot-size", required_argument, NULL, 'H' },
		{ "hot-offset", required_argument, NULL, 'O' }, { "hot-frac", required_argument, NULL, 'f' },
		{ "phase-offset", required_argument, NULL, 'P' }, { "zipf-s", required_argument, NULL, 'z' },
		{ "stride", required_argument, NULL, 'S' },	{ "block", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 'r' },	{ "truth", required_argument, NULL, 'T' },
		{ "uncached", no_argument, NULL, 'u' },	{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *truth = "accessgen-truth.tsv";
	uint64_t hot_size = 8 << 20, hot_offset = 0, phase_offset = 0, t[MAX_PARTS + 1], accesses = 0, counted = 0;
	uint64_t cpu_ns = 0;
	struct worker *wk;
	int c;

	G.pattern = HOTCOLD;
	G.mode = READ;
	G.nthreads = 1;
	G.seconds = 3;
	G.hot_frac = 0.9;
	G.zipf_s = 1;
	G.stride = 64;
	G.block = 2 << 20;
	G.seed = 1;
	parse_arrays("64M,64M");
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': G.pattern = name_arg("--pattern", optarg, pattern_names, NPATTERNS); break;
		case 'a': parse_arrays(optarg); break;
		case 's': G.seconds = number_arg("--seconds", optarg, 0.001, 1e6); break;
		case 't': G.nthreads = (int)number_arg("--threads", optarg, 1, MAX_THREADS); break;
		case 'm': G.mode = name_arg("--mode", optarg, mode_names, NMODES); break;
		case 'H': hot_size = size_arg("--hot-size", optarg); break;
		case 'O': hot_offset = size_arg("--hot-offset", optarg); break;
		case 'f': G.hot_frac = number_arg("--hot-frac", optarg, 0, 1); break;
		case 'P': phase_offset = size_arg("--phase-offset", optarg); break;
		case 'z': G.zipf_s = number_arg("--zipf-s", optarg, 0, 100); break;
		case 'S': G.stride = size_arg("--stride", optarg); break;
		case 'b': G.block = size_arg("--block", optarg); break;
		case 'r': G.seed = (uint64_t)number_arg("--seed", optarg, 0, 1e18); break;
		case 'T': truth = optarg; break;
		case 'u':
#if defined(__x86_64__) || defined(__i386__)
			G.uncached = 1;
			break;
#else
			fputs("accessgen: --uncached: flushing a line is written for x86 only\n", stderr);
			return 2;
#endif
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind < argc)
		bad("unexpected argument '%s'", argv[optind]);
	if (G.stride < 8 || G.stride % 8)
		bad("--stride: %s", "a whole number of 8-byte words");
	if (G.block < 4096 || G.block % 8)
		bad("--block: %s", "at least 4096 bytes, whole words");
	if (hot_size < 8 || hot_size % 8 || hot_offset % 8 || phase_offset % 8)
		bad("--hot-size, --hot-offset, --phase-offset: %s", "whole 8-byte words, hot set not empty");
	if ((G.pattern == HOTCOLD || G.pattern == PHASE) && hot_offset + hot_size > G.bytes[0])
		bad("--hot-offset, --hot-size: %s", "the hot set must lie inside the first array");
	if (G.pattern == PHASE && phase_offset + hot_size > G.bytes[G.narrays - 1])
		bad("--phase-offset, --hot-size: %s", "the moved hot set must lie inside the last array");
	G.nparts = G.pattern == PHASE ? 2 : 1;

	alloc_arrays();
	if ((G.pattern == HOTCOLD || G.pattern == PHASE) && hot_size / 8 >= G.total_words)
		bad("--hot-size: %s", "the hot set must leave some cold memory");
	G.hot_words = hot_size / 8;
	G.hot_word[0] = hot_offset / 8;
	G.hot_word[1] = G.total_words - G.words[G.narrays - 1] + phase_offset / 8;
	if (G.pattern == LOCKSTEP) {
		/* the "hot set" is the second access of each step: all of the last array it covers */
		G.lockstep_words = G.words[0] < G.words[G.narrays - 1] ? G.words[0] : G.words[G.narrays - 1];
		if (G.narrays < 2 || G.lockstep_words < G.stride / 8)
			bad("--pattern lockstep: %s", "needs two arrays of at least --stride bytes");
		G.hot_word[0] = G.total_words - G.words[G.narrays - 1];
		G.hot_words = G.lockstep_words;
	}
	if (G.pattern == ZIPF)
		zipf_setup();

	wk = map_private((size_t)G.nthreads * sizeof(*wk));
	pthread_barrier_init(&G.go, NULL, (unsigned)G.nthreads + 1);
	for (int i = 0; i < G.nthreads; i++) {
		wk[i].rng = G.seed * 0x100000001b3ULL + (uint64_t)i * 0xd1b54a32d192ed03ULL;
		wk[i].count = map_private((size_t)G.nparts * G.nblocks * sizeof(uint64_t));
		if ((c = pthread_create(&wk[i].thread, NULL, worker_main, &wk[i]))) {
			fprintf(stderr, "accessgen: cannot start thread %d: %s\n", i, strerror(c));
			return 1;
		}
	}
	t[0] = now_ns();
	pthread_barrier_wait(&G.go);
	/* for a watcher that measures the steady state (bench/fidelity/tick-cost): the fill is over */
	fprintf(stderr, "accessgen: pattern started\n");
	if (G.nparts == 2) {
		sleep_until(t[0] + (uint64_t)(G.seconds * 0.5e9));
		t[1] = now_ns();
		atomic_store(&G.part, 1);
	}
	sleep_until(t[0] + (uint64_t)(G.seconds * 1e9));
	atomic_store(&G.stop, 1);
	for (int i = 0; i < G.nthreads; i++) {
		pthread_join(wk[i].thread, NULL);
		accesses += wk[i].accesses;
		cpu_ns += wk[i].cpu_ns;
		for (size_t j = 0; j < (size_t)G.nparts * G.nblocks; j++)
			counted += wk[i].count[j];
	}
	t[G.nparts] = now_ns();

	printf("pattern: %s, %d arrays, %d threads, mode %s\n", pattern_names[G.pattern], G.narrays,
	       G.nthreads, mode_names[G.mode]);
	printf("accesses: %llu\nseconds: %.6f\ncpu-seconds: %.6f\n", (unsigned long long)accesses,
	       (double)(t[G.nparts] - t[0]) * 1e-9, (double)cpu_ns * 1e-9);
	if (write_truth(truth, wk, t))
		return 1;
	printf("truth: %s\n", truth);
	if (counted != accesses) {
		printf("validation: FAILED: %llu accesses counted in blocks, %llu made\n",
		       (unsigned long long)counted, (unsigned long long)accesses);
		return 1;
	}
	if (check_arrays()) {
		printf("validation: FAILED: the arrays do not hold what was written\n");
		return 1;
	}
	printf("validation: passed\n");
	printf("figure-of-merit: %.6g accesses/s\n", (double)accesses / ((double)(t[G.nparts] - t[0]) * 1e-9));
	return 0;
}
