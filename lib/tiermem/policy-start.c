/*
 * Starting a policy, however it was found (a plugin by policy-load.c, or
 * one linked into a static program): the size and ABI checks, its
 * parameters, the decision buffer, init.
 */
#include "tiermem/rt.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static void *policy_alloc(size_t bytes)
{
	void *p;

	if (!bytes)
		bytes = 1;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void policy_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes ? bytes : 1);
}

int tlrt_policy_start(const struct tlp_policy *pol, char *why, size_t whylen)
{
	struct tlp_params *pp = &tlrt.params;

	if (!pol || pol->size < offsetof(struct tlp_policy, on_alloc) + sizeof(pol->on_alloc) ||
	    pol->abi_version != TLP_ABI_VERSION) {
		snprintf(why, whylen, "policy '%s': ABI %u, size %u: this runtime needs ABI %d",
			 tlrt.opt.policy, pol ? pol->abi_version : 0, pol ? pol->size : 0, TLP_ABI_VERSION);
		return -1;
	}
	memset(pp, 0, sizeof(*pp));
	pp->size = sizeof(*pp);
	pp->max_chunks = tlrt.max_chunks;
	pp->budget_chunks = tlrt.budget_chunks;
	pp->window = tlrt.opt.window;
	pp->chunk_size = tlrt.opt.chunk_size;
	pp->fractions = tlrt.opt.nfractions ? tlrt.opt.fractions : NULL;
	pp->nfractions = tlrt.opt.nfractions;
	pp->args = tlrt.opt.have_policy_args ? tlrt.opt.policy_args : NULL;
	pp->alloc = policy_alloc;
	pp->free = policy_free;

	tlrt.moves_cap = tlrt.max_chunks > TLP_SAMPLE_DECISIONS ? tlrt.max_chunks : TLP_SAMPLE_DECISIONS;
	tlrt.moves = policy_alloc((size_t)tlrt.moves_cap * sizeof(struct tlp_move));
	if (!tlrt.moves) {
		snprintf(why, whylen, "policy '%s': out of memory", tlrt.opt.policy);
		return -1;
	}
	tlrt.pol_state = NULL;
	if (TLP_HAS(pol, init) && pol->init && !(tlrt.pol_state = pol->init(pp))) {
		snprintf(why, whylen, "policy '%s': init failed", tlrt.opt.policy);
		policy_free(tlrt.moves, (size_t)tlrt.moves_cap * sizeof(struct tlp_move));
		tlrt.moves = NULL;
		return -1;
	}
	tlrt.pol = pol;
	return 0;
}

void tlrt_policy_stop(void)
{
	const struct tlp_policy *pol = tlrt.pol;

	if (pol && TLP_HAS(pol, fini) && pol->fini)
		pol->fini(tlrt.pol_state);
	tlrt.pol = NULL;
}
