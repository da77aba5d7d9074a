/*
 * The `none` sampler: starts, and never observes anything: for runs that
 * must take no samples at all (a placement measured without sampling's
 * cost, or the runtime's own cost without sampling).
 */
#include "tiermem/rt-sampler.h"

static int none_start(const struct rt_sampler_env *env, char *why, size_t whylen)
{
	(void)env, (void)why, (void)whylen;
	return 0;
}

static void none_nothing(void)
{
}

static int none_tick(void)
{
	return 0;
}

static void none_release_range(uintptr_t addr, size_t len)
{
	(void)addr, (void)len;
}

const struct rt_sampler_ops rt_sampler_none = {
	.name = "none",
	.start = none_start,
	.tick = none_tick,
	.release_range = none_release_range,
	.stop = none_nothing,
	.atfork_prepare = none_nothing,
	.atfork_parent = none_nothing,
	.atfork_child = none_nothing,
};
