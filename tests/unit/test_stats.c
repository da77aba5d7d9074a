/*
 * Statistics against values computed by hand or taken from published
 * tables: the incomplete beta function where it has a closed form,
 * Student's t CDF against its closed forms for 1, 2 and 3 degrees of
 * freedom, quantiles against the t table, a summary of a small sample
 * worked by hand, and Welch's test against Wikipedia's worked example.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "report/stats.h"

#define assert_near(got, want, eps) near(got, want, eps, #got, __FILE__, __LINE__)
static void near(double got, double want, double eps, const char *what, const char *file, int line)
{
	if (!(fabs(got - want) <= eps)) {
		print_error("%s = %.17g, expected %.17g (within %g)\n", what, got, want, eps);
		_fail(file, line);
	}
}

static void test_betai_closed_forms(void **state)
{
	(void)state;
	/* I_x(a, 1) = x^a, I_x(1, b) = 1 - (1-x)^b, I_1/2(a, a) = 1/2 */
	assert_near(tl_betai(2.5, 1, 0.3), pow(0.3, 2.5), 1e-13);
	assert_near(tl_betai(1, 4, 0.7), 1 - pow(0.3, 4), 1e-13);
	assert_near(tl_betai(3, 3, 0.5), 0.5, 1e-13);
	assert_near(tl_betai(17.5, 17.5, 0.5), 0.5, 1e-12);
	/* I_0.2(2, 3) = sum_{j=2..4} C(4,j) 0.2^j 0.8^(4-j) = 0.1536 + 0.0256 + 0.0016 */
	assert_near(tl_betai(2, 3, 0.2), 0.1808, 1e-13);
	assert_near(tl_betai(2, 3, 0.8), 1 - tl_betai(3, 2, 0.2), 1e-13);
	assert_near(tl_betai(2, 3, 0), 0, 0);
	assert_near(tl_betai(2, 3, 1), 1, 0);
	assert_true(isnan(tl_betai(0, 3, 0.5)));
	assert_true(isnan(tl_betai(2, 3, 1.5)));
}

static void test_t_cdf_closed_forms(void **state)
{
	(void)state;
	for (double t = -20; t <= 20; t += 0.37) {
		/* df 1 is Cauchy; df 2 and 3 have closed forms too */
		assert_near(tl_t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-12);
		assert_near(tl_t_cdf(t, 2), 0.5 + t / (2 * sqrt(2 + t * t)), 1e-12);
		assert_near(tl_t_cdf(t, 3),
			    0.5 + (t / (sqrt(3) * (1 + t * t / 3)) + atan(t / sqrt(3))) / M_PI, 1e-12);
	}
	assert_near(tl_t_cdf(0, 7.3), 0.5, 1e-15);
	assert_near(tl_t_cdf(INFINITY, 4), 1, 0);
	/* many degrees of freedom: the normal distribution, Phi(1.96) = 0.9750021 */
	assert_near(tl_t_cdf(1.96, 1e7), 0.9750021048517795, 1e-6);
	assert_true(isnan(tl_t_cdf(1, 0)));
}

static void test_t_quantile_table(void **state)
{
	static const struct { double p, df, t; } table[] = {
		/* two-sided 95% and 90% columns of the t table */
		{ 0.975, 1, 12.706204736 }, { 0.975, 2, 4.302652730 }, { 0.975, 4, 2.776445105 },
		{ 0.975, 7, 2.364624252 },  { 0.975, 9, 2.262157163 }, { 0.975, 30, 2.042272456 },
		{ 0.95, 5, 2.015048373 },   { 0.995, 10, 3.169272673 }, { 0.025, 4, -2.776445105 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		assert_near(tl_t_quantile(table[i].p, table[i].df), table[i].t, 1e-8);
	assert_near(tl_t_quantile(0.5, 3), 0, 1e-12);
	assert_true(isnan(tl_t_quantile(1, 3)));
	assert_true(isnan(tl_t_quantile(0.5, -1)));
}

static void test_summary_by_hand(void **state)
{
	/* unsorted on purpose; sum 40, mean 5, squares around it 32, sd sqrt(32/7) */
	static const double x[] = { 9, 4, 2, 5, 4, 7, 4, 5 };
	struct tl_stats s;

	(void)state;
	assert_int_equal(tl_stats_summary(x, 8, &s), 0);
	assert_int_equal(s.n, 8);
	assert_near(s.mean, 5, 1e-15);
	assert_near(s.sd, sqrt(32.0 / 7), 1e-15);
	assert_near(s.median, 4.5, 0);
	assert_near(s.min, 2, 0);
	assert_near(s.max, 9, 0);
	/* t(0.975, 7) sd / sqrt(8) */
	assert_near(s.ci95, 2.364624252 * sqrt(32.0 / 7) / sqrt(8), 1e-8);

	assert_int_equal(tl_stats_summary(x, 3, &s), 0);	/* 9 4 2: odd count, the middle one */
	assert_near(s.median, 4, 0);
	assert_int_equal(tl_stats_summary(x, 1, &s), 0);
	assert_near(s.sd, 0, 0);
	assert_true(isnan(s.ci95));
	assert_int_equal(tl_stats_summary(x, 0, &s), -EINVAL);
}

static void test_welch_wikipedia(void **state)
{
	/* Wikipedia, "Welch's t-test", example 1: t = -2.46, df = 25.0, p = 0.021 */
	static const double a[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
				    21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
	static const double b[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
				    24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
	struct tl_stats sa, sb;
	struct tl_welch w;

	(void)state;
	assert_int_equal(tl_stats_summary(a, 15, &sa), 0);
	assert_int_equal(tl_stats_summary(b, 15, &sb), 0);
	assert_true(tl_welch_test(&sa, &sb, &w));
	assert_near(w.t, -2.46, 0.005);
	assert_near(w.df, 25.0, 0.05);
	assert_near(w.p, 0.021, 0.0005);
	/* one repetition says nothing */
	sa.n = 1;
	assert_false(tl_welch_test(&sa, &sb, &w));
}

/*
 * Holm's step-down by hand: p = .01 .04 .03 .005 (m = 4) sorted .005 .01
 * .03 .04, times 4 3 2 1: .02 .03 .06 .04, made monotone: .02 .03 .06
 * .06; an untested pair (NaN) is not one of the m.
 */
static void test_holm_by_hand(void **state)
{
	double p[] = { 0.01, 0.04, NAN, 0.03, 0.005 }, adj[5];

	(void)state;
	assert_int_equal(tl_holm(p, 5, adj), 4);
	assert_near(adj[0], 0.03, 1e-15);
	assert_near(adj[1], 0.06, 1e-15);
	assert_true(isnan(adj[2]));
	assert_near(adj[3], 0.06, 1e-15);
	assert_near(adj[4], 0.02, 1e-15);
	/* capped at 1 */
	p[0] = 0.5, p[1] = 0.6;
	assert_int_equal(tl_holm(p, 2, adj), 2);
	assert_near(adj[0], 1, 0);
	assert_near(adj[1], 1, 0);
}

/*
 * The ratio's interval, delta method on the log: a 2 +- 0.2 (4), b 4 +- 0.4
 * (4) have equal relative variances 0.0025, so df = 2 (n - 1) = 6 and the
 * half width on the log scale is t(0.975, 6) sqrt(0.005) = 2.446911851 x
 * 0.0707107 = 0.1730228: 2 exp(-+0.1730228) = 1.682237 .. 2.377786.
 */
static void test_ratio_ci_by_hand(void **state)
{
	struct tl_stats a = { .n = 4, .mean = 2, .sd = 0.2 }, b = { .n = 4, .mean = 4, .sd = 0.4 };
	double lo, hi;

	(void)state;
	assert_true(tl_ratio_ci95(&a, &b, &lo, &hi));
	assert_near(lo, 1.6822368805, 1e-8);
	assert_near(hi, 2.3777864142, 1e-8);
	/* nothing to say with one run, no spread, or means of two signs */
	a.n = 1;
	assert_false(tl_ratio_ci95(&a, &b, &lo, &hi));
	a.n = 4, a.sd = 0, b.sd = 0;
	assert_false(tl_ratio_ci95(&a, &b, &lo, &hi));
	b.sd = 0.4, a.mean = -2;
	assert_false(tl_ratio_ci95(&a, &b, &lo, &hi));
}

/*
 * Wilson's interval: with no hit in n samples it is [0, z^2 / (n + z^2)]
 * (10 samples: 3.841459 / 13.841459 = 0.277533); 5 in 9 by the formula:
 * 0.266651 .. 0.811221; a hit rate of 44% from 612 samples is within 4 points.
 */
static void test_wilson_by_hand(void **state)
{
	double lo, hi;

	(void)state;
	assert_true(tl_wilson95(0, 10, &lo, &hi));
	assert_near(lo, 0, 0);
	assert_near(hi, 0.2775327999, 1e-9);
	assert_true(tl_wilson95(10, 10, &lo, &hi));
	assert_near(lo, 1 - 0.2775327999, 1e-9);
	assert_near(hi, 1, 1e-15);
	assert_true(tl_wilson95(5, 9, &lo, &hi));
	assert_near(lo, 0.2666512935, 1e-9);
	assert_near(hi, 0.8112214789, 1e-9);
	assert_true(tl_wilson95(0.44 * 612, 612, &lo, &hi));
	assert_near(lo, 0.4011681529, 1e-9);
	assert_near(hi, 0.4795803759, 1e-9);
	assert_false(tl_wilson95(1, 0, &lo, &hi));
	assert_false(tl_wilson95(11, 10, &lo, &hi));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_betai_closed_forms),
		cmocka_unit_test(test_t_cdf_closed_forms),
		cmocka_unit_test(test_t_quantile_table),
		cmocka_unit_test(test_summary_by_hand),
		cmocka_unit_test(test_welch_wikipedia),
		cmocka_unit_test(test_holm_by_hand),
		cmocka_unit_test(test_ratio_ci_by_hand),
		cmocka_unit_test(test_wilson_by_hand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
