/*
 * The Himeno kernel against closed forms and a double-precision
 * reference, and its checks against results made wrong on purpose.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "himeno.h"

static char why[512];

static struct himeno_grid grid(int mi, int mj, int mk)
{
	struct himeno_grid g;

	assert_int_equal(himeno_grid_alloc(&g, mi, mj, mk), 0);
	himeno_grid_init(&g);
	return g;
}

static void test_sizes(void **state)
{
	const struct himeno_size *s = himeno_size_find("s");

	(void)state;
	assert_non_null(s);
	assert_int_equal(s->mimax, 64);
	assert_int_equal(s->mjmax, 64);
	assert_int_equal(s->mkmax, 128);
	s = himeno_size_find("XL");
	assert_non_null(s);
	assert_int_equal(s->mimax * 2, himeno_size_find("L")->mimax * 4);
	assert_int_equal(s->mkmax, 1024);
	assert_null(himeno_size_find("XXL"));
	/* The original counts (imax-2)(jmax-2)(kmax-2) points with imax = mimax-1. */
	assert_true(himeno_flop(64, 64, 128) == 61.0 * 61 * 125 * 34);
}

static void test_alloc(void **state)
{
	struct himeno_grid g;

	(void)state;
	assert_int_equal(himeno_grid_alloc(&g, 2, 8, 8), -EINVAL);
	g = grid(4, 5, 6);
	assert_int_equal(g.npoints, 120);
	assert_int_equal(himeno_grid_bytes(&g), 14 * 120 * sizeof(float));
	/* The original's initial values. */
	assert_true(g.p[2 * 30 + 7] == 4.0f / 9.0f);
	assert_true(g.a[3 * g.npoints + 5] == (float)(1.0 / 6.0));
	assert_true(g.c[2 * g.npoints + 119] == 1.0f);
	assert_true(g.b[g.npoints] == 0.0f);
	himeno_grid_free(&g);
	himeno_grid_free(&g);	/* twice is harmless */
}

/*
 * From the initial p = i^2/(m-1)^2 every interior residual of the first
 * iteration is the same: ss = (p(i+1) + p(i-1) - 2p(i))/6 = 1/(3(m-1)^2).
 */
static void test_first_iteration_closed_form(void **state)
{
	struct himeno_grid g = grid(9, 6, 7);
	const double m1 = 8.0, ss = 1.0 / (3.0 * m1 * m1);
	const double want = 7.0 * 4 * 5 * ss * ss;
	double gosa = himeno_jacobi(&g, 1, NULL);

	(void)state;
	assert_true(fabs(gosa - want) <= 2e-4 * want);
	/* Point (3, 2, 4) moved by omega*ss; the boundary did not move. */
	assert_true(fabs(g.p[(3 * 6 + 2) * 7 + 4] - (9.0 / 64 + 0.8 * ss)) < 1e-6);
	assert_true(g.p[(3 * 6 + 0) * 7 + 4] == 9.0f / 64.0f);
	assert_true(g.p[(8 * 6 + 2) * 7 + 4] == 1.0f);
	himeno_grid_free(&g);
}

static void test_matches_double_reference(void **state)
{
	const int counts[] = { 1, 2, 7, 40 };

	(void)state;
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		struct himeno_grid g = grid(12, 10, 17);
		double ref, got = himeno_jacobi(&g, counts[c], NULL);

		assert_int_equal(himeno_reference_gosa(12, 10, 17, counts[c], &ref), 0);
		assert_true(ref > 0);
		assert_true(fabs(got - ref) <= 1e-4 * ref);
		himeno_grid_free(&g);
	}
}

/* The table's tiny entry is what the reference computes, and the kernel meets it. */
static void test_table_tiny(void **state)
{
	const struct himeno_size *xs = himeno_size_find("XS");
	struct himeno_grid g = grid(xs->mimax, xs->mjmax, xs->mkmax);
	double want, rtol, ref, got;

	(void)state;
	assert_int_equal(himeno_expected_gosa(32, 32, 64, 20, &want, &rtol), 0);
	assert_int_equal(himeno_reference_gosa(32, 32, 64, 20, &ref), 0);
	assert_true(fabs(ref - want) <= 1e-12 * want);
	got = himeno_jacobi(&g, 20, NULL);
	assert_int_equal(himeno_check_gosa(got, want, rtol, why, sizeof(why)), 0);
	assert_int_equal(himeno_expected_gosa(32, 32, 64, 21, &want, &rtol), -ENOENT);
	assert_int_equal(himeno_expected_gosa(64, 64, 128, 800, &want, &rtol), 0);
	himeno_grid_free(&g);
}

static void test_check_gosa_rejects(void **state)
{
	(void)state;
	assert_int_equal(himeno_check_gosa(1.0e-3, 1.0e-3, 1e-4, why, sizeof(why)), 0);
	assert_int_equal(himeno_check_gosa(1.00005e-3, 1.0e-3, 1e-4, why, sizeof(why)), 0);
	assert_int_equal(himeno_check_gosa(1.0002e-3, 1.0e-3, 1e-4, why, sizeof(why)), -EDOM);
	assert_non_null(strstr(why, "differs from the expected"));
	assert_int_equal(himeno_check_gosa(0.9e-3, 1.0e-3, 1e-2, why, sizeof(why)), -EDOM);
	assert_int_equal(himeno_check_gosa(NAN, 1.0e-3, 1e-2, why, sizeof(why)), -EDOM);
	assert_int_equal(himeno_check_gosa(INFINITY, 1.0e-3, 1e-2, why, sizeof(why)), -EDOM);
}

static void test_check_monotone(void **state)
{
	double ok[] = { 5, 4, 3, 3, 2.5 };
	double jitter[] = { 5, 4, 4 + 1e-5, 3 };
	double grows[] = { 5, 4, 4.1, 3 };
	double nan[] = { 5, NAN, 3 };

	(void)state;
	assert_int_equal(himeno_check_monotone(ok, 5, 0, why, sizeof(why)), 0);
	assert_int_equal(himeno_check_monotone(jitter, 4, 1e-4, why, sizeof(why)), 0);
	assert_int_equal(himeno_check_monotone(jitter, 4, 0, why, sizeof(why)), -EDOM);
	assert_int_equal(himeno_check_monotone(grows, 4, 1e-8, why, sizeof(why)), -EDOM);
	assert_non_null(strstr(why, "iteration 3"));
	assert_int_equal(himeno_check_monotone(nan, 3, 1, why, sizeof(why)), -EDOM);

	/* A real run decreases; the noise allowance is tiny next to Gosa. */
	struct himeno_grid g = grid(16, 16, 32);
	double each[30];

	himeno_jacobi(&g, 30, each);
	assert_int_equal(himeno_check_monotone(each, 30, himeno_gosa_noise(&g), why, sizeof(why)), 0);
	assert_true(himeno_gosa_noise(&g) < 1e-6 * each[29]);
	himeno_grid_free(&g);
}

/* Runs n iterations with a snapshot before the last, as main does. */
static void run_with_snapshot(struct himeno_grid *g, int n, struct himeno_snapshot *s)
{
	himeno_jacobi(g, n - 1, NULL);
	assert_int_equal(himeno_snapshot_take(g, s), 0);
	himeno_jacobi(g, 1, NULL);
}

static void test_check_planes(void **state)
{
	struct himeno_grid g = grid(20, 9, 13);
	struct himeno_snapshot s;
	const size_t plane = 9 * 13;

	(void)state;
	run_with_snapshot(&g, 5, &s);
	assert_int_equal(s.nplanes, 3);
	assert_int_equal(s.plane_i[0], 1);
	assert_int_equal(s.plane_i[1], 10);
	assert_int_equal(s.plane_i[2], 18);
	assert_int_equal(himeno_check_planes(&g, &s, why, sizeof(why)), 0);

	/* One point of a checked plane off by a little more than rounding. */
	g.p[10 * plane + 4 * 13 + 6] += 1e-5f;
	assert_int_equal(himeno_check_planes(&g, &s, why, sizeof(why)), -EDOM);
	assert_non_null(strstr(why, "p(10,4,6)"));
	g.p[10 * plane + 4 * 13 + 6] -= 1e-5f;
	assert_int_equal(himeno_check_planes(&g, &s, why, sizeof(why)), 0);

	/* A coefficient the kernel did not use. */
	g.c[g.npoints + 18 * plane + 2 * 13 + 2] = 1.5f;
	assert_int_equal(himeno_check_planes(&g, &s, why, sizeof(why)), -EDOM);
	himeno_snapshot_free(&s);
	himeno_grid_free(&g);
}

/*
 * Random coefficients make every term count (b is 0 in the original), and
 * on a grid with 3 interior planes the snapshot covers all of them: the
 * kernel is checked point by point against the scalar code.
 */
static void test_random_coefficients(void **state)
{
	struct himeno_grid g = grid(5, 7, 19);
	struct himeno_snapshot s;
	unsigned seed = 12345;

	(void)state;
	for (size_t x = 0; x < g.npoints; x++) {
		g.p[x] = (float)rand_r(&seed) / RAND_MAX;
		g.wrk1[x] = (float)rand_r(&seed) / RAND_MAX * 0.1f;
		g.bnd[x] = rand_r(&seed) % 4 ? 1.0f : 0.0f;
		for (int f = 0; f < 4; f++)
			g.a[f * g.npoints + x] = (float)rand_r(&seed) / RAND_MAX;
		for (int f = 0; f < 3; f++) {
			g.b[f * g.npoints + x] = (float)rand_r(&seed) / RAND_MAX - 0.5f;
			g.c[f * g.npoints + x] = (float)rand_r(&seed) / RAND_MAX;
		}
	}
	run_with_snapshot(&g, 2, &s);
	assert_int_equal(s.nplanes, 3);
	assert_int_equal(himeno_check_planes(&g, &s, why, sizeof(why)), 0);

	/* A coefficient that differs from the one the kernel used: caught. */
	g.b[2 * 7 * 19 + 3 * 19 + 5] += 0.25f;
	assert_int_equal(himeno_check_planes(&g, &s, why, sizeof(why)), -EDOM);
	himeno_snapshot_free(&s);
	himeno_grid_free(&g);
}

/* The thread split changes only the order Gosa is summed in, never p. */
static void test_threads_agree(void **state)
{
	struct himeno_grid g1 = grid(23, 11, 40), g2 = grid(23, 11, 40);
	double gosa1, gosa2;
	int saved = omp_get_max_threads();

	(void)state;
	omp_set_num_threads(1);
	gosa1 = himeno_jacobi(&g1, 6, NULL);
	omp_set_num_threads(2);
	gosa2 = himeno_jacobi(&g2, 6, NULL);
	omp_set_num_threads(saved);
	assert_true(fabs(gosa1 - gosa2) <= 1e-12 * gosa1);
	assert_memory_equal(g1.p, g2.p, g1.npoints * sizeof(float));
	himeno_grid_free(&g1);
	himeno_grid_free(&g2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_alloc),
		cmocka_unit_test(test_first_iteration_closed_form),
		cmocka_unit_test(test_matches_double_reference),
		cmocka_unit_test(test_table_tiny),
		cmocka_unit_test(test_check_gosa_rejects),
		cmocka_unit_test(test_check_monotone),
		cmocka_unit_test(test_check_planes),
		cmocka_unit_test(test_random_coefficients),
		cmocka_unit_test(test_threads_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
