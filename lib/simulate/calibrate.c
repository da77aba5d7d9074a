/*
 * Fitting the tier model's workload parameters (calibrate.h). The search
 * runs in coordinates where the model's response is smooth: kappa and mlp
 * relative to the machine (kappa against the slow tier's time per byte,
 * mlp against the lines in flight that saturate the fast tier), on a log
 * scale, and overlap as it is. A grid finds the basins (the model is
 * piecewise: max and min of linear terms), a simplex from each the point.
 */
#include "simulate/calibrate.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define K_LO -3.0	/* log10 of kappa relative to 1 / BW_slow */
#define K_HI 2.0
#define M_LO -2.0	/* log10 of mlp relative to BW_fast * L_fast / 64 */
#define M_HI 2.0
#define UNLIMITED (M_HI + 1)	/* a log mlp past the grid: no latency bound */
#define KAPPA_ZERO (K_LO - 1)	/* a log kappa before the grid: no compute */

struct coords {
	double k, o, m;
};

static void apply(struct tl_tier_model *m, const struct coords *c)
{
	double k0 = 1 / m->slow.bandwidth_gbs, m0 = m->fast.bandwidth_gbs * m->fast.latency_ns / TL_MODEL_LINE;

	m->compute_ns_per_byte = c->k <= K_LO - 0.5 ? 0 : k0 * pow(10, c->k);
	m->overlap = c->o < 0 ? 0 : c->o > 1 ? 1 : c->o;
	m->mlp = c->m >= M_HI + 0.5 ? 0 : m0 * pow(10, c->m);
}

/* Sum of squared residuals over pts except skip (SIZE_MAX: none). */
static double cost(struct tl_tier_model *m, const struct coords *c, const struct tl_calib_point *pts, size_t n,
		   size_t skip)
{
	double s = 0;

	apply(m, c);
	for (size_t i = 0; i < n; i++) {
		double d;

		if (i == skip)
			continue;
		d = tl_tier_model_estimate(m, pts[i].r, &pts[i].place) - pts[i].measured;
		s += d * d;
	}
	return s;
}

static double *at(struct coords *c, int d)
{
	return d == 0 ? &c->k : d == 1 ? &c->o : &c->m;
}

/* Keeps a point inside the search box (overlap in [0, 1], the log scales just past the grid). */
static void clamp(struct coords *c)
{
	c->o = c->o < 0 ? 0 : c->o > 1 ? 1 : c->o;
	c->k = c->k < KAPPA_ZERO ? KAPPA_ZERO : c->k > K_HI + 1 ? K_HI + 1 : c->k;
	c->m = c->m < M_LO - 1 ? M_LO - 1 : c->m > UNLIMITED ? UNLIMITED : c->m;
}

/*
 * Nelder-Mead from start (the model is piecewise linear in its terms, so
 * a simplex that walks along a kink does better than steps along the
 * axes). Returns the best cost, the point in *start.
 */
static double simplex(struct tl_tier_model *m, struct coords *start, const struct tl_calib_point *pts, size_t n,
		      size_t skip)
{
	struct coords p[4];
	double f[4];

	for (int i = 0; i < 4; i++) {
		p[i] = *start;
		if (i)
			*at(&p[i], i - 1) += i == 2 ? 0.1 : 0.2;
		clamp(&p[i]);
		f[i] = cost(m, &p[i], pts, n, skip);
	}
	for (int it = 0; it < 400; it++) {
		struct coords cen = { 0, 0, 0 }, r, e, k;
		double fr;
		int hi = 0, lo = 0;

		for (int i = 1; i < 4; i++) {
			if (f[i] > f[hi])
				hi = i;
			if (f[i] < f[lo])
				lo = i;
		}
		if (f[hi] - f[lo] < 1e-16 && it > 20)
			break;
		for (int i = 0; i < 4; i++)
			if (i != hi)
				for (int d = 0; d < 3; d++)
					*at(&cen, d) += *at(&p[i], d) / 3;
		for (int d = 0; d < 3; d++)
			*at(&r, d) = 2 * *at(&cen, d) - *at(&p[hi], d);
		clamp(&r);
		fr = cost(m, &r, pts, n, skip);
		if (fr < f[lo]) {
			for (int d = 0; d < 3; d++)
				*at(&e, d) = 3 * *at(&cen, d) - 2 * *at(&p[hi], d);
			clamp(&e);
			double fe = cost(m, &e, pts, n, skip);

			if (fe < fr)
				p[hi] = e, f[hi] = fe;
			else
				p[hi] = r, f[hi] = fr;
			continue;
		}
		if (fr < f[hi]) {
			p[hi] = r;
			f[hi] = fr;
			continue;
		}
		for (int d = 0; d < 3; d++)
			*at(&k, d) = (*at(&cen, d) + *at(&p[hi], d)) / 2;
		double fk = cost(m, &k, pts, n, skip);

		if (fk < f[hi]) {
			p[hi] = k;
			f[hi] = fk;
			continue;
		}
		/* shrink toward the best */
		for (int i = 0; i < 4; i++)
			if (i != lo) {
				for (int d = 0; d < 3; d++)
					*at(&p[i], d) = (*at(&p[i], d) + *at(&p[lo], d)) / 2;
				f[i] = cost(m, &p[i], pts, n, skip);
			}
	}
	for (int i = 1; i < 4; i++)
		if (f[i] < f[0])
			p[0] = p[i], f[0] = f[i];
	*start = p[0];
	return f[0];
}

#define MLP_STEPS 22	/* grid points of mlp, the last unlimited: one simplex starts from each */

static struct coords search(struct tl_tier_model *m, const struct tl_calib_point *pts, size_t n, size_t skip)
{
	struct coords top[MLP_STEPS], c, best;
	double tc[MLP_STEPS], bc = INFINITY;

	/*
	 * The grid: kappa none or 10^-3..10^2, overlap 0..1, mlp 10^-2..10^2
	 * or unlimited. The best point of each mlp starts a simplex: whether
	 * the latency bound binds splits the space into basins, and the best
	 * grid points alone all lie in one of them.
	 */
	for (int mi = 0; mi < MLP_STEPS; mi++) {
		tc[mi] = INFINITY;
		for (int ki = -1; ki <= 25; ki++)
			for (int oi = 0; oi <= 10; oi++) {
				double v;

				c.k = ki < 0 ? KAPPA_ZERO : K_LO + (K_HI - K_LO) * ki / 25.0;
				c.o = oi / 10.0;
				c.m = mi == MLP_STEPS - 1 ? UNLIMITED : M_LO + (M_HI - M_LO) * mi / (MLP_STEPS - 2);
				v = cost(m, &c, pts, n, skip);
				if (v < tc[mi]) {
					tc[mi] = v;
					top[mi] = c;
				}
			}
	}
	best = top[0];
	for (int i = 0; i < MLP_STEPS; i++) {
		double v;

		c = top[i];
		v = simplex(m, &c, pts, n, skip);
		if (v < bc) {
			bc = v;
			best = c;
		}
	}
	return best;
}

int tl_calibrate(struct tl_tier_model *m, const struct tl_calib_point *pts, size_t n, struct tl_calib_fit *fit)
{
	struct coords c;

	memset(fit, 0, sizeof(*fit));
	if (n < 2)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!(pts[i].measured > 0) || !isfinite(pts[i].measured))
			return -EINVAL;
	/* leave one out: how well the model predicts a configuration it was not fitted to */
	if (n >= 3)
		for (size_t i = 0; i < n; i++) {
			double e;

			c = search(m, pts, n, i);
			apply(m, &c);
			e = fabs(tl_tier_model_estimate(m, pts[i].r, &pts[i].place) - pts[i].measured);
			if (e > fit->held_out)
				fit->held_out = e;
		}
	c = search(m, pts, n, (size_t)-1);
	fit->rms = sqrt(cost(m, &c, pts, n, (size_t)-1) / (double)n);
	for (size_t i = 0; i < n; i++) {
		double e = fabs(tl_tier_model_estimate(m, pts[i].r, &pts[i].place) - pts[i].measured);

		if (e > fit->max_abs)
			fit->max_abs = e;
	}
	m->residual_rms = fit->rms;
	m->held_out = fit->held_out;
	m->calibrated = true;
	return 0;
}
