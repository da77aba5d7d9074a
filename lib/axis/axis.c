/*
 * The axis table and the name lists, generated from axes.h, and what is
 * read off them: an axis by name, its help, an allocator's row. What a
 * value of an axis is (canonical text) is canonical.c; which runs take an
 * axis, by their policy, is policy-class.c.
 */
#include "axis/axis.h"

#include <stdio.h>
#include <string.h>
#include "policies/policies.h"

const struct tl_axis_info tl_axes[TL_AXIS__COUNT] = {
#define TL_AXIS_ROW(id, name, kind, applies, flags, def, var, alias, lo, hi, help) \
	[TL_AXIS_##id] = { name, TL_KIND_##kind, TL_APPLIES_##applies, flags, def, var, alias, lo, hi, help },
	TL_AXES(TL_AXIS_ROW)
#undef TL_AXIS_ROW
};

/* The fixed policies: none, the two bindings, the built-ins; static:F,.. and *.so paths are the open-ended ones. */
const char *const tl_policy_names[] = {
	"none",
#define TL_POLICY_NAME(id, name) name,
	TLP_BUILTINS(TL_POLICY_NAME)
#undef TL_POLICY_NAME
#define TL_KERNEL_NAME(id, name, help) name,
	TL_KERNEL_POLICIES(TL_KERNEL_NAME)
	TL_MEM_POLICIES(TL_KERNEL_NAME)
#undef TL_KERNEL_NAME
	NULL
};

static const struct tl_allocator_info allocators[] = {
#define TL_ALLOCATOR_ROW(id, name, lib, package, hugetlb, env) { name, lib, package, hugetlb, env },
	TL_ALLOCATORS(TL_ALLOCATOR_ROW)
#undef TL_ALLOCATOR_ROW
};

const struct tl_allocator_info *tl_allocator_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(allocators) / sizeof(allocators[0]); i++)
		if (!strcmp(name, allocators[i].name))
			return &allocators[i];
	return NULL;
}

#define TL_LIST_NAME(id, name, ...) name,
const char *const tl_allocator_names[] = { TL_ALLOCATORS(TL_LIST_NAME) NULL };
const char *const tl_sampler_names[] = { TL_SAMPLERS(TL_LIST_NAME) NULL };
const char *const tl_log_names[] = { TL_LOGS(TL_LIST_NAME) NULL };
#undef TL_LIST_NAME

const char *const *tl_kind_names(enum tl_kind kind)
{
	switch (kind) {
	case TL_KIND_ALLOCATOR:
		return tl_allocator_names;
	case TL_KIND_SAMPLER:
		return tl_sampler_names;
	case TL_KIND_LOG:
		return tl_log_names;
	case TL_KIND_POLICY:
		return tl_policy_names;
	default:
		return NULL;
	}
}

const char *tl_axis_help(enum tl_axis axis)
{
	static char text[TL_AXIS__COUNT][256];
	const struct tl_axis_info *ai = &tl_axes[axis];
	const char *const *names = tl_kind_names(ai->kind);
	size_t n;

	if ((unsigned)axis >= TL_AXIS__COUNT)
		return "";
	if (!names)
		return ai->help;
	if (!text[axis][0]) {
		n = (size_t)snprintf(text[axis], sizeof(text[axis]), "%s: ", ai->help);
		for (size_t i = 0; names[i] && n < sizeof(text[axis]); i++)
			n += (size_t)snprintf(text[axis] + n, sizeof(text[axis]) - n, "%s%s", i ? ", " : "",
					      strcmp(names[i], "static") ? names[i] : "static:F,..");
		/* policies also come as plugins */
		if (ai->kind == TL_KIND_POLICY && n < sizeof(text[axis]))
			snprintf(text[axis] + n, sizeof(text[axis]) - n, ", or a .so");
	}
	return text[axis];
}

int tl_axis_lookup(const char *name)
{
	for (int a = 0; name && a < TL_AXIS__COUNT; a++)
		if (!strcmp(tl_axes[a].name, name))
			return a;
	return -1;
}
