/*
 * The budget-capped placement engine behind all-fast and static (the rules
 * are in placement.h). Every operation is O(1) per chunk it touches: the
 * fast set is a stack and the denied chunks a queue, both intrusive lists
 * over chunk ids.
 */
#include "policies/placement.h"

#include <errno.h>

enum { ST_NONE, ST_FAST, ST_DENIED, ST_SLOW };

int tlp_place_init(struct tlp_place *pl, const struct tlp_params *p)
{
	size_t off = 0;
	char *base;

	*pl = (struct tlp_place){ .max_chunks = p->max_chunks, .budget = p->budget_chunks, .free = p->free };
	tlp_carve(NULL, &off, sizeof(uint32_t) * p->max_chunks);
	tlp_carve(NULL, &off, sizeof(uint32_t) * p->max_chunks);
	tlp_carve(NULL, &off, p->max_chunks);
	base = p->alloc(off ? off : 1);
	if (!base)
		return -ENOMEM;
	pl->mem = base;
	pl->memlen = off ? off : 1;
	off = 0;
	pl->links.prev = tlp_carve(base, &off, sizeof(uint32_t) * p->max_chunks);
	pl->links.next = tlp_carve(base, &off, sizeof(uint32_t) * p->max_chunks);
	pl->state = tlp_carve(base, &off, p->max_chunks);
	tlp_list_init(&pl->fast);
	tlp_list_init(&pl->denied);
	return 0;
}

void tlp_place_release(struct tlp_place *pl)
{
	if (pl->mem)
		pl->free(pl->mem, pl->memlen);
	pl->mem = NULL;
}

static int in_range(const struct tlp_place *pl, const struct tlp_alloc *a)
{
	return a->first_chunk <= pl->max_chunks && a->nchunks <= pl->max_chunks - a->first_chunk;
}

void tlp_place_alloc(struct tlp_place *pl, const struct tlp_alloc *a, uint32_t nwanted,
		     struct tlp_decisions *out)
{
	if (!in_range(pl, a))
		return;
	for (uint32_t i = 0; i < a->nchunks; i++) {
		uint32_t c = a->first_chunk + i;

		/* a fast decision the core cannot receive would leave our view wrong: deny instead */
		if (i < nwanted && pl->fast.len < pl->budget && out->n < out->cap) {
			pl->state[c] = ST_FAST;
			tlp_list_push_head(&pl->fast, &pl->links, c);
		} else if (i < nwanted) {
			pl->state[c] = ST_DENIED;
			tlp_list_push_tail(&pl->denied, &pl->links, c);
		} else {
			pl->state[c] = ST_SLOW;
		}
		/* a lost slow decision is harmless: the core places undecided chunks slow */
		tlp_decide(out, c, pl->state[c] == ST_FAST ? TLP_FAST : TLP_SLOW);
	}
}

void tlp_place_free(struct tlp_place *pl, const struct tlp_alloc *a)
{
	if (!in_range(pl, a))
		return;
	for (uint32_t i = 0; i < a->nchunks; i++) {
		uint32_t c = a->first_chunk + i;

		if (pl->state[c] == ST_FAST)
			tlp_list_remove(&pl->fast, &pl->links, c);
		else if (pl->state[c] == ST_DENIED)
			tlp_list_remove(&pl->denied, &pl->links, c);
		pl->state[c] = ST_NONE;
	}
}

void tlp_place_budget(struct tlp_place *pl, uint32_t budget, struct tlp_decisions *out)
{
	pl->budget = budget;
	while (pl->fast.len > budget && out->n < out->cap) {
		uint32_t c = pl->fast.head;

		tlp_list_remove(&pl->fast, &pl->links, c);
		tlp_list_push_head(&pl->denied, &pl->links, c);
		pl->state[c] = ST_DENIED;
		tlp_decide(out, c, TLP_SLOW);
	}
	while (pl->fast.len < budget && pl->denied.len && out->n < out->cap) {
		uint32_t c = pl->denied.head;

		tlp_list_remove(&pl->denied, &pl->links, c);
		tlp_list_push_head(&pl->fast, &pl->links, c);
		pl->state[c] = ST_FAST;
		tlp_decide(out, c, TLP_FAST);
	}
}
