/*
 * A policy for the runtime's own tests (not one of the shipped policies in
 * lib/policies/): LRU over sampled chunks, written independently so the
 * core's tests exercise promotions, demotions, budget refusals and on_budget
 * without waiting for the policies part. TIERLAB_POLICY_ARGS=greedy makes it
 * promote without demoting first, so the core's budget refusal is tested.
 */
#include <string.h>

#include "policies/tierlab-policy.h"
#include "util/export.h"

#define NIL UINT32_MAX

struct st {
	const struct tlp_params *p;
	uint32_t *prev, *next;
	uint8_t *fast;
	uint32_t head, tail, nfast, budget;
	int greedy;
	size_t bytes;
};

static void unlink_chunk(struct st *s, uint32_t c)
{
	if (s->prev[c] != NIL)
		s->next[s->prev[c]] = s->next[c];
	else
		s->head = s->next[c];
	if (s->next[c] != NIL)
		s->prev[s->next[c]] = s->prev[c];
	else
		s->tail = s->prev[c];
	s->fast[c] = 0;
	s->nfast--;
}

static void push_head(struct st *s, uint32_t c)
{
	s->prev[c] = NIL;
	s->next[c] = s->head;
	if (s->head != NIL)
		s->prev[s->head] = c;
	s->head = c;
	if (s->tail == NIL)
		s->tail = c;
	s->fast[c] = 1;
	s->nfast++;
}

static void *init(const struct tlp_params *p)
{
	size_t n = p->max_chunks;
	size_t bytes = sizeof(struct st) + n * (2 * sizeof(uint32_t) + 1);
	char *m = p->alloc(bytes);
	struct st *s = (struct st *)m;

	if (!m)
		return NULL;
	s->p = p;
	s->bytes = bytes;
	s->prev = (uint32_t *)(m + sizeof(*s));
	s->next = s->prev + n;
	s->fast = (uint8_t *)(s->next + n);
	s->head = s->tail = NIL;
	s->budget = p->budget_chunks;
	s->greedy = p->args && !strcmp(p->args, "greedy");
	return s;
}

static void on_alloc(void *st, const struct tlp_alloc *a, struct tlp_decisions *out)
{
	struct st *s = st;

	/* even chunks of an allocation start fast while there is room */
	for (uint32_t i = 0; i < a->nchunks; i++) {
		uint32_t c = a->first_chunk + i;

		if (i % 2 == 0 && s->nfast < s->budget) {
			push_head(s, c);
			tlp_decide(out, c, TLP_FAST);
		} else {
			tlp_decide(out, c, TLP_SLOW);
		}
	}
}

static void on_free(void *st, const struct tlp_alloc *a)
{
	struct st *s = st;

	for (uint32_t i = 0; i < a->nchunks; i++)
		if (s->fast[a->first_chunk + i])
			unlink_chunk(s, a->first_chunk + i);
}

static void on_sample(void *st, uint32_t c, struct tlp_decisions *out)
{
	struct st *s = st;

	if (s->fast[c]) {
		unlink_chunk(s, c);
		push_head(s, c);
		return;
	}
	if (s->greedy) {
		/* ask anyway: the core must refuse when the tier is full */
		if (tlp_decide(out, c, TLP_FAST) == 0 && s->nfast < s->budget)
			push_head(s, c);
		return;
	}
	if (!s->budget)
		return;
	if (s->nfast >= s->budget) {
		uint32_t victim = s->tail;

		unlink_chunk(s, victim);
		tlp_decide(out, victim, TLP_SLOW);
	}
	push_head(s, c);
	tlp_decide(out, c, TLP_FAST);
}

static void on_budget(void *st, uint32_t budget, struct tlp_decisions *out)
{
	struct st *s = st;

	s->budget = budget;
	while (s->nfast > budget && out->n < out->cap) {
		uint32_t victim = s->tail;

		unlink_chunk(s, victim);
		tlp_decide(out, victim, TLP_SLOW);
	}
}

static void fini(void *st)
{
	struct st *s = st;

	s->p->free(s, s->bytes);
}

static const struct tlp_policy policy = {
	.size = sizeof(struct tlp_policy),
	.abi_version = TLP_ABI_VERSION,
	.name = "test-lru",
	.init = init,
	.on_alloc = on_alloc,
	.on_free = on_free,
	.on_sample = on_sample,
	.on_budget = on_budget,
	.fini = fini,
};

TL_EXPORT const struct tlp_policy *tierlab_policy(void)
{
	return &policy;
}
