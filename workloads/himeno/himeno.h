/*
 * The Himeno benchmark (Jacobi iteration for the pressure Poisson
 * equation) with the semantics of the original himenoBMTxpa: its grid
 * sizes, its initial values, its update and residual (Gosa), its flop
 * count. The computation and the checks live in himeno-kernel.c and
 * himeno-check.c so unit tests link them without main.
 *
 * Grids: 14 float grids of mimax*mjmax*mkmax points, laid out [i][j][k]
 * with k fastest. As in the original, each family is ONE allocation, made
 * in the original's order: p, bnd, wrk1, wrk2 (one grid each), then a (4
 * grids), b (3) and c (3), grid n of a family at offset n*npoints. A
 * tiering runtime therefore sees 7 large allocations.
 */
#ifndef HIMENO_H
#define HIMENO_H

#include <stddef.h>

#define HIMENO_OMEGA 0.8f

struct himeno_size {
	const char *name;	/* "XS", "S", "M", "L", "XL" */
	int mimax, mjmax, mkmax;
};

/* The original's sizes, XS to XL; HIMENO_NSIZES entries. */
#define HIMENO_NSIZES 5
extern const struct himeno_size himeno_sizes[HIMENO_NSIZES];

/* The size named (case-insensitive), or NULL. */
const struct himeno_size *himeno_size_find(const char *name);

struct himeno_grid {
	int mimax, mjmax, mkmax;
	size_t npoints;		/* floats per grid */
	float *p, *bnd, *wrk1, *wrk2;
	float *a;		/* a[0..3], one block */
	float *b;		/* b[0..2], one block */
	float *c;		/* c[0..2], one block */
};

/*
 * Allocates the 7 blocks (sizes of at least 3 in each dimension). Returns
 * 0, -EINVAL for a too small grid, or -ENOMEM (nothing left allocated).
 * The values are undefined until himeno_grid_init().
 */
int himeno_grid_alloc(struct himeno_grid *g, int mimax, int mjmax, int mkmax);
/* Frees what himeno_grid_alloc() allocated; safe on a zeroed struct. */
void himeno_grid_free(struct himeno_grid *g);
/* Bytes of all 14 grids. */
size_t himeno_grid_bytes(const struct himeno_grid *g);

/*
 * The original's initial values: p = i^2/(mimax-1)^2, bnd = 1, wrk1 =
 * wrk2 = 0, a = 1,1,1,1/6, b = 0, c = 1. Written by the threads that later
 * compute each plane (first touch), so this also pre-touches every page.
 */
void himeno_grid_init(struct himeno_grid *g);

/*
 * Runs `iterations` Jacobi iterations on the interior points (OpenMP over
 * the i planes). Returns the Gosa of the last one (the sum of the squared
 * residuals, as the original reports it; accumulated in double), 0 for no
 * iterations. When gosa_each is non-NULL it receives the Gosa of every
 * iteration.
 */
double himeno_jacobi(struct himeno_grid *g, int iterations, double *gosa_each);

/*
 * Floating-point operations per iteration as the original counts them:
 * (imax-2)*(jmax-2)*(kmax-2)*34 with imax = mimax-1 (and so on). The
 * original counts fewer points than it updates; keeping its formula keeps
 * MFLOPS comparable with its published outputs.
 */
double himeno_flop(int mimax, int mjmax, int mkmax);

/* --- validation (himeno-check.c) --- */

/*
 * The Gosa after `iterations` iterations from the original's initial
 * values, computed by a plain double-precision implementation (two grids
 * of doubles). Returns a negative errno (-ENOMEM, -EINVAL) or 0.
 */
int himeno_reference_gosa(int mimax, int mjmax, int mkmax, int iterations, double *gosa);

/*
 * The stored expected Gosa for a size and iteration count (the presets'):
 * 0 with *gosa and the relative tolerance *rtol set, or -ENOENT when the
 * table has no entry. The tolerance covers the float kernel's rounding
 * drift, which grows with the grid (about 2e-3 at XL).
 */
int himeno_expected_gosa(int mimax, int mjmax, int mkmax, int iterations, double *gosa,
			 double *rtol);

/*
 * How much a Gosa may wrongly grow from rounding alone: the interior
 * points times (FLT_EPSILON * max|p|)^2, each residual being computed in
 * float from values of magnitude up to max|p|.
 */
double himeno_gosa_noise(const struct himeno_grid *g);

/*
 * The checks. Each returns 0 when the result is right, or -EDOM with the
 * reason in why (len bytes).
 */
int himeno_check_gosa(double got, double expected, double rtol, char *why, size_t len);
/* Gosa must not grow from one iteration to the next by more than noise (plus 1e-6 relative). */
int himeno_check_monotone(const double *gosa_each, int n, double noise, char *why, size_t len);

/*
 * Re-running the last iteration on a few planes: take a snapshot of the
 * planes around a few i (the first and last interior ones and the middle)
 * before the last iteration, run it, then recompute those planes with a
 * scalar implementation and compare. The snapshot is small (3 planes per
 * checked plane) and allocated after the grids.
 */
#define HIMENO_CHECK_PLANES 3
struct himeno_snapshot {
	int nplanes;
	int plane_i[HIMENO_CHECK_PLANES];
	float *before;		/* nplanes * 3 planes of p: i-1, i, i+1 */
};
int himeno_snapshot_take(const struct himeno_grid *g, struct himeno_snapshot *s);
void himeno_snapshot_free(struct himeno_snapshot *s);
int himeno_check_planes(const struct himeno_grid *g, const struct himeno_snapshot *s,
			char *why, size_t len);

#endif
