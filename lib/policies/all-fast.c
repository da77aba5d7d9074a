/*
 * all-fast: every chunk of every allocation goes to the fast tier, as far
 * as the budget allows (the runtime passes TLP_UNLIMITED for this policy
 * unless a budget is set). The baseline every other policy is measured
 * against. Samples change nothing. The rules for a limited or changing
 * budget are those of the placement engine (placement.h) with every chunk
 * wanted.
 */
#include "policies/placement.h"

static void *all_fast_init(const struct tlp_params *p)
{
	struct tlp_place *pl = p->alloc(sizeof(*pl));

	if (!pl)
		return NULL;
	if (tlp_place_init(pl, p)) {
		p->free(pl, sizeof(*pl));
		return NULL;
	}
	return pl;
}

static void all_fast_on_alloc(void *st, const struct tlp_alloc *a, struct tlp_decisions *out)
{
	tlp_place_alloc(st, a, a->nchunks, out);
}

static void all_fast_on_free(void *st, const struct tlp_alloc *a)
{
	tlp_place_free(st, a);
}

static void all_fast_on_sample(void *st, uint32_t chunk, struct tlp_decisions *out)
{
	(void)st, (void)chunk, (void)out;
}

static void all_fast_on_budget(void *st, uint32_t budget, struct tlp_decisions *out)
{
	tlp_place_budget(st, budget, out);
}

static void all_fast_fini(void *st)
{
	struct tlp_place *pl = st;
	void (*release)(void *, size_t) = pl->free;

	tlp_place_release(pl);
	release(pl, sizeof(*pl));
}

static const struct tlp_policy all_fast_policy = {
	.size = sizeof(struct tlp_policy),
	.abi_version = TLP_ABI_VERSION,
	.name = "all-fast",
	.init = all_fast_init,
	.on_alloc = all_fast_on_alloc,
	.on_free = all_fast_on_free,
	.on_sample = all_fast_on_sample,
	.on_budget = all_fast_on_budget,
	.fini = all_fast_fini,
	.flags = 0,
};

TLP_POLICY_ENTRY(all_fast, all_fast_policy)
