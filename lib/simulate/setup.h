/*
 * A replay configuration from what the runtime would be started with: its
 * TIERLAB_* variables, read by the runtime's own option parser
 * (lib/tiermem/options.c), so chunks, budget (any two of three, a
 * percentage of the footprint) and window resolve as they would live. The
 * policy is found as the runtime finds it: a built-in by name (the same
 * code, linked from libpolicies.a), anything else as a plugin path opened
 * with dlopen.
 */
#ifndef TL_SIMULATE_SETUP_H
#define TL_SIMULATE_SETUP_H

#include "simulate/replay.h"
#include "tiermem/options.h"

struct tl_sim_setup {
	struct tlrt_options opt;
	struct tl_sim_config c;
	void *dl;			/* a plugin's handle, or NULL */
};

/*
 * Fills s from envp (NULL-terminated NAME=value; the node sets may be
 * missing: a replay places nothing). 0, or -EINVAL with why (a bad value,
 * no policy, a plugin that does not load).
 */
int tl_sim_setup_env(struct tl_sim_setup *s, char *const *envp, char *why, size_t whylen);
void tl_sim_setup_release(struct tl_sim_setup *s);

/* The policy `name` as the runtime would load it (built-in or plugin path); NULL with why. */
const struct tlp_policy *tl_sim_policy_open(const char *name, void **dl, char *why, size_t whylen);

#endif
