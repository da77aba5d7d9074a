/*
 * The built-in policies for programs that link libpolicies.a (the tierlab
 * program, tests, the offline replay): one entry per row of TLP_BUILTINS,
 * found by the .name of the policy it returns. Only in the archive; each
 * plugin carries its own entry instead.
 */
#include "policies/policies.h"

#include <string.h>
#include "util/array.h"

static const tlp_entry_fn builtins[] = {
#define TLP_BUILTIN_FN(id, name) tlp_policy_##id,
	TLP_BUILTINS(TLP_BUILTIN_FN)
#undef TLP_BUILTIN_FN
};

const char *const tlp_policy_names[] = {
#define TLP_BUILTIN_NAME(id, name) name,
	TLP_BUILTINS(TLP_BUILTIN_NAME)
#undef TLP_BUILTIN_NAME
	NULL
};

const struct tlp_policy *tlp_policy_find(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(builtins); i++) {
		const struct tlp_policy *pol = builtins[i]();

		if (!strcmp(pol->name, name))
			return pol;
	}
	return NULL;
}
