/*
 * bench/overhead's policy: places every chunk of a new allocation in the
 * fast tier while the budget has room (the rest slow) and ignores samples,
 * so a run under it pays for sampling and nothing else - no migration ever
 * follows a sample. Not one of the shipped policies: the benchmark must not
 * depend on how lru or window react to what they see.
 */
#include "policies/tierlab-policy.h"
#include "util/export.h"

struct st {
	const struct tlp_params *p;
	uint8_t *fast;			/* per chunk id: placed fast, so on_free gives the room back */
	uint32_t nfast, budget;
	size_t bytes;
};

static void *init(const struct tlp_params *p)
{
	size_t bytes = sizeof(struct st) + p->max_chunks;
	struct st *s = p->alloc(bytes);

	if (!s)
		return NULL;
	s->p = p;
	s->fast = (uint8_t *)(s + 1);
	s->budget = p->budget_chunks;
	s->bytes = bytes;
	return s;
}

static void on_alloc(void *st, const struct tlp_alloc *a, struct tlp_decisions *out)
{
	struct st *s = st;

	for (uint32_t i = 0; i < a->nchunks; i++) {
		uint32_t c = a->first_chunk + i;
		int fast = s->budget == TLP_UNLIMITED || s->nfast < s->budget;

		s->fast[c] = (uint8_t)fast;
		s->nfast += (uint32_t)fast;
		tlp_decide(out, c, fast ? TLP_FAST : TLP_SLOW);
	}
}

static void on_free(void *st, const struct tlp_alloc *a)
{
	struct st *s = st;

	for (uint32_t i = 0; i < a->nchunks; i++) {
		s->nfast -= s->fast[a->first_chunk + i];
		s->fast[a->first_chunk + i] = 0;
	}
}

static void on_sample(void *st, uint32_t chunk, struct tlp_decisions *out)
{
	(void)st;
	(void)chunk;
	(void)out;
}

static void on_budget(void *st, uint32_t budget, struct tlp_decisions *out)
{
	struct st *s = st;

	/* a shrinking budget is not followed: demotions would be migrations */
	(void)out;
	s->budget = budget;
}

static void fini(void *st)
{
	struct st *s = st;

	s->p->free(s, s->bytes);
}

static const struct tlp_policy policy = {
	.size = sizeof(struct tlp_policy),
	.abi_version = TLP_ABI_VERSION,
	.name = "observe",
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
