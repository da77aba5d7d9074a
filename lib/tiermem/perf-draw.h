/*
 * The perf sampler's draw: at each tick, one access record chosen
 * uniformly among those read since the last tick whose address lies in
 * the managed span, by reservoir sampling with a reservoir of one (the
 * k-th such record replaces the choice with probability 1/k). The PMU
 * records accesses in proportion to how often they happen, so the tick's
 * one sample lands where the recorded accesses landed. Header-only: the
 * sampler and its tests include it.
 */
#ifndef TLRT_PERF_DRAW_H
#define TLRT_PERF_DRAW_H

#include "tiermem/rt-sampler.h"

#include <stdint.h>

struct tlrt_perf_draw {
	uintptr_t lo, hi;	/* the span, [lo, hi); empty when lo == hi */
	uint64_t *rng;		/* xorshift64 state, never 0, kept across ticks */
	uint64_t eligible;	/* records in the span offered since begin */
	struct rt_sample pick;	/* the choice, when eligible > 0 */
};

static inline uint64_t tlrt_perf_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline void tlrt_perf_draw_begin(struct tlrt_perf_draw *d, uintptr_t lo, uintptr_t hi, uint64_t *rng)
{
	d->lo = lo;
	d->hi = hi;
	d->rng = rng;
	d->eligible = 0;
	d->pick = (struct rt_sample){ 0 };
}

/* 1 when s lies in the span (and took part in the draw), else 0. */
static inline int tlrt_perf_draw_offer(struct tlrt_perf_draw *d, const struct rt_sample *s)
{
	if (s->addr < d->lo || s->addr >= d->hi)
		return 0;
	/* 64 random bits modulo a count far below 2^64: the bias is negligible */
	if (tlrt_perf_random(d->rng) % ++d->eligible == 0)
		d->pick = *s;
	return 1;
}

#endif
