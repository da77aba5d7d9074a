/*
 * dgemm: the ACES mt-dgemm benchmark as a tierlab workload. Parses the
 * options, makes sure OpenBLAS runs kernels that fit the CPU (see
 * dgemm-coretype.c), fills the three matrices, times the repeats, checks
 * C and prints GF/s (mt-dgemm's formula) as the figure of merit.
 */
#include "dgemm.h"
#include "../common/wl.h"

#include <cblas.h>
#include <getopt.h>

static const char *prog = "dgemm";

/* The descriptor (workload.yaml) lists the same presets with the same values. */
static const struct preset {
	const char *name;
	int n, repeats;
} presets[] = {
	{ "tiny", 512, 4 },
	{ "small", 2048, 10 },
	{ "paper", 8192, 30 },
};
#define NPRESETS (int)(sizeof(presets) / sizeof(presets[0]))
#define DEFAULT_REPEATS 30	/* mt-dgemm's */

static void usage(void)
{
	printf("usage: dgemm [--size PRESET | --n N] [--repeats R] [--alpha A] [--beta B]\n"
	       "             [--no-coretype-fix]\n"
	       "\n"
	       "ACES mt-dgemm: C <- alpha*A*B + beta*C, repeated R times with cblas_dgemm\n"
	       "(OpenBLAS); figure of merit in GF/s = 2*N^2*R*(N+1)/t.\n"
	       "\n"
	       "  --size PRESET      N and R from a preset (default: small)\n"
	       "  --n N              matrix order (three N x N matrices of doubles)\n"
	       "  --repeats R        repetitions (default %d with --n, as mt-dgemm)\n"
	       "  --alpha A          default 1.0\n"
	       "  --beta B           default 1.0\n"
	       "  --no-coretype-fix  when OpenBLAS chose kernels far below what the CPU\n"
	       "                     supports, only say so instead of re-running with\n"
	       "                     OPENBLAS_CORETYPE set (a user-set one is always kept)\n"
	       "  -h, --help         this text\n"
	       "\n"
	       "Size presets:\n", DEFAULT_REPEATS);
	for (int i = 0; i < NPRESETS; i++)
		printf("  %-6s --n %d --repeats %d   (%.1f MiB for three matrices)\n", presets[i].name,
		       presets[i].n, presets[i].repeats,
		       3.0 * presets[i].n * presets[i].n * sizeof(double) / 1048576.0);
	printf("\nThreads: OPENBLAS_NUM_THREADS or OMP_NUM_THREADS.\n");
}

static void parse_options(int argc, char **argv, struct dgemm_params *p, int *fix)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "n", required_argument, NULL, 'n' },
		{ "repeats", required_argument, NULL, 'r' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "beta", required_argument, NULL, 'b' },
		{ "no-coretype-fix", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct preset *preset = NULL;
	int opt;

	opterr = 0;
	*p = (struct dgemm_params){ .alpha = 1.0, .beta = 1.0 };
	*fix = 1;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			preset = NULL;
			for (int i = 0; i < NPRESETS; i++)
				if (!strcmp(optarg, presets[i].name))
					preset = &presets[i];
			if (!preset)
				wl_usage_error(prog, "--size: unknown preset '%s' (tiny, small, paper)", optarg);
			break;
		case 'n':
			/* Far beyond any memory (3 x 80 GB), and far from overflowing int index arithmetic. */
			p->n = (int)wl_parse_long(prog, "--n", optarg, 1, 100000);
			break;
		case 'r':
			p->repeats = (int)wl_parse_long(prog, "--repeats", optarg, 1, 1000000);
			break;
		case 'a':
			p->alpha = wl_parse_double(prog, "--alpha", optarg);
			break;
		case 'b':
			p->beta = wl_parse_double(prog, "--beta", optarg);
			break;
		case 'F':
			*fix = 0;
			break;
		case 'h':
			usage();
			exit(0);
		case ':':
			wl_usage_error(prog, "option '%s' needs a value", argv[optind - 1]);
		default:
			wl_usage_error(prog, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		wl_usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (preset && p->n)
		wl_usage_error(prog, "--size and --n exclude each other");
	if (!p->n) {
		preset = preset ? preset : &presets[1];
		p->n = preset->n;
	}
	if (!p->repeats)
		p->repeats = preset ? preset->repeats : DEFAULT_REPEATS;
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
