/*
 * dgemm: the ACES mt-dgemm benchmark, C <- alpha*A*B + beta*C repeated,
 * through CBLAS (OpenBLAS). The computation and its check live in
 * dgemm-kernel.c, the choice of OpenBLAS core type in dgemm-coretype.c,
 * so unit tests link them without main.
 *
 * Matrices are N x N doubles, row-major, each ONE allocation. Their values
 * come from a hash of (matrix, row, column), all in [0.5, 1.5), so any
 * entry of A, B and the initial C can be recomputed without a copy.
 */
#ifndef DGEMM_H
#define DGEMM_H

#include <stddef.h>

struct dgemm_params {
	int n;
	int repeats;
	double alpha, beta;
};

enum dgemm_matrix { DGEMM_A, DGEMM_B, DGEMM_C0 };

/* The initial value of entry (i, j) of a matrix. */
double dgemm_value(enum dgemm_matrix m, int i, int j);

/* Fills A, B and C (N*N each) with their initial values (OpenMP, first touch). */
void dgemm_fill(int n, double *a, double *b, double *c);

/* Runs the repeats: C <- alpha*A*B + beta*C, R times, with cblas_dgemm. */
void dgemm_run(const struct dgemm_params *p, const double *a, const double *b, double *c);

/* mt-dgemm's rate: 2*N^2*R*(N+1) flops over t seconds, in GF/s. */
double dgemm_gflops(const struct dgemm_params *p, double seconds);

/*
 * Rows of C worth recomputing fully (dgemm_check_sampled_rows) for an N: all of them for
 * small N, fewer as N grows (about 2^28 flops in all), at least 4.
 */
int dgemm_check_rows(int n);

/*
 * Checks C after the repeats: C = alpha*G*(A*B) + beta^R*C0 with
 * G = 1 + beta + ... + beta^(R-1). Each test allows a difference that
 * scales with the magnitude of the terms (all entries are positive), and
 * returns 0, -EDOM with the reason in why, or -ENOMEM.
 *
 * dgemm_check_freivalds: every row, by Freivalds' test: C*x against
 * alpha*G*A*(B*x) + beta^R*C0*x for a fixed positive vector x (O(N^2)).
 * dgemm_check_sampled_rows: `rows` rows of C entry by entry against a
 * naive product, spread over the matrix with the first and last included
 * (all rows when rows >= N).
 * dgemm_check: both.
 */
int dgemm_check_freivalds(const struct dgemm_params *p, const double *a, const double *b,
			  const double *c, char *why, size_t len);
int dgemm_check_sampled_rows(const struct dgemm_params *p, const double *a, const double *b,
			     const double *c, int rows, char *why, size_t len);
int dgemm_check(const struct dgemm_params *p, const double *a, const double *b,
		const double *c, int rows, char *why, size_t len);

/* --- OpenBLAS core type (dgemm-coretype.c) --- */

/* What a CPU or an OpenBLAS kernel set can use; the order matters. */
enum dgemm_isa { DGEMM_ISA_UNKNOWN = -1, DGEMM_ISA_SSE, DGEMM_ISA_AVX, DGEMM_ISA_AVX2, DGEMM_ISA_AVX512 };

/* The best of the above this CPU and OS support (never UNKNOWN on x86-64). */
enum dgemm_isa dgemm_cpu_isa(void);
/* "AVX2" and so on. */
const char *dgemm_isa_name(enum dgemm_isa isa);
/* The ISA level of an OpenBLAS core name (openblas_get_corename()), UNKNOWN if not known. */
enum dgemm_isa dgemm_core_isa(const char *corename);

/*
 * The OPENBLAS_CORETYPE to use instead of `corename` on a CPU with `cpu`,
 * or NULL when the choice is fine: only a core without AVX2 and FMA on a
 * CPU that has them (2x-5x slower) is replaced, by Haswell, or by SkylakeX
 * when the CPU has AVX-512 (F, VL, BW, DQ). Unknown names are left alone.
 */
const char *dgemm_core_fix(const char *corename, enum dgemm_isa cpu);

/* Set in the environment of the re-executed program: the core OpenBLAS had chosen. */
#define DGEMM_COREFIX_MARKER "TIERLAB_DGEMM_COREFIX_FROM"
/* For tests only: act as if OpenBLAS had chosen this core. */
#define DGEMM_PRETEND_CORE "TIERLAB_DGEMM_PRETEND_CORE"

/*
 * Before OpenBLAS computes anything: when it chose a core far below what
 * the CPU supports, OPENBLAS_CORETYPE is not set, fix is nonzero and this
 * is not already the re-executed program, prints one line saying so and
 * re-executes the program (argv) with OPENBLAS_CORETYPE set. Otherwise,
 * and when exec fails, returns and prints why when something is off.
 */
void dgemm_coretype_check(char **argv, int fix);

#endif
