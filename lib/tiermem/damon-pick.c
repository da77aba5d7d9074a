/*
 * The damon sampler's draw: one address from one aggregation's regions,
 * so that where it lands follows the program's accesses.
 *
 * Why nr_accesses x size is a region's share of the accesses: DAMON
 * builds regions of pages it takes to be accessed alike, and in each
 * sampling interval checks (and clears) the accessed bit of one randomly
 * chosen page of each region; nr_accesses counts the intervals of the
 * aggregation in which it was found set. nr_accesses / (intervals per
 * aggregation) thus estimates the chance that any one page of the region
 * is accessed in an interval, the same for every page of it. Summed over
 * its pages, the region's accesses are that per-page figure times its
 * page count; drawing regions in proportion to nr_accesses x pages, then a
 * page uniformly within, draws pages in proportion to their estimated
 * access frequency.
 *
 * The estimate saturates: a page touched many times in one interval
 * counts once, so regions touched at least once per interval all weigh
 * by size alone (docs/samplers.md measures what that does).
 *
 * The draw is a weighted reservoir of one: region i, offered after
 * regions of total weight W, replaces the kept one with probability
 * w_i / (W + w_i), which leaves each region kept with probability w_i /
 * (sum of all w). One pass, no array: the regions are read one by one.
 */
#include "tiermem/damon.h"

#define PAGE 4096UL

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

void tlrt_damon_pick_offer(struct tlrt_damon_pick *p, const struct tlrt_damon_region *r, uintptr_t lo, uintptr_t hi)
{
	uint64_t start = r->start > lo ? r->start : lo, end = r->end < hi ? r->end : hi, pages, w;

	start = (start + PAGE - 1) & ~(PAGE - 1);
	end &= ~(PAGE - 1);
	if (end <= start || !r->nr_accesses)
		return;
	pages = (end - start) / PAGE;
	/*
	 * A span of 1 TiB has 2^28 pages and nr_accesses is at most the
	 * intervals per aggregation (20): total stays far below 2^64, and the
	 * modulo's bias is negligible.
	 */
	w = pages * r->nr_accesses;
	p->total += w;
	if (next_random(p->rng) % p->total < w) {
		p->start = (uintptr_t)start;
		p->pages = pages;
	}
}

uintptr_t tlrt_damon_pick_addr(const struct tlrt_damon_pick *p)
{
	if (!p->total)
		return 0;
	return p->start + (uintptr_t)(next_random(p->rng) % p->pages) * PAGE;
}
