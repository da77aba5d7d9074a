/* The migration fit of calibrate-moves.h: two-term least squares, kept non-negative. */
#include "simulate/calibrate-moves.h"

#include <errno.h>
#include <math.h>

/* Residuals of drain = moves * a + bytes * b over the runs that moved. */
static void residuals(const struct tl_calib_moves *r, size_t n, double a, double b, struct tl_calib_moves_fit *fit)
{
	double ss = 0;
	size_t k = 0;

	fit->max_rel = 0;
	for (size_t i = 0; i < n; i++) {
		double e;

		if (!(r[i].moves > 0))
			continue;
		e = r[i].drain_ns - r[i].moves * a - r[i].bytes * b;
		ss += e * e;
		k++;
		if (r[i].drain_ns > 0 && fabs(e) / r[i].drain_ns > fit->max_rel)
			fit->max_rel = fabs(e) / r[i].drain_ns;
	}
	fit->rms_ms = k ? sqrt(ss / (double)k) / 1e6 : 0;
}

int tl_calibrate_moves(const struct tl_calib_moves *r, size_t n, struct tl_calib_moves_fit *fit)
{
	double mm = 0, mb = 0, bb = 0, dm = 0, db = 0, d = 0, bytes = 0, det, a, b;
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(r[i].moves > 0) || !(r[i].bytes > 0) || !(r[i].drain_ns >= 0))
			continue;
		mm += r[i].moves * r[i].moves;
		mb += r[i].moves * r[i].bytes;
		bb += r[i].bytes * r[i].bytes;
		dm += r[i].drain_ns * r[i].moves;
		db += r[i].drain_ns * r[i].bytes;
		d += r[i].drain_ns;
		bytes += r[i].bytes;
		lo = fmin(lo, r[i].bytes / r[i].moves);
		hi = fmax(hi, r[i].bytes / r[i].moves);
	}
	if (!(bytes > 0) || !(d > 0))
		return -EINVAL;
	det = mm * bb - mb * mb;
	/* the move sizes must differ by more than rounding for the two terms to be told apart */
	if (hi > lo * 1.05 && det > 0) {
		a = (dm * bb - db * mb) / det;
		b = (db * mm - dm * mb) / det;
		if (a >= 0 && b > 0) {
			*fit = (struct tl_calib_moves_fit){ .cost_us = a / 1e3, .gbs = 1 / b };
			residuals(r, n, a, b, fit);
			return 0;
		}
	}
	/* least squares of drain = bytes * b alone */
	b = db / bb;
	*fit = (struct tl_calib_moves_fit){ .cost_us = 0, .gbs = 1 / b, .per_byte_only = true };
	residuals(r, n, 0, b, fit);
	return 0;
}
