/*
 * Statistics over repetitions: a summary of one sample (mean, sd, median,
 * min, max, 95% confidence interval) and Student's t distribution, which
 * both the interval and the comparison of two configurations (Welch's
 * t-test) need. Pure functions of their arguments; nothing is allocated
 * except by tl_stats_summary's sort copy.
 */
#ifndef TL_STATS_H
#define TL_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* The coefficient of variation (sd / |mean|) above which a group's spread is worth a warning. */
#define TL_STATS_CV_WARN 0.05
/* Fewer runs than this behind a mean: Welch's test has almost no power, and the mean is a rough guess. */
#define TL_STATS_FEW_RUNS 3

struct tl_stats {
	size_t n;
	double mean, sd;	/* sd: sample standard deviation (n-1), 0 when n == 1 */
	double median, min, max;
	double ci95;		/* half width of the 95% interval of the mean: t(0.975, n-1) sd/sqrt(n); NaN when n < 2 */
};

/*
 * Regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1
 * (continued fraction, Lentz's method); NaN outside the domain.
 */
double tl_betai(double a, double b, double x);
/* P(T <= t) for Student's t with df > 0 degrees of freedom (df need not be whole: Welch). */
double tl_t_cdf(double t, double df);
/* The p quantile of Student's t with df degrees of freedom, 0 < p < 1; NaN outside. */
double tl_t_quantile(double p, double df);

/*
 * The summary of x[0..n) (values not finite are the caller's to leave
 * out). Returns 0, -EINVAL when n == 0, -ENOMEM.
 */
int tl_stats_summary(const double *x, size_t n, struct tl_stats *s);

/* Welch's unequal-variance t-test of two summaries: the statistic, its degrees of freedom, two-sided p. */
struct tl_welch {
	double t, df, p;
};
/* false when either side has fewer than 2 values or both have no spread (the test says nothing then). */
bool tl_welch_test(const struct tl_stats *a, const struct tl_stats *b, struct tl_welch *w);

/*
 * Holm-Bonferroni over m p-values (NaN: not tested, left out of m and
 * NaN in adj): the i-th smallest times (m - i + 1), made monotone and
 * capped at 1, so that "adjusted p < alpha" keeps the chance of any false
 * "significant" among the m at most alpha. adj may be p. Returns m, or
 * -ENOMEM.
 */
long tl_holm(const double *p, size_t n, double *adj);

/*
 * The 95% interval of the ratio of means b/a by the delta method on the
 * log ratio: var(log b/a) ~ sd_a^2 / (n_a mean_a^2) + sd_b^2 / (n_b
 * mean_b^2), with Student's t at the Welch-Satterthwaite degrees of
 * freedom of those two terms, exp'd back (so the interval is not
 * symmetric around the ratio). false when a side has fewer than 2 values,
 * neither has any spread, or the means are not both of one sign.
 */
bool tl_ratio_ci95(const struct tl_stats *a, const struct tl_stats *b, double *lo, double *hi);

/*
 * Wilson's 95% score interval of a proportion hits / n (a hit rate from n
 * samples): unlike the normal approximation it stays within [0, 1] and is
 * honest at 0 hits or n. false when n <= 0 or hits is outside [0, n].
 */
bool tl_wilson95(double hits, double n, double *lo, double *hi);

#endif
