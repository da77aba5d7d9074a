/*
 * Choosing the sampler by its enum tlrt_sampler value. The perf and damon
 * samplers are referenced weakly so that a runtime built without them
 * still links; asked for but not built in, they are a clear error, never
 * a silent switch to another sampler.
 */
#include "tiermem/rt.h"

#pragma weak rt_sampler_perf
#pragma weak rt_sampler_damon

const struct rt_sampler_ops *tlrt_sampler_find(enum tlrt_sampler s)
{
	switch (s) {
	case TLRT_SAMPLER_FAULT:
		return &rt_sampler_fault;
	case TLRT_SAMPLER_UFFD_WP:
		return &rt_sampler_uffd_wp;
	case TLRT_SAMPLER_PERF:
		return &rt_sampler_perf ? &rt_sampler_perf : NULL;
	case TLRT_SAMPLER_DAMON:
		return &rt_sampler_damon ? &rt_sampler_damon : NULL;
	case TLRT_SAMPLER_NONE:
		return &rt_sampler_none;
	case TLRT_SAMPLER__COUNT:
		break;
	}
	return NULL;
}
