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

const struct tlp_policy *tlp_policy_all_fast(void);
const struct tlp_policy *tlp_policy_all_slow(void);
const struct tlp_policy *tlp_policy_static(void);
const struct tlp_policy *tlp_policy_lru(void);
const struct tlp_policy *tlp_policy_window(void);

/* The built-in policy called `name` ("lru", "all-fast", ...), or NULL. */
const struct tlp_policy *tlp_policy_find(const char *name);

/* The names of the built-ins, NULL-terminated, in documentation order. */
extern const char *const tlp_policy_names[];

/*
 * Debug counter of the window policy: bucket steps and list operations
 * done so far by the state `st` (from its init). Tests use it to check that
 * the work per sample does not grow with the number of chunks.
 */
uint64_t tlp_window_work(const void *st);

#endif
