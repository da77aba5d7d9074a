/*
 * bench/simulate: how fast the offline replay runs. Replays one trace
 * (a file given on the command line, else a synthetic one: six arrays of
 * 64 MiB, as HPCG's large vectors and matrix, and N samples at 1 kHz drawn
 * from a Zipf distribution over 4 KiB pages, written as the runtime's log
 * lines and read by the trace loader) over a matrix of 60 configurations:
 * lru, window(16), window(128) x chunks 2, 8, 32, 64, 256 x budget 20%,
 * 40% of the footprint x every sample or thinned to 100 Hz. Prints, per
 * configuration, the hit rate, the migrations and the trace's samples
 * walked per second of CPU time (thinned ones included; setup of the
 * placement map and the policy included), then the
 * whole matrix's time.
 *
 *   build/bench/simulate [--samples N] [TRACE]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "policies/policies.h"
#include "simulate/replay.h"

#define MIB (1ULL << 20)

/*
 * CPU time of this thread: the machines this runs on are shared, and wall
 * time counts the moments another process had the CPU.
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1DULL;
}

/* A synthetic log: six 64 MiB arrays, n samples, Zipf(1) over their pages in a shuffled order. */
static char *synthetic(size_t n, size_t *len)
{
	const uint64_t base = 0x7f0000000000ULL, arr = 64 * MIB, pages = 6 * arr / 4096;
	size_t cap = 256 + n * 64 + 6 * 128, used = 0;
	char *text = malloc(cap);
	double *cdf = malloc(pages * sizeof(double));
	uint32_t *perm = malloc(pages * sizeof(uint32_t));
	uint64_t x = 88172645463325252ULL;
	double sum = 0;

	if (!text || !cdf || !perm)
		return NULL;
	for (uint64_t i = 0; i < pages; i++) {
		sum += 1.0 / (double)(i + 1);
		cdf[i] = sum;
		perm[i] = (uint32_t)i;
	}
	for (uint64_t i = pages - 1; i > 0; i--) {
		uint64_t j = rnd(&x) % (i + 1);
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	used += (size_t)snprintf(text + used, cap - used,
				 "P\t1099511627776\t524288\t1048576\t2097152\t4294967295\t0\t16\t1000\t1048576\tlru\t-\t-\n");
	for (int a = 0; a < 6; a++)
		used += (size_t)snprintf(text + used, cap - used, "A\t%d\t%d\t0x%llx\t%llu\t%d\t32\t0x0\t-\n", a, a,
					 (unsigned long long)(base + (uint64_t)a * arr), (unsigned long long)arr, a * 32);
	for (size_t i = 0; i < n; i++) {
		double u = (double)(rnd(&x) >> 11) / 9007199254740992.0 * sum;
		size_t lo = 0, hi = pages - 1;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		used += (size_t)snprintf(text + used, cap - used, "S\t%llu\t0x%llx\t0x0\t1\t0\t0\t0\n",
					 (unsigned long long)(1000000000ULL + i * 1000000ULL),
					 (unsigned long long)(base + (uint64_t)perm[lo] * 4096 + (rnd(&x) & 4095)));
	}
	free(cdf);
	free(perm);
	*len = used;
	return text;
}

int main(int argc, char **argv)
{
	static const char *const pols[] = { "lru", "window", "window" };
	static const uint32_t windows[] = { 16, 16, 128 };
	static const uint32_t chunks[] = { 2, 8, 32, 64, 256 };
	static const double budgets[] = { 0.2, 0.4 };
	static const double rates[] = { 0, 100 };
	struct tl_trace t = { 0 };
	size_t n = 100000, configs = 0;
	const char *file = NULL;
	char why[512] = "";
	double total = 0, slowest = 1e300;
	uint64_t footprint;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--samples") && i + 1 < argc)
			n = strtoull(argv[++i], NULL, 10);
		else if (argv[i][0] != '-')
			file = argv[i];
		else {
			fprintf(stderr, "usage: %s [--samples N] [TRACE]\n", argv[0]);
			return 2;
		}
	}
	if (file) {
		if (tl_trace_load_file(&t, file, why, sizeof(why))) {
			fprintf(stderr, "simulate: %s\n", why);
			return 1;
		}
	} else {
		size_t len;
		char *text = synthetic(n, &len);

		if (!text || tl_trace_add_log(&t, 1, text, len, why, sizeof(why))) {
			fprintf(stderr, "simulate: cannot build the trace: %s\n", why);
			return 1;
		}
		free(text);
	}
	footprint = tl_trace_footprint(&t, 0);
	n = tl_trace_samples(&t);
	printf("trace: %zu samples, footprint %.0f MiB\n", tl_trace_samples(&t), (double)footprint / MIB);
	printf("%-34s %8s %10s %10s %14s\n", "configuration", "hit%", "s->f", "f->s", "samples/s");
	for (size_t p = 0; p < 3; p++)
		for (size_t c = 0; c < 5; c++)
			for (size_t b = 0; b < 2; b++)
				for (size_t r = 0; r < 2; r++) {
					uint64_t budget = (uint64_t)(budgets[b] * (double)footprint);
					uint64_t cs = (budget / chunks[c] + 4095) / 4096 * 4096;
					struct tl_sim_config cfg = {
						.pol = tlp_policy_find(pols[p]), .chunk_size = cs,
						.budget_chunks = (uint32_t)(budget / cs), .window = windows[p],
						.rate_hz = rates[r],
					};
					struct tl_sim_result res;
					char label[80];
					double t0 = now_s(), dt;

					if (tl_sim_replay(&t, &cfg, NULL, &res, why, sizeof(why))) {
						fprintf(stderr, "simulate: %s\n", why);
						return 1;
					}
					dt = now_s() - t0;
					total += dt;
					configs++;
					if ((double)n / dt < slowest)
						slowest = (double)n / dt;
					snprintf(label, sizeof(label), "%s(%u) chunks=%u budget=%.0f%% %s", pols[p],
						 windows[p], chunks[c], budgets[b] * 100, rates[r] ? "100Hz" : "all");
					printf("%-34s %7.1f%% %10llu %10llu %14.3g\n", label, 100 * tl_sim_hit_rate(&res),
					       (unsigned long long)res.moves[TL_DIR_SLOW_TO_FAST],
					       (unsigned long long)res.moves[TL_DIR_FAST_TO_SLOW], (double)n / dt);
				}
	printf("%zu configurations in %.3f s; slowest %.3g samples/s\n", configs, total, slowest);
	tl_trace_release(&t);
	return 0;
}
