/*
 * dgemm: the ACES mt-dgemm benchmark as a tierlab workload. Parses the
 * options, makes sure OpenBLAS runs kernels that fit the CPU (see
 * dgemm-coretype.c), fills the three matrices, times the repeats, checks
 * C and prints GF/s (mt-dgemm's formula) as the figure of merit.
 */
#include "dgemm.h"
#include "../common/wl.h"

#include <cblas.h>

#include "../common/wl-options.h"
#include "wl-sizes.h"

static const char *prog = WL_NAME;

#define DEFAULT_REPEATS 30	/* mt-dgemm's */

enum { OPT_N = 1, OPT_REPEATS, OPT_ALPHA, OPT_BETA, OPT_NO_FIX };

static const struct wl_option options[] = {
	{ OPT_N, 0, "n", "N", WL_NOT_WITH_SIZE, 0, "matrix order (three N x N matrices of doubles)" },
	{ OPT_REPEATS, 0, "repeats", "R", 0, 0, "repetitions (default 30 with --n, as mt-dgemm)" },
	{ OPT_ALPHA, 0, "alpha", "A", 0, 0, "default 1.0" },
	{ OPT_BETA, 0, "beta", "B", 0, 0, "default 1.0" },
	{ OPT_NO_FIX, 0, "no-coretype-fix", NULL, WL_FLAG, 0,
	  "when OpenBLAS chose kernels far below what the CPU\nsupports, only say so instead of re-running with"
	  "\nOPENBLAS_CORETYPE set (a user-set one is always kept)" },
	{ 0, 0, NULL, NULL, 0, 0, NULL },
};

struct parsed {
	struct dgemm_params p;
	int fix;
};

static void set(int key, const char *v, void *ctx)
{
	struct parsed *o = ctx;

	switch (key) {
	case OPT_N:
		/* Far beyond any memory (3 x 80 GB), and far from overflowing int index arithmetic. */
		o->p.n = (int)wl_parse_long(prog, "--n", v, 1, 100000);
		break;
	case OPT_REPEATS:
		o->p.repeats = (int)wl_parse_long(prog, "--repeats", v, 1, 1000000);
		break;
	case OPT_ALPHA:
		o->p.alpha = wl_parse_double(prog, "--alpha", v);
		break;
	case OPT_BETA:
		o->p.beta = wl_parse_double(prog, "--beta", v);
		break;
	case OPT_NO_FIX:
		o->fix = 0;
		break;
	}
}

/* "6.0 MiB for three matrices" */
static void size_note(const struct wl_size *s, char *buf, size_t len)
{
	const char *n = wl_size_arg(s, "--n");
	double order = n ? atof(n) : 0;

	snprintf(buf, len, "%.1f MiB for three matrices", 3.0 * order * order * sizeof(double) / 1048576.0);
}

static void parse_options(int argc, char **argv, struct dgemm_params *p, int *fix)
{
	struct parsed o = { .p = { .alpha = 1.0, .beta = 1.0 }, .fix = 1 };
	const struct wl_cmd cmd = {
		WL_DESCRIPTOR, .default_size = WL_DEFAULT_SIZE, .size_note = size_note,
		.footer = "Threads: OPENBLAS_NUM_THREADS or OMP_NUM_THREADS.",
		.options = options, .set = set, .ctx = &o,
	};

	wl_parse(&cmd, argc, argv);
	if (!o.p.repeats)
		o.p.repeats = DEFAULT_REPEATS;
	*p = o.p;
	*fix = o.fix;
}

int main(int argc, char **argv)
{
	static char why[512];
	struct dgemm_params p;
	double *a, *b, *c, t, mib;
	int fix, rc;

	parse_options(argc, argv, &p, &fix);
	/* Before any BLAS call: this may replace the process. */
	dgemm_coretype_check(argv, fix);

	mib = (double)p.n * p.n * sizeof(double) / 1048576.0;
	printf("dgemm: N=%d repeats=%d alpha=%g beta=%g\n", p.n, p.repeats, p.alpha, p.beta);
	printf("memory: 3 matrices x %.1f MiB = %.1f MiB\n", mib, 3 * mib);
	printf("openblas: %s\n", openblas_get_config());
	printf("openblas core: %s\n", openblas_get_corename());
	printf("threads: %d\n", openblas_get_num_threads());

	a = wl_alloc(prog, "matrix A", (size_t)p.n * p.n * sizeof(double));
	b = wl_alloc(prog, "matrix B", (size_t)p.n * p.n * sizeof(double));
	c = wl_alloc(prog, "matrix C", (size_t)p.n * p.n * sizeof(double));
	dgemm_fill(p.n, a, b, c);

	t = wl_now();
	dgemm_run(&p, a, b, c);
	t = wl_now() - t;
	printf("time: %.3f s\n", t);

	rc = dgemm_check(&p, a, b, c, dgemm_check_rows(p.n), why, sizeof(why));
	if (rc == -ENOMEM) {
		fprintf(stderr, "%s: out of memory for the check\n", prog);
		return 1;
	}
	free(a);
	free(b);
	free(c);
	wl_report(rc ? why : NULL, dgemm_gflops(&p, t), "GF/s");
	return 0;
}
