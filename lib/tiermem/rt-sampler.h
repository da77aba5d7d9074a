/*
 * Samplers: how the runtime learns which managed memory is accessed,
 * apart from what it does about it (policies), as DAMON separates its
 * monitoring ops from schemes.
 *
 * The core owns one background thread (the runtime thread). At the
 * sampling rate it calls ops->tick(), which arms the next observation
 * (e.g. makes all managed memory fault on its next access). Samples reach the
 * core through env->deliver(), callable from any thread and from a
 * sampler's own threads, lock-free and async-signal-safe; the runtime
 * thread drains them, asks the policy, and migrates.
 *
 * The hard rule: a sampler must never change what the program observes.
 * No system call of the program may fail or return short because memory
 * is being observed; no signal disposition of the program changes; a real
 * invalid access still kills the program as before; errno is preserved.
 */
#ifndef TL_RT_SAMPLER_H
#define TL_RT_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* A range of managed memory. */
struct rt_block {
	uintptr_t addr;
	size_t len;
};

#define RT_TICK_NOT_YET 1	/* tick(): not armed, ask again shortly */

#define RT_SAMPLE_KERNEL 0x1	/* the access came from a system call (pc is where it was issued) */
#define RT_SAMPLE_WRITE 0x2	/* known to be a write */
#define RT_SAMPLE_ARMING 0x4	/* fault sampler: the access came while the arming's TLB flush was still in flight */

/* CLOCK_MONOTONIC in ns: the samples' clock, here so samplers build without the core. */
static inline uint64_t rt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct rt_sample {
	uint64_t t_ns;		/* CLOCK_MONOTONIC */
	uintptr_t addr;		/* the accessed address */
	uintptr_t pc;		/* 0 when unknown */
	pid_t tid;		/* 0 when unknown */
	uint32_t flags;
};

struct rt_sampler_env {
	double rate_hz;
	/*
	 * The managed memory to observe: one mapping, [out->addr,
	 * out->addr + out->len), both multiples of 1 GiB (the runtime keeps all
	 * its managed allocations in this one VMA so that a single page-table
	 * operation can cover it). 0 with *out filled, or -1 when nothing is
	 * managed or the core is busy changing it (skip the tick). Called from
	 * tick(). The core calls release_range() before it allocates in, frees,
	 * migrates or grows this span.
	 */
	int (*span)(struct rt_block *out);
	/*
	 * Hands one sample to the core. A sampler delivers at most one sample
	 * per tick, drawn so that where it lands follows how the program
	 * accesses memory (see docs/samplers.md): hit rates then mean the same
	 * thing whatever the sampler.
	 */
	void (*deliver)(const struct rt_sample *s);
	/*
	 * NULL, or where a sampler that watches managed memory for first
	 * touches (watch() below) sends each one, from its own thread, while
	 * the toucher waits: the core puts a page at addr on the right tier
	 * through the userfaultfd uffd (first-touch.c). The sampler wakes the
	 * toucher afterwards.
	 */
	void (*first_touch)(int uffd, uintptr_t addr);
};

/* One of a sampler's own counts (counts() below): stored with the run as metric sampler.NAME. */
struct rt_sampler_count {
	const char *name;	/* [a-z_], at most 23 bytes (rt-stats.h: the counters file's slots) */
	uint64_t value;
};

/* counts(): a struct's field as a count of that name; the first max of n into out. */
#define RT_SAMPLER_COUNT(s, field) { #field, (s).field }
static inline size_t rt_sampler_counts_copy(struct rt_sampler_count *out, size_t max,
					    const struct rt_sampler_count *all, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < max; i++)
		out[i] = all[i];
	return i;
}

/*
 * What a sampler that arms managed memory as one mapping asks of the
 * arena's layout, apart from what it monitors (sampler-fault.c): chunks
 * then cannot keep NUMA policies of their own, which would split the
 * arena, so the core places their pages at first touch through watch(),
 * or at malloc (region.c).
 */
struct rt_sampler_placement {
	/*
	 * NULL, or: from now on, send first touches of pages in [addr,
	 * addr+len) (one mapping, the whole arena) to env->first_touch. 0 when
	 * it will; the core populates at malloc otherwise.
	 */
	int (*watch)(uintptr_t addr, size_t len);
};

/*
 * A sampler's ops. Required: name, start, stop (tlrt_sampler_check()
 * refuses a sampler without them). Every other member may be NULL,
 * meaning there is nothing to do: the core calls the ops only through
 * sampler-call.c, which checks once, there.
 */
struct rt_sampler_ops {
	const char *name;
	/* NULL: the arena's layout is the core's alone (chunks keep their own NUMA policies). */
	const struct rt_sampler_placement *placement;
	/* 0, or -errno with a one-line reason in why (e.g. "userfaultfd: Operation not permitted"). */
	int (*start)(const struct rt_sampler_env *env, char *why, size_t whylen);
	/*
	 * Arms the next observation: 0, or RT_TICK_NOT_YET when it did not
	 * arm because the access its last sample stopped has not been made
	 * yet (the thread, woken, has not run since): an arming now would
	 * sample that access a second time. The core asks again shortly,
	 * until the next tick is due (thread.c). NULL: the sampler observes
	 * on its own schedule (or never).
	 */
	int (*tick)(void);
	/*
	 * Before the core frees, moves (realloc) or migrates [addr, addr+len):
	 * when this returns, nothing in the range is armed, stashed or
	 * protected, and its contents are where the program left them.
	 * NULL: the sampler never changes managed memory.
	 */
	void (*release_range)(uintptr_t addr, size_t len);
	/* Leaves nothing armed; joins any thread it started. */
	void (*stop)(void);
	/* fork(): prepare in the parent before (restore everything), then parent/child after. */
	void (*atfork_prepare)(void);
	void (*atfork_parent)(void);
	void (*atfork_child)(void);
	/*
	 * Its own counts (armings, expiries, ...), at most max of them, into
	 * out; how many. Asked once, after stop(): recorded in the counters
	 * file and stored with the run (sampler.NAME metrics).
	 */
	size_t (*counts)(struct rt_sampler_count *out, size_t max);
};

extern const struct rt_sampler_ops rt_sampler_fault;	/* "fault" */
extern const struct rt_sampler_ops rt_sampler_uffd_wp;	/* "uffd-wp": writes, no faults in the program */
extern const struct rt_sampler_ops rt_sampler_perf;	/* "perf": the PMU's precise memory-access samples */
extern const struct rt_sampler_ops rt_sampler_damon;	/* "damon": DAMON vaddr region frequencies */
extern const struct rt_sampler_ops rt_sampler_none;	/* "none" */

#endif
