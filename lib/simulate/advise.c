/*
 * The static-placement advisor (see advise.h). Accesses within an
 * allocation are taken as even: static places the first part of an
 * allocation, so a hot region in its middle is not seen.
 */
#include "simulate/advise.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

struct cand {
	uint32_t seq;
	uint64_t bytes, samples;
};

static int by_density(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	/* samples per byte, compared without division */
	long double l = (long double)x->samples * y->bytes, r = (long double)y->samples * x->bytes;

	return l > r ? -1 : l < r ? 1 : x->seq < y->seq ? -1 : 1;
}

int tl_sim_advise(const struct tl_trace_proc *p, uint64_t budget, double *frac)
{
	struct cand *cv = calloc(p->nallocs + 1, sizeof(*cv));
	uint64_t left = budget;

	if (!cv)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nallocs; i++) {
		cv[i] = (struct cand){ i, p->allocs[i].bytes ? p->allocs[i].bytes : 1, 0 };
		frac[i] = 0;
	}
	for (size_t i = 0; i < p->nev; i++)
		if (p->ev[i].kind == TL_EV_SAMPLE && p->ev[i].seq != TL_TRACE_NONE)
			cv[p->ev[i].seq].samples++;
	qsort(cv, p->nallocs, sizeof(*cv), by_density);
	for (uint32_t i = 0; i < p->nallocs && left && cv[i].samples; i++) {
		double f = cv[i].bytes <= left ? 1.0 : floor((double)left / (double)cv[i].bytes * 1e4) / 1e4;

		frac[cv[i].seq] = f;
		left -= f == 1.0 ? cv[i].bytes : (uint64_t)ceil(f * (double)cv[i].bytes);
	}
	free(cv);
	return 0;
}
