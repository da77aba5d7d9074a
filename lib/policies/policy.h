/*
 * What every built-in policy file shares: the entry-point macro and the
 * arena helper.
 *
 * One source builds two ways. As a plugin (-DTLP_PLUGIN, -fPIC,
 * -fvisibility=hidden) TLP_POLICY_ENTRY defines the one exported symbol,
 * tierlab_policy(); in libpolicies.a it defines tlp_policy_<id>() instead,
 * so all policies link into one program side by side (see policies.h).
 */
#ifndef TIERLAB_POLICIES_POLICY_H
#define TIERLAB_POLICIES_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "policies/tierlab-policy.h"
#include "policies/policies.h"
#include "util/export.h"

#ifdef TLP_PLUGIN
#define TLP_POLICY_ENTRY(id, pol)                                                        \
	TL_EXPORT const struct tlp_policy *tierlab_policy(void); \
	const struct tlp_policy *tierlab_policy(void) { return &(pol); }
#else
#define TLP_POLICY_ENTRY(id, pol) \
	const struct tlp_policy *tlp_policy_##id(void) { return &(pol); }
#endif

/*
 * Policy state is one block from params->alloc (zeroed), carved into
 * arrays: a policy sizes it once in init and frees it in fini, so there is
 * no partial cleanup to get wrong. tlp_carve hands out the next `bytes`
 * of the block, 8-byte aligned; with base NULL it only measures.
 */
static inline void *tlp_carve(char *base, size_t *off, size_t bytes)
{
	void *p = base ? base + *off : NULL;

	*off += (bytes + 7) & ~(size_t)7;
	return p;
}

#endif
