/*
 * The static-placement advisor (tierlab simulate --advise): from one
 * trace, the fast fraction of each allocation that keeps the most sampled
 * accesses in the fast tier within a budget.
 */
#ifndef TL_SIMULATE_ADVISE_H
#define TL_SIMULATE_ADVISE_H

#include <stdint.h>
#include <stdio.h>

#include "simulate/replay.h"
#include "simulate/trace.h"
#include "util/units.h"

/*
 * Fills frac[0 .. p->nallocs) (allocation order, the static policy's
 * fractions) by fractional knapsack: allocations by sampled accesses per
 * byte, the densest whole, the next one in part, until `budget` bytes
 * (summed over allocations, whether or not they live at once). Fractions
 * are rounded down to 1e-4, so the printed placement is the one that
 * fits. 0 or -ENOMEM.
 */
int tl_sim_advise(const struct tl_trace_proc *p, uint64_t budget, double *frac);

/* What --advise prints: the placement for the first process and its replay. */
struct tl_sim_advice {
	uint64_t budget;		/* bytes: b resolved against the first process's peak */
	double *frac;			/* tl_sim_advise()'s, the first process's allocations */
	uint64_t chunk_size;		/* of the replay */
	struct tl_sim_result r;		/* the whole trace replayed under static with frac */
};

/*
 * Advises the first process of t for budget b and replays the trace with
 * that placement into *a (released with tl_sim_advice_release, also after
 * a failure). 0, or -ENOMEM or -EINVAL with why.
 */
int tl_sim_advice_make(const struct tl_trace *t, const struct tl_budget *b, struct tl_sim_advice *a, char *why,
		       size_t whylen);

/* The advice as comments and a spec's policy line, for p (the process it was made for). */
void tl_sim_advice_print(FILE *out, const struct tl_trace_proc *p, const struct tl_sim_advice *a);

void tl_sim_advice_release(struct tl_sim_advice *a);

#endif
