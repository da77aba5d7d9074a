/*
 * hpcg: the HPCG 3.1 benchmark as a tierlab workload. Runs HPCG's phases in
 * its order: problem setup, the reference CG (50 iterations, giving the
 * residual reduction every timed set must reach), the CG and symmetry
 * validation tests, a setup run that finds the iterations needed and the
 * time of one set, the timed sets, the norms test; then prints the GFLOP/s
 * rating counted as HPCG counts it.
 *
 * For tests of the failure path, TIERLAB_HPCG_CORRUPT=ROW makes one
 * off-diagonal entry of that fine-grid row wrong after setup: the matrix is
 * no longer symmetric and validation must fail.
 *
 * Built with -DHPCG_MPI this is hpcg-mpi (see hpcg-mpi.c): the options give
 * each rank's box, times are the slowest rank's, only rank 0 prints, and
 * the ranks agree on one verdict. TIERLAB_HPCG_CORRUPT_RANK=R limits the
 * corruption to rank R.
 */
#include "hpcg.h"
#include "../common/wl.h"
#include "../common/wl-options.h"
#include "wl-sizes.h"

#include <math.h>
#include <omp.h>

#define PROG WL_NAME
#define MAX_DIM 1024
#define MAX_SETS 1000000

struct options {
	int nx, ny, nz;
	int sets;
	double time;
};

enum { OPT_NX = 1, OPT_NY, OPT_NZ, OPT_SETS, OPT_TIME };

static const struct wl_option options[] = {
	{ OPT_NX, 0, "nx", "N", 0, 0, "grid points in x, a multiple of 8 up to 1024 (ny, nz default to nx)" },
	{ OPT_NY, 0, "ny", "N", 0, 0, "grid points in y, a multiple of 8" },
	{ OPT_NZ, 0, "nz", "N", 0, 0, "grid points in z, a multiple of 8" },
	{ OPT_SETS, 0, "sets", "K", 0, OPT_TIME, "timed CG sets of 50 iterations" },
	{ OPT_TIME, 0, "time", "SECONDS", 0, OPT_SETS, "as many sets as fit in about SECONDS (HPCG's rule)" },
	{ 0, 0, NULL, NULL, 0, 0, NULL },
};

static int dim_arg(const char *opt, const char *s)
{
	long v = wl_parse_long(PROG, opt, s, 8, MAX_DIM);

	if (v % 8)
		wl_usage_error(PROG, "%s: %ld is not a multiple of 8 (the grid halves 3 times)", opt, v);
	return (int)v;
}

static void set(int key, const char *v, void *ctx)
{
	struct options *o = ctx;

	switch (key) {
	case OPT_NX:
		o->nx = dim_arg("--nx", v);
		break;
	case OPT_NY:
		o->ny = dim_arg("--ny", v);
		break;
	case OPT_NZ:
		o->nz = dim_arg("--nz", v);
		break;
	case OPT_SETS:
		o->sets = (int)wl_parse_long(PROG, "--sets", v, 1, MAX_SETS);
		break;
	case OPT_TIME:
		o->time = wl_parse_double(PROG, "--time", v);
		if (!(o->time > 0.0 && o->time <= 1.0e6))
			wl_usage_error(PROG, "--time: '%s' is not a duration from 0 to 1e6 seconds", v);
		break;
	}
}

static void parse(int argc, char **argv, struct options *o)
{
	const struct wl_cmd cmd = {
		WL_DESCRIPTOR, .default_size = WL_DEFAULT_SIZE,
#ifdef HPCG_MPI
		.footer = "Threads: OMP_NUM_THREADS (SpMV, dot and waxpby are parallel; Gauss-Seidel\n"
			  "is sequential, as in the reference).\n\n"
			  "Ranks: mpirun -np N " PROG " ...; --nx, --ny, --nz give each rank's box and the\n"
			  "global grid is the process grid (npx x npy x npz = N, as HPCG) times it.\n"
			  "Without a launcher it runs as one rank.",
#else
		.footer = "Threads: OMP_NUM_THREADS (SpMV, dot and waxpby are parallel; Gauss-Seidel\n"
			  "is sequential, as in the reference).",
#endif
		.options = options, .set = set, .ctx = o,
	};

	*o = (struct options){ 0 };
	wl_parse(&cmd, argc, argv);
	if (o->sets && o->time > 0.0)
		wl_usage_error(PROG, "give --sets or --time, not both");
	o->ny = o->ny ? o->ny : o->nx;
	o->nz = o->nz ? o->nz : o->nx;
	if ((long long)o->nx * o->ny * o->nz * HPCG_SLOTS > INT32_MAX)
		wl_usage_error(PROG, "grid %d x %d x %d is too large for 32-bit local indices", o->nx,
			       o->ny, o->nz);
}

static double mib(size_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

/* Fine-level arrays one per line in allocation order; each coarse level in one line. */
static void print_arrays(const struct hpcg_problem *P)
{
	size_t total = 0, level[HPCG_MAX_LEVELS] = { 0 };

	printf("arrays (allocation order):\n");
	for (int i = 0; i < P->narrays; i++) {
		const struct hpcg_array *a = &P->arrays[i];
		int lev = a->name[0] == 'A' ? a->name[1] - '0' : 0;

		total += a->bytes;
		if (lev > 0)
			level[lev] += a->bytes;
		else
			printf("  %-10s %10.2f MiB\n", a->name, mib(a->bytes));
	}
	for (int lev = 1; lev < P->nlevels; lev++) {
		const struct hpcg_geom *g = &P->level[lev].g;

		printf("  A%d.*       %10.2f MiB (level %d, %d x %d x %d)\n", lev, mib(level[lev]), lev,
		       g->nx, g->ny, g->nz);
	}
	printf("  total      %10.2f MiB\n", mib(total));
}

static void corrupt(struct hpcg_problem *P)
{
	const char *s = getenv("TIERLAB_HPCG_CORRUPT");
	long row;

	if (!s || !*s)
		return;
#ifdef HPCG_MPI
	s = getenv("TIERLAB_HPCG_CORRUPT_RANK");
	if (s && *s && wl_parse_long(PROG, "TIERLAB_HPCG_CORRUPT_RANK", s, 0, hpcg_mpi_size() - 1) !=
	    hpcg_mpi_rank())
		return;
	s = getenv("TIERLAB_HPCG_CORRUPT");
#endif
	row = wl_parse_long(PROG, "TIERLAB_HPCG_CORRUPT", s, 0, P->level[0].nrow - 1);
	/* The first real off-diagonal entry (padding slots point at the diagonal). */
	for (int k = 0; k < HPCG_SLOTS; k++) {
		double *v = &P->level[0].values[(size_t)row * HPCG_SLOTS + k];

		if (k != HPCG_DIAG_SLOT && *v != 0.0) {
			*v -= 0.5;
			return;
		}
	}
}

int main(int argc, char **argv)
{
	static char why[256];
#ifdef HPCG_MPI
	static char agreed[320];
	int np[3], ip[3];
#endif
	struct options o;
	struct hpcg_problem P;
	struct hpcg_cg_work W;
	struct hpcg_cg_result res;
	struct hpcg_symmetry sym;
	struct hpcg_testcg tcg;
	struct hpcg_times tm = { 0 };
	const char *failure = NULL;
	double t0, setup, ref_reduction, worst, mean, variance, fnops, frefnops, gflops, rating;
	double *values;
	int opt_iters, nsets, ret;

	parse(argc, argv, &o);
#ifdef HPCG_MPI
	hpcg_mpi_init(&argc, &argv);
#endif

	t0 = wl_now();
	ret = hpcg_problem_init(&P, o.nx, o.ny, o.nz, HPCG_MAX_LEVELS);
	if (!ret)
		ret = hpcg_cg_work_init(&P, &W);
	if (ret) {
		fprintf(stderr, "%s: cannot set up the %d x %d x %d problem: %s\n", PROG, o.nx, o.ny,
			o.nz, strerror(-ret));
#ifdef HPCG_MPI
		hpcg_mpi_abort(1);
#endif
		return 1;
	}
	setup = hpcg_allreduce_max(wl_now() - t0);
	corrupt(&P);

#ifdef HPCG_MPI
	hpcg_mpi_grid(np, ip);
	printf("hpcg: grid %lld x %lld x %lld (%d rank(s): %d x %d x %d, each %d x %d x %d), %d levels, "
	       "%d thread(s)\n", (long long)P.level[0].g.gnx, (long long)P.level[0].g.gny,
	       (long long)P.level[0].g.gnz, hpcg_mpi_size(), np[0], np[1], np[2], o.nx, o.ny, o.nz,
	       P.nlevels, omp_get_max_threads());
#else
	printf("hpcg: grid %d x %d x %d (1 rank), %d levels, %d thread(s)\n", o.nx, o.ny, o.nz,
	       P.nlevels, omp_get_max_threads());
#endif
	printf("rows %lld, nonzeros %lld (ELL: %d slots per row), setup %.3f s\n",
	       (long long)P.level[0].gnrow, (long long)P.level[0].gnnz, HPCG_SLOTS, setup);
	print_arrays(&P);

	/* Reference run: 50 iterations, no tolerance; its reduction is the bar. */
	hpcg_cg(&P, &W, P.b, P.x, HPCG_CG_ITERS, 0.0, 1, &res, NULL);
	ref_reduction = res.normr / res.normr0;
	printf("reference CG: %d iterations, scaled residual %.6e\n", res.niters, ref_reduction);
#ifdef HPCG_MPI
	/*
	 * Unpreconditioned CG depends on the global grid only (the MG smoother
	 * does not: each rank sweeps its box against the halo as it was), so
	 * this line agrees across rank counts to rounding: a check of the halo.
	 */
	memset(P.x, 0, (size_t)P.level[0].nrow * sizeof(double));
	hpcg_cg(&P, &W, P.b, P.x, HPCG_CG_ITERS, 0.0, 0, &res, NULL);
	printf("unpreconditioned CG: %d iterations, scaled residual %.15e, |x| %.15e\n", res.niters,
	       res.normr / res.normr0, sqrt(hpcg_dot(P.level[0].nrow, P.x, P.x)));
#endif

	ret = hpcg_test_cg(&P, &W, &tcg);
	if (ret == -ENOMEM) {
		fprintf(stderr, "%s: out of memory in the CG test\n", PROG);
#ifdef HPCG_MPI
		hpcg_mpi_abort(1);
#endif
		return 1;
	}
	printf("CG test: unpreconditioned %d, %d iterations (expected <= %d); preconditioned %d, %d "
	       "(expected <= %d): %d passed, %d failed\n",
	       tcg.niters[0][0], tcg.niters[0][1], HPCG_TESTCG_MAX_NOPREC, tcg.niters[1][0],
	       tcg.niters[1][1], HPCG_TESTCG_MAX_PREC, tcg.count_pass, tcg.count_fail);
	if (ret && !failure) {
		snprintf(why, sizeof(why), "CG test: %d of %d runs took more iterations than expected",
			 tcg.count_fail, tcg.count_pass + tcg.count_fail);
		failure = why;
	}

	ret = hpcg_test_symmetry(&P, &W, &sym);
	printf("symmetry: spmv %.3e, mg %.3e (pass when <= 1); max |b - A*xexact| %.3e\n",
	       sym.depsym_spmv, sym.depsym_mg, sym.residual);
	if (ret && !failure) {
		snprintf(why, sizeof(why), "symmetry test: spmv %.3g, mg %.3g (must be <= 1)",
			 sym.depsym_spmv, sym.depsym_mg);
		failure = why;
	}
	if (!(sym.residual <= 1e-9) && !failure) {
		snprintf(why, sizeof(why), "A*xexact differs from b by %.3g", sym.residual);
		failure = why;
	}

	/* Setup run, as HPCG's optimized-CG phase: iterations to reach the bar, time of a set. */
	memset(P.x, 0, (size_t)P.level[0].nrow * sizeof(double));
	t0 = wl_now();
	hpcg_cg(&P, &W, P.b, P.x, 10 * HPCG_CG_ITERS, ref_reduction, 1, &res, NULL);
	/* The slowest rank's: every rank must time the same number of sets. */
	worst = hpcg_allreduce_max(wl_now() - t0);
	opt_iters = res.niters;
	if (!(res.normr / res.normr0 <= ref_reduction) && !failure) {
		snprintf(why, sizeof(why), "setup CG did not reach the reference reduction %.3g in %d "
			 "iterations", ref_reduction, res.niters);
		failure = why;
	}
	nsets = o.sets ? o.sets : (int)(o.time / worst) + 1;
	if (nsets > MAX_SETS)
		nsets = MAX_SETS;
	printf("setup CG: %d iterations to the reference reduction, %.3f s per set; timing %d set(s)\n",
	       opt_iters, worst, nsets);

	values = wl_alloc(PROG, "the scaled residuals", (size_t)nsets * sizeof(double));
	for (int i = 0; i < nsets; i++) {
		memset(P.x, 0, (size_t)P.level[0].nrow * sizeof(double));
		hpcg_cg(&P, &W, P.b, P.x, opt_iters, 0.0, 1, &res, &tm);
		values[i] = res.normr / res.normr0;
	}
	tm.total = hpcg_allreduce_max(tm.total);

	ret = hpcg_test_norms(values, nsets, &mean, &variance);
	printf("timed sets: %d x %d iterations in %.3f s; scaled residual mean %.6e, variance %.3e\n",
	       nsets, opt_iters, tm.total, mean, variance);
	if (ret && !failure) {
		snprintf(why, sizeof(why), "scaled residual variance %.3g over the sets (must be < 1e-6)",
			 variance);
		failure = why;
	}
	if (hpcg_check_reduction(values, nsets, ref_reduction) && !failure) {
		snprintf(why, sizeof(why), "a timed set did not reduce the residual to %.3g",
			 ref_reduction);
		failure = why;
	}
	free(values);

	fnops = hpcg_flops(&P, nsets, opt_iters);
	frefnops = fnops * HPCG_CG_ITERS / opt_iters;
	gflops = frefnops / tm.total * 1e-9;
	/* HPCG's final rating also charges a tenth of the setup time to each set. */
	rating = frefnops / (tm.total + nsets * setup / 10.0) * 1e-9;
	printf("time: dot %.3f s, waxpby %.3f s, spmv %.3f s, mg %.3f s\n", tm.dot, tm.waxpby,
	       tm.spmv, tm.mg);
	printf("GFLOP/s: %.4f (with convergence overhead), %.4f with setup overhead (HPCG's final "
	       "rating)\n", gflops, rating);
	hpcg_problem_release(&P);
#ifdef HPCG_MPI
	failure = hpcg_mpi_agree(failure, agreed, sizeof(agreed));
	/* printed before any rank exits: mpirun aborts the job at the first non-zero exit */
	ret = wl_print_verdict(failure, gflops, "GF/s");
	hpcg_mpi_finalize();
	return ret;
#else
	wl_report(failure, gflops, "GF/s");
	return 0;
#endif
}
