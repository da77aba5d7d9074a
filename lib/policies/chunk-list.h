/*
 * Intrusive doubly linked lists over chunk ids, for the policies.
 *
 * The links live in two arrays indexed by chunk id (prev, next), owned by
 * the policy and sized max_chunks, so a chunk is in at most one list per
 * pair of arrays and every operation is O(1) with no allocation. Lists are
 * values ({head, tail, len}); TLP_NIL ends them. Header-only so each
 * plugin stays one translation unit of its own.
 *
 * Closed lists (clist) are the other form, for lists changed on every
 * sample: circular, closed by a sentinel that is an id of its own past the
 * chunks (the link arrays are sized for both), whose next is the head and
 * prev the tail. Insertion and removal then take no branch.
 */
#ifndef TIERLAB_POLICIES_CHUNK_LIST_H
#define TIERLAB_POLICIES_CHUNK_LIST_H

#include <stdint.h>

#define TLP_NIL UINT32_MAX

struct tlp_list {
	uint32_t head, tail, len;
};

struct tlp_links {
	uint32_t *prev, *next;
};

static inline void tlp_list_init(struct tlp_list *l)
{
	l->head = l->tail = TLP_NIL;
	l->len = 0;
}

static inline void tlp_list_push_head(struct tlp_list *l, const struct tlp_links *k, uint32_t c)
{
	k->prev[c] = TLP_NIL;
	k->next[c] = l->head;
	if (l->head != TLP_NIL)
		k->prev[l->head] = c;
	else
		l->tail = c;
	l->head = c;
	l->len++;
}

static inline void tlp_list_push_tail(struct tlp_list *l, const struct tlp_links *k, uint32_t c)
{
	k->next[c] = TLP_NIL;
	k->prev[c] = l->tail;
	if (l->tail != TLP_NIL)
		k->next[l->tail] = c;
	else
		l->head = c;
	l->tail = c;
	l->len++;
}

/* c must be in l. */
static inline void tlp_list_remove(struct tlp_list *l, const struct tlp_links *k, uint32_t c)
{
	uint32_t p = k->prev[c], n = k->next[c];

	if (p != TLP_NIL)
		k->next[p] = n;
	else
		l->head = n;
	if (n != TLP_NIL)
		k->prev[n] = p;
	else
		l->tail = p;
	k->prev[c] = k->next[c] = TLP_NIL;
	l->len--;
}

static inline void tlp_clist_init(const struct tlp_links *k, uint32_t s)
{
	k->prev[s] = k->next[s] = s;
}

static inline int tlp_clist_empty(const struct tlp_links *k, uint32_t s)
{
	return k->next[s] == s;
}

static inline void tlp_clist_push_head(const struct tlp_links *k, uint32_t s, uint32_t c)
{
	uint32_t h = k->next[s];

	k->next[c] = h;
	k->prev[c] = s;
	k->prev[h] = c;
	k->next[s] = c;
}

/* c must be in a closed list. */
static inline void tlp_clist_remove(const struct tlp_links *k, uint32_t c)
{
	uint32_t p = k->prev[c], n = k->next[c];

	k->next[p] = n;
	k->prev[n] = p;
}

#endif
