/*
 * Loading the policy plugin. A built-in name resolves to
 * <directory of libtiermem.so>/policy-<name>.so (found with dladdr, so the
 * build tree and an installed tree both work); anything ending in ".so" is
 * a path used as is. The loader checks `size` and `abi_version` before it
 * touches anything else, treats entry points beyond the plugin's size as
 * absent, and hands the policy a tlp_params whose alloc/free are backed by
 * mmap (the policy runs inside the allocator).
 */
#include "tiermem/rt.h"

#include <dlfcn.h>
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

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static int plugin_path(char *buf, size_t len, const char *policy, char *why, size_t whylen)
{
	Dl_info info;
	const char *slash;

	if (ends_with(policy, ".so") || strchr(policy, '/')) {
		if ((size_t)snprintf(buf, len, "%s", policy) >= len)
			goto too_long;
		return 0;
	}
	for (const char *p = policy; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
			goto bad_name;
	if (!dladdr((void *)tlrt_policy_load, &info) || !info.dli_fname ||
	    !(slash = strrchr(info.dli_fname, '/'))) {
		snprintf(why, whylen, "policy '%s': cannot find the runtime's directory", policy);
		return -1;
	}
	if ((size_t)snprintf(buf, len, "%.*s/policy-%s.so", (int)(slash - info.dli_fname),
			     info.dli_fname, policy) >= len)
		goto too_long;
	return 0;
bad_name:
	snprintf(why, whylen, "TIERLAB_POLICY='%s': not a policy name or a path ending in .so", policy);
	return -1;
too_long:
	snprintf(why, whylen, "TIERLAB_POLICY='%s': path too long", policy);
	return -1;
}

#define HAS(pol, field) TLP_HAS(pol, field)

int tlrt_policy_load(char *why, size_t whylen)
{
	char path[1024];
	const struct tlp_policy *pol;
	tlp_entry_fn entry;
	struct tlp_params *pp = &tlrt.params;
	void *dl;

	if (plugin_path(path, sizeof(path), tlrt.opt.policy, why, whylen))
		return -1;
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		const char *e = dlerror();

		snprintf(why, whylen, "policy '%s': %s", tlrt.opt.policy, e ? e : "cannot load");
		return -1;
	}
	entry = (tlp_entry_fn)dlsym(dl, TLP_ENTRY_NAME);
	if (!entry) {
		snprintf(why, whylen, "policy '%s': %s: no %s() entry point", tlrt.opt.policy, path, TLP_ENTRY_NAME);
		goto close;
	}
	pol = entry();
	if (!pol || pol->size < offsetof(struct tlp_policy, on_alloc) + sizeof(pol->on_alloc) ||
	    pol->abi_version != TLP_ABI_VERSION) {
		snprintf(why, whylen, "policy '%s': ABI %u, size %u: this runtime needs ABI %d",
			 tlrt.opt.policy, pol ? pol->abi_version : 0, pol ? pol->size : 0, TLP_ABI_VERSION);
		goto close;
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
		goto close;
	}
	tlrt.pol_state = NULL;
	if (HAS(pol, init) && pol->init && !(tlrt.pol_state = pol->init(pp))) {
		snprintf(why, whylen, "policy '%s': init failed", tlrt.opt.policy);
		goto free_moves;
	}
	tlrt.pol = pol;
	tlrt.dl = dl;
	return 0;
free_moves:
	policy_free(tlrt.moves, (size_t)tlrt.moves_cap * sizeof(struct tlp_move));
	tlrt.moves = NULL;
close:
	dlclose(dl);
	return -1;
}

void tlrt_policy_unload(void)
{
	const struct tlp_policy *pol = tlrt.pol;

	if (!pol)
		return;
	if (HAS(pol, fini) && pol->fini)
		pol->fini(tlrt.pol_state);
	tlrt.pol = NULL;
	/* the plugin stays mapped: a late call into it at exit must not jump into nothing */
}
