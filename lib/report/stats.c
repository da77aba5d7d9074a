/*
 * Statistics for reports and comparisons. Student's t distribution comes
 * from the regularized incomplete beta function (Numerical Recipes' continued
 * fraction, evaluated with Lentz's method), so no statistics library is
 * needed for one CDF and its inverse.
 */
#include "report/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The continued fraction for I_x(a, b), which converges fast for x < (a+1)/(a+b+2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 1000; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		c = 1 + aa / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		c = 1 + aa / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double tl_betai(double a, double b, double x)
{
	double front;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	/* the fraction converges on one side of the mean; the symmetry I_x(a,b) = 1 - I_1-x(b,a) covers the other */
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double tl_t_cdf(double t, double df)
{
	double tail;

	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	/*
	 * tail = I_x(df/2, 1/2) / 2 at x = df / (df + t^2); near t = 0, x is 1 less
	 * t^2 / df and loses the bits that matter, so take 1 - x as the argument there
	 */
	if (t * t < df)
		tail = 0.5 * (1 - tl_betai(0.5, df / 2, t * t / (df + t * t)));
	else
		tail = 0.5 * tl_betai(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double tl_t_quantile(double p, double df)
{
	double lo = -1, hi = 1;

	if (!(p > 0) || !(p < 1) || !(df > 0))
		return NAN;
	while (tl_t_cdf(lo, df) > p)
		lo *= 2;
	while (tl_t_cdf(hi, df) < p)
		hi *= 2;
	/* the CDF is monotonic: bisection to the last bit is simple and fast enough for a report */
	for (int i = 0; i < 200 && hi - lo > 1e-15 * fmax(1, fabs(lo)); i++) {
		double mid = (lo + hi) / 2;

		if (tl_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int tl_stats_summary(const double *x, size_t n, struct tl_stats *s)
{
	double *sorted, sum = 0, sq = 0;

	memset(s, 0, sizeof(*s));
	if (!n)
		return -EINVAL;
	if (!(sorted = malloc(n * sizeof(*sorted))))
		return -ENOMEM;
	memcpy(sorted, x, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += sorted[i];
	s->n = n;
	s->mean = sum / n;
	/* squares around the mean: steadier than a sum of squares */
	for (size_t i = 0; i < n; i++)
		sq += (sorted[i] - s->mean) * (sorted[i] - s->mean);
	s->sd = n > 1 ? sqrt(sq / (n - 1)) : 0;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	s->ci95 = n > 1 ? tl_t_quantile(0.975, n - 1) * s->sd / sqrt(n) : NAN;
	free(sorted);
	return 0;
}

bool tl_welch_test(const struct tl_stats *a, const struct tl_stats *b, struct tl_welch *w)
{
	double va, vb, se2;

	if (a->n < 2 || b->n < 2)
		return false;
	va = a->sd * a->sd / a->n;
	vb = b->sd * b->sd / b->n;
	se2 = va + vb;
	if (!(se2 > 0))
		return false;
	w->t = (a->mean - b->mean) / sqrt(se2);
	w->df = se2 * se2 / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	w->p = 2 * (1 - tl_t_cdf(fabs(w->t), w->df));
	return true;
}

struct ranked {
	double p;
	size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->p, &((const struct ranked *)b)->p);
}

long tl_holm(const double *p, size_t n, double *adj)
{
	struct ranked *r = malloc((n + 1) * sizeof(*r));
	size_t m = 0;
	double running = 0;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			r[m++] = (struct ranked){ p[i], i };
	for (size_t i = 0; i < n; i++)
		adj[i] = NAN;
	qsort(r, m, sizeof(*r), cmp_ranked);
	for (size_t k = 0; k < m; k++) {
		/* monotone: a smaller p is never adjusted above a larger one */
		running = fmax(running, fmin(1, (double)(m - k) * r[k].p));
		adj[r[k].i] = running;
	}
	free(r);
	return (long)m;
}

bool tl_ratio_ci95(const struct tl_stats *a, const struct tl_stats *b, double *lo, double *hi)
{
	double va, vb, se2, df, half, ratio;

	if (a->n < 2 || b->n < 2 || !(a->mean * b->mean > 0))
		return false;
	/* relative variances of the two means: the log ratio's variance is their sum */
	va = a->sd * a->sd / (a->n * a->mean * a->mean);
	vb = b->sd * b->sd / (b->n * b->mean * b->mean);
	se2 = va + vb;
	if (!(se2 > 0) || !isfinite(se2))
		return false;
	df = se2 * se2 / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	half = tl_t_quantile(0.975, df) * sqrt(se2);
	ratio = b->mean / a->mean;
	*lo = ratio * exp(-half);
	*hi = ratio * exp(half);
	return isfinite(*lo) && isfinite(*hi);
}

bool tl_wilson95(double hits, double n, double *lo, double *hi)
{
	const double z = 1.959963984540054;	/* the normal distribution's 0.975 quantile */
	double p, d, centre, half;

	if (!(n > 0) || !(hits >= 0) || hits > n)
		return false;
	p = hits / n;
	d = 1 + z * z / n;
	centre = (p + z * z / (2 * n)) / d;
	half = z / d * sqrt(p * (1 - p) / n + z * z / (4 * n * n));
	*lo = fmax(0, centre - half);
	*hi = fmin(1, centre + half);
	return true;
}
