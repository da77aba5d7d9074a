/*
 * The static-placement advisor (see advise.h): the knapsack, the replay
 * of its placement and the advice as a spec's policy line. Accesses within
 * an allocation are taken as even: static places the first part of an
 * allocation, so a hot region in its middle is not seen.
 */
#include "simulate/advise.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/param-bounds.h"
#include "simulate/setup.h"

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

int tl_sim_advice_make(const struct tl_trace *t, const struct tl_budget *b, struct tl_sim_advice *a, char *why,
		       size_t whylen)
{
	const struct tl_trace_proc *p = &t->procs[0];
	struct tl_sim_config c;
	void *dl;

	memset(a, 0, sizeof(*a));
	a->budget = b->is_percent ? (uint64_t)(b->fraction * (double)p->peak_bytes) : b->bytes;
	a->frac = calloc(p->nallocs + 1, sizeof(*a->frac));
	if (!a->frac || tl_sim_advise(p, a->budget, a->frac)) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	/* 4 KiB chunks: the fractions as chosen, not rounded down to the run's chunks */
	c = (struct tl_sim_config){ .chunk_size = 4096, .fractions = a->frac, .nfractions = p->nallocs,
				    .window = TLP_WINDOW_DEFAULT };
	c.budget_chunks = (uint32_t)(a->budget / c.chunk_size);
	a->chunk_size = c.chunk_size;
	if (!(c.pol = tl_sim_policy_open("static", &dl, why, whylen)))
		return -EINVAL;
	return tl_sim_replay(t, &c, NULL, &a->r, why, whylen);
}

void tl_sim_advice_print(FILE *out, const struct tl_trace_proc *p, const struct tl_sim_advice *a)
{
	char fracs[8192] = "";
	size_t used = 0;

	for (uint32_t i = 0; i < p->nallocs && used + 16 < sizeof(fracs); i++)
		used += (size_t)snprintf(fracs + used, sizeof(fracs) - used, "%s%.4g", i ? ", " : "", a->frac[i]);
	fprintf(out, "# budget %llu bytes of a %llu-byte footprint; %u allocations, %zu samples\n",
		(unsigned long long)a->budget, (unsigned long long)p->peak_bytes, p->nallocs, p->nsamples);
	for (uint32_t i = 0; i < p->nallocs; i++)
		if (a->frac[i] > 0)
			fprintf(out, "#   allocation %u (%llu bytes, %s): fraction %.4g\n", i,
				(unsigned long long)p->allocs[i].bytes,
				p->allocs[i].callsite ? p->allocs[i].callsite : "-", a->frac[i]);
	fprintf(out, "policy: [{static: [%s]}]\n", fracs);
	fprintf(out, "# replayed hit rate %.1f%% (chunk size %llu bytes)\n", 100 * tl_sim_hit_rate(&a->r),
		(unsigned long long)a->chunk_size);
}

void tl_sim_advice_release(struct tl_sim_advice *a)
{
	free(a->frac);
	a->frac = NULL;
}
