/*
 * Loading the policy plugin. A built-in name resolves to
 * <directory of libtiermem.so>/policy-<name>.so (found with dladdr, so the
 * build tree and an installed tree both work); anything ending in ".so" is
 * a path used as is. The loader checks `size` and `abi_version` before it
 * touches anything else, treats entry points beyond the plugin's size as
 * absent (policy-start.c does the checks and the start).
 */
#include "tiermem/rt.h"
#include "util/strings.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int plugin_path(char *buf, size_t len, const char *policy, char *why, size_t whylen)
{
	Dl_info info;
	const char *slash;

	if (tl_ends_with(policy, ".so") || strchr(policy, '/')) {
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

int tlrt_policy_load(char *why, size_t whylen)
{
	char path[1024];
	const struct tlp_policy *pol;
	tlp_entry_fn entry;
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
	if (tlrt_policy_start(pol, why, whylen))
		goto close;
	tlrt.dl = dl;
	return 0;
close:
	dlclose(dl);
	return -1;
}

void tlrt_policy_unload(void)
{
	/* the plugin stays mapped: a late call into it at exit must not jump into nothing */
	tlrt_policy_stop();
}
