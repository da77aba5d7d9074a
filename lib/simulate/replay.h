/*
 * Replay: a trace's events through a policy, as the runtime's core would
 * have handled them, with a placement map instead of memory. The policy is
 * the same code the runtime loads (a built-in from libpolicies.a, or a
 * plugin opened with dlopen as policy-load.c does); the rules for applying
 * its decisions are the runtime's own (policies/core-rules.h). Nothing is
 * moved: a migration is a counter and a changed map entry.
 *
 * One configuration at a time; a replay allocates its placement map and
 * the policy's state, and frees both before it returns.
 */
#ifndef TL_SIMULATE_REPLAY_H
#define TL_SIMULATE_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "policies/tierlab-policy.h"
#include "simulate/trace.h"
#include "util/direction.h"

/* Placement and migration directions, in the runtime's order (its log's names). */

#define TL_SIM_OCC_POINTS 32	/* fast-tier occupancy: this many points over the trace's time */
#define TL_SIM_INTERVALS 64	/* the tier model's intervals: this many, evenly over the trace's time */

/* What the tier model needs of one interval (model.h): its samples by tier and its migration traffic. */
struct tl_sim_interval {
	uint64_t fast, slow;		/* samples in managed chunks by tier (a chunk moving counts slow) */
	uint64_t outside;		/* samples outside this configuration's managed memory */
	double moved_bytes;		/* migrations (not placements) that began in the interval */
};

struct tl_sim_config {
	const struct tlp_policy *pol;
	uint64_t chunk_size;		/* bytes, a multiple of 4 KiB */
	uint32_t budget_chunks;		/* TLP_UNLIMITED: no budget */
	double dynamic_fraction;	/* > 0: budget = floor(f * live chunks), as the runtime does */
	uint32_t window;
	const char *args;		/* may be NULL */
	const double *fractions;
	uint32_t nfractions;
	double rate_hz;			/* thin the samples to this rate; 0 or >= the rate the recording delivered: all of them */
	uint64_t threshold;		/* allocations below it are not managed (0: every recorded one is) */
	uint64_t seed;			/* of the thinned ticks' jitter */
	/*
	 * When a sample's moves run, as the runtime runs them: they start
	 * when the drain that handled it began (the log's D record; the
	 * sample's own time in logs without one, or when thinned), one after
	 * another, each taking move_cost_us + bytes / move_gbs (a tier
	 * model's migration figures; 0 and 0: no time). With recorded_moves
	 * (a replay of the run's own configuration, whose moves are the
	 * run's) each takes the times the run logged. A sample counts the
	 * tier its chunk was on at the sample's time: the one it left before
	 * its move, a miss during it.
	 */
	double move_gbs, move_cost_us;
	bool recorded_moves;
	/*
	 * With a tier model, moves take model time: at the end of each
	 * interval pace (if set) returns the model seconds one recorded
	 * second of it took, and the next interval's moves last
	 * (move_cost_us + bytes / move_gbs) / pace recorded seconds.
	 */
	double (*pace)(void *ctx, const struct tl_sim_interval *iv, double interval_s);
	void *pace_ctx;
};

struct tl_sim_result {
	uint64_t samples, samples_managed, hits, misses;
	uint64_t moves[TL_DIR__COUNT], bytes[TL_DIR__COUNT];
	uint64_t refused;		/* promotions refused for the budget */
	uint64_t in_motion;		/* samples (misses) in a chunk whose move had not completed */
	double occupancy[TL_SIM_OCC_POINTS];	/* fast-tier bytes, at evenly spaced times */
	uint64_t fast_peak_bytes;
	struct tl_sim_interval iv[TL_SIM_INTERVALS];	/* summed over processes */
	double interval_s;		/* recorded seconds per interval */
};

/* What a replay decides, as it decides it (for the equivalence check); any may be NULL. */
struct tl_sim_hooks {
	void *ctx;
	void (*sample)(void *ctx, const struct tl_trace_proc *p, size_t ev, int32_t chunk, int hit);
	void (*move)(void *ctx, const struct tl_trace_proc *p, uint32_t chunk, enum tl_direction dir);
};

/*
 * Replays every process of t under c into *res (zeroed first). 0, or
 * -ENOMEM, or -EINVAL with why (the policy's init refused its parameters,
 * a policy without on_alloc).
 */
int tl_sim_replay(const struct tl_trace *t, const struct tl_sim_config *c, const struct tl_sim_hooks *hooks,
		  struct tl_sim_result *res, char *why, size_t whylen);

/*
 * Adds r into *total: counters, occupancy and intervals summed (processes
 * side by side), the longest interval kept.
 */
void tl_sim_result_add(struct tl_sim_result *total, const struct tl_sim_result *r);

/* hits / samples_managed, or 0 when there were none. */
double tl_sim_hit_rate(const struct tl_sim_result *r);

#endif
