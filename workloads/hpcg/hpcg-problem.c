/*
 * HPCG problem generation: the 27-point stencil matrix on the fine grid
 * (diagonal 26, off-diagonals -1, as HPCG's GenerateProblem), its right-hand
 * side b = A*ones, and the coarse levels of the multigrid hierarchy
 * (GenerateCoarseProblem: half the points in each dimension, each coarse
 * point injected from the fine point at twice its coordinates).
 *
 * Rows are generated from global coordinates and mapped to local ones, so
 * the code reads the same when the box is one of many ranks'. Without MPI
 * the box is the whole grid and every neighbour is local. With MPI a
 * neighbour outside the box is generated with local column -1 and
 * hpcg_halo_setup (hpcg-mpi.c) numbers it from nrow on; the vectors that
 * kernels read grow by the halo (ncol entries).
 */
#include "hpcg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records and returns one big allocation (NULL when out of memory). */
static void *problem_alloc(struct hpcg_problem *P, size_t bytes, const char *fmt, int lev)
{
	struct hpcg_array *a;
	void *p;

	if (P->narrays >= HPCG_MAX_ARRAYS)
		return NULL;
	p = malloc(bytes ? bytes : 1);
	if (!p)
		return NULL;
	a = &P->arrays[P->narrays++];
	snprintf(a->name, sizeof(a->name), fmt, lev);
	a->p = p;
	a->bytes = bytes;
	return p;
}

int64_t hpcg_global_row(const struct hpcg_matrix *A, int i)
{
	const struct hpcg_geom *g = &A->g;
	int64_t ix = i % g->nx, iy = (i / g->nx) % g->ny, iz = i / ((int64_t)g->nx * g->ny);

	return ((g->oz + iz) * g->gny + g->oy + iy) * g->gnx + g->ox + ix;
}

/* Fills the rows of A; b (fine level only) gets the row sums of A, i.e. A*ones. */
static void generate_rows(struct hpcg_matrix *A, double *b)
{
	const struct hpcg_geom *g = &A->g;
	const int nx = g->nx, ny = g->ny, nz = g->nz;
	int64_t nnz = 0;
	int lag = 0;

#pragma omp parallel for schedule(static) reduction(+:nnz) reduction(max:lag)
	for (int iz = 0; iz < nz; iz++) {
		for (int iy = 0; iy < ny; iy++) {
			for (int ix = 0; ix < nx; ix++) {
				const int64_t gx = g->ox + ix, gy = g->oy + iy, gz = g->oz + iz;
				const int64_t grow = (gz * g->gny + gy) * g->gnx + gx;
				const int row = (iz * ny + iy) * nx + ix;
				double *v = A->values + (size_t)row * HPCG_SLOTS;
				int32_t *c = A->cols + (size_t)row * HPCG_SLOTS;
				int64_t *gc = A->gcols + (size_t)row * HPCG_SLOTS;
				int k = 0, inrow = 0, lowest = row;

				for (int sz = -1; sz <= 1; sz++)
					for (int sy = -1; sy <= 1; sy++)
						for (int sx = -1; sx <= 1; sx++, k++) {
							int64_t cx = gx + sx, cy = gy + sy, cz = gz + sz;

							if (cx < 0 || cx >= g->gnx || cy < 0 || cy >= g->gny ||
							    cz < 0 || cz >= g->gnz) {
								v[k] = 0.0;
								c[k] = row;
								gc[k] = grow;
								continue;
							}
							gc[k] = (cz * g->gny + cy) * g->gnx + cx;
							v[k] = gc[k] == grow ? 26.0 : -1.0;
							inrow++;
							cx -= g->ox, cy -= g->oy, cz -= g->oz;
							if (cx < 0 || cx >= nx || cy < 0 || cy >= ny ||
							    cz < 0 || cz >= nz) {
								/* Another rank's: a halo column, numbered later. */
								c[k] = -1;
								continue;
							}
							c[k] = (int32_t)((cz * ny + cy) * nx + cx);
							if (c[k] < lowest)
								lowest = c[k];
						}
				if (b)
					b[row] = 26.0 - (double)(inrow - 1);
				nnz += inrow;
				if (row - lowest > lag)
					lag = row - lowest;
			}
		}
	}
	A->nnz = nnz;
	A->gnnz = hpcg_allreduce_sum_i64(nnz);
	A->lag = lag;
}

static int level_alloc(struct hpcg_problem *P, int lev, const struct hpcg_geom *g)
{
	struct hpcg_matrix *A = &P->level[lev];
	size_t slots;

	A->g = *g;
	A->nrow = g->nx * g->ny * g->nz;
	A->ncol = A->nrow;
	A->gnrow = g->gnx * g->gny * g->gnz;
	slots = (size_t)A->nrow * HPCG_SLOTS;
	A->values = problem_alloc(P, slots * sizeof(double), "A%d.values", lev);
	A->cols = problem_alloc(P, slots * sizeof(int32_t), "A%d.cols", lev);
	A->gcols = problem_alloc(P, slots * sizeof(int64_t), "A%d.gcols", lev);
	if (!A->values || !A->cols || !A->gcols)
		return -ENOMEM;
	return 0;
}

/* The transfer arrays from level lev to lev+1 (both generated). */
static int transfer_init(struct hpcg_problem *P, int lev)
{
	struct hpcg_matrix *A = &P->level[lev];
	const struct hpcg_matrix *Ac = &P->level[lev + 1];
	const int nxc = Ac->g.nx, nyc = Ac->g.ny, nzc = Ac->g.nz;

	A->f2c = problem_alloc(P, (size_t)Ac->nrow * sizeof(int32_t), "A%d.f2c", lev);
	A->Axf = problem_alloc(P, (size_t)A->nrow * sizeof(double), "A%d.Axf", lev);
	A->rc = problem_alloc(P, (size_t)Ac->nrow * sizeof(double), "A%d.rc", lev);
	A->xc = problem_alloc(P, (size_t)Ac->ncol * sizeof(double), "A%d.xc", lev);
	if (!A->f2c || !A->Axf || !A->rc || !A->xc)
		return -ENOMEM;

#pragma omp parallel for schedule(static)
	for (int izc = 0; izc < nzc; izc++)
		for (int iyc = 0; iyc < nyc; iyc++)
			for (int ixc = 0; ixc < nxc; ixc++) {
				int ic = (izc * nyc + iyc) * nxc + ixc;

				A->f2c[ic] = ((2 * izc) * A->g.ny + 2 * iyc) * A->g.nx + 2 * ixc;
				A->rc[ic] = 0.0;
			}
	for (int i = 0; i < Ac->ncol; i++)
		A->xc[i] = 0.0;
#pragma omp parallel for schedule(static)
	for (int i = 0; i < A->nrow; i++)
		A->Axf[i] = 0.0;
	return 0;
}

/* Numbers the halo columns of a generated level (MPI; nothing to do otherwise). */
static int level_halo(struct hpcg_matrix *A)
{
#ifdef HPCG_MPI
	return hpcg_halo_setup(A);
#else
	(void)A;
	return 0;
#endif
}

static double *vector_alloc(struct hpcg_problem *P, int n, const char *name, double fill)
{
	double *v = problem_alloc(P, (size_t)n * sizeof(double), name, 0);

	if (v) {
#pragma omp parallel for schedule(static)
		for (int i = 0; i < n; i++)
			v[i] = fill;
	}
	return v;
}

int hpcg_problem_init(struct hpcg_problem *P, int nx, int ny, int nz, int nlevels)
{
	struct hpcg_geom g;
	int div, ret;

	memset(P, 0, sizeof(*P));
	if (nlevels < 1 || nlevels > HPCG_MAX_LEVELS)
		return -EINVAL;
	div = 1 << (nlevels - 1);
	if (nx < div || ny < div || nz < div || nx % div || ny % div || nz % div)
		return -EINVAL;
	if ((int64_t)nx * ny * nz * HPCG_SLOTS > INT32_MAX)
		return -EINVAL;
	P->nlevels = nlevels;

	/* One rank: the box is the whole grid; with MPI, one box of the process grid. */
	g = (struct hpcg_geom){ nx, ny, nz, nx, ny, nz, 0, 0, 0 };
#ifdef HPCG_MPI
	{
		int np[3], ip[3];

		hpcg_mpi_grid(np, ip);
		g.gnx *= np[0], g.gny *= np[1], g.gnz *= np[2];
		g.ox = (int64_t)ip[0] * nx, g.oy = (int64_t)ip[1] * ny, g.oz = (int64_t)ip[2] * nz;
	}
#endif

	/* The fine matrix first: it is the bulk of the footprint. */
	ret = level_alloc(P, 0, &g);
	if (ret)
		goto fail;
	P->b = problem_alloc(P, (size_t)P->level[0].nrow * sizeof(double), "b", 0);
	if (!P->b) {
		ret = -ENOMEM;
		goto fail;
	}
	generate_rows(&P->level[0], P->b);
	ret = level_halo(&P->level[0]);
	if (ret)
		goto fail;
	P->x = vector_alloc(P, P->level[0].ncol, "x", 0.0);
	P->xexact = vector_alloc(P, P->level[0].ncol, "xexact", 1.0);
	if (!P->x || !P->xexact) {
		ret = -ENOMEM;
		goto fail;
	}

	for (int lev = 1; lev < nlevels; lev++) {
		g.nx /= 2, g.ny /= 2, g.nz /= 2;
		g.gnx /= 2, g.gny /= 2, g.gnz /= 2;
		g.ox /= 2, g.oy /= 2, g.oz /= 2;
		ret = level_alloc(P, lev, &g);
		if (ret)
			goto fail;
		generate_rows(&P->level[lev], NULL);
		ret = level_halo(&P->level[lev]);
		if (ret)
			goto fail;
		ret = transfer_init(P, lev - 1);
		if (ret)
			goto fail;
	}
	return 0;

fail:
	hpcg_problem_release(P);
	return ret;
}

int hpcg_cg_work_init(struct hpcg_problem *P, struct hpcg_cg_work *W)
{
	/* ncol for all four: the symmetry test hands Ap to SpMV as its x. */
	int n = P->level[0].ncol;

	W->r = vector_alloc(P, n, "cg.r", 0.0);
	W->z = vector_alloc(P, n, "cg.z", 0.0);
	W->p = vector_alloc(P, n, "cg.p", 0.0);
	W->Ap = vector_alloc(P, n, "cg.Ap", 0.0);
	if (!W->r || !W->z || !W->p || !W->Ap)
		return -ENOMEM;
	return 0;
}

void hpcg_problem_release(struct hpcg_problem *P)
{
#ifdef HPCG_MPI
	for (int lev = 0; lev < HPCG_MAX_LEVELS; lev++)
		hpcg_halo_release(&P->level[lev]);
#endif
	for (int i = P->narrays - 1; i >= 0; i--)
		free(P->arrays[i].p);
	memset(P, 0, sizeof(*P));
}
