/*
 * The policy classes over canonical policy values (policy-class.h): which
 * need the runtime, which bind, which are the kernel's or a memory policy,
 * which move chunks, which parameters each takes, and from these which
 * axes apply to a run. What a built-in policy is (dynamic, its
 * parameters) it says itself (lib/policies/).
 */
#include "axis/axis.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policies/policies.h"
#include "util/strings.h"

#define TL_PARAM_ROW(id, name, def, help) { name, def, help },
static const struct tlp_param autonuma_params[] = { TL_AUTONUMA_PARAMS(TL_PARAM_ROW) { NULL, NULL, NULL } };
static const struct tlp_param damos_params[] = { TL_DAMOS_PARAMS(TL_PARAM_ROW) { NULL, NULL, NULL } };
static const struct tlp_param weighted_params[] = { TL_WEIGHTED_PARAMS(TL_PARAM_ROW) TL_MEMPOL_PARAMS(TL_PARAM_ROW)
						     { NULL, NULL, NULL } };
static const struct tlp_param mempol_params[] = { TL_MEMPOL_PARAMS(TL_PARAM_ROW) { NULL, NULL, NULL } };
#undef TL_PARAM_ROW

/* The kernel's policies and the memory policies, by their enums: names from axes.h, parameters from policy-class.h. */
#define TL_NAME(id, name, help) name,
static const char *const kernel_names[] = { TL_KERNEL_POLICIES(TL_NAME) };
static const char *const mem_names[] = { TL_MEM_POLICIES(TL_NAME) };
#undef TL_NAME
static const struct tlp_param *const kernel_params[TL_KERNEL__COUNT] = {
	[TL_KERNEL_AUTONUMA] = autonuma_params,
	[TL_KERNEL_DAMOS] = damos_params,
};
static const struct tlp_param *const mem_params[TL_MEMPOL__COUNT] = {
	[TL_MEMPOL_PREFERRED] = mempol_params,
	[TL_MEMPOL_INTERLEAVE] = mempol_params,
	[TL_MEMPOL_WEIGHTED] = weighted_params,
};

static int find(const char *const *names, int n, const char *policy)
{
	for (int i = 0; policy && i < n; i++)
		if (!strcmp(policy, names[i]))
			return i;
	return -1;
}

int tl_policy_mempolicy(const char *policy)
{
	return find(mem_names, TL_MEMPOL__COUNT, policy);
}

bool tl_policy_scope_valid(const char *value)
{
	return value && (!strcmp(value, TL_SCOPE_PROCESS) || !strcmp(value, TL_SCOPE_MANAGED));
}

bool tl_policy_managed_scope(const char *policy, const char *args)
{
	static const size_t len = sizeof("scope=" TL_SCOPE_MANAGED) - 1;

	if (!tl_policy_is_mempolicy(policy) || !args)
		return false;
	/* the last scope given wins, as for any parameter read by name */
	for (const char *p = args, *found = NULL;; p += strcspn(p, ",") + 1) {
		if (!strncmp(p, "scope=", 6))
			found = p;
		if (!p[strcspn(p, ",")])
			return found && !strncmp(found, "scope=" TL_SCOPE_MANAGED, len) &&
			       (found[len] == ',' || !found[len]);
	}
}

int tl_policy_kernel(const char *policy)
{
	return find(kernel_names, TL_KERNEL__COUNT, policy);
}

bool tl_policy_is_mempolicy(const char *policy)
{
	return tl_policy_mempolicy(policy) >= 0;
}

bool tl_policy_is_kernel(const char *policy)
{
	return tl_policy_kernel(policy) >= 0;
}

/*
 * The policies tierlab applies itself, without the runtime: none runs the
 * program as it is, all-fast and all-slow bind all of its memory (the
 * built-in policies of those names serve runs that need the runtime
 * anyway, as the footprint's calibration).
 */
static const struct {
	const char *name;
	enum tl_binding binds;
} bindings[] = {
	{ "none", TL_BINDS_NOTHING },
	{ "all-fast", TL_BINDS_FAST },
	{ "all-slow", TL_BINDS_SLOW },
};

int tl_policy_binding(const char *policy)
{
	for (size_t i = 0; policy && i < sizeof(bindings) / sizeof(bindings[0]); i++)
		if (!strcmp(policy, bindings[i].name))
			return (int)bindings[i].binds;
	return -1;
}

bool tl_policy_bounds(const char *policy)
{
	int b = tl_policy_binding(policy);

	return b == TL_BINDS_FAST || b == TL_BINDS_SLOW;
}

bool tl_policy_uses_runtime(const char *policy)
{
	return policy != NULL && tl_policy_binding(policy) < 0 && !tl_policy_is_kernel(policy) &&
	       !tl_policy_is_mempolicy(policy);
}

static bool is_plugin(const char *policy)
{
	return tl_ends_with(policy, ".so");
}

/* The built-in a canonical policy names ("static:1,0" -> static), or NULL (a plugin, a binding). */
static const struct tlp_policy *builtin(const char *policy)
{
	char base[64];

	if (!tl_policy_uses_runtime(policy) || is_plugin(policy))
		return NULL;
	return tlp_policy_find(tl_policy_base(policy, base, sizeof(base)));
}

bool tl_policy_is_dynamic(const char *policy)
{
	const struct tlp_policy *pol = builtin(policy);

	if (tl_policy_is_kernel(policy))
		return true;	/* the kernel moves pages as they are used, within the budget */
	/* preferred fills the fast tier up to a budget, when one is given; interleave takes none */
	if (tl_policy_is_mempolicy(policy))
		return tl_policy_mempolicy(policy) == TL_MEMPOL_PREFERRED;
	if (pol)
		return TLP_HAS(pol, flags) && (pol->flags & TLP_DYNAMIC);
	return policy && is_plugin(policy);
}

const struct tlp_param *tl_policy_params(const char *policy)
{
	const struct tlp_policy *pol = builtin(policy);
	int k = tl_policy_kernel(policy), m = tl_policy_mempolicy(policy);

	if (k >= 0)
		return kernel_params[k];
	if (m >= 0)
		return mem_params[m];
	return pol && TLP_HAS(pol, params) ? pol->params : NULL;
}

bool tl_policy_takes(const char *policy, const char *param)
{
	const struct tlp_param *params = tl_policy_params(policy);

	if (!builtin(policy) && !tl_policy_is_kernel(policy) && !tl_policy_is_mempolicy(policy))
		return policy && is_plugin(policy);
	if (!params)
		return false;
	for (const struct tlp_param *p = params; p->name; p++)
		if (!param || !strcmp(p->name, param))
			return true;
	return false;
}

int tl_policy_args_for(const char *policy, const char *args, char **out)
{
	bool managed;
	size_t n = 0;
	char *keep;

	*out = NULL;
	if (!args || !tl_policy_takes(policy, NULL))
		return 0;
	managed = tl_policy_managed_scope(policy, args);
	keep = malloc(strlen(args) + sizeof(",scope=" TL_SCOPE_MANAGED));
	if (!keep)
		return -ENOMEM;
	for (const char *p = args; *p;) {
		size_t len = strcspn(p, ","), name = strcspn(p, "=");
		char param[128];

		snprintf(param, sizeof(param), "%.*s", (int)(name < len ? name : len), p);
		/* a memory policy's scope goes last, once, and only when managed (process is the default) */
		if (tl_policy_is_mempolicy(policy) && !strcmp(param, "scope")) {
			p += len + (p[len] == ',');
			continue;
		}
		if (is_plugin(policy) || tl_policy_takes(policy, param))
			n += (size_t)sprintf(keep + n, "%s%.*s", n ? "," : "", (int)len, p);
		p += len + (p[len] == ',');
	}
	if (managed)
		n += (size_t)sprintf(keep + n, "%sscope=" TL_SCOPE_MANAGED, n ? "," : "");
	if (!n) {
		free(keep);
		return 0;
	}
	*out = keep;
	return 0;
}

const char *tl_policy_base(const char *policy, char *buf, unsigned len)
{
	const char *colon;

	if (!len)
		return buf;
	if (!policy) {
		buf[0] = '\0';
		return buf;
	}
	/* a plugin path may hold a colon of its own; only static has variants */
	colon = strncmp(policy, "static:", 7) ? NULL : policy + 6;
	snprintf(buf, len, "%.*s", colon ? (int)(colon - policy) : (int)strlen(policy), policy);
	return buf;
}

bool tl_axis_applies(enum tl_axis axis, const char *policy)
{
	const struct tl_axis_info *ai = &tl_axes[axis];

	if (!policy)
		policy = tl_axes[TL_AXIS_POLICY].def;
	switch (ai->applies) {
	case TL_APPLIES_ALL:
		return true;
	case TL_APPLIES_RUNTIME:
		return tl_policy_uses_runtime(policy);
	case TL_APPLIES_DYNAMIC:
		/* preferred's budget is the fast node's room, in pages: it has no chunks */
		if (axis == TL_AXIS_CHUNKS && tl_policy_is_mempolicy(policy))
			return false;
		return tl_policy_is_dynamic(policy);
	case TL_APPLIES_PARAM:
		/* a plugin declares nothing tierlab can see: its parameters go in policy_args */
		return builtin(policy) && tl_policy_takes(policy, ai->name);
	case TL_APPLIES_ARGS:
		return tl_policy_takes(policy, NULL);
	}
	return false;
}
