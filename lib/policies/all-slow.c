/*
 * all-slow: every chunk goes to the slow tier and stays there. The other
 * end of the comparison; it keeps no state (init returns a token, since
 * NULL means failure) and never uses any of the budget.
 */
#include "policies/policy.h"

static char all_slow_token;

static void *all_slow_init(const struct tlp_params *p)
{
	(void)p;
	return &all_slow_token;
}

static void all_slow_on_alloc(void *st, const struct tlp_alloc *a, struct tlp_decisions *out)
{
	(void)st;
	for (uint32_t i = 0; i < a->nchunks; i++)
		if (tlp_decide(out, a->first_chunk + i, TLP_SLOW))
			break;
}

static void all_slow_on_free(void *st, const struct tlp_alloc *a)
{
	(void)st, (void)a;
}

static void all_slow_on_sample(void *st, uint32_t chunk, struct tlp_decisions *out)
{
	(void)st, (void)chunk, (void)out;
}

static void all_slow_on_budget(void *st, uint32_t budget, struct tlp_decisions *out)
{
	(void)st, (void)budget, (void)out;
}

static void all_slow_fini(void *st)
{
	(void)st;
}

static const struct tlp_policy all_slow_policy = {
	.size = sizeof(struct tlp_policy),
	.abi_version = TLP_ABI_VERSION,
	.name = "all-slow",
	.init = all_slow_init,
	.on_alloc = all_slow_on_alloc,
	.on_free = all_slow_on_free,
	.on_sample = all_slow_on_sample,
	.on_budget = all_slow_on_budget,
	.fini = all_slow_fini,
	.flags = 0,
};

TLP_POLICY_ENTRY(all_slow, all_slow_policy)
