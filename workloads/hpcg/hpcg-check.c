/*
 * HPCG's validation, as its TestSymmetry, TestCG and TestNorms do it:
 * - symmetry of SpMV and of the MG preconditioner, |x'Ay - y'Ax| over
 *   (|x|^2 |A| |y|^2 + |y|^2 |A| |x|^2) * eps with |A| = 2*26 (HPCG's own
 *   scaling, squared norms included), on random vectors; and the residual
 *   of the exact solution, max |b - A*xexact|;
 * - CG on a problem whose diagonal is scaled by 1e6: unpreconditioned CG
 *   must reach 1e-12 within 12 iterations, preconditioned within 2;
 * - the timed sets' scaled residuals: all must reach the reduction of the
 *   reference 50-iteration run, and their variance must be below 1e-6.
 */
#include "hpcg.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A fixed-seed generator, so a run's symmetry figures are reproducible. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* Values in [1, 2), as HPCG's FillRandomVector. */
static void fill_random(double *v, int n, uint64_t seed)
{
	for (int i = 0; i < n; i++)
		v[i] = 1.0 + (double)(next_random(&seed) >> 11) * 0x1.0p-53;
}

int hpcg_test_symmetry(const struct hpcg_problem *P, const struct hpcg_cg_work *W,
		       struct hpcg_symmetry *out)
{
	const struct hpcg_matrix *A = &P->level[0];
	const int n = A->nrow;
	double *x = W->p, *y = W->Ap, *z = W->z;
	const double anorm = 2.0 * 26.0;
	double xnorm2, ynorm2, xtay, ytax, xtmy, ytmx, scale, res = 0.0;

	fill_random(x, n, 0x9E3779B97F4A7C15ULL);
	fill_random(y, n, 0xD1B54A32D192ED03ULL);
	xnorm2 = hpcg_dot(n, x, x);
	ynorm2 = hpcg_dot(n, y, y);
	scale = (xnorm2 * anorm * ynorm2 + ynorm2 * anorm * xnorm2) * DBL_EPSILON;

	hpcg_spmv(A, y, z);
	xtay = hpcg_dot(n, x, z);
	hpcg_spmv(A, x, z);
	ytax = hpcg_dot(n, y, z);
	out->depsym_spmv = fabs(xtay - ytax) / scale;

	hpcg_mg(P, 0, y, z);
	xtmy = hpcg_dot(n, x, z);
	hpcg_mg(P, 0, x, z);
	ytmx = hpcg_dot(n, y, z);
	out->depsym_mg = fabs(xtmy - ytmx) / scale;

	hpcg_spmv(A, P->xexact, z);
	for (int i = 0; i < n; i++) {
		double d = fabs(P->b[i] - z[i]);

		if (d > res || d != d)
			res = d;
	}
	out->residual = hpcg_allreduce_max(res);
	/* Written so that a NaN fails too. */
	return out->depsym_spmv <= 1.0 && out->depsym_mg <= 1.0 ? 0 : -EDOM;
}

int hpcg_testcg_judge(struct hpcg_testcg *t)
{
	t->count_pass = t->count_fail = 0;
	for (int k = 0; k < 2; k++) {
		int expected = k ? HPCG_TESTCG_MAX_PREC : HPCG_TESTCG_MAX_NOPREC;

		for (int i = 0; i < HPCG_TESTCG_CALLS; i++) {
			/* A run that stopped at its cap without converging fails too. */
			if (t->niters[k][i] <= expected && t->scaled_residual[k][i] <= 1e-12)
				t->count_pass++;
			else
				t->count_fail++;
		}
	}
	return t->count_fail ? -EDOM : 0;
}

int hpcg_test_cg(struct hpcg_problem *P, const struct hpcg_cg_work *W, struct hpcg_testcg *out)
{
	struct hpcg_matrix *A = &P->level[0];
	const int n = A->nrow;
	double *diag, *b;

	diag = malloc((size_t)n * sizeof(*diag));
	b = malloc((size_t)n * sizeof(*b));
	if (!diag || !b) {
		free(diag);
		free(b);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		int64_t grow = hpcg_global_row(A, i);
		double scale = grow < 9 ? (double)(grow + 2) * 1.0e6 : 1.0e6;
		double *d = &A->values[(size_t)i * HPCG_SLOTS + HPCG_DIAG_SLOT];

		diag[i] = *d;
		b[i] = P->b[i];
		*d *= scale;
		P->b[i] *= scale;
	}

	memset(out, 0, sizeof(*out));
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < HPCG_TESTCG_CALLS; i++) {
			struct hpcg_cg_result res;

			memset(P->x, 0, (size_t)n * sizeof(double));
			hpcg_cg(P, W, P->b, P->x, HPCG_CG_ITERS, 1.0e-12, k == 1, &res, NULL);
			out->niters[k][i] = res.niters;
			out->scaled_residual[k][i] = res.normr / res.normr0;
		}
	}

	for (int i = 0; i < n; i++) {
		A->values[(size_t)i * HPCG_SLOTS + HPCG_DIAG_SLOT] = diag[i];
		P->b[i] = b[i];
	}
	memset(P->x, 0, (size_t)n * sizeof(double));
	free(diag);
	free(b);
	return hpcg_testcg_judge(out);
}

int hpcg_test_norms(const double *values, int n, double *mean, double *variance)
{
	double m = 0.0, v = 0.0;

	if (n <= 0)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		m += values[i];
	m /= n;
	for (int i = 0; i < n; i++)
		v += (values[i] - m) * (values[i] - m);
	v /= n;
	*mean = m;
	*variance = v;
	return v < 1.0e-6 ? 0 : -EDOM;
}

int hpcg_check_reduction(const double *values, int n, double ref_reduction)
{
	if (n <= 0 || !(ref_reduction < 1.0e-3))
		return -EDOM;
	for (int i = 0; i < n; i++)
		if (!(values[i] <= ref_reduction * (1.0 + 1.0e-6)))
			return -EDOM;
	return 0;
}
