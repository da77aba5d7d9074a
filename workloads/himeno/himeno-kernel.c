/*
 * The Himeno computation: grid allocation and initial values as the
 * original himenoBMTxpa makes them, and the Jacobi sweep. The sweep is
 * the original's arithmetic in the original's order; what differs is only
 * how it is expressed for the compiler: flat indices from restrict-
 * qualified base pointers so the k loop vectorises, and the residual
 * summed per row in float lanes and across rows in double, which is both
 * faster and closer to the exact sum than the original's one float
 * accumulator.
 */
#include "himeno.h"

#include <errno.h>
#include <stdlib.h>
#include <strings.h>

const struct himeno_size himeno_sizes[HIMENO_NSIZES] = {
	{ "XS", 32, 32, 64 },
	{ "S", 64, 64, 128 },
	{ "M", 128, 128, 256 },
	{ "L", 256, 256, 512 },
	{ "XL", 512, 512, 1024 },
};

const struct himeno_size *himeno_size_find(const char *name)
{
	for (int i = 0; i < HIMENO_NSIZES; i++)
		if (!strcasecmp(name, himeno_sizes[i].name))
			return &himeno_sizes[i];
	return NULL;
}

int himeno_grid_alloc(struct himeno_grid *g, int mimax, int mjmax, int mkmax)
{
	size_t bytes;

	*g = (struct himeno_grid){ 0 };
	if (mimax < 3 || mjmax < 3 || mkmax < 3)
		return -EINVAL;
	g->mimax = mimax;
	g->mjmax = mjmax;
	g->mkmax = mkmax;
	g->npoints = (size_t)mimax * mjmax * mkmax;
	bytes = g->npoints * sizeof(float);

	/* The original's allocation order: a runtime's per-allocation settings follow it. */
	if (!(g->p = malloc(bytes)) || !(g->bnd = malloc(bytes)) ||
	    !(g->wrk1 = malloc(bytes)) || !(g->wrk2 = malloc(bytes)) ||
	    !(g->a = malloc(4 * bytes)) || !(g->b = malloc(3 * bytes)) ||
	    !(g->c = malloc(3 * bytes))) {
		himeno_grid_free(g);
		return -ENOMEM;
	}
	return 0;
}

void himeno_grid_free(struct himeno_grid *g)
{
	free(g->p);
	free(g->bnd);
	free(g->wrk1);
	free(g->wrk2);
	free(g->a);
	free(g->b);
	free(g->c);
	g->p = g->bnd = g->wrk1 = g->wrk2 = g->a = g->b = g->c = NULL;
}

size_t himeno_grid_bytes(const struct himeno_grid *g)
{
	return 14 * g->npoints * sizeof(float);
}

void himeno_grid_init(struct himeno_grid *g)
{
	const size_t n = g->npoints, plane = (size_t)g->mjmax * g->mkmax;
	const float pdiv = (float)((g->mimax - 1) * (g->mimax - 1));

	/* Same static split over i as the sweep, so each thread first-touches its planes. */
#pragma omp parallel for schedule(static)
	for (int i = 0; i < g->mimax; i++) {
		const float pv = (float)(i * i) / pdiv;

		for (size_t x = i * plane; x < (i + 1) * plane; x++) {
			g->p[x] = pv;
			g->bnd[x] = 1.0f;
			g->wrk1[x] = 0.0f;
			g->wrk2[x] = 0.0f;
			g->a[x] = g->a[n + x] = g->a[2 * n + x] = 1.0f;
			g->a[3 * n + x] = (float)(1.0 / 6.0);
			g->b[x] = g->b[n + x] = g->b[2 * n + x] = 0.0f;
			g->c[x] = g->c[n + x] = g->c[2 * n + x] = 1.0f;
		}
	}
}

double himeno_flop(int mimax, int mjmax, int mkmax)
{
	return (double)(mkmax - 3) * (double)(mjmax - 3) * (double)(mimax - 3) * 34.0;
}

/*
 * One row (fixed i, j) of interior points starting at flat index x0. The
 * family blocks are indexed with the grid stride n; every pointer is
 * restrict so the compiler knows wrk2 is the only thing written.
 */
static inline float sweep_row(long x0, int len, long plane, long row, long n,
			      const float *restrict p, const float *restrict a,
			      const float *restrict b, const float *restrict c,
			      const float *restrict bnd, const float *restrict wrk1,
			      float *restrict wrk2)
{
	float g = 0.0f;

#pragma omp simd reduction(+:g)
	for (int k = 0; k < len; k++) {
		const long x = x0 + k;
		const float s0 = a[x] * p[x + plane] + a[n + x] * p[x + row] + a[2 * n + x] * p[x + 1] +
			b[x] * (p[x + plane + row] - p[x + plane - row] - p[x - plane + row] + p[x - plane - row]) +
			b[n + x] * (p[x + row + 1] - p[x - row + 1] - p[x + row - 1] + p[x - row - 1]) +
			b[2 * n + x] * (p[x + plane + 1] - p[x - plane + 1] - p[x + plane - 1] + p[x - plane - 1]) +
			c[x] * p[x - plane] + c[n + x] * p[x - row] + c[2 * n + x] * p[x - 1] + wrk1[x];
		const float ss = (s0 * a[3 * n + x] - p[x]) * bnd[x];

		g += ss * ss;
		wrk2[x] = p[x] + HIMENO_OMEGA * ss;
	}
	return g;
}

static double sweep(struct himeno_grid *g)
{
	const long n = (long)g->npoints, row = g->mkmax, plane = (long)g->mjmax * g->mkmax;
	const int imax = g->mimax - 1, jmax = g->mjmax - 1, len = g->mkmax - 2;
	double gosa = 0.0;

#pragma omp parallel for schedule(static) reduction(+:gosa)
	for (int i = 1; i < imax; i++) {
		for (int j = 1; j < jmax; j++) {
			const long x0 = i * plane + j * row + 1;

			gosa += sweep_row(x0, len, plane, row, n, g->p, g->a, g->b, g->c,
					  g->bnd, g->wrk1, g->wrk2);
		}
	}
	return gosa;
}

/* The original copies the interior of wrk2 back into p after every sweep; so do we. */
static void copy_back(struct himeno_grid *g)
{
	const long row = g->mkmax, plane = (long)g->mjmax * g->mkmax;
	const int imax = g->mimax - 1, jmax = g->mjmax - 1, len = g->mkmax - 2;
	float *restrict p = g->p;
	const float *restrict wrk2 = g->wrk2;

#pragma omp parallel for schedule(static)
	for (int i = 1; i < imax; i++) {
		for (int j = 1; j < jmax; j++) {
			const long x0 = i * plane + j * row + 1;

#pragma omp simd
			for (int k = 0; k < len; k++)
				p[x0 + k] = wrk2[x0 + k];
		}
	}
}

double himeno_jacobi(struct himeno_grid *g, int iterations, double *gosa_each)
{
	double gosa = 0.0;

	for (int n = 0; n < iterations; n++) {
		gosa = sweep(g);
		copy_back(g);
		if (gosa_each)
			gosa_each[n] = gosa;
	}
	return gosa;
}
