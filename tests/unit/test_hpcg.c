/*
 * hpcg kernels and validators: the generated matrix against the stencil's
 * definition, SpMV and Gauss-Seidel against naive oracles computed from the
 * grid, the multigrid hierarchy, HPCG's flop count, and each validation
 * test accepting a correct problem and rejecting a corrupted one.
 */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hpcg.h"

static double *vec(int n)
{
	double *v = calloc((size_t)n, sizeof(double));

	assert_non_null(v);
	return v;
}

static void make(struct hpcg_problem *P, struct hpcg_cg_work *W, int nx, int ny, int nz, int levels)
{
	assert_int_equal(hpcg_problem_init(P, nx, ny, nz, levels), 0);
	if (W)
		assert_int_equal(hpcg_cg_work_init(P, W), 0);
}

/* Is (x, y, z) on a grid of g? */
static int inside(const struct hpcg_geom *g, int x, int y, int z)
{
	return x >= 0 && x < g->nx && y >= 0 && y < g->ny && z >= 0 && z < g->nz;
}

/* y = A*x straight from the stencil: 26 x[i] minus the neighbours. */
static double oracle_row(const struct hpcg_geom *g, const double *x, int ix, int iy, int iz)
{
	double s = 0.0;

	for (int sz = -1; sz <= 1; sz++)
		for (int sy = -1; sy <= 1; sy++)
			for (int sx = -1; sx <= 1; sx++) {
				int cx = ix + sx, cy = iy + sy, cz = iz + sz;

				if (!inside(g, cx, cy, cz))
					continue;
				s += (sx || sy || sz ? -1.0 : 26.0) * x[(cz * g->ny + cy) * g->nx + cx];
			}
	return s;
}

static void test_generate(void **state)
{
	struct hpcg_problem P;
	const struct hpcg_matrix *A;
	int64_t nnz = 0;

	(void)state;
	make(&P, NULL, 4, 5, 6, 1);
	A = &P.level[0];
	assert_int_equal(A->nrow, 4 * 5 * 6);
	assert_int_equal(A->nnz, (3 * 4 - 2) * (3 * 5 - 2) * (3 * 6 - 2));
	assert_int_equal(A->lag, 4 * 5 + 4 + 1);
	for (int i = 0; i < A->nrow; i++) {
		int ix = i % 4, iy = (i / 4) % 5, iz = i / 20, k = 0, inrow = 0;

		for (int sz = -1; sz <= 1; sz++)
			for (int sy = -1; sy <= 1; sy++)
				for (int sx = -1; sx <= 1; sx++, k++) {
					double v = A->values[i * HPCG_SLOTS + k];
					int c = A->cols[i * HPCG_SLOTS + k];

					if (!inside(&A->g, ix + sx, iy + sy, iz + sz)) {
						assert_true(v == 0.0);
						assert_int_equal(c, i);
						continue;
					}
					inrow++;
					assert_int_equal(c, ((iz + sz) * 5 + iy + sy) * 4 + ix + sx);
					assert_int_equal(A->gcols[i * HPCG_SLOTS + k], c);
					assert_true(v == (k == HPCG_DIAG_SLOT ? 26.0 : -1.0));
				}
		nnz += inrow;
		assert_true(P.b[i] == 27.0 - inrow);
		assert_true(P.x[i] == 0.0 && P.xexact[i] == 1.0);
	}
	assert_int_equal(nnz, A->nnz);
	assert_true(P.b[0] == 19.0);			/* a corner: 8 nonzeros */
	assert_true(P.b[(1 * 5 + 1) * 4 + 1] == 0.0);	/* an interior point */
	hpcg_problem_release(&P);
}

static void test_bad_sizes(void **state)
{
	struct hpcg_problem P;

	(void)state;
	assert_int_equal(hpcg_problem_init(&P, 12, 16, 16, 4), -EINVAL);	/* 12 is not a multiple of 8 */
	assert_int_equal(hpcg_problem_init(&P, 16, 16, 4, 4), -EINVAL);
	assert_int_equal(hpcg_problem_init(&P, 16, 16, 16, 5), -EINVAL);
	assert_int_equal(hpcg_problem_init(&P, 16, 16, 16, 0), -EINVAL);
}

static void test_spmv(void **state)
{
	struct hpcg_problem P;
	const struct hpcg_matrix *A;
	double *x, *y;

	(void)state;
	make(&P, NULL, 8, 8, 16, 1);
	A = &P.level[0];
	x = vec(A->nrow);
	y = vec(A->nrow);
	hpcg_spmv(A, P.xexact, y);
	for (int i = 0; i < A->nrow; i++)
		assert_true(y[i] == P.b[i]);
	for (int i = 0; i < A->nrow; i++)
		x[i] = (double)((i * 7919) % 101) - 50.0;	/* integers: sums are exact */
	hpcg_spmv(A, x, y);
	for (int i = 0; i < A->nrow; i++)
		assert_true(y[i] == oracle_row(&A->g, x, i % 8, (i / 8) % 8, i / 64));
	free(x);
	free(y);
	hpcg_problem_release(&P);
}

/* HPCG's SYMGS_ref written plainly on the grid: forward then backward. */
static void oracle_symgs(const struct hpcg_geom *g, const double *r, double *x)
{
	const int n = g->nx * g->ny * g->nz;

	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < n; k++) {
			int i = pass ? n - 1 - k : k;
			int ix = i % g->nx, iy = (i / g->nx) % g->ny, iz = i / (g->nx * g->ny);

			x[i] = (r[i] - oracle_row(g, x, ix, iy, iz) + 26.0 * x[i]) / 26.0;
		}
}

static void test_symgs(void **state)
{
	struct hpcg_problem P;
	const struct hpcg_matrix *A;
	double *r, *x, *xo, *x2, *Ax, *Ax2;

	(void)state;
	make(&P, NULL, 8, 16, 8, 1);
	A = &P.level[0];
	r = vec(A->nrow);
	x = vec(A->nrow);
	xo = vec(A->nrow);
	x2 = vec(A->nrow);
	Ax = vec(A->nrow);
	Ax2 = vec(A->nrow);
	for (int i = 0; i < A->nrow; i++) {
		r[i] = sin(0.1 * i) + 2.0;
		x[i] = xo[i] = x2[i] = cos(0.3 * i);
	}
	hpcg_symgs(A, r, x);
	oracle_symgs(&A->g, r, xo);
	for (int i = 0; i < A->nrow; i++)
		assert_true(fabs(x[i] - xo[i]) <= 1e-13 * (fabs(xo[i]) + 1.0));
	/* The fused version: the same x and exactly A*x. */
	hpcg_symgs_spmv(A, r, x2, Ax);
	hpcg_spmv(A, x2, Ax2);
	assert_memory_equal(x, x2, (size_t)A->nrow * sizeof(double));
	assert_memory_equal(Ax, Ax2, (size_t)A->nrow * sizeof(double));
	free(r);
	free(x);
	free(xo);
	free(x2);
	free(Ax);
	free(Ax2);
	hpcg_problem_release(&P);
}

/* HPCG's ComputeMG_ref on grids of halving size, from the oracles above. */
static void oracle_mg(const struct hpcg_geom *g, int levels, const double *r, double *x)
{
	const int n = g->nx * g->ny * g->nz;

	memset(x, 0, (size_t)n * sizeof(double));
	oracle_symgs(g, r, x);
	if (levels > 1) {
		struct hpcg_geom gc = { g->nx / 2, g->ny / 2, g->nz / 2, 0, 0, 0, 0, 0, 0 };
		int nc = gc.nx * gc.ny * gc.nz;
		double *rc = vec(nc), *xc = vec(nc);

		for (int iz = 0; iz < gc.nz; iz++)
			for (int iy = 0; iy < gc.ny; iy++)
				for (int ix = 0; ix < gc.nx; ix++) {
					int f = (2 * iz * g->ny + 2 * iy) * g->nx + 2 * ix;

					rc[(iz * gc.ny + iy) * gc.nx + ix] =
						r[f] - oracle_row(g, x, 2 * ix, 2 * iy, 2 * iz);
				}
		oracle_mg(&gc, levels - 1, rc, xc);
		for (int iz = 0; iz < gc.nz; iz++)
			for (int iy = 0; iy < gc.ny; iy++)
				for (int ix = 0; ix < gc.nx; ix++)
					x[(2 * iz * g->ny + 2 * iy) * g->nx + 2 * ix] +=
						xc[(iz * gc.ny + iy) * gc.nx + ix];
		free(rc);
		free(xc);
		oracle_symgs(g, r, x);
	}
}

static void test_mg(void **state)
{
	struct hpcg_problem P;
	const int nx = 16, ny = 8, nz = 16, n = nx * ny * nz;
	double *r = vec(n), *x = vec(n), *xo = vec(n);

	(void)state;
	make(&P, NULL, nx, ny, nz, 4);
	for (int i = 0; i < n; i++) {
		r[i] = sin(0.37 * i) + 0.5;
		x[i] = 99.0;	/* MG starts from zero whatever x holds */
	}
	hpcg_mg(&P, 0, r, x);
	oracle_mg(&P.level[0].g, 4, r, xo);
	for (int i = 0; i < n; i++)
		assert_true(fabs(x[i] - xo[i]) <= 1e-12 * (fabs(xo[i]) + 1.0));
	free(r);
	free(x);
	free(xo);
	hpcg_problem_release(&P);
}

static void test_levels(void **state)
{
	struct hpcg_problem P;

	(void)state;
	make(&P, NULL, 16, 8, 24, 4);
	assert_int_equal(P.nlevels, 4);
	for (int l = 0, nx = 16, ny = 8, nz = 24; l < 4; l++, nx /= 2, ny /= 2, nz /= 2) {
		const struct hpcg_matrix *A = &P.level[l];

		assert_int_equal(A->nrow, nx * ny * nz);
		assert_int_equal(A->nnz, (int64_t)(3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2));
		if (l == 3)
			break;
		/* coarse point (ix, iy, iz) comes from fine (2ix, 2iy, 2iz) */
		for (int ic = 0; ic < P.level[l + 1].nrow; ic++) {
			int cx = ic % (nx / 2), cy = (ic / (nx / 2)) % (ny / 2), cz = ic / (nx / 2 * (ny / 2));

			assert_int_equal(A->f2c[ic], (2 * cz * ny + 2 * cy) * nx + 2 * cx);
		}
	}
	assert_null(P.level[3].f2c);
	hpcg_problem_release(&P);
}

static void test_dot_waxpby(void **state)
{
	const int n = 100000;
	double *x = vec(n), *y = vec(n), *w = vec(n);
	double d1, d2;

	(void)state;
	for (int i = 0; i < n; i++) {
		x[i] = i + 1;
		y[i] = 2.0;
	}
	/* Sums of integers below 2^53 are exact in any order. */
	assert_true(hpcg_dot(n, x, x) == (double)n * (n + 1) * (2.0 * n + 1) / 6.0);
	hpcg_waxpby(n, 2.0, x, 3.0, y, w);
	for (int i = 0; i < n; i++)
		assert_true(w[i] == 2.0 * (i + 1) + 6.0);
	hpcg_waxpby(n, 1.0, x, -0.5, y, x);	/* in place, as CG does */
	for (int i = 0; i < n; i++)
		assert_true(x[i] == i);
	hpcg_waxpby(n, 0.5, y, 1.0, x, x);
	assert_true(x[n - 1] == n);

	/* The block order of the sum, not the thread count, decides the rounding. */
	for (int i = 0; i < n; i++)
		x[i] = 1.0 / (i + 1.0);
	omp_set_num_threads(1);
	d1 = hpcg_dot(n, x, x);
	omp_set_num_threads(2);
	d2 = hpcg_dot(n, x, x);
	assert_memory_equal(&d1, &d2, sizeof(d1));
	assert_true(fabs(d1 - 1.6449240668982) < 1e-9);	/* sum 1/k^2 to 1e5 */
	free(x);
	free(y);
	free(w);
}

static void test_flops(void **state)
{
	struct hpcg_problem P;
	double n = 4096, nnz[4] = { 46 * 46 * 46, 22 * 22 * 22, 10 * 10 * 10, 4 * 4 * 4 };
	double want;

	(void)state;
	make(&P, NULL, 16, 16, 16, 4);
	for (int l = 0; l < 4; l++)
		assert_int_equal(P.level[l].gnnz, (int64_t)nnz[l]);
	/* 3 sets of 50: ddot and waxpby 2n each for 3 per iteration plus 1 per set, ... */
	want = 2 * (3.0 * 150 + 3) * 2 * n + (150 + 3) * 2 * nnz[0] +
	       150 * 10 * (nnz[0] + nnz[1] + nnz[2]) + 150 * 4 * nnz[3];
	assert_true(fabs(hpcg_flops(&P, 3, 50) - want) <= 1e-12 * want);
	hpcg_problem_release(&P);
}

static void test_cg_converges(void **state)
{
	struct hpcg_problem P;
	struct hpcg_cg_work W;
	struct hpcg_cg_result prec, plain;
	struct hpcg_times t = { 0 };
	const int n = 16 * 16 * 16;

	(void)state;
	make(&P, &W, 16, 16, 16, 4);
	hpcg_cg(&P, &W, P.b, P.x, 500, 1e-10, 1, &prec, &t);
	for (int i = 0; i < n; i++)
		assert_true(fabs(P.x[i] - 1.0) < 1e-8);
	assert_true(prec.normr / prec.normr0 <= 1e-10);
	assert_true(t.mg > 0.0 && t.total >= t.mg);
	memset(P.x, 0, n * sizeof(double));
	hpcg_cg(&P, &W, P.b, P.x, 500, 1e-10, 0, &plain, NULL);
	assert_true(plain.normr / plain.normr0 <= 1e-10);
	/* The preconditioner earns its cost (measured: 14 against 27 iterations). */
	assert_true(prec.niters * 3 < plain.niters * 2);
	hpcg_problem_release(&P);
}

static void test_symmetry(void **state)
{
	struct hpcg_problem P;
	struct hpcg_cg_work W;
	struct hpcg_symmetry s;
	double *v, saved;

	(void)state;
	make(&P, &W, 16, 16, 16, 4);
	assert_int_equal(hpcg_test_symmetry(&P, &W, &s), 0);
	assert_true(s.depsym_spmv <= 1.0 && s.depsym_mg <= 1.0);
	assert_true(s.residual == 0.0);

	/* One off-diagonal entry of the fine matrix changed: A is not symmetric. */
	v = &P.level[0].values[(size_t)1000 * HPCG_SLOTS + 4];
	saved = *v;
	*v = -1.5;
	assert_int_equal(hpcg_test_symmetry(&P, &W, &s), -EDOM);
	assert_true(s.depsym_spmv > 1.0);
	*v = saved;

	/* One entry of a coarse matrix changed: A is fine, the preconditioner is not symmetric. */
	v = &P.level[1].values[(size_t)300 * HPCG_SLOTS + 22];
	saved = *v;
	*v = -1.5;
	assert_int_equal(hpcg_test_symmetry(&P, &W, &s), -EDOM);
	assert_true(s.depsym_spmv <= 1.0 && s.depsym_mg > 1.0);
	*v = saved;

	/* A wrong right-hand side shows in the residual of the exact solution. */
	P.b[77] += 0.25;
	assert_int_equal(hpcg_test_symmetry(&P, &W, &s), 0);
	assert_true(s.residual == 0.25);
	hpcg_problem_release(&P);
}

static void test_testcg(void **state)
{
	struct hpcg_problem P;
	struct hpcg_cg_work W;
	struct hpcg_testcg t;
	double *values, *b;
	size_t vbytes;

	(void)state;
	make(&P, &W, 16, 16, 16, 4);
	vbytes = (size_t)P.level[0].nrow * HPCG_SLOTS * sizeof(double);
	values = malloc(vbytes);
	b = malloc((size_t)P.level[0].nrow * sizeof(double));
	assert_non_null(values);
	assert_non_null(b);
	memcpy(values, P.level[0].values, vbytes);
	memcpy(b, P.b, (size_t)P.level[0].nrow * sizeof(double));

	assert_int_equal(hpcg_test_cg(&P, &W, &t), 0);
	assert_int_equal(t.count_pass, 4);
	for (int i = 0; i < HPCG_TESTCG_CALLS; i++) {
		assert_in_range(t.niters[0][i], 3, HPCG_TESTCG_MAX_NOPREC);
		assert_in_range(t.niters[1][i], 1, HPCG_TESTCG_MAX_PREC);
	}
	/* The test put the matrix and b back as they were. */
	assert_memory_equal(values, P.level[0].values, vbytes);
	assert_memory_equal(b, P.b, (size_t)P.level[0].nrow * sizeof(double));

	/* Strong non-symmetric couplings: CG no longer converges in the expected counts. */
	for (int i = 0; i < P.level[0].nrow; i += 2)
		P.level[0].values[(size_t)i * HPCG_SLOTS + 14] = 3.0e6;
	assert_int_equal(hpcg_test_cg(&P, &W, &t), -EDOM);
	assert_true(t.count_fail > 0);
	free(values);
	free(b);
	hpcg_problem_release(&P);
}

static void test_testcg_judge(void **state)
{
	struct hpcg_testcg t = { .niters = { { 12, 11 }, { 2, 1 } },
				 .scaled_residual = { { 1e-13, 1e-13 }, { 1e-13, 1e-14 } } };

	(void)state;
	assert_int_equal(hpcg_testcg_judge(&t), 0);
	assert_int_equal(t.count_pass, 4);
	t.niters[0][1] = 13;
	assert_int_equal(hpcg_testcg_judge(&t), -EDOM);
	assert_int_equal(t.count_fail, 1);
	t.niters[0][1] = 11;
	t.niters[1][0] = 3;
	assert_int_equal(hpcg_testcg_judge(&t), -EDOM);
	t.niters[1][0] = 2;
	t.scaled_residual[1][1] = 1e-6;	/* stopped early without converging */
	assert_int_equal(hpcg_testcg_judge(&t), -EDOM);
}

static void test_norms_and_reduction(void **state)
{
	double same[3] = { 3e-10, 3e-10, 3e-10 }, spread[2] = { 0.0, 0.01 }, mean, var;

	(void)state;
	assert_int_equal(hpcg_test_norms(same, 3, &mean, &var), 0);
	assert_true(mean == 3e-10 && var == 0.0);
	assert_int_equal(hpcg_test_norms(spread, 2, &mean, &var), -EDOM);
	assert_true(fabs(var - 2.5e-5) < 1e-12);

	assert_int_equal(hpcg_check_reduction(same, 3, 3e-10), 0);
	assert_int_equal(hpcg_check_reduction(same, 3, 4e-10), 0);
	same[1] = 3.1e-10;	/* one set stopped short of the reference */
	assert_int_equal(hpcg_check_reduction(same, 3, 3e-10), -EDOM);
	same[1] = NAN;
	assert_int_equal(hpcg_check_reduction(same, 3, 3e-10), -EDOM);
	same[1] = 3e-10;
	assert_int_equal(hpcg_check_reduction(same, 3, 0.5), -EDOM);	/* the reference did not converge */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generate),
		cmocka_unit_test(test_bad_sizes),
		cmocka_unit_test(test_spmv),
		cmocka_unit_test(test_symgs),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_mg),
		cmocka_unit_test(test_dot_waxpby),
		cmocka_unit_test(test_flops),
		cmocka_unit_test(test_cg_converges),
		cmocka_unit_test(test_symmetry),
		cmocka_unit_test(test_testcg),
		cmocka_unit_test(test_testcg_judge),
		cmocka_unit_test(test_norms_and_reduction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
