/*
 * The table of built-in policies for programs that link libpolicies.a
 * (tests, the offline replay): name -> entry, in the order the docs list
 * them. Only in the archive; each plugin carries its own entry instead.
 */
#include "policies/policies.h"

#include <string.h>

static const struct {
	const char *name;
	const struct tlp_policy *(*entry)(void);
} builtins[] = {
	{ "all-fast", tlp_policy_all_fast },
	{ "all-slow", tlp_policy_all_slow },
	{ "static", tlp_policy_static },
	{ "lru", tlp_policy_lru },
	{ "window", tlp_policy_window },
};

/* must match builtins[] */
const char *const tlp_policy_names[] = { "all-fast", "all-slow", "static", "lru", "window", NULL };

_Static_assert(sizeof(builtins) / sizeof(builtins[0]) + 1 ==
	       sizeof(tlp_policy_names) / sizeof(tlp_policy_names[0]), "one name per built-in");

const struct tlp_policy *tlp_policy_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(builtins[i].name, name))
			return builtins[i].entry();
	return NULL;
}
