/*
 * The core's calls into the sampler. rt-sampler.h says which ops a
 * sampler may leave NULL; whether one is started and has the op is
 * checked here, once, not at every place the core needs it.
 */
#include "tiermem/rt.h"

#include <string.h>

const char *tlrt_sampler_check(const struct rt_sampler_ops *ops)
{
	if (!ops->name || !*ops->name)
		return "it has no name";
	if (!ops->start)
		return "it has no start op";
	if (!ops->stop)
		return "it has no stop op";
	return NULL;
}

int tlrt_sampler_tick(void)
{
	return tlrt.sampler_started && tlrt.sampler->tick ? tlrt.sampler->tick() : 0;
}

void tlrt_sampler_release(uintptr_t addr, size_t len)
{
	if (tlrt.sampler_started && tlrt.sampler->release_range)
		tlrt.sampler->release_range(addr, len);
}

int tlrt_sampler_one_mapping(void)
{
	return tlrt.sampler && tlrt.sampler->placement;
}

int tlrt_sampler_watch(uintptr_t addr, size_t len)
{
	const struct rt_sampler_placement *p = tlrt.sampler ? tlrt.sampler->placement : NULL;

	return tlrt.sampler_started && p && p->watch ? p->watch(addr, len) : -1;
}

void tlrt_sampler_fork(enum tlrt_fork_phase phase)
{
	void (*op)(void) = NULL;

	if (!tlrt.sampler_started)
		return;
	if (phase == TLRT_FORK_PREPARE)
		op = tlrt.sampler->atfork_prepare;
	else if (phase == TLRT_FORK_PARENT)
		op = tlrt.sampler->atfork_parent;
	else
		op = tlrt.sampler->atfork_child;
	if (op)
		op();
}

void tlrt_sampler_stop(void)
{
	struct rt_sampler_count c[RT_SAMPLER_COUNTS_MAX];
	size_t n = 0;

	if (!tlrt.sampler_started)
		return;
	tlrt.sampler->stop();
	tlrt.sampler_started = 0;
	if (tlrt.sampler->counts)
		n = tlrt.sampler->counts(c, RT_SAMPLER_COUNTS_MAX);
	tlrt_record_sampler_counts(c, n < RT_SAMPLER_COUNTS_MAX ? n : RT_SAMPLER_COUNTS_MAX);
}
