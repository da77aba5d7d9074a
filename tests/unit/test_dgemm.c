/*
 * dgemm: the repeats against a naive product, the check against results
 * made wrong on purpose, and the choice of OpenBLAS core type.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dgemm.h"

static char why[512];

struct mats {
	double *a, *b, *c;
};

static struct mats filled(int n)
{
	struct mats m = {
		malloc((size_t)n * n * sizeof(double)),
		malloc((size_t)n * n * sizeof(double)),
		malloc((size_t)n * n * sizeof(double)),
	};

	assert_non_null(m.a);
	assert_non_null(m.b);
	assert_non_null(m.c);
	dgemm_fill(n, m.a, m.b, m.c);
	return m;
}

static void release(struct mats *m)
{
	free(m->a);
	free(m->b);
	free(m->c);
}

static void test_values(void **state)
{
	(void)state;
	for (int i = 0; i < 50; i++) {
		for (int j = 0; j < 50; j++) {
			double v = dgemm_value(DGEMM_A, i, j);

			assert_true(v >= 0.5 && v < 1.5);
			assert_true(v == dgemm_value(DGEMM_A, i, j));
		}
	}
	/* The three matrices and transposed positions differ: a mixed-up operand shows. */
	assert_true(dgemm_value(DGEMM_A, 3, 4) != dgemm_value(DGEMM_B, 3, 4));
	assert_true(dgemm_value(DGEMM_A, 3, 4) != dgemm_value(DGEMM_A, 4, 3));
	assert_true(dgemm_value(DGEMM_C0, 0, 0) != dgemm_value(DGEMM_B, 0, 0));
}

/* The repeats against a triple loop, with alpha and beta that are not 1. */
static void test_run_matches_naive(void **state)
{
	const struct dgemm_params p = { .n = 13, .repeats = 3, .alpha = 0.5, .beta = -0.25 };
	struct mats m = filled(13);
	double want[13 * 13];

	(void)state;
	memcpy(want, m.c, sizeof(want));
	for (int r = 0; r < p.repeats; r++) {
		double next[13 * 13];

		for (int i = 0; i < 13; i++) {
			for (int j = 0; j < 13; j++) {
				double s = 0.0;

				for (int k = 0; k < 13; k++)
					s += m.a[i * 13 + k] * m.b[k * 13 + j];
				next[i * 13 + j] = p.alpha * s + p.beta * want[i * 13 + j];
			}
		}
		memcpy(want, next, sizeof(want));
	}
	dgemm_run(&p, m.a, m.b, m.c);
	for (int x = 0; x < 13 * 13; x++)
		assert_true(fabs(m.c[x] - want[x]) <= 1e-12 * fabs(want[x]) + 1e-14);
	release(&m);
}

/* A = I, beta = 0: C becomes B exactly. */
static void test_run_identity(void **state)
{
	const struct dgemm_params p = { .n = 40, .repeats = 2, .alpha = 1.0, .beta = 0.0 };
	struct mats m = filled(40);

	(void)state;
	for (int i = 0; i < 40; i++)
		for (int j = 0; j < 40; j++)
			m.a[i * 40 + j] = i == j;
	dgemm_run(&p, m.a, m.b, m.c);
	assert_memory_equal(m.c, m.b, 40 * 40 * sizeof(double));
	release(&m);
}

static void test_gflops(void **state)
{
	const struct dgemm_params p = { .n = 100, .repeats = 3 };

	(void)state;
	/* mt-dgemm: 2*N^3*R + 2*N^2*R flops. */
	assert_true(fabs(dgemm_gflops(&p, 2.0) - (2.0 * 1e6 * 3 + 2.0 * 1e4 * 3) / 2.0 * 1e-9) < 1e-15);
}

static void test_check_rows(void **state)
{
	(void)state;
	assert_int_equal(dgemm_check_rows(1), 1);
	assert_int_equal(dgemm_check_rows(256), 256);
	assert_true(dgemm_check_rows(2048) >= 4 && dgemm_check_rows(2048) < 2048);
	assert_int_equal(dgemm_check_rows(8192), 4);
}

static void test_check_accepts(void **state)
{
	const struct dgemm_params cases[] = {
		{ .n = 64, .repeats = 4, .alpha = 1.0, .beta = 1.0 },
		{ .n = 50, .repeats = 1, .alpha = -2.0, .beta = 0.0 },
		{ .n = 33, .repeats = 5, .alpha = 0.3, .beta = -0.7 },
		{ .n = 1, .repeats = 2, .alpha = 1.0, .beta = 1.0 },
		{ .n = 20, .repeats = 3, .alpha = 0.0, .beta = 2.0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mats m = filled(cases[i].n);

		dgemm_run(&cases[i], m.a, m.b, m.c);
		assert_int_equal(dgemm_check(&cases[i], m.a, m.b, m.c, cases[i].n, why, sizeof(why)), 0);
		assert_int_equal(dgemm_check(&cases[i], m.a, m.b, m.c, 0, why, sizeof(why)), 0);
		release(&m);
	}
}

/* One element off, by a lot, by a little, or not a number: each test alone catches it. */
static void test_check_rejects_one_element(void **state)
{
	const struct dgemm_params p = { .n = 64, .repeats = 3, .alpha = 1.0, .beta = 1.0 };
	struct mats m = filled(64);
	const double perturb[] = { 1.0, 1e-5, NAN };

	(void)state;
	dgemm_run(&p, m.a, m.b, m.c);
	for (size_t k = 0; k < sizeof(perturb) / sizeof(perturb[0]); k++) {
		const double saved = m.c[37 * 64 + 11];

		m.c[37 * 64 + 11] = saved * (1 + perturb[k]);
		assert_int_equal(dgemm_check_freivalds(&p, m.a, m.b, m.c, why, sizeof(why)), -EDOM);
		assert_non_null(strstr(why, "row 37"));
		assert_int_equal(dgemm_check_sampled_rows(&p, m.a, m.b, m.c, 64, why, sizeof(why)), -EDOM);
		assert_non_null(strstr(why, "C(37,11)"));
		assert_int_equal(dgemm_check(&p, m.a, m.b, m.c, 0, why, sizeof(why)), -EDOM);
		m.c[37 * 64 + 11] = saved;
		assert_int_equal(dgemm_check(&p, m.a, m.b, m.c, 64, why, sizeof(why)), 0);
	}
	release(&m);
}

/* Two entries of a row swapped (a transposition-like slip) are caught by each test. */
static void test_check_rejects_swap(void **state)
{
	const struct dgemm_params p = { .n = 64, .repeats = 2, .alpha = 1.0, .beta = 1.0 };
	struct mats m = filled(64);
	double t;

	(void)state;
	dgemm_run(&p, m.a, m.b, m.c);
	t = m.c[63 * 64 + 5];
	m.c[63 * 64 + 5] = m.c[63 * 64 + 6];
	m.c[63 * 64 + 6] = t;
	assert_int_equal(dgemm_check_freivalds(&p, m.a, m.b, m.c, why, sizeof(why)), -EDOM);
	/* Four sampled rows include the last one. */
	assert_int_equal(dgemm_check_sampled_rows(&p, m.a, m.b, m.c, 4, why, sizeof(why)), -EDOM);
	assert_non_null(strstr(why, "C(63,5)"));
	release(&m);
}

/* The wrong number of repeats, or the wrong beta, is caught. */
static void test_check_rejects_wrong_run(void **state)
{
	struct dgemm_params p = { .n = 48, .repeats = 3, .alpha = 1.0, .beta = 1.0 };
	struct mats m = filled(48);

	(void)state;
	dgemm_run(&p, m.a, m.b, m.c);
	p.repeats = 4;
	assert_int_equal(dgemm_check(&p, m.a, m.b, m.c, 0, why, sizeof(why)), -EDOM);
	p.repeats = 3;
	p.beta = 0.5;
	assert_int_equal(dgemm_check(&p, m.a, m.b, m.c, 0, why, sizeof(why)), -EDOM);
	release(&m);
}

static void test_core_isa(void **state)
{
	(void)state;
	assert_int_equal(dgemm_core_isa("Prescott"), DGEMM_ISA_SSE);
	assert_int_equal(dgemm_core_isa("Nehalem"), DGEMM_ISA_SSE);
	assert_int_equal(dgemm_core_isa("Sandybridge"), DGEMM_ISA_AVX);
	assert_int_equal(dgemm_core_isa("haswell"), DGEMM_ISA_AVX2);
	assert_int_equal(dgemm_core_isa("Zen"), DGEMM_ISA_AVX2);
	assert_int_equal(dgemm_core_isa("SkylakeX"), DGEMM_ISA_AVX512);
	assert_int_equal(dgemm_core_isa("Mystery9000"), DGEMM_ISA_UNKNOWN);
	assert_int_equal(dgemm_core_isa(NULL), DGEMM_ISA_UNKNOWN);
	assert_string_equal(dgemm_isa_name(DGEMM_ISA_AVX512), "AVX-512");
}

static void test_core_fix(void **state)
{
	(void)state;
	assert_string_equal(dgemm_core_fix("Prescott", DGEMM_ISA_AVX2), "Haswell");
	assert_string_equal(dgemm_core_fix("Prescott", DGEMM_ISA_AVX512), "SkylakeX");
	assert_string_equal(dgemm_core_fix("Sandybridge", DGEMM_ISA_AVX2), "Haswell");
	assert_string_equal(dgemm_core_fix("Unknown", DGEMM_ISA_AVX2), "Haswell");
	/* Good enough, or nothing better to run, or a name we cannot judge. */
	assert_null(dgemm_core_fix("Haswell", DGEMM_ISA_AVX2));
	assert_null(dgemm_core_fix("Zen", DGEMM_ISA_AVX2));
	assert_null(dgemm_core_fix("Haswell", DGEMM_ISA_AVX512));
	assert_null(dgemm_core_fix("SkylakeX", DGEMM_ISA_AVX512));
	assert_null(dgemm_core_fix("Prescott", DGEMM_ISA_AVX));
	assert_null(dgemm_core_fix("Prescott", DGEMM_ISA_SSE));
	assert_null(dgemm_core_fix("Mystery9000", DGEMM_ISA_AVX2));
}

static void test_cpu_isa(void **state)
{
	enum dgemm_isa isa = dgemm_cpu_isa();

	(void)state;
	assert_true(isa >= DGEMM_ISA_SSE);
	assert_int_equal(isa >= DGEMM_ISA_AVX2,
			 __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_run_matches_naive),
		cmocka_unit_test(test_run_identity),
		cmocka_unit_test(test_gflops),
		cmocka_unit_test(test_check_rows),
		cmocka_unit_test(test_check_accepts),
		cmocka_unit_test(test_check_rejects_one_element),
		cmocka_unit_test(test_check_rejects_swap),
		cmocka_unit_test(test_check_rejects_wrong_run),
		cmocka_unit_test(test_core_isa),
		cmocka_unit_test(test_core_fix),
		cmocka_unit_test(test_cpu_isa),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
