/*
 * HPCG's computational kernels on the ELL layout of hpcg.h: sparse
 * matrix-vector product, symmetric Gauss-Seidel, the multigrid V-cycle,
 * dot product and waxpby.
 *
 * SpMV, dot and waxpby are OpenMP-parallel. Gauss-Seidel keeps the
 * reference's sequential semantics (rows in natural order, forward then
 * backward), so it runs on one thread whatever OMP_NUM_THREADS says: that
 * is the reference's limitation too, and what makes MG a symmetric
 * preconditioner with HPCG's convergence.
 *
 * Speed comes from the fixed 27-slot rows: each row is summed as 4-wide
 * vectors (GNU C vector extensions, so any target compiles it: values are
 * loaded as vectors, x is gathered by scalar loads, which beat AVX2 gathers
 * on the machines measured), so the adds do not form one 27-long dependency
 * chain. In Gauss-Seidel only the x-neighbour just updated (slot 12 forward,
 * 14 backward) waits on the previous row, and it is taken from a register
 * when it is the previous row, not reloaded through memory.
 *
 * With MPI, SpMV and Gauss-Seidel first fetch the halo of x from the
 * neighbouring ranks (hpcg_halo_exchange, a no-op without MPI), as HPCG's
 * ComputeSPMV and ComputeSYMGS do; x is const to the caller but its halo
 * part is the kernels' to fill, as in HPCG.
 */
#include "hpcg.h"

/* Below these sizes a parallel region costs more than it saves (coarse levels). */
#define PAR_MIN_ROWS 2048
#define PAR_MIN_ELEMS 16384

/*
 * Unaligned 4-wide view of a row (rows are 216 bytes apart). Macros, not
 * functions: passing vectors by value changes the ABI without AVX, and GCC
 * warns about it.
 */
typedef double v4d __attribute__((vector_size(32), aligned(8)));

#define LOAD4(p) (*(const v4d *)(p))
#define GATHER4(k) ((v4d){ x[c[k]], x[c[(k) + 1]], x[c[(k) + 2]], x[c[(k) + 3]] })
#define HSUM(s) (((s)[0] + (s)[2]) + ((s)[1] + (s)[3]))

/*
 * Six groups of four products of a row: slots 0-11 and the three groups
 * at k0, k1, k2, summed as three lanes (s0 + (s1 + s2)).
 */
static inline v4d row_groups(const double *restrict a, const int32_t *restrict c, const double *x, int k0,
			     int k1, int k2)
{
	v4d s0 = LOAD4(a) * GATHER4(0), s1 = LOAD4(a + 4) * GATHER4(4);
	v4d s2 = LOAD4(a + 8) * GATHER4(8);

	s0 += LOAD4(a + k0) * GATHER4(k0);
	s1 += LOAD4(a + k1) * GATHER4(k1);
	s2 += LOAD4(a + k2) * GATHER4(k2);
	return s0 + (s1 + s2);
}

/* A row times x. */
static inline double row_sum(const double *restrict a, const int32_t *restrict c, const double *x)
{
	v4d s = row_groups(a, c, x, 12, 16, 20);

	return HSUM(s) + (a[24] * x[c[24]] + a[25] * x[c[25]] + a[26] * x[c[26]]);
}

/* A row times x without the x-line through the diagonal (slots 12, 13, 14). */
static inline double row_sum_off(const double *restrict a, const int32_t *restrict c,
				 const double *x)
{
	v4d s = row_groups(a, c, x, 15, 19, 23);

	return HSUM(s);
}

void hpcg_spmv(const struct hpcg_matrix *A, const double *restrict x, double *restrict y)
{
	const double *restrict v = A->values;
	const int32_t *restrict c = A->cols;
	const int n = A->nrow;

	hpcg_halo_exchange(A, (double *)x);
#pragma omp parallel for schedule(static) if (n >= PAR_MIN_ROWS)
	for (int i = 0; i < n; i++)
		y[i] = row_sum(v + (size_t)i * HPCG_SLOTS, c + (size_t)i * HPCG_SLOTS, x);
}

/* Row i of a forward sweep; *prev holds x[i-1] as just computed. */
static inline void gs_forward_row(const double *restrict v, const int32_t *restrict cc,
				  const double *restrict r, double *x, int i, double *prev)
{
	const double *restrict a = v + (size_t)i * HPCG_SLOTS;
	const int32_t *restrict c = cc + (size_t)i * HPCG_SLOTS;
	double t = r[i] - row_sum_off(a, c, x) - a[14] * x[c[14]];

	t -= a[12] * (c[12] == i - 1 ? *prev : x[c[12]]);
	*prev = x[i] = t / a[HPCG_DIAG_SLOT];
}

static inline void gs_backward_row(const double *restrict v, const int32_t *restrict cc,
				   const double *restrict r, double *x, int i, double *next)
{
	const double *restrict a = v + (size_t)i * HPCG_SLOTS;
	const int32_t *restrict c = cc + (size_t)i * HPCG_SLOTS;
	double t = r[i] - row_sum_off(a, c, x) - a[12] * x[c[12]];

	t -= a[14] * (c[14] == i + 1 ? *next : x[c[14]]);
	*next = x[i] = t / a[HPCG_DIAG_SLOT];
}

static void gs_forward(const struct hpcg_matrix *A, const double *restrict r, double *x)
{
	double prev = 0.0;

	for (int i = 0; i < A->nrow; i++)
		gs_forward_row(A->values, A->cols, r, x, i, &prev);
}

void hpcg_symgs(const struct hpcg_matrix *A, const double *restrict r, double *x)
{
	double next = 0.0;

	hpcg_halo_exchange(A, x);
	gs_forward(A, r, x);
	for (int i = A->nrow - 1; i >= 0; i--)
		gs_backward_row(A->values, A->cols, r, x, i, &next);
}

void hpcg_symgs_spmv(const struct hpcg_matrix *A, const double *restrict r, double *x,
		     double *restrict Ax)
{
	const double *restrict v = A->values;
	const int32_t *restrict c = A->cols;
	const int n = A->nrow, lag = A->lag;
	double next = 0.0;
	int i;

	if (hpcg_halo_size(A)) {
		/* The product needs the neighbours' new x: a second exchange, as HPCG's ComputeMG. */
		hpcg_symgs(A, r, x);
		hpcg_spmv(A, x, Ax);
		return;
	}
	gs_forward(A, r, x);
	for (i = n - 1; i >= 0; i--) {
		gs_backward_row(v, c, r, x, i, &next);
		/* Every column of row i + lag is i or above: final. */
		if (i + lag < n)
			Ax[i + lag] = row_sum(v + (size_t)(i + lag) * HPCG_SLOTS,
					      c + (size_t)(i + lag) * HPCG_SLOTS, x);
	}
	for (i = (lag < n ? lag : n) - 1; i >= 0; i--)
		Ax[i] = row_sum(v + (size_t)i * HPCG_SLOTS, c + (size_t)i * HPCG_SLOTS, x);
}

/* HPCG's ComputeMG_ref: one pre- and one post-smoothing sweep, injection both ways. */
void hpcg_mg(const struct hpcg_problem *P, int lev, const double *restrict r, double *restrict x)
{
	const struct hpcg_matrix *A = &P->level[lev];
	const int n = A->nrow;

#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN_ELEMS)
	for (int i = 0; i < n; i++)
		x[i] = 0.0;
	if (lev == P->nlevels - 1) {
		hpcg_symgs(A, r, x);
		return;
	}

	const struct hpcg_matrix *Ac = &P->level[lev + 1];
	const int nc = Ac->nrow;
	const int32_t *restrict f2c = A->f2c;
	double *restrict Axf = A->Axf, *restrict rc = A->rc, *restrict xc = A->xc;

	hpcg_symgs_spmv(A, r, x, Axf);
#pragma omp parallel for schedule(static) if (nc >= PAR_MIN_ELEMS)
	for (int i = 0; i < nc; i++)
		rc[i] = r[f2c[i]] - Axf[f2c[i]];
	hpcg_mg(P, lev + 1, rc, xc);
#pragma omp parallel for schedule(static) if (nc >= PAR_MIN_ELEMS)
	for (int i = 0; i < nc; i++)
		x[f2c[i]] += xc[i];
	hpcg_symgs(A, r, x);
}

/*
 * Blocks whose size depends only on n: the partial sums are added in block
 * order, so the result is the same for any number of threads, and CG runs
 * are reproducible bit for bit.
 */
#define DOT_MAX_BLOCKS 1024
#define DOT_MIN_BLOCK 4096

double hpcg_dot(int n, const double *restrict x, const double *restrict y)
{
	double part[DOT_MAX_BLOCKS];
	int bs = DOT_MIN_BLOCK, nb;
	double sum = 0.0;

	if ((n + bs - 1) / bs > DOT_MAX_BLOCKS)
		bs = (n + DOT_MAX_BLOCKS - 1) / DOT_MAX_BLOCKS;
	nb = (n + bs - 1) / bs;

#pragma omp parallel for schedule(static) if (n >= PAR_MIN_ELEMS)
	for (int b = 0; b < nb; b++) {
		const int lo = b * bs, hi = lo + bs < n ? lo + bs : n;
		double s = 0.0;

#pragma omp simd reduction(+:s)
		for (int i = lo; i < hi; i++)
			s += x[i] * y[i];
		part[b] = s;
	}
	for (int b = 0; b < nb; b++)
		sum += part[b];
	return hpcg_allreduce_sum(sum);
}

void hpcg_waxpby(int n, double alpha, const double *x, double beta, const double *y, double *w)
{
	/* Element i reads only x[i] and y[i]: w may be x or y. */
	if (alpha == 1.0) {
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN_ELEMS)
		for (int i = 0; i < n; i++)
			w[i] = x[i] + beta * y[i];
	} else if (beta == 1.0) {
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN_ELEMS)
		for (int i = 0; i < n; i++)
			w[i] = alpha * x[i] + y[i];
	} else {
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN_ELEMS)
		for (int i = 0; i < n; i++)
			w[i] = alpha * x[i] + beta * y[i];
	}
}
