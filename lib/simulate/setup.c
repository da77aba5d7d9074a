/*
 * From TIERLAB_* variables to a replay configuration (see setup.h).
 */
#include "simulate/setup.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policies.h"
#include "util/paths.h"

const struct tlp_policy *tl_sim_policy_open(const char *name, void **dl, char *why, size_t whylen)
{
	const struct tlp_policy *pol = tlp_policy_find(name);
	char *path = NULL;
	tlp_entry_fn entry;

	*dl = NULL;
	if (pol)
		return pol;
	if (!strchr(name, '/') && strlen(name) < 200) {
		char file[256];

		snprintf(file, sizeof(file), "policy-%s.so", name);
		path = tl_path_lib(file);
		if (!path) {
			snprintf(why, whylen, "policy '%s': neither a built-in nor a plugin path", name);
			return NULL;
		}
	}
	*dl = dlopen(path ? path : name, RTLD_NOW | RTLD_LOCAL);
	free(path);
	if (!*dl) {
		const char *e = dlerror();

		snprintf(why, whylen, "policy '%s': %s", name, e ? e : "cannot load");
		return NULL;
	}
	entry = (tlp_entry_fn)dlsym(*dl, TLP_ENTRY_NAME);
	pol = entry ? entry() : NULL;
	if (!pol || pol->size < offsetof(struct tlp_policy, on_alloc) + sizeof(pol->on_alloc) ||
	    pol->abi_version != TLP_ABI_VERSION) {
		snprintf(why, whylen, "policy '%s': no %s() entry point, or not ABI %d", name, TLP_ENTRY_NAME,
			 TLP_ABI_VERSION);
		dlclose(*dl);
		*dl = NULL;
		return NULL;
	}
	return pol;
}

int tl_sim_setup_env(struct tl_sim_setup *s, char *const *envp, char *why, size_t whylen)
{
	const char *extra[] = { "TIERLAB_FAST_NODES=0", "TIERLAB_SLOW_NODES=0" };
	size_t n = 0;
	char **env;
	int rc;

	memset(s, 0, sizeof(*s));
	while (envp[n])
		n++;
	env = calloc(n + 3, sizeof(*env));
	if (!env)
		return -ENOMEM;
	memcpy(env, envp, n * sizeof(*env));
	/* the runtime reads the first of a name; nodes given win over these */
	env[n] = (char *)extra[0];
	env[n + 1] = (char *)extra[1];
	rc = tlrt_options_parse(&s->opt, env, why, whylen);
	free(env);
	if (rc > 0)
		return snprintf(why, whylen, "no policy to replay"), -EINVAL;
	if (rc < 0)
		return -EINVAL;
	s->c.pol = tl_sim_policy_open(s->opt.policy, &s->dl, why, whylen);
	if (!s->c.pol)
		return -EINVAL;
	s->c.chunk_size = s->opt.chunk_size;
	s->c.budget_chunks = s->opt.budget_chunks;
	s->c.dynamic_fraction = s->opt.dynamic_fraction;
	s->c.window = s->opt.window;
	s->c.args = s->opt.have_policy_args ? s->opt.policy_args : NULL;
	s->c.fractions = s->opt.fractions;
	s->c.nfractions = s->opt.nfractions;
	s->c.rate_hz = s->opt.rate_hz;
	s->c.threshold = s->opt.threshold;
	return 0;
}

void tl_sim_setup_release(struct tl_sim_setup *s)
{
	/* a plugin stays loaded: its policy struct may still be referred to */
	memset(s, 0, sizeof(*s));
}
