/*
 * The rules by which a core applies a policy's decisions, shared by the
 * live runtime (lib/tiermem/core.c) and the offline replay
 * (lib/simulate/replay.c), so the two cannot drift apart: which decision
 * moves a chunk, which is refused for the budget, how much room each call
 * gets, and what a percentage budget is at a given footprint. Nothing here
 * touches memory; the caller moves (or pretends to move) the chunk.
 */
#ifndef TIERLAB_POLICIES_CORE_RULES_H
#define TIERLAB_POLICIES_CORE_RULES_H

#include <math.h>
#include <stdint.h>

#include "policies/tierlab-policy.h"

enum tlp_step {
	TLP_STEP_SKIP,		/* not a live chunk, or already there */
	TLP_STEP_REFUSED,	/* a promotion beyond the budget: counted, nothing moves */
	TLP_STEP_MOVE,		/* place or migrate it */
};

/*
 * One decision "to `to`" for a chunk in state (live, placed, tier), with
 * `fast` chunks in the fast tier and a budget of `budget`. `first` is set
 * when the move is the chunk's initial placement (on_alloc, not yet
 * placed): that one happens even when the chunk is already on `to`.
 */
static inline enum tlp_step tlp_core_step(int live, int placed, unsigned tier, unsigned to, int initial,
					  uint32_t fast, uint32_t budget, int *first)
{
	*first = initial && !placed;
	if (!live || (!*first && tier == to))
		return TLP_STEP_SKIP;
	if (to == TLP_FAST && fast >= budget)
		return TLP_STEP_REFUSED;
	return TLP_STEP_MOVE;
}

/* Room for on_alloc's decisions: one per chunk, at least TLP_SAMPLE_DECISIONS, at most cap. */
static inline uint32_t tlp_core_alloc_room(uint32_t nchunks, uint32_t cap)
{
	uint32_t n = nchunks < cap ? nchunks : cap;

	return n < TLP_SAMPLE_DECISIONS ? TLP_SAMPLE_DECISIONS : n;
}

/* Room for on_budget's decisions: the change, at least TLP_SAMPLE_DECISIONS, at most cap. */
static inline uint32_t tlp_core_budget_room(uint32_t old, uint32_t nb, uint32_t cap)
{
	uint32_t change = nb > old ? nb - old : old - nb;
	uint32_t n = change > TLP_SAMPLE_DECISIONS ? change : TLP_SAMPLE_DECISIONS;

	return n > cap ? cap : n;
}

/* A percentage budget (fraction > 0) over `live` managed chunks. */
static inline uint32_t tlp_core_dynamic_budget(double fraction, uint32_t live)
{
	return (uint32_t)floor(fraction * (double)live);
}

#endif
