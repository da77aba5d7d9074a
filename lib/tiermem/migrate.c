/*
 * Placement and migration of chunks: a move_pages() status query counts
 * the chunk's pages not yet where it goes (the bytes a move reports), then
 * mbind(MPOL_BIND, MPOL_MF_MOVE) over its range, then a second query to
 * see where its pages really are, then the chunk goes back under the arena's one policy
 * (tlrt_region_settle): managed memory must stay one VMA (region.c), and
 * its pages stay where they were put. Pages not present (-ENOENT: the program dropped them) need
 * nothing. A page reported -EBUSY right after a huge-page move
 * is asked again (the guest showed such pages on the target node a moment
 * later) and only counts as a failure if it stays busy.
 *
 * When fast and slow are the same node set (a one-node machine), every
 * call is still made and counted, so everything but the physical move is
 * exercised; the runtime says so once.
 */
#include "tiermem/rt.h"

#include <errno.h>
#include <numaif.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define QUERY_BATCH 512
#define BUSY_RETRIES 3

/* "0", "1,3": the nodes of a mask, for messages. */
static void mask_text(char *buf, size_t len, const unsigned long *mask)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned node = 0; node < TLRT_NODE_WORDS * 64 && used + 8 < len; node++)
		if (mask[node / 64] >> (node % 64) & 1)
			used += (size_t)snprintf(buf + used, len - used, "%s%u", used ? "," : "", node);
}

int tlrt_nodes_init(char *why, size_t whylen)
{
	char text[128];

	if (tlrt_options_nodes(&tlrt.opt.fast, tlrt.fast_mask, TLRT_NODE_WORDS, why, whylen) ||
	    tlrt_options_nodes(&tlrt.opt.slow, tlrt.slow_mask, TLRT_NODE_WORDS, why, whylen))
		return -EINVAL;
	tlrt.same_node = !memcmp(tlrt.fast_mask, tlrt.slow_mask, sizeof(tlrt.fast_mask));
	if (tlrt.same_node && tlrt.opt.mempolicy) {
		mask_text(text, sizeof(text), tlrt.fast_mask);
		tlrt_say("fast and slow tiers are both node %s: the memory policy '%s' is applied to managed memory "
			 "over node %s alone, where every page would be anyway", text,
			 tlrt_mempolicy_names[tlrt.opt.mempolicy], text);
	} else if (tlrt.same_node) {
		mask_text(text, sizeof(text), tlrt.fast_mask);
		tlrt_say("fast and slow tiers are both node %s: placement calls are made and counted, nothing moves",
			 text);
	}
	return 0;
}

static int in_mask(const unsigned long *mask, int node)
{
	return node >= 0 && node < TLRT_NODE_WORDS * 64 && (mask[node / 64] >> (node % 64) & 1);
}

/*
 * Nothing there to place: never touched (-ENOENT), or only read so far and
 * backed by the shared zero page, which the status query reports as
 * -EFAULT (follow_page with FOLL_DUMP).
 */
static int no_page(int status)
{
	return status == -ENOENT || status == -EFAULT;
}

/* Where the pages [first, first+n) of addr are: status[] (move_pages, no move). Lock held. */
static int query(uintptr_t addr, uint64_t first, unsigned long n, int *status)
{
	static void *pages[QUERY_BATCH];

	for (unsigned long i = 0; i < n; i++)
		pages[i] = (void *)(addr + (first + i) * TLRT_PAGE);
	return (int)move_pages(0, n, pages, NULL, status, 0);
}

static unsigned long batch(uint64_t npages, uint64_t done)
{
	return npages - done < QUERY_BATCH ? (unsigned long)(npages - done) : QUERY_BATCH;
}

/*
 * Pages of [addr, addr+len) present and not on a node of mask: before a
 * move, those the kernel will move (what "GiB migrated" counts, as
 * vmstat's pgmigrate_success does for a kernel policy; pages never
 * touched, or backed by the zero page, move nothing). On one node, every
 * page present: what would have moved. -1 when the query fails.
 */
static int64_t pages_to_move(uintptr_t addr, uint64_t len, const unsigned long *mask)
{
	static int status[QUERY_BATCH];
	uint64_t npages = len / TLRT_PAGE;
	int64_t moving = 0;

	for (uint64_t done = 0; done < npages;) {
		unsigned long n = batch(npages, done);

		if (query(addr, done, n, status))
			return -1;
		for (unsigned long i = 0; i < n; i++)
			moving += status[i] >= 0 && (tlrt.same_node || !in_mask(mask, status[i]));
		done += n;
	}
	return moving;
}

/* 0 when every present page of [addr, addr+len) is on a node of mask. Lock held (static buffers). */
static int verify(uintptr_t addr, uint64_t len, const unsigned long *mask)
{
	static int status[QUERY_BATCH];
	uint64_t npages = len / TLRT_PAGE;

	for (uint64_t done = 0; done < npages;) {
		unsigned long n = batch(npages, done);
		int busy;

		for (int attempt = 0;; attempt++) {
			if (query(addr, done, n, status))
				return -1;
			busy = 0;
			for (unsigned long i = 0; i < n; i++) {
				if (status[i] == -EBUSY)
					busy = 1;
				else if (status[i] >= 0 ? !in_mask(mask, status[i]) : !no_page(status[i]))
					return -1;
			}
			if (!busy)
				break;
			if (attempt == BUSY_RETRIES)
				return -1;
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		}
		done += n;
	}
	return 0;
}

int tlrt_migrate(uint32_t chunk, enum tlp_tier to, int initial)
{
	static const enum rt_stat count[4] = {
		RT_STAT_mig_initial_fast, RT_STAT_mig_initial_slow,
		RT_STAT_mig_slow_to_fast, RT_STAT_mig_fast_to_slow,
	};
	static const enum rt_stat bytes[4] = {
		RT_STAT_bytes_initial_fast, RT_STAT_bytes_initial_slow,
		RT_STAT_bytes_slow_to_fast, RT_STAT_bytes_fast_to_slow,
	};
	struct tlrt_chunk *c = &tlrt.chunks[chunk];
	const unsigned long *mask = to == TLP_FAST ? tlrt.fast_mask : tlrt.slow_mask;
	int dir = initial ? (to == TLP_FAST ? TL_DIR_INITIAL_FAST : TL_DIR_INITIAL_SLOW)
			  : (to == TLP_FAST ? TL_DIR_SLOW_TO_FAST : TL_DIR_FAST_TO_SLOW);
	int64_t moving = 0;
	int saved = errno, bound, ok;
	uint64_t start = tlrt_now_ns();

	/*
	 * An initial placement finds no page on another tier (a fresh chunk
	 * has none; a reused one, cache.c, has dropped those that were not on
	 * this tier), so it asks for no move: the move would walk every page
	 * of a reused region to find none. (The 511 pages the guest once
	 * found on the other node under THP always were the arena's first
	 * touch, region.c, not a placement.)
	 */
	if (initial)
		tlrt_cache_place(c, to);
	else
		tlrt_sampler_release(c->addr, c->len);
	/* a page first touched while the chunk moves must land where it is going */
	__atomic_store_n(&c->touch_tier, (uint8_t)to, __ATOMIC_RELEASE);
	if (!initial && (moving = pages_to_move(c->addr, c->len, mask)) < 0)
		moving = (int64_t)(c->len / TLRT_PAGE);
	bound = ok = !mbind((void *)c->addr, c->len, MPOL_BIND, mask, TLRT_NODE_WORDS * 64 + 1,
			    initial ? 0 : MPOL_MF_MOVE);
	if (ok) {
		tlrt_stat_add(count[dir], 1);
		/* a placement counts the chunk; a move the pages it found to move */
		tlrt_stat_add(bytes[dir], initial ? c->len : (uint64_t)moving * TLRT_PAGE);
		/* before first touch there is nothing to check */
		if (!initial && verify(c->addr, c->len, mask)) {
			tlrt_stat_add(RT_STAT_mig_failed, 1);
			ok = 0;
		}
		/* placed: back under the arena's policy unless chunks keep theirs (region.c); populate settles initial ones */
		if (!initial)
			tlrt_region_placed(c->addr, c->len);
	} else {
		tlrt_stat_add(RT_STAT_mig_failed, 1);
		if (!initial)
			__atomic_store_n(&c->touch_tier, c->tier, __ATOMIC_RELEASE);
	}
	if (!initial && bound) {
		/* when the chunk was on neither tier for a sample (core.c) */
		c->move_start_ns = start;
		c->move_end_ns = tlrt_now_ns();
	}
	tlrt_log_migration(chunk, dir, ok, start);
	errno = saved;
	/* the bind policy is in place once mbind succeeded, whatever pages stayed behind */
	return bound ? 0 : -1;
}
