/*
 * Calibration of a tier model (model.h) on the machine: the workload's
 * free parameters (kappa, overlap, mlp) fitted to live runs a user can
 * make, each paired with the replay of the recording in its
 * configuration. The machine's figures (tiers, migration) are the
 * model's own (a model file or a probe profile) and are not fitted.
 *
 * The fit minimises the sum of squared differences between the model's
 * estimate (performance relative to all-fast) and the measured one: a
 * grid over kappa (log), overlap and mlp (log, and unlimited), then a
 * simplex search from the best grid points. Deterministic.
 */
#ifndef TL_SIMULATE_CALIBRATE_H
#define TL_SIMULATE_CALIBRATE_H

#include <stddef.h>

#include "simulate/model.h"

/* One live configuration: its replay, its unmanaged memory, what was measured. */
struct tl_calib_point {
	const char *label;
	const struct tl_sim_result *r;
	struct tl_model_place place;
	double measured;		/* performance relative to all-fast (all-fast itself: 1) */
};

struct tl_calib_fit {
	double rms;			/* of the residuals (estimate - measured) over the points */
	double max_abs;			/* the largest residual */
	double held_out;		/* the largest leave-one-out error (each point predicted by a fit without it); 0 with < 3 points */
};

/*
 * Fits m's workload parameters to the n points (m->calibrated set, the
 * machine's figures untouched) and fills *fit. -EINVAL with fewer than
 * two points, or with a measured value that is not a positive number.
 */
int tl_calibrate(struct tl_tier_model *m, const struct tl_calib_point *pts, size_t n, struct tl_calib_fit *fit);

#endif
