/*
 * lru: the fast tier holds the most recently sampled chunks.
 *
 * The fast chunks form one recency list (head: most recent). A sample in a
 * fast chunk moves it to the head; a sample in a slow chunk promotes it to
 * the head, demoting the tail first when the fast tier is full. New chunks
 * go fast in allocation order while there is room (each enters at the head,
 * so the last chunk of an allocation is the most recent), the rest slow;
 * this is SHAMBLES's "into fast memory until full". A budget shrink
 * demotes from the tail; a grow promotes nothing (the policy knows no
 * recency for slow chunks) and the next misses fill the room. When a
 * call's decision array is too short for the whole excess (a large
 * shrink), the rest is demoted by the next calls before any promotion.
 * Every call is O(1) per decision.
 */
#include "policies/chunk-list.h"
#include "policies/policy.h"

struct lru {
	uint32_t max_chunks, budget;
	struct tlp_links links;
	uint8_t *fast;			/* per chunk id: in the list */
	struct tlp_list list;
	void (*free)(void *p, size_t bytes);
	size_t memlen;
};

static void *lru_init(const struct tlp_params *p)
{
	size_t off = 0;
	struct lru *l;
	char *base;

	tlp_carve(NULL, &off, sizeof(*l));
	tlp_carve(NULL, &off, sizeof(uint32_t) * p->max_chunks);
	tlp_carve(NULL, &off, sizeof(uint32_t) * p->max_chunks);
	tlp_carve(NULL, &off, p->max_chunks);
	if (!(base = p->alloc(off)))
		return NULL;
	l = (struct lru *)base;
	l->memlen = off;
	off = 0;
	tlp_carve(base, &off, sizeof(*l));
	l->links.prev = tlp_carve(base, &off, sizeof(uint32_t) * p->max_chunks);
	l->links.next = tlp_carve(base, &off, sizeof(uint32_t) * p->max_chunks);
	l->fast = tlp_carve(base, &off, p->max_chunks);
	l->max_chunks = p->max_chunks;
	l->budget = p->budget_chunks;
	l->free = p->free;
	tlp_list_init(&l->list);
	return l;
}

static int in_range(const struct lru *l, const struct tlp_alloc *a)
{
	return a->first_chunk <= l->max_chunks && a->nchunks <= l->max_chunks - a->first_chunk;
}

static void lru_on_alloc(void *st, const struct tlp_alloc *a, struct tlp_decisions *out)
{
	struct lru *l = st;

	if (!in_range(l, a))
		return;
	for (uint32_t i = 0; i < a->nchunks; i++) {
		uint32_t c = a->first_chunk + i;

		if (l->list.len < l->budget && !tlp_decide(out, c, TLP_FAST)) {
			l->fast[c] = 1;
			tlp_list_push_head(&l->list, &l->links, c);
		} else {
			l->fast[c] = 0;
			tlp_decide(out, c, TLP_SLOW);
		}
	}
}

static void lru_on_free(void *st, const struct tlp_alloc *a)
{
	struct lru *l = st;

	if (!in_range(l, a))
		return;
	for (uint32_t i = 0; i < a->nchunks; i++) {
		uint32_t c = a->first_chunk + i;

		if (l->fast[c])
			tlp_list_remove(&l->list, &l->links, c);
		l->fast[c] = 0;
	}
}

static void demote_tail(struct lru *l, struct tlp_decisions *out)
{
	uint32_t c = l->list.tail;

	tlp_list_remove(&l->list, &l->links, c);
	l->fast[c] = 0;
	tlp_decide(out, c, TLP_SLOW);
}

/* Demote the excess over the budget, as far as the decision array allows. */
static void trim(struct lru *l, struct tlp_decisions *out)
{
	while (l->list.len > l->budget && out->n < out->cap)
		demote_tail(l, out);
}

static void lru_on_sample(void *st, uint32_t c, struct tlp_decisions *out)
{
	struct lru *l = st;

	if (c >= l->max_chunks)
		return;
	/* a hit first, so that an excess left by a budget shrink never takes the chunk just used */
	if (l->fast[c]) {
		tlp_list_remove(&l->list, &l->links, c);
		tlp_list_push_head(&l->list, &l->links, c);
		trim(l, out);
		return;
	}
	trim(l, out);
	if (!l->budget || l->list.len > l->budget)
		return;
	/* a promotion into a full tier needs room for two decisions, demotion first */
	if (l->list.len == l->budget) {
		if (out->cap - out->n < 2)
			return;
		demote_tail(l, out);
	}
	if (tlp_decide(out, c, TLP_FAST))
		return;
	l->fast[c] = 1;
	tlp_list_push_head(&l->list, &l->links, c);
}

static void lru_on_budget(void *st, uint32_t budget, struct tlp_decisions *out)
{
	struct lru *l = st;

	l->budget = budget;
	trim(l, out);
}

static void lru_fini(void *st)
{
	struct lru *l = st;

	l->free(l, l->memlen);
}

static const struct tlp_policy lru_policy = {
	.size = sizeof(struct tlp_policy),
	.abi_version = TLP_ABI_VERSION,
	.name = "lru",
	.init = lru_init,
	.on_alloc = lru_on_alloc,
	.on_free = lru_on_free,
	.on_sample = lru_on_sample,
	.on_budget = lru_on_budget,
	.fini = lru_fini,
	.flags = TLP_DYNAMIC,
};

TLP_POLICY_ENTRY(lru, lru_policy)
