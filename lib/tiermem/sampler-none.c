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

static void none_stop(void)
{
}

/* no tick, no release, no fork work: there is nothing it ever arms (rt-sampler.h: NULL ops) */
const struct rt_sampler_ops rt_sampler_none = {
	.name = "none",
	.start = none_start,
	.stop = none_stop,
};
