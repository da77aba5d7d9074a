/*
 * HPCG's conjugate gradient (CG_ref) with optional MG preconditioning, and
 * the flop count HPCG's ReportResults uses to turn a time into GFLOP/s.
 * The count is HPCG's, not a count of this code's operations: padding slots
 * of the ELL rows are not counted, and neither are the zeroing and copying.
 */
#include "hpcg.h"

#include <math.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Adds the time since *t0 to *acc and restarts *t0. */
static void lap(double *acc, double *t0)
{
	double t = now();

	*acc += t - *t0;
	*t0 = t;
}

void hpcg_cg(const struct hpcg_problem *P, const struct hpcg_cg_work *W, const double *b,
	     double *x, int max_iter, double tol, int precond, struct hpcg_cg_result *res,
	     struct hpcg_times *tm)
{
	const struct hpcg_matrix *A = &P->level[0];
	const int n = A->nrow;
	double *r = W->r, *z = W->z, *p = W->p, *Ap = W->Ap;
	double normr, normr0, rtz = 0.0, oldrtz, alpha, beta, pAp;
	struct hpcg_times dummy = { 0 }, *t = tm ? tm : &dummy;
	double start = now(), t0 = start;
	int k;

	/* p = x; r = b - A*p */
	hpcg_waxpby(n, 1.0, x, 0.0, x, p);
	lap(&t->waxpby, &t0);
	hpcg_spmv(A, p, Ap);
	lap(&t->spmv, &t0);
	hpcg_waxpby(n, 1.0, b, -1.0, Ap, r);
	lap(&t->waxpby, &t0);
	normr = sqrt(hpcg_dot(n, r, r));
	lap(&t->dot, &t0);
	normr0 = normr;

	for (k = 1; k <= max_iter && normr / normr0 > tol; k++) {
		if (precond) {
			hpcg_mg(P, 0, r, z);
			lap(&t->mg, &t0);
		} else {
			hpcg_waxpby(n, 1.0, r, 0.0, r, z);
			lap(&t->waxpby, &t0);
		}
		if (k == 1) {
			hpcg_waxpby(n, 1.0, z, 0.0, z, p);
			lap(&t->waxpby, &t0);
			rtz = hpcg_dot(n, r, z);
			lap(&t->dot, &t0);
		} else {
			oldrtz = rtz;
			rtz = hpcg_dot(n, r, z);
			lap(&t->dot, &t0);
			beta = rtz / oldrtz;
			hpcg_waxpby(n, 1.0, z, beta, p, p);
			lap(&t->waxpby, &t0);
		}
		hpcg_spmv(A, p, Ap);
		lap(&t->spmv, &t0);
		pAp = hpcg_dot(n, p, Ap);
		lap(&t->dot, &t0);
		alpha = rtz / pAp;
		hpcg_waxpby(n, 1.0, x, alpha, p, x);
		hpcg_waxpby(n, 1.0, r, -alpha, Ap, r);
		lap(&t->waxpby, &t0);
		normr = sqrt(hpcg_dot(n, r, r));
		lap(&t->dot, &t0);
	}
	t->total += now() - start;
	res->niters = k - 1;
	res->normr = normr;
	res->normr0 = normr0;
}

double hpcg_flops(const struct hpcg_problem *P, int nsets, int iters)
{
	const double sets = nsets, fniters = (double)nsets * iters;
	const double nrow = (double)P->level[0].gnrow, nnz = (double)P->level[0].gnnz;
	/* The "+ sets" terms are CG's preamble (one residual per set). */
	double ddot = (3.0 * fniters + sets) * 2.0 * nrow;
	double waxpby = (3.0 * fniters + sets) * 2.0 * nrow;
	double spmv = (fniters + sets) * 2.0 * nnz;
	double mg = 0.0;
	int lev;

	for (lev = 0; lev < P->nlevels - 1; lev++) {
		double lnnz = (double)P->level[lev].gnnz;

		mg += fniters * 4.0 * lnnz;	/* pre-smoother */
		mg += fniters * 2.0 * lnnz;	/* residual for the restriction */
		mg += fniters * 4.0 * lnnz;	/* post-smoother */
	}
	mg += fniters * 4.0 * (double)P->level[lev].gnnz;	/* the coarsest level's sweep */
	return ddot + waxpby + spmv + mg;
}
