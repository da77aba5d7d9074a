/*
 * The placement engine shared by all-fast and static: a fixed number of
 * each allocation's first chunks is "wanted" in the fast tier, placed there
 * while the budget has room, and the budget is kept as it moves.
 *
 *   on_alloc  the first `nwanted` chunks go fast while the fast set is below
 *             the budget; wanted chunks that find no room are "denied" (slow,
 *             queued in allocation order); the other chunks go slow.
 *   shrink    demotes the most recently promoted fast chunks first (a stack),
 *             and queues each at the front of the denied queue;
 *   grow      promotes denied chunks from the front of the queue, so a shrink
 *             followed by a grow of the same size gives back the same set.
 *   free      drops the allocation's chunks; the room it frees is used by
 *             later allocations or the next budget change (no sample ever
 *             moves a chunk).
 *
 * A budget change moves at most out->cap chunks; what is left (an excess
 * or denied chunks for which there is room) is done at the next change.
 */
#ifndef TIERLAB_POLICIES_PLACEMENT_H
#define TIERLAB_POLICIES_PLACEMENT_H

#include "policies/chunk-list.h"
#include "policies/policy.h"

struct tlp_place {
	uint32_t max_chunks, budget;
	struct tlp_links links;		/* one list at a time: fast or denied */
	uint8_t *state;			/* enum in placement.c, per chunk id */
	struct tlp_list fast;		/* head: most recently promoted */
	struct tlp_list denied;		/* head: next to promote */
	void (*free)(void *p, size_t bytes);
	size_t memlen;
	void *mem;
};

/* 0, or -ENOMEM (with nothing to release). */
int tlp_place_init(struct tlp_place *pl, const struct tlp_params *p);
void tlp_place_release(struct tlp_place *pl);
void tlp_place_alloc(struct tlp_place *pl, const struct tlp_alloc *a, uint32_t nwanted,
		     struct tlp_decisions *out);
void tlp_place_free(struct tlp_place *pl, const struct tlp_alloc *a);
void tlp_place_budget(struct tlp_place *pl, uint32_t budget, struct tlp_decisions *out);

#endif
