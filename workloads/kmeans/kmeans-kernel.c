/*
 * The k-means computation and its validators.
 *
 * A pass assigns each point to its nearest mean and accumulates, per
 * thread, the sums and counts of the new clusters; the main thread then
 * merges them into the means. (Phoenix recomputes each mean by scanning
 * all points, O(n*c*d); the per-thread sums give the same integers in
 * O(n*d).)
 *
 * The nearest mean minimises |m|^2 - 2 p.m (|p|^2 is the same for every
 * mean), computed in 32-bit integers against a transposed copy of the
 * means so the inner loop runs over means in SIMD registers. Integer
 * arithmetic keeps it exact, so ties resolve exactly as the plain distance
 * does (lowest index wins) and the validators can demand equality. Three
 * paths, chosen each pass from the largest coordinate magnitudes:
 *   int16: coordinates fit in 16 bits (grid <= 16384): pairs of
 *          coordinates multiply-add in one pmaddwd (AVX2), 16 products
 *          per instruction;
 *   int32: the scores fit in 32 bits: one pmulld per 8 products;
 *   plain: anything else, 64-bit distances (never taken by the program,
 *          whose options keep the scores in 32 bits).
 *
 * Threads are a pool that lives for the whole run: the main thread is
 * worker 0; two barriers separate "means are ready" from "assignments are
 * done".
 */
#include "kmeans.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif

/* Means per register block: 4 AVX2 vectors of 8 ints. */
#define KM_JB 32
/* Means are padded to a multiple of this (one vector). */
#define KM_PAD 8

struct km_part {
	long lo, hi;        /* points [lo, hi) */
	long changed;
	int64_t *sums;      /* c*d */
	long *counts;       /* c */
	pthread_t tid;
	struct km_shared *sh;
};

enum km_path { KM_PLAIN, KM_INT32, KM_INT16 };

struct km_shared {
	struct km_problem *pb;
	int cpad;
	enum km_path path;  /* this pass's */
	int64_t max_point;  /* largest |coordinate| among the points */
	int *mt;            /* d*cpad: mt[k*cpad + j] = mean j, coordinate k */
	int16_t *mt16;      /* (d+1)/2 * cpad * 2: coordinates 2kp, 2kp+1 of mean j side by side */
	int *norm;          /* cpad: |m_j|^2; INT_MAX for padding */
	int stop;
	pthread_mutex_t gate;
	pthread_barrier_t start, done;
	struct km_part *parts;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

long km_max_grid(int d)
{
	long g = 1;

	if (d < 1)
		return 0;
	/* largest g with 3 d (g-1)^2 < INT_MAX: the bound choose_path() applies */
	while (3LL * d * g * g < INT_MAX)
		g++;
	return g;
}

void km_generate(int *v, size_t count, int grid, uint64_t *state)
{
	for (size_t i = 0; i < count; i++)
		v[i] = (int)(km_rand(state) % (uint64_t)grid);
}

int64_t km_sq_dist(const int *p, const int *m, int d)
{
	int64_t s = 0;

	for (int k = 0; k < d; k++) {
		int64_t diff = (int64_t)p[k] - m[k];

		s += diff * diff;
	}
	return s;
}

/*
 * Scores of means j0 .. j0+W-1 for the point whose coordinates times -2
 * are q. W is a compile-time constant at every call, so acc[] lives in
 * registers and the loop over j vectorises.
 */
static inline __attribute__((always_inline))
void block_scores(const int *q, const int *mt, const int *norm, int d, int cpad, int j0,
		  int W, int *out)
{
	int acc[KM_JB];

	for (int j = 0; j < W; j++)
		acc[j] = norm[j0 + j];
	for (int k = 0; k < d; k++) {
		const int *row = mt + (size_t)k * cpad + j0;
		int qk = q[k];

		for (int j = 0; j < W; j++)
			acc[j] += qk * row[j];
	}
	for (int j = 0; j < W; j++)
		out[j] = acc[j];
}

#ifdef __AVX2__
/*
 * int16 scores of means j0 .. j0+8*V-1 for NP points at once (sharing the
 * loads of the means); qp[n] holds point n's coordinate pairs times -2.
 * Sets m[n] to point n's smallest score in the block and at[n] to the
 * lowest offset that has it. NP and V are constants at every call.
 */
static inline __attribute__((always_inline))
void block_scores16(const int32_t *const *qp, const int16_t *mt16, const int *norm, int dp,
		    int cpad, int j0, int NP, int V, int *m, int *at)
{
	__m256i acc[2][KM_JB / 8];

	for (int n = 0; n < NP; n++)
		for (int v = 0; v < V; v++)
			acc[n][v] = _mm256_loadu_si256((const __m256i *)(norm + j0 + 8 * v));
	for (int kp = 0; kp < dp; kp++) {
		const int16_t *row = mt16 + ((size_t)kp * cpad + j0) * 2;
		__m256i q[2];

		for (int n = 0; n < NP; n++)
			q[n] = _mm256_set1_epi32(qp[n][kp]);
		for (int v = 0; v < V; v++) {
			__m256i mv = _mm256_loadu_si256((const __m256i *)(row + 16 * v));

			for (int n = 0; n < NP; n++)
				acc[n][v] = _mm256_add_epi32(acc[n][v], _mm256_madd_epi16(q[n], mv));
		}
	}
	for (int n = 0; n < NP; n++) {
		__m256i mn = acc[n][0], vm;
		__m128i h;

		for (int v = 1; v < V; v++)
			mn = _mm256_min_epi32(mn, acc[n][v]);
		h = _mm_min_epi32(_mm256_castsi256_si128(mn), _mm256_extracti128_si256(mn, 1));
		h = _mm_min_epi32(h, _mm_shuffle_epi32(h, _MM_SHUFFLE(1, 0, 3, 2)));
		h = _mm_min_epi32(h, _mm_shuffle_epi32(h, _MM_SHUFFLE(2, 3, 0, 1)));
		m[n] = _mm_cvtsi128_si32(h);
		/* the first lane equal to the minimum: one compare and a bit scan per vector */
		vm = _mm256_set1_epi32(m[n]);
		at[n] = 0;
		for (int v = 0; v < V; v++) {
			int bits = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(acc[n][v], vm)));

			if (bits) {
				at[n] = 8 * v + __builtin_ctz((unsigned)bits);
				break;
			}
		}
	}
}

static void pack_pairs(const int *p, int d, int32_t *qp)
{
	for (int kp = 0; kp < (d + 1) / 2; kp++) {
		int lo = -2 * p[2 * kp], hi = 2 * kp + 1 < d ? -2 * p[2 * kp + 1] : 0;

		qp[kp] = (int32_t)(((uint32_t)(uint16_t)hi << 16) | (uint16_t)lo);
	}
}

/* Nearest means of NP (1 or 2) points; qbuf holds 2 * ((d+1)/2) ints. */
static inline __attribute__((always_inline))
void nearest16(const int *const *p, int NP, const struct km_shared *sh, int32_t *qbuf, int *out)
{
	int d = sh->pb->d, dp = (d + 1) / 2, cpad = sh->cpad;
	const int32_t *qp[2] = { qbuf, qbuf + dp };
	int best[2] = { INT_MAX, INT_MAX };
	int j0 = 0;

	for (int n = 0; n < NP; n++) {
		pack_pairs(p[n], d, qbuf + n * dp);
		out[n] = 0;
	}
	while (j0 < cpad) {
		int w = cpad - j0 >= KM_JB ? KM_JB : KM_PAD;
		int m[2], at[2];

		if (w == KM_JB)
			block_scores16(qp, sh->mt16, sh->norm, dp, cpad, j0, NP, KM_JB / 8, m, at);
		else
			block_scores16(qp, sh->mt16, sh->norm, dp, cpad, j0, NP, 1, m, at);
		/* strictly better only: on a tie the earlier (lower) index stays */
		for (int n = 0; n < NP; n++) {
			if (m[n] < best[n]) {
				best[n] = m[n];
				out[n] = j0 + at[n];
			}
		}
		j0 += w;
	}
}
#endif

static int nearest_plain(const int *p, const struct km_problem *pb)
{
	int64_t best = INT64_MAX;
	int bi = 0;

	for (int j = 0; j < pb->c; j++) {
		int64_t dj = km_sq_dist(p, pb->means + (size_t)j * pb->d, pb->d);

		if (dj < best) {
			best = dj;
			bi = j;
		}
	}
	return bi;
}

static int nearest_fast(const int *p, const struct km_shared *sh, int *q)
{
	const struct km_problem *pb = sh->pb;
	int d = pb->d, cpad = sh->cpad;
	int best = INT_MAX, bi = 0;
	int sc[KM_JB];
	int j0 = 0;

	for (int k = 0; k < d; k++)
		q[k] = -2 * p[k];
	while (j0 < cpad) {
		int w = cpad - j0 >= KM_JB ? KM_JB : KM_PAD;
		int m = INT_MAX;

		if (w == KM_JB)
			block_scores(q, sh->mt, sh->norm, d, cpad, j0, KM_JB, sc);
		else
			block_scores(q, sh->mt, sh->norm, d, cpad, j0, KM_PAD, sc);
		for (int j = 0; j < w; j++)
			m = sc[j] < m ? sc[j] : m;
		/* strictly better only: on a tie the earlier (lower) index stays */
		if (m < best) {
			int j = 0;

			while (sc[j] != m)
				j++;
			best = m;
			bi = j0 + j;
		}
		j0 += w;
	}
	return bi;
}

static void record(struct km_part *pt, long i, int a, long *changed)
{
	struct km_problem *pb = pt->sh->pb;
	const int *p = pb->points + (size_t)i * pb->d;
	int64_t *s = pt->sums + (size_t)a * pb->d;

	if (a != pb->assign[i]) {
		pb->assign[i] = a;
		(*changed)++;
	}
	pt->counts[a]++;
	for (int k = 0; k < pb->d; k++)
		s[k] += p[k];
}

static void assign_part(struct km_part *pt)
{
	struct km_shared *sh = pt->sh;
	struct km_problem *pb = sh->pb;
	int d = pb->d, c = pb->c;
	int q[d > 0 ? d + 2 : 1];
	long changed = 0, i = pt->lo;

	memset(pt->sums, 0, sizeof(*pt->sums) * (size_t)c * d);
	memset(pt->counts, 0, sizeof(*pt->counts) * (size_t)c);
#ifdef __AVX2__
	if (sh->path == KM_INT16) {
		/* two points per sweep over the means: each load of a mean serves both */
		for (; i + 1 < pt->hi; i += 2) {
			const int *pp[2] = { pb->points + (size_t)i * d, pb->points + (size_t)(i + 1) * d };
			int a[2];

			nearest16(pp, 2, sh, q, a);
			record(pt, i, a[0], &changed);
			record(pt, i + 1, a[1], &changed);
		}
		for (; i < pt->hi; i++) {
			const int *pp[1] = { pb->points + (size_t)i * d };
			int a[1];

			nearest16(pp, 1, sh, q, a);
			record(pt, i, a[0], &changed);
		}
	}
#endif
	for (; i < pt->hi; i++) {
		const int *p = pb->points + (size_t)i * d;

		record(pt, i, sh->path == KM_INT32 ? nearest_fast(p, sh, q) : nearest_plain(p, pb),
		       &changed);
	}
	pt->changed = changed;
}

static void *worker(void *arg)
{
	struct km_part *pt = arg;
	struct km_shared *sh = pt->sh;

	/* wait until the main thread knows whether every worker started */
	pthread_mutex_lock(&sh->gate);
	pthread_mutex_unlock(&sh->gate);
	if (sh->stop)
		return NULL;
	for (;;) {
		pthread_barrier_wait(&sh->start);
		if (sh->stop)
			break;
		assign_part(pt);
		pthread_barrier_wait(&sh->done);
	}
	return NULL;
}

static int64_t max_abs(const int *v, size_t n)
{
	int64_t m = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t a = v[i] < 0 ? -(int64_t)v[i] : v[i];

		m = a > m ? a : m;
	}
	return m;
}

/*
 * The fastest exact path for this pass: every partial score
 * |m|^2 - 2 p.m (and each pmaddwd pair) must stay inside int32.
 */
static enum km_path choose_path(const struct km_shared *sh)
{
	const struct km_problem *pb = sh->pb;
	int64_t mp = sh->max_point, mm = max_abs(pb->means, (size_t)pb->c * pb->d);
	double worst = (double)pb->d * (2.0 * (double)mp * (double)mm + (double)mm * (double)mm);

	if (worst >= (double)INT_MAX)
		return KM_PLAIN;
#ifdef __AVX2__
	if (mp <= 16383 && mm <= 32767)
		return KM_INT16;
#endif
	return KM_INT32;
}

static void prepare_means(struct km_shared *sh)
{
	const struct km_problem *pb = sh->pb;
	int d = pb->d, c = pb->c, cpad = sh->cpad;

	sh->path = choose_path(sh);
	if (sh->path == KM_PLAIN)
		return;
	for (int j = 0; j < cpad; j++) {
		int64_t n2 = 0;

		for (int k = 0; k < d + (d & 1); k++) {
			int v = j < c && k < d ? pb->means[(size_t)j * d + k] : 0;

			if (k < d)
				sh->mt[(size_t)k * cpad + j] = v;
			sh->mt16[((size_t)(k / 2) * cpad + j) * 2 + (k & 1)] = (int16_t)v;
			n2 += (int64_t)v * v;
		}
		/* padding can never win: its score stays INT_MAX */
		sh->norm[j] = j < c ? (int)n2 : INT_MAX;
	}
}

static long update_means(struct km_shared *sh, int nthreads)
{
	struct km_problem *pb = sh->pb;
	int d = pb->d, c = pb->c;
	long changed = 0;

	for (int t = 0; t < nthreads; t++)
		changed += sh->parts[t].changed;
	for (int j = 0; j < c; j++) {
		long cnt = 0;

		for (int t = 0; t < nthreads; t++)
			cnt += sh->parts[t].counts[j];
		if (!cnt)
			continue;
		for (int k = 0; k < d; k++) {
			int64_t s = 0;

			for (int t = 0; t < nthreads; t++)
				s += sh->parts[t].sums[(size_t)j * d + k];
			pb->means[(size_t)j * d + k] = (int)(s / cnt);
		}
	}
	return changed;
}

int km_run(struct km_problem *pb, int nthreads, int max_iter, struct km_result *res)
{
	struct km_shared sh = { .pb = pb };
	int c = pb->c, d = pb->d;
	int started = 1, ret = 0;
	double t0;

	memset(res, 0, sizeof(*res));
	if (nthreads < 1 || pb->n < 1 || c < 1 || d < 1)
		return -EINVAL;
	if (nthreads > pb->n)
		nthreads = (int)pb->n;
	sh.cpad = (c + KM_PAD - 1) / KM_PAD * KM_PAD;
	sh.mt = malloc(sizeof(int) * (size_t)d * sh.cpad);
	sh.mt16 = malloc(sizeof(int16_t) * (size_t)(d + 1) / 2 * 2 * sh.cpad);
	sh.norm = malloc(sizeof(int) * (size_t)sh.cpad);
	sh.parts = calloc((size_t)nthreads, sizeof(*sh.parts));
	if (!sh.mt || !sh.mt16 || !sh.norm || !sh.parts) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (int t = 0; t < nthreads; t++) {
		struct km_part *pt = &sh.parts[t];

		pt->sh = &sh;
		pt->lo = pb->n * t / nthreads;
		pt->hi = pb->n * (t + 1) / nthreads;
		pt->sums = malloc(sizeof(*pt->sums) * (size_t)c * d);
		pt->counts = malloc(sizeof(*pt->counts) * (size_t)c);
		if (!pt->sums || !pt->counts) {
			ret = -ENOMEM;
			goto out_parts;
		}
	}
	for (long i = 0; i < pb->n; i++)
		pb->assign[i] = -1;
	sh.max_point = max_abs(pb->points, (size_t)pb->n * d);

	pthread_mutex_init(&sh.gate, NULL);
	pthread_barrier_init(&sh.start, NULL, (unsigned)nthreads);
	pthread_barrier_init(&sh.done, NULL, (unsigned)nthreads);
	pthread_mutex_lock(&sh.gate);
	for (; started < nthreads; started++) {
		if (pthread_create(&sh.parts[started].tid, NULL, worker, &sh.parts[started])) {
			sh.stop = 1;
			ret = -EAGAIN;
			break;
		}
	}
	pthread_mutex_unlock(&sh.gate);
	if (ret)
		goto out_join;

	t0 = now();
	do {
		long changed;

		prepare_means(&sh);
		if (nthreads > 1)
			pthread_barrier_wait(&sh.start);
		assign_part(&sh.parts[0]);
		if (nthreads > 1)
			pthread_barrier_wait(&sh.done);
		changed = update_means(&sh, nthreads);
		res->iterations++;
		res->converged = changed == 0;
	} while (!res->converged && res->iterations < max_iter);
	res->seconds = now() - t0;

	sh.stop = 1;
	if (nthreads > 1)
		pthread_barrier_wait(&sh.start);
out_join:
	for (int t = 1; t < started; t++)
		pthread_join(sh.parts[t].tid, NULL);
	pthread_barrier_destroy(&sh.done);
	pthread_barrier_destroy(&sh.start);
	pthread_mutex_destroy(&sh.gate);
out_parts:
	for (int t = 0; t < nthreads; t++) {
		free(sh.parts[t].sums);
		free(sh.parts[t].counts);
	}
out_free:
	free(sh.parts);
	free(sh.norm);
	free(sh.mt16);
	free(sh.mt);
	return ret;
}

static char msg[200];

const char *km_check_assignment(const struct km_problem *pb)
{
	int d = pb->d;

	for (long i = 0; i < pb->n; i++) {
		const int *p = pb->points + (size_t)i * d;
		int a = pb->assign[i];
		int64_t da, best = INT64_MAX;
		int bj = 0;

		if (a < 0 || a >= pb->c) {
			snprintf(msg, sizeof(msg), "point %ld has no cluster (%d)", i, a);
			return msg;
		}
		for (int j = 0; j < pb->c; j++) {
			int64_t dj = km_sq_dist(p, pb->means + (size_t)j * d, d);

			if (dj < best) {
				best = dj;
				bj = j;
			}
		}
		da = km_sq_dist(p, pb->means + (size_t)a * d, d);
		if (da != best) {
			snprintf(msg, sizeof(msg),
				 "point %ld is in cluster %d at squared distance %lld, but cluster %d is at %lld",
				 i, a, (long long)da, bj, (long long)best);
			return msg;
		}
	}
	return NULL;
}

const char *km_check_means(const struct km_problem *pb)
{
	int d = pb->d, c = pb->c;
	int64_t *sums = calloc((size_t)c * d, sizeof(*sums));
	long *counts = calloc((size_t)c, sizeof(*counts));
	const char *ret = NULL;

	if (!sums || !counts) {
		ret = "out of memory while checking the means";
		goto out;
	}
	for (long i = 0; i < pb->n; i++) {
		int a = pb->assign[i];

		if (a < 0 || a >= c) {
			snprintf(msg, sizeof(msg), "point %ld has no cluster (%d)", i, a);
			ret = msg;
			goto out;
		}
		counts[a]++;
		for (int k = 0; k < d; k++)
			sums[(size_t)a * d + k] += pb->points[(size_t)i * d + k];
	}
	for (int j = 0; j < c && !ret; j++) {
		if (!counts[j])
			continue;
		for (int k = 0; k < d; k++) {
			int64_t want = sums[(size_t)j * d + k] / counts[j];
			int got = pb->means[(size_t)j * d + k];

			if (got != want) {
				snprintf(msg, sizeof(msg),
					 "mean %d coordinate %d is %d, the average of its %ld members is %lld",
					 j, k, got, counts[j], (long long)want);
				ret = msg;
				break;
			}
		}
	}
out:
	free(counts);
	free(sums);
	return ret;
}
