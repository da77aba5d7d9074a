/*
 * Choosing the sampler. The samplers are another part's files
 * (sampler-*.c); they are referenced weakly so the runtime links and runs
 * without them, and a built-in "none" stands in until sampler-none.c
 * exists. A sampler asked for but not built in is a clear error, not a
 * silent switch to another one.
 */
#include "tiermem/rt.h"

#pragma weak rt_sampler_fault
#pragma weak rt_sampler_uffd_wp
#pragma weak rt_sampler_none

static int none_start(const struct rt_sampler_env *env, char *why, size_t whylen)
{
	(void)env, (void)why, (void)whylen;
	return 0;
}

static void none_void(void)
{
}

static void none_release(uintptr_t addr, size_t len)
{
	(void)addr, (void)len;
}

static const struct rt_sampler_ops builtin_none = {
	.name = "none",
	.start = none_start,
	.tick = none_void,
	.release_range = none_release,
	.stop = none_void,
	.atfork_prepare = none_void,
	.atfork_parent = none_void,
	.atfork_child = none_void,
};

const struct rt_sampler_ops *tlrt_sampler_find(enum tlrt_sampler s)
{
	switch (s) {
	case TLRT_SAMPLER_FAULT:
		return &rt_sampler_fault ? &rt_sampler_fault : NULL;
	case TLRT_SAMPLER_UFFD_WP:
		return &rt_sampler_uffd_wp ? &rt_sampler_uffd_wp : NULL;
	case TLRT_SAMPLER_NONE:
		return &rt_sampler_none ? &rt_sampler_none : &builtin_none;
	case TLRT_SAMPLER__COUNT:
		break;
	}
	return NULL;
}
