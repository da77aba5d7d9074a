/*
 * The built-in policies as a static library (build/obj/libpolicies.a):
 * the same code as the plugins build/lib/tierlab/policy-<name>.so, with one
 * entry per policy so that tests and the offline replay can link them all
 * into one program and call them without dlopen.
 *
 * Every entry returns a static struct tlp_policy (never NULL); the struct
 * and its strings live for the life of the program.
 */
#ifndef TIERLAB_POLICIES_H
#define TIERLAB_POLICIES_H

#include <stdint.h>

#include "policies/tierlab-policy.h"

/*
 * The built-in policies, in documentation order: X(id, name), id being
 * the first argument of TLP_POLICY_ENTRY in lib/policies/<name>.c, name
 * its struct's .name. Adding a built-in is that file and one row here;
 * the build makes its plugin, the tierlab program plans with what it
 * declares (flags, params).
 */
#define TLP_BUILTINS(X) \
	X(all_fast, "all-fast") \
	X(all_slow, "all-slow") \
	X(static,   "static") \
	X(lru,      "lru") \
	X(window,   "window")

#define TLP_BUILTIN_ENTRY(id, name) const struct tlp_policy *tlp_policy_##id(void);
TLP_BUILTINS(TLP_BUILTIN_ENTRY)
#undef TLP_BUILTIN_ENTRY

/* The built-in policy whose .name is `name` ("lru", "all-fast", ...), or NULL. */
const struct tlp_policy *tlp_policy_find(const char *name);

/* The names of the built-ins, NULL-terminated, in documentation order. */
extern const char *const tlp_policy_names[];

/*
 * Debug counter of the window policy: bucket steps and list operations
 * done so far by the state `st` (from its init). Tests use it to check that
 * the work per sample does not grow with the number of chunks.
 */
uint64_t tlp_window_work(const void *st);
/* The window length the window policy's state `st` runs with (its args, else params->window). */
uint32_t tlp_window_length(const void *st);

#endif
