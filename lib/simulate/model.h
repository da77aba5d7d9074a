/*
 * Tier models (experiments/machines/NAME.yaml, docs/simulate.md, "The tier
 * model"): what a replay's per-interval counts cost in time on a machine
 * of two tiers. Per interval i of the recording (Delta_i recorded
 * seconds), with B_i = beta * Delta_i bytes of program traffic:
 *
 *   f_i      = fast samples / (fast + slow samples)   (a chunk on its old
 *              tier until its move completes; moving counts slow)
 *   B_fast   = (1 - u) * f_i * B_i     [+ u * B_i if unmanaged memory is fast]
 *   B_slow   = (1 - u) * (1 - f_i) * B_i  [+ u * B_i otherwise]
 *   D_i      = bytes migrated in the interval (read on one tier, written
 *              on the other: on both tiers' channels)
 *   M_i      = max((B_fast + D_i) / BW_fast, (B_slow + D_i) / BW_slow,
 *                  (B_fast * L_fast + B_slow * L_slow) / (64 * mlp))
 *   C_i      = kappa * B_i                   (compute time)
 *   t_i      = max(C_i, M_i) + (1 - overlap) * min(C_i, M_i)
 *
 * The tiers' channels stream concurrently (the max of the first two terms,
 * not their sum); the third is the latency bound of mlp outstanding lines
 * shared by both tiers, so a small mlp makes a run latency-bound. u is the
 * unmanaged share of the traffic, from the measured footprint. beta is
 * pinned by the recording, which ran all-slow: every byte then costs the
 * same g_slow seconds, so beta = 1 / g_slow and the model's all-slow time
 * is the recording's length. The estimate of a configuration is
 * sum t_i(all-fast) / sum t_i(configuration).
 *
 * The free parameters of the workload (kappa, overlap, mlp) are fitted by
 * `tierlab simulate --calibrate` (calibrate.h); uncalibrated they are
 * 0, 1 and unlimited: memory-bound, bandwidth-bound, and said so.
 */
#ifndef TL_SIMULATE_MODEL_H
#define TL_SIMULATE_MODEL_H

#include <stdbool.h>
#include <stdio.h>

#include "simulate/replay.h"
#include "util/error.h"

/* What a model from a probe profile assumes where the probe measured nothing. */
#define TL_MODEL_MIGRATION_GBS 4.0
#define TL_MODEL_MIGRATION_COST_US 50.0
#define TL_MODEL_LINE 64.0	/* bytes per memory access of the latency bound (a cache line) */

struct tl_tier_model_tier {
	char *name;
	double latency_ns, bandwidth_gbs;
	char *source;			/* where the figures came from ("assumed"); may be NULL */
};

struct tl_tier_model {
	char *name, *description;
	struct tl_tier_model_tier fast, slow;
	double migration_gbs;		/* bytes moved per second by migration, GB/s */
	double migration_cost_us;	/* fixed cost of one migration (delays its completion) */
	char *migration_source;		/* may be NULL */
	/* the workload's free parameters (see above); calibrated false: the defaults */
	double compute_ns_per_byte;	/* kappa */
	double overlap;			/* in [0, 1]: 1, compute hides under memory time */
	double mlp;			/* outstanding lines; 0: unlimited (no latency bound) */
	bool calibrated;
	char *workload_source;		/* where the fitted figures came from; NULL uncalibrated */
	double residual_rms;		/* of the fit, and its largest leave-one-out error (calibrated only) */
	double held_out;
};

/* How one configuration's memory is laid out, beyond what the replay counted. */
struct tl_model_place {
	double unmanaged_share;		/* u in [0, 1] */
	bool unmanaged_fast;		/* all-fast binds the program's unmanaged memory fast too */
};

/* One interval's traffic, bytes, and its compute time. */
struct tl_model_traffic {
	double fast, slow, moved, compute_s;
};

/* Reads a model file. 0, or -EINVAL/-errno with "FILE:LINE:COL: field: message" in err. */
int tl_tier_model_load(const char *path, struct tl_tier_model *m, struct tl_error *err);

/*
 * A model from a `tierlab probe` profile (its JSON, as `--format json`
 * prints it and `--save` stores it; `origin` names it in messages): the
 * fast and slow tiers are the profile's recommended node sets, each tier's
 * latency and bandwidth the mean of its measured nodes (latency_ns,
 * read_gbs); migration from the profile's measured move throughput when
 * it has one, else the assumed defaults above. -EINVAL with the reason.
 */
int tl_tier_model_from_probe(const char *origin, const char *json, struct tl_tier_model *m, struct tl_error *err);
void tl_tier_model_release(struct tl_tier_model *m);

/*
 * Writes m as a model file (the format tl_tier_model_load reads, with
 * libyaml's emitter), with its workload section when calibrated. 0, or
 * -EIO with why.
 */
int tl_tier_model_save(const struct tl_tier_model *m, FILE *out, char *why, size_t whylen);

/* The seconds one interval takes (t_i above). */
double tl_tier_model_time(const struct tl_tier_model *m, const struct tl_model_traffic *x);

/* Seconds per byte of program traffic with every byte on the slow (fast) tier: g_slow (g_fast). */
double tl_tier_model_per_byte(const struct tl_tier_model *m, bool fast);

/* The model's time of a replay's result (sum of t_i, recorded seconds scale: all-slow = the recording). */
double tl_tier_model_run_time(const struct tl_tier_model *m, const struct tl_sim_result *r,
			      const struct tl_model_place *pl);

/* The estimate (all-fast time / this time, 1 = as fast as all-fast) of a replay's result. */
double tl_tier_model_estimate(const struct tl_tier_model *m, const struct tl_sim_result *r,
			      const struct tl_model_place *pl);

/*
 * Model seconds per recorded second of one interval (t_i / Delta_i), for
 * the replay's pacer: a move's duration in model time is converted to the
 * recording's time with it. ctx is a struct tl_model_pacer.
 */
struct tl_model_pacer {
	const struct tl_tier_model *m;
	struct tl_model_place place;
};
double tl_tier_model_pace(void *ctx, const struct tl_sim_interval *iv, double interval_s);

#endif
