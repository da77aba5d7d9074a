/*
 * The samplers the runtime has: one ops struct per row of TL_SAMPLERS
 * (axis/axes.h), each referenced weakly so that a runtime built without
 * one (a sampler-<name>.c not in the build) still links; asked for but
 * not built in, a sampler is a clear error, never a silent switch to
 * another one.
 */
#include "tiermem/rt.h"

#include <string.h>

#define TLRT_SAMPLER_WEAK(id, name, ops, help) extern const struct rt_sampler_ops ops __attribute__((weak));
TL_SAMPLERS(TLRT_SAMPLER_WEAK)
#undef TLRT_SAMPLER_WEAK

/* In enum tlrt_sampler order; NULL where the sampler is not built in. */
static const struct rt_sampler_ops *const samplers[TLRT_SAMPLER__COUNT] = {
#define TLRT_SAMPLER_OPS(id, name, ops, help) [TLRT_SAMPLER_##id] = &ops,
	TL_SAMPLERS(TLRT_SAMPLER_OPS)
#undef TLRT_SAMPLER_OPS
};

const struct rt_sampler_ops *tlrt_sampler_find(enum tlrt_sampler s)
{
	const struct rt_sampler_ops *ops = (unsigned)s < TLRT_SAMPLER__COUNT ? samplers[s] : NULL;

	/* found by the name it answers to: a row and its file cannot disagree unnoticed */
	return ops && ops->name && !strcmp(ops->name, tlrt_sampler_names[s]) ? ops : NULL;
}
