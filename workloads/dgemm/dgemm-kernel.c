/*
 * The dgemm computation and its check. The matrices' values come from a
 * hash, so the check can recompute any input entry instead of keeping a
 * copy of C (which would be a fourth big allocation). The check is
 * Freivalds' test over all rows plus an entry-by-entry recomputation of a
 * few rows; both cost O(N^2) per row set, nothing like the O(N^3) run.
 */
#include "dgemm.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Differences beyond this, relative to the magnitude of the terms, are errors, not rounding. */
#define DGEMM_RTOL 1e-9

/* splitmix64's finaliser: neighbouring keys give unrelated values. */
static inline uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double dgemm_value(enum dgemm_matrix m, int i, int j)
{
	const uint64_t key = ((uint64_t)m << 62) | ((uint64_t)(uint32_t)i << 31) | (uint32_t)j;

	return 0.5 + (double)(mix(key) >> 11) * 0x1p-53;
}

void dgemm_fill(int n, double *a, double *b, double *c)
{
#pragma omp parallel for schedule(static)
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			const size_t x = (size_t)i * n + j;

			a[x] = dgemm_value(DGEMM_A, i, j);
			b[x] = dgemm_value(DGEMM_B, i, j);
			c[x] = dgemm_value(DGEMM_C0, i, j);
		}
	}
}

void dgemm_run(const struct dgemm_params *p, const double *a, const double *b, double *c)
{
	for (int r = 0; r < p->repeats; r++)
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p->n, p->n, p->n, p->alpha,
			    a, p->n, b, p->n, p->beta, c, p->n);
}

double dgemm_gflops(const struct dgemm_params *p, double seconds)
{
	const double n = p->n;

	return 2.0 * n * n * (double)p->repeats * (n + 1.0) / seconds * 1e-9;
}

int dgemm_check_rows(int n)
{
	const double budget = 0x1p28 / (2.0 * (double)n * n);

	if (budget >= n)
		return n;
	return budget < 4 ? (n < 4 ? n : 4) : (int)budget;
}

/* The repeats' factors: C_R = alpha*g*AB + br*C0; gabs and fabs(br) bound the rounding. */
static void repeat_factors(const struct dgemm_params *p, double *g, double *gabs, double *br)
{
	*g = 0.0;
	*gabs = 0.0;
	*br = 1.0;
	for (int r = 0; r < p->repeats; r++) {
		*g += *br;
		*gabs += fabs(*br);
		*br *= p->beta;
	}
}

static inline double freivalds_x(int j)
{
	return 0.75 + 0.5 * (double)((j * 37) % 101) / 101.0;
}

int dgemm_check_freivalds(const struct dgemm_params *p, const double *a, const double *b,
			  const double *c, char *why, size_t len)
{
	const int n = p->n;
	double g, gabs, br, *y, *z;
	int bad = -1;

	repeat_factors(p, &g, &gabs, &br);
	y = malloc((size_t)n * sizeof(*y));
	z = malloc((size_t)n * sizeof(*z));
	if (!y || !z) {
		free(y);
		free(z);
		return -ENOMEM;
	}
#pragma omp parallel for schedule(static)
	for (int k = 0; k < n; k++) {
		double s = 0.0;

		for (int j = 0; j < n; j++)
			s += b[(size_t)k * n + j] * freivalds_x(j);
		y[k] = s;
	}
#pragma omp parallel for schedule(static)
	for (int i = 0; i < n; i++) {
		double az = 0.0, cx = 0.0, c0x = 0.0;

		for (int k = 0; k < n; k++)
			az += a[(size_t)i * n + k] * y[k];
		for (int j = 0; j < n; j++) {
			cx += c[(size_t)i * n + j] * freivalds_x(j);
			c0x += dgemm_value(DGEMM_C0, i, j) * freivalds_x(j);
		}
		z[i] = cx - (p->alpha * g * az + br * c0x);
		/* Every entry of A, B, C0 and x is positive: this bounds what rounding can do. */
		if (!(fabs(z[i]) <= DGEMM_RTOL * (fabs(p->alpha) * gabs * az + fabs(br) * c0x))) {
#pragma omp critical
			if (bad < 0 || i < bad)
				bad = i;
		}
	}
	if (bad >= 0)
		snprintf(why, len, "row %d of C fails Freivalds' test: C*x is off by %.3g", bad, z[bad]);
	free(y);
	free(z);
	return bad >= 0 ? -EDOM : 0;
}

static int check_row(const struct dgemm_params *p, const double *a, const double *b,
		     const double *c, int i, double *prod, char *why, size_t len)
{
	const int n = p->n;
	double g, gabs, br;

	repeat_factors(p, &g, &gabs, &br);
	for (int j = 0; j < n; j++)
		prod[j] = 0.0;
	for (int k = 0; k < n; k++) {
		const double aik = a[(size_t)i * n + k];

		for (int j = 0; j < n; j++)
			prod[j] += aik * b[(size_t)k * n + j];
	}
	for (int j = 0; j < n; j++) {
		const double c0 = dgemm_value(DGEMM_C0, i, j);
		const double want = p->alpha * g * prod[j] + br * c0;
		const double got = c[(size_t)i * n + j];

		if (!(fabs(got - want) <= DGEMM_RTOL * (fabs(p->alpha) * gabs * prod[j] + fabs(br) * c0))) {
			snprintf(why, len, "C(%d,%d) is %.17g, a naive product gives %.17g", i, j, got, want);
			return -EDOM;
		}
	}
	return 0;
}

int dgemm_check_sampled_rows(const struct dgemm_params *p, const double *a, const double *b,
			     const double *c, int rows, char *why, size_t len)
{
	const int n = p->n;
	double *prod;
	int rc = 0;

	if (rows <= 0)
		return 0;
	if (rows > n)
		rows = n;
	prod = malloc((size_t)n * sizeof(*prod));
	if (!prod)
		return -ENOMEM;
	for (int r = 0; r < rows && !rc; r++) {
		const int i = rows == n ? r : rows == 1 ? 0 : (int)((long)r * (n - 1) / (rows - 1));

		rc = check_row(p, a, b, c, i, prod, why, len);
	}
	free(prod);
	return rc;
}

int dgemm_check(const struct dgemm_params *p, const double *a, const double *b,
		const double *c, int rows, char *why, size_t len)
{
	int rc = dgemm_check_freivalds(p, a, b, c, why, len);

	return rc ? rc : dgemm_check_sampled_rows(p, a, b, c, rows, why, len);
}
