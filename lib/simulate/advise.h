/*
 * The static-placement advisor (tierlab simulate --advise): from one
 * trace, the fast fraction of each allocation that keeps the most sampled
 * accesses in the fast tier within a budget.
 */
#ifndef TL_SIMULATE_ADVISE_H
#define TL_SIMULATE_ADVISE_H

#include <stdint.h>

#include "simulate/trace.h"

/*
 * Fills frac[0 .. p->nallocs) (allocation order, the static policy's
 * fractions) by fractional knapsack: allocations by sampled accesses per
 * byte, the densest whole, the next one in part, until `budget` bytes
 * (summed over allocations, whether or not they live at once). Fractions
 * are rounded down to 1e-4, so the printed placement is the one that
 * fits. 0 or -ENOMEM.
 */
int tl_sim_advise(const struct tl_trace_proc *p, uint64_t budget, double *frac);

#endif
