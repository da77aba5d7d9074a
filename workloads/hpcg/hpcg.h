/*
 * HPCG 3.1 in C: the 27-point stencil problem and its multigrid hierarchy,
 * the kernels (SpMV, symmetric Gauss-Seidel, MG V-cycle, dot, waxpby), the
 * preconditioned CG solver, HPCG's flop count and HPCG's validation tests.
 *
 * Data layout (rank-local, so MPI ranks can be added without changing it):
 * each level holds the rows of this rank's nx*ny*nz box of a gnx*gny*gnz
 * global grid. The matrix is ELL with HPCG_SLOTS (27) slots per row, row
 * after row: slot (sz+1)*9 + (sy+1)*3 + (sx+1) holds the neighbour at offset
 * (sx, sy, sz), so the diagonal is always slot HPCG_DIAG_SLOT. A neighbour
 * outside the global grid is padding: value 0, column = the row itself (it
 * adds 0 * x[i], which keeps every loop at a fixed trip count).
 *
 * With MPI (built with -DHPCG_MPI, see hpcg-mpi.c) each rank holds one box
 * of a 3-D process grid and the columns a row needs from other ranks are
 * halo columns, numbered after the local ones as HPCG's SetupHalo numbers
 * them: nrow .. ncol-1. Vectors that SpMV or Gauss-Seidel read (x, p, z,
 * xexact, the coarse corrections) hold ncol entries; the kernels fill the
 * halo with hpcg_halo_exchange() first. Without MPI, ncol == nrow and the
 * hooks below are empty inline functions.
 *
 * Every big array (matrix values, local and global column indices, vectors)
 * is ONE allocation, recorded in problem->arrays in allocation order so the
 * program can print the footprint of each and a tiering runtime's
 * allocation-ordered settings can be matched to them.
 *
 * Functions returning int give 0 or a negative errno.
 */
#ifndef HPCG_H
#define HPCG_H

#include <stddef.h>
#include <stdint.h>

#define HPCG_SLOTS 27
#define HPCG_DIAG_SLOT 13
#define HPCG_MAX_LEVELS 4	/* the fine grid and 3 coarse grids, as HPCG */
#define HPCG_CG_ITERS 50	/* iterations per CG set (HPCG's refMaxIters) */
#define HPCG_MAX_ARRAYS 48

struct hpcg_geom {
	int nx, ny, nz;			/* this rank's box */
	int64_t gnx, gny, gnz;		/* the global grid */
	int64_t ox, oy, oz;		/* global coordinates of the box's first point */
};

#ifdef HPCG_MPI
/* Who sends what to whom (HPCG's SetupHalo); built by hpcg_halo_setup. */
struct hpcg_halo {
	int nneighbors;
	int *neighbors;			/* ranks, ascending */
	int *nrecv, *nsend;		/* per neighbour */
	int nsend_total;
	int32_t *send_rows;		/* local rows to send, grouped by neighbour */
	double *send_buf;
};
#endif

struct hpcg_matrix {
	struct hpcg_geom g;
	int nrow;			/* local rows */
	int ncol;			/* nrow + halo columns (MPI); nrow without MPI */
	int64_t nnz;			/* local nonzeros (without padding) */
	int64_t gnrow, gnnz;		/* over all ranks */
	int lag;			/* max over rows i of i - (smallest column of row i) */
	double *values;			/* nrow * HPCG_SLOTS */
	int32_t *cols;			/* nrow * HPCG_SLOTS local column indices */
	int64_t *gcols;			/* nrow * HPCG_SLOTS global column indices */
	/* Toward the next coarser level; NULL at the coarsest. */
	int32_t *f2c;			/* coarse nrow: fine row injected into each coarse row */
	double *Axf;			/* nrow: A*x for the restriction */
	double *rc, *xc;		/* coarse nrow (xc: coarse ncol): coarse residual and correction */
#ifdef HPCG_MPI
	struct hpcg_halo halo;
#endif
};

struct hpcg_array {
	char name[24];
	void *p;
	size_t bytes;
};

struct hpcg_problem {
	int nlevels;
	struct hpcg_matrix level[HPCG_MAX_LEVELS];
	double *b, *x, *xexact;		/* fine level: right-hand side, start, exact solution */
	int narrays;
	struct hpcg_array arrays[HPCG_MAX_ARRAYS];
};

/* CG's work vectors (fine level). */
struct hpcg_cg_work {
	double *r, *z, *p, *Ap;
};

/* Time spent per kernel inside CG, seconds (accumulated). */
struct hpcg_times {
	double total, dot, waxpby, spmv, mg;
};

struct hpcg_cg_result {
	int niters;
	double normr, normr0;
};

/*
 * Builds the problem on a global grid of nx*ny*nz points held by one rank
 * (with MPI: nx*ny*nz is each rank's box, the global grid is the process
 * grid times it, as HPCG's weak scaling; collective over the ranks),
 * with nlevels levels (1..HPCG_MAX_LEVELS): each dimension must be a
 * positive multiple of 2^(nlevels-1). b = A*ones, x = 0, xexact = ones.
 * -EINVAL on a bad size, -ENOMEM (with everything freed) when out of memory.
 */
int hpcg_problem_init(struct hpcg_problem *P, int nx, int ny, int nz, int nlevels);
int hpcg_cg_work_init(struct hpcg_problem *P, struct hpcg_cg_work *W);
/* Frees every array of P (including CG work vectors allocated through it). */
void hpcg_problem_release(struct hpcg_problem *P);

/* Global row number of local row i of level A. */
int64_t hpcg_global_row(const struct hpcg_matrix *A, int i);

/* The kernels. y, x of spmv must not overlap; waxpby allows w == x or w == y. */
void hpcg_spmv(const struct hpcg_matrix *A, const double *x, double *y);
void hpcg_symgs(const struct hpcg_matrix *A, const double *r, double *x);
/*
 * hpcg_symgs, then Ax = A*x: the product of each row is taken during the
 * backward sweep as soon as its columns are final (A->lag rows behind), while
 * the row is still in cache. Same results, bit for bit, as the two calls.
 */
void hpcg_symgs_spmv(const struct hpcg_matrix *A, const double *r, double *x, double *Ax);
void hpcg_mg(const struct hpcg_problem *P, int lev, const double *r, double *x);
/* Sum in fixed blocks, so the result does not depend on the thread count. */
double hpcg_dot(int n, const double *x, const double *y);
void hpcg_waxpby(int n, double alpha, const double *x, double beta, const double *y, double *w);

/*
 * CG on the fine level from the x given, for at most max_iter iterations or
 * until |r|/|r0| <= tol; preconditioned by one MG V-cycle when precond.
 * Adds kernel times to *t (may be NULL).
 */
void hpcg_cg(const struct hpcg_problem *P, const struct hpcg_cg_work *W, const double *b,
	     double *x, int max_iter, double tol, int precond, struct hpcg_cg_result *res,
	     struct hpcg_times *t);

/*
 * Floating-point operations of nsets CG sets of iters iterations, counted
 * as HPCG's ReportResults counts them (ddot, waxpby, spmv, MG).
 */
double hpcg_flops(const struct hpcg_problem *P, int nsets, int iters);

/* ---- Validation, as HPCG's TestSymmetry, TestCG and TestNorms ---- */

struct hpcg_symmetry {
	double depsym_spmv, depsym_mg;	/* pass when <= 1 */
	double residual;		/* max |b - A*xexact| */
};

/* Uses W's vectors as scratch. 0 when both symmetry measures are <= 1. */
int hpcg_test_symmetry(const struct hpcg_problem *P, const struct hpcg_cg_work *W,
		       struct hpcg_symmetry *out);

#define HPCG_TESTCG_CALLS 2
#define HPCG_TESTCG_MAX_NOPREC 12	/* HPCG's expected_niters_no_prec */
#define HPCG_TESTCG_MAX_PREC 2		/* HPCG's expected_niters_prec */

struct hpcg_testcg {
	int niters[2][HPCG_TESTCG_CALLS];	/* [0] unpreconditioned, [1] preconditioned */
	double scaled_residual[2][HPCG_TESTCG_CALLS];
	int count_pass, count_fail;
};

/*
 * HPCG's CG test: scales the fine diagonal (and b) by 1e6 (rows with global
 * number g < 9 by (g+2)*1e6), runs CG twice unpreconditioned and twice
 * preconditioned to 1e-12, counts the runs within the expected iterations,
 * then restores A and b and zeroes x. 0 when all runs pass, -EDOM when some
 * fail, -ENOMEM.
 */
int hpcg_test_cg(struct hpcg_problem *P, const struct hpcg_cg_work *W, struct hpcg_testcg *out);
/* The verdict on given iteration counts (split out so tests can probe it). */
int hpcg_testcg_judge(struct hpcg_testcg *t);

/* HPCG's TestNorms: mean and variance of the timed sets' scaled residuals; 0 when variance < 1e-6. */
int hpcg_test_norms(const double *values, int n, double *mean, double *variance);
/*
 * Every timed set reduced the residual at least as far as the reference
 * 50-iteration run (ref_reduction), within a relative slack of 1e-6, and
 * ref_reduction itself is a real reduction (< 1e-3). 0, or -EDOM.
 */
int hpcg_check_reduction(const double *values, int n, double ref_reduction);

/* ---- Ranks (hpcg-mpi.c); without MPI, one rank and nothing to do ---- */

#ifdef HPCG_MPI
/*
 * MPI_Init (as a singleton when started without a launcher); ranks other
 * than 0 send their stdout to /dev/null, so only rank 0 prints results.
 */
void hpcg_mpi_init(int *argc, char ***argv);
void hpcg_mpi_finalize(void);
/* Terminates every rank (a rank that cannot go on must not leave the others waiting). */
void hpcg_mpi_abort(int code) __attribute__((noreturn));
int hpcg_mpi_rank(void);
int hpcg_mpi_size(void);
/* HPCG's process grid for this run and this rank's place in it. */
void hpcg_mpi_grid(int np[3], int ip[3]);
/* Sum / maximum over the ranks (every rank gets the result). */
double hpcg_allreduce_sum(double v);
double hpcg_allreduce_max(double v);
int64_t hpcg_allreduce_sum_i64(int64_t v);
/*
 * One verdict for all ranks: NULL when every rank passed, else the reason
 * of the lowest failing rank (prefixed with its number when it is not 0),
 * in buf. Collective.
 */
const char *hpcg_mpi_agree(const char *failure, char *buf, size_t len);
/*
 * Numbers A's halo columns (those generated as -1 in cols) after the local
 * ones and builds the send lists, as HPCG's SetupHalo; sets A->ncol.
 * -ENOMEM. hpcg_halo_release frees what it allocated.
 */
int hpcg_halo_setup(struct hpcg_matrix *A);
void hpcg_halo_release(struct hpcg_matrix *A);
/* Fills x[nrow..ncol) with the neighbours' values (HPCG's ExchangeHalo). */
void hpcg_halo_exchange(const struct hpcg_matrix *A, double *x);
static inline int hpcg_halo_size(const struct hpcg_matrix *A)
{
	return A->ncol - A->nrow;
}
#else
static inline int hpcg_mpi_rank(void) { return 0; }
static inline int hpcg_mpi_size(void) { return 1; }
static inline double hpcg_allreduce_sum(double v) { return v; }
static inline double hpcg_allreduce_max(double v) { return v; }
static inline int64_t hpcg_allreduce_sum_i64(int64_t v) { return v; }
static inline void hpcg_halo_exchange(const struct hpcg_matrix *A, double *x) { (void)A, (void)x; }
static inline int hpcg_halo_size(const struct hpcg_matrix *A) { (void)A; return 0; }
#endif

#endif
