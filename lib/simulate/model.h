/*
 * Tier models (experiments/machines/NAME.yaml, docs/simulate.md): per tier
 * latency and bandwidth, the cost of migration, and how a replay's
 * counts become an estimated performance relative to all-fast:
 *
 *   c_t   = 1 / bandwidth_t (bound: bandwidth) or latency_t (bound: latency)
 *   T/T0  = (1 - m) + m * (h + (1 - h) * c_slow / c_fast)
 *   T     = T0 * that + migrated bytes / migration bandwidth
 *                    + migrations * cost per migration
 *   estimate = T0 / T
 *
 * with h the replayed hit rate, m the model's memory_fraction (the share
 * of the all-fast run time spent waiting on memory) and T0 the trace's
 * length, taken as the all-fast run time. Initial placements are free (the
 * first touch pays them in every configuration).
 */
#ifndef TL_SIMULATE_MODEL_H
#define TL_SIMULATE_MODEL_H

#include <stdbool.h>

#include "simulate/replay.h"
#include "util/error.h"

/* What a model from a probe profile assumes (the shipped models' values). */
#define TL_MODEL_MIGRATION_GBS 4.0
#define TL_MODEL_MIGRATION_COST_US 50.0
#define TL_MODEL_MEMORY_FRACTION 0.9

struct tl_tier_model_tier {
	char *name;
	double latency_ns, bandwidth_gbs;
};

struct tl_tier_model {
	char *name, *description;
	struct tl_tier_model_tier fast, slow;
	double migration_gbs;		/* bytes moved per second by migration, GB/s */
	double migration_cost_us;	/* fixed cost of one migration */
	bool latency_bound;		/* bound: latency (else bandwidth) */
	double memory_fraction;		/* m, in [0, 1] */
};

/* Reads a model file. 0, or -EINVAL/-errno with "FILE:LINE:COL: field: message" in err. */
int tl_tier_model_load(const char *path, struct tl_tier_model *m, struct tl_error *err);

/*
 * A model from a `tierlab probe` profile (its JSON, as `--format json`
 * prints it and `--save` stores it; `origin` names it in messages): the
 * fast and slow tiers are the profile's recommended node sets, each tier's
 * latency and bandwidth the mean of its measured nodes (latency_ns,
 * read_gbs). The probe measures neither migration nor the workload, so
 * those are the defaults of the shipped models (docs/simulate.md).
 * -EINVAL with the reason (no slow tier, a tier with no measured node).
 */
int tl_tier_model_from_probe(const char *origin, const char *json, struct tl_tier_model *m, struct tl_error *err);
void tl_tier_model_release(struct tl_tier_model *m);

/* The estimate (T0 / T, 1 = as fast as all-fast) for a replay's result, the trace T0 long. */
double tl_tier_model_estimate(const struct tl_tier_model *m, const struct tl_sim_result *r, double t0_s);

#endif
