/*
 * ideal: the hit rate a perfect sampler would have given a run of
 * accessgen, against the hit rate its live samples gave, through the same
 * policy (bench/fidelity/run, tests/cli/fidelity.sh, docs/samplers.md).
 *
 *   ideal [--draws R] [--seed S] TRUTH LOG [TRUTH LOG]...
 *
 * Each pair is one run: accessgen's truth file and the runtime's log
 * (TIERLAB_LOG=log), replayed with lib/simulate in the configuration its
 * P line records (policy, chunks, budget, window). Only samples taken
 * while a part of the pattern ran count (not the fill, not the check).
 * The ideal sampler keeps every sample's time and replaces its address by
 * an independent draw from the truth of its part: a block with its true
 * share, a word uniform within it (accessgen's patterns are uniform within
 * a block). That is what "a sample is one access event, drawn as the
 * program accesses memory" means for a program whose accesses are
 * independent draws (hotcold, zipf, phase); for sweeps, whose next access
 * follows from the last, independent draws are not the ideal, and the
 * table marks them. R replays, each with fresh draws, give the ideal's
 * distribution; runs given together are pooled (hits and samples summed
 * per replay). Prints "key value" lines:
 *   runs, samples     runs, managed samples in the parts (pooled)
 *   duplicates        consecutive samples in the parts at the same byte
 *                     address (an ideal sampler of these programs: ~0)
 *   dup_frac          duplicates / samples
 *   dup_chance        the share of consecutive pairs that would repeat by
 *                     chance, were the samples independent draws of the
 *                     addresses they hit (sum c(c-1) / n(n-1) over the
 *                     addresses: ~0 for exact byte addresses, more for
 *                     samplers that give a page)
 *   rate              samples in the parts (managed or not) per second of the parts
 *   live_hit          hits as the runtime counted them / samples
 *   replay_hit        the recorded samples replayed (the check of the
 *                     instrument: equal to live_hit when the replay
 *                     decides as the runtime did); replay_differs: samples
 *                     whose hit differs
 *   ideal_hit, ideal_sd         mean and sd over the R replays
 *   ideal_lo95 ... ideal_hi99   central 95% and 99% intervals
 *   same_chunk        samples in the chunk of the sample before, / samples:
 *                     the live run's (recorded replay), the ideal's mean
 *                     (same_chunk_ideal) and the top of its central 99%
 *                     (same_chunk_hi99). A sampler whose samples follow
 *                     each other within a chunk (one that samples the
 *                     program while it waits on the chunk just moved, say)
 *                     raises lru's and window's hit rates without
 *                     repeating a byte address.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simulate/replay.h"
#include "simulate/setup.h"
#include "simulate/trace.h"

#define MAX_ARRAYS 16
#define MAX_PARTS 2
#define MAX_BLOCKS (1U << 20)

struct part {
	char name[32];
	uint64_t t0, t1;
	double *cdf;		/* cumulative share over the blocks */
};

struct run {
	uint64_t block;
	int narrays, nparts;
	uint32_t nblocks;
	uint64_t addr[MAX_ARRAYS], bytes[MAX_ARRAYS];
	uint32_t first_block[MAX_ARRAYS];
	struct part parts[MAX_PARTS];
	uint32_t seq[MAX_ARRAYS];	/* the trace allocation of each array */
	struct tl_trace trace;
	struct tl_trace_event *ev;	/* the trace's events, samples redrawn */
	int8_t *part_of;		/* per event: its part, or -1 */
	struct tl_sim_config c;
	const struct tl_trace_proc *p;
};

struct count {
	const struct run *r;
	uint64_t hits, samples, differs;
	uint64_t same;		/* samples in the chunk of the sample before */
	int32_t last;		/* that chunk, -1 at a run's start */
};

static void die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "ideal: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(2);
}

static void read_truth(struct run *r, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];

	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *fld[8];
		int n = 0;

		for (char *s = strtok(line, "\t\n"); s && n < 8; s = strtok(NULL, "\t\n"))
			fld[n++] = s;
		if (n == 2 && !strcmp(fld[0], "U")) {
			r->block = strtoull(fld[1], NULL, 10);
		} else if (n == 5 && !strcmp(fld[0], "A") && r->narrays < MAX_ARRAYS) {
			r->addr[r->narrays] = strtoull(fld[2], NULL, 16);
			r->bytes[r->narrays] = strtoull(fld[3], NULL, 10);
			r->first_block[r->narrays] = (uint32_t)strtoul(fld[4], NULL, 10);
			r->narrays++;
		} else if (n == 5 && !strcmp(fld[0], "P") && r->nparts < MAX_PARTS) {
			struct part *p = &r->parts[r->nparts++];

			snprintf(p->name, sizeof(p->name), "%s", fld[1]);
			p->t0 = strtoull(fld[2], NULL, 10);
			p->t1 = strtoull(fld[3], NULL, 10);
		} else if (n == 7 && !strcmp(fld[0], "B")) {
			uint32_t j = (uint32_t)strtoul(fld[2], NULL, 10);
			int k;

			for (k = 0; k < r->nparts && strcmp(r->parts[k].name, fld[1]); k++)
				;
			if (k == r->nparts)
				die("%s: a block of an unknown part '%s'", path, fld[1]);
			if (j >= MAX_BLOCKS)
				die("%s: block %s is beyond this tool's bound", path, fld[2]);
			if (!r->parts[k].cdf && !(r->parts[k].cdf = calloc(MAX_BLOCKS, sizeof(double))))
				die("%s: %s", path, "out of memory");
			if (j >= r->nblocks)
				r->nblocks = j + 1;
			r->parts[k].cdf[j] = strtod(fld[5], NULL);
		}
	}
	fclose(f);
	if (!r->block || !r->narrays || !r->nparts || !r->nblocks)
		die("%s: %s", path, "not an accessgen truth file (no U, A, P or B lines)");
	for (int k = 0; k < r->nparts; k++) {
		double sum = 0;

		if (!r->parts[k].cdf)
			die("%s: part '%s' has no blocks", path, r->parts[k].name);

		for (uint32_t j = 0; j < r->nblocks; j++)
			r->parts[k].cdf[j] = sum += r->parts[k].cdf[j];
		if (!(sum > 0))
			die("%s: part '%s' has no accesses", path, r->parts[k].name);
		for (uint32_t j = 0; j < r->nblocks; j++)
			r->parts[k].cdf[j] /= sum;
	}
}

static void read_log(struct run *r, const char *path)
{
	char why[512];
	const struct tl_trace_params *pp;
	void *dl;

	if (tl_trace_load_file(&r->trace, path, why, sizeof(why)))
		die("%s: %s", path, why);
	if (r->trace.nprocs != 1)
		die("%s: %s", path, "one process's log expected");
	r->p = &r->trace.procs[0];
	pp = &r->p->p;
	if (!pp->known)
		die("%s: %s", path, "no P line (a log from before parameters were logged)");
	r->c = (struct tl_sim_config){
		.chunk_size = pp->chunk_size, .budget_chunks = pp->budget_chunks,
		.dynamic_fraction = pp->dynamic_fraction, .window = pp->window, .args = pp->args,
		.fractions = pp->fractions, .nfractions = pp->nfractions, .threshold = pp->threshold,
	};
	if (!(r->c.pol = tl_sim_policy_open(pp->policy, &dl, why, sizeof(why))))
		die("%s: %s", path, why);
	for (int i = 0; i < r->narrays; i++) {
		uint32_t s;

		for (s = 0; s < r->p->nallocs && r->p->allocs[s].addr != r->addr[i]; s++)
			;
		if (s == r->p->nallocs)
			die("%s: %s", path, "an array of the truth file is not a managed allocation of this log");
		r->seq[i] = s;
	}
	if (!(r->ev = malloc(r->p->nev * sizeof(*r->ev))) || !(r->part_of = malloc(r->p->nev)))
		die("%s: %s", path, "out of memory");
	memcpy(r->ev, r->p->ev, r->p->nev * sizeof(*r->ev));
	for (size_t i = 0; i < r->p->nev; i++) {
		r->part_of[i] = -1;
		if (r->ev[i].kind != TL_EV_SAMPLE)
			continue;
		for (int k = 0; k < r->nparts; k++)
			if (r->ev[i].t_ns >= r->parts[k].t0 && r->ev[i].t_ns < r->parts[k].t1)
				r->part_of[i] = (int8_t)k;
	}
}

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1DULL;
}

static double rng_unit(uint64_t *x)
{
	return (double)(rng_next(x) >> 11) / 9007199254740992.0;
}

/* Every sample in a part (inside managed memory or not) gets a word drawn from the part's truth. */
static void redraw(struct run *r, uint64_t *x)
{
	for (size_t i = 0; i < r->p->nev; i++) {
		const struct part *pt;
		uint32_t lo = 0, hi, j;
		int a;
		double u;

		if (r->part_of[i] < 0)
			continue;
		pt = &r->parts[r->part_of[i]];
		u = rng_unit(x);
		for (hi = r->nblocks - 1; lo < hi;) {
			uint32_t mid = (lo + hi) / 2;

			if (pt->cdf[mid] > u)
				hi = mid;
			else
				lo = mid + 1;
		}
		j = lo;
		for (a = r->narrays - 1; a > 0 && r->first_block[a] > j; a--)
			;
		{
			uint64_t start = (uint64_t)(j - r->first_block[a]) * r->block;
			uint64_t len = r->bytes[a] - start < r->block ? r->bytes[a] - start : r->block;

			r->ev[i].seq = r->seq[a];
			r->ev[i].off = start + (rng_next(x) % (len / 8)) * 8;
		}
	}
}

static void on_sample(void *ctx, const struct tl_trace_proc *p, size_t ev, int32_t chunk, int hit)
{
	struct count *c = ctx;

	(void)p;
	if (c->r->part_of[ev] < 0 || chunk < 0)
		return;
	c->samples++;
	c->same += (uint64_t)(chunk == c->last);
	c->last = chunk;
	c->hits += (uint64_t)hit;
	c->differs += (uint64_t)(hit != c->r->p->ev[ev].hit);
}

/*
 * Replays r (its events as they stand in r->ev) and adds the parts'
 * samples and hits to *c. The recorded samples' moves are the run's, and
 * take the times it logged; redrawn samples decide moves of their own,
 * which start when the run's drain did and take no time.
 */
static void replay(struct run *r, struct count *c, bool recorded)
{
	struct tl_trace_proc p = *r->p;
	struct tl_trace t = { .procs = &p, .nprocs = 1 };
	struct tl_sim_hooks h = { .ctx = c, .sample = on_sample };
	struct tl_sim_config cfg = r->c;
	struct tl_sim_result res;
	char why[256];

	p.ev = r->ev;
	c->r = r;
	c->last = -1;
	cfg.recorded_moves = recorded;
	if (tl_sim_replay(&t, &cfg, &h, &res, why, sizeof(why)))
		die("replay: %s%s", why, "");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* sum c(c-1) / n(n-1) over the distinct values of v (sorted here) */
static double repeat_chance(uint64_t *v, size_t n)
{
	double pairs = 0;

	if (n < 2)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		pairs += (double)(j - i) * (double)(j - i - 1);
	}
	return pairs / ((double)n * (double)(n - 1));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(const double *v, int n, double q)
{
	double at = q * (n - 1);
	int i = (int)at;

	return i + 1 < n ? v[i] + (v[i + 1] - v[i]) * (at - i) : v[n - 1];
}

int main(int argc, char **argv)
{
	int draws = 1000, nruns, opt;
	uint64_t seed = 0x9E3779B97F4A7C15ULL, samples = 0, hits = 0, dups = 0, taken = 0;
	uint64_t replay_hits = 0, differs = 0, live_same = 0;
	double seconds = 0, *h, *same, sum = 0, same_sum = 0, sq = 0, chance;
	uint64_t *addrs = NULL;
	size_t naddrs = 0;
	struct run *runs;
	static const struct option longopts[] = {
		{ "draws", required_argument, NULL, 'r' }, { "seed", required_argument, NULL, 's' }, { 0 },
	};

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (opt == 'r')
			draws = atoi(optarg);
		else if (opt == 's')
			seed = strtoull(optarg, NULL, 0) | 1;
		else
			return 2;
	}
	if (draws < 10 || argc - optind < 2 || (argc - optind) % 2) {
		fprintf(stderr, "usage: ideal [--draws R (>= 10)] [--seed S] TRUTH LOG [TRUTH LOG]...\n");
		return 2;
	}
	nruns = (argc - optind) / 2;
	if (!(runs = calloc((size_t)nruns, sizeof(*runs))) || !(h = malloc((size_t)draws * sizeof(*h))) ||
	    !(same = malloc((size_t)draws * sizeof(*same))))
		return 2;
	for (int i = 0; i < nruns; i++) {
		struct run *r = &runs[i];
		struct count c = { 0 };
		const struct tl_trace_event *prev = NULL;

		read_truth(r, argv[optind + 2 * i]);
		read_log(r, argv[optind + 2 * i + 1]);
		for (int k = 0; k < r->nparts; k++)
			seconds += (double)(r->parts[k].t1 - r->parts[k].t0) / 1e9;
		for (size_t e = 0; e < r->p->nev; e++) {
			const struct tl_trace_event *ev = &r->p->ev[e];

			if (ev->kind != TL_EV_SAMPLE || r->part_of[e] < 0)
				continue;
			taken++;
			if (r->p->chunks[e] >= 0) {
				samples++, hits += ev->hit;
				if (!(naddrs % 4096) && !(addrs = realloc(addrs, (naddrs + 4096) * sizeof(*addrs))))
					return 2;
				/* runs apart: their addresses never meet */
				addrs[naddrs++] = r->p->allocs[ev->seq].addr + ev->off + ((uint64_t)i << 56);
			}
			if (prev && prev->seq == ev->seq && prev->off == ev->off && ev->seq != TL_TRACE_NONE)
				dups++;
			prev = ev;
		}
		replay(r, &c, true);
		replay_hits += c.hits;
		differs += c.differs;
		live_same += c.same;
	}
	for (int d = 0; d < draws; d++) {
		struct count c = { 0 };

		for (int i = 0; i < nruns; i++) {
			redraw(&runs[i], &seed);
			replay(&runs[i], &c, false);
		}
		h[d] = c.samples ? (double)c.hits / (double)c.samples : 0;
		same[d] = c.samples ? (double)c.same / (double)c.samples : 0;
		same_sum += same[d];
		sum += h[d];
		sq += h[d] * h[d];
	}
	qsort(h, (size_t)draws, sizeof(*h), cmp_double);
	qsort(same, (size_t)draws, sizeof(*same), cmp_double);
	chance = repeat_chance(addrs, naddrs);
	free(addrs);
	printf("runs %d\nsamples %" PRIu64 "\nduplicates %" PRIu64 "\ndup_frac %.4f\nrate %.1f\n", nruns, samples,
	       dups, samples ? (double)dups / (double)samples : 0, seconds > 0 ? (double)taken / seconds : 0);
	printf("dup_chance %.4f\n", chance);
	printf("live_hit %.4f\nreplay_hit %.4f\nreplay_differs %" PRIu64 "\n", samples ? (double)hits / samples : 0,
	       samples ? (double)replay_hits / samples : 0, differs);
	printf("ideal_hit %.4f\nideal_sd %.4f\n", sum / draws,
	       sqrt(fmax(0, sq / draws - (sum / draws) * (sum / draws))));
	printf("ideal_lo95 %.4f\nideal_hi95 %.4f\nideal_lo99 %.4f\nideal_hi99 %.4f\ndraws %d\n", quantile(h, draws, 0.025),
	       quantile(h, draws, 0.975), quantile(h, draws, 0.005), quantile(h, draws, 0.995), draws);
	printf("same_chunk %.4f\nsame_chunk_ideal %.4f\nsame_chunk_hi99 %.4f\n",
	       samples ? (double)live_same / (double)samples : 0, same_sum / draws, quantile(same, draws, 0.995));
	return 0;
}
