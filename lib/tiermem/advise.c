/*
 * madvise() of managed memory. The fault sampler needs all managed memory
 * to stay one VMA (region.c), and a program that advises huge pages (or
 * none) for one of its large arrays would split it in three. That advice
 * is therefore applied to all managed memory, and remembered for the
 * arena's growth: the array gets what it asked for, and so do its
 * neighbours, whose page size is a performance matter only.
 *
 * The runtime faults a managed allocation in at malloc (region.c), so the
 * usual "malloc, madvise(MADV_HUGEPAGE), touch" finds its pages already
 * there, in 4 KiB pages when THP is in madvise mode: without the runtime
 * the first touch would have given huge pages. So huge-page advice also
 * collapses the advised range into huge pages (MADV_COLLAPSE, Linux 6.1),
 * each on the node its pages were on, which is their chunk's tier. Every other
 * advice goes to the kernel as asked: those that only drop or prefetch
 * pages split nothing, and those that would change what the program sees
 * (DONTFORK, WIPEONFORK, ...) must not be broadened; if they split managed
 * memory, the fault sampler says once that it cannot arm it.
 *
 * Calls from glibc's own code and from programs that use syscall(2)
 * directly are not seen; the runtime's own madvise calls go straight to
 * the kernel (tlrt_madvise).
 */
#include "tiermem/rt.h"

#include <errno.h>
#include <sys/mman.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25	/* Linux 6.1 uapi; glibc 2.36's headers predate it */
#endif

static int in_arena(uintptr_t a, size_t len)
{
	uintptr_t base;

	if (!atomic_load_explicit(&tlrt.size, memory_order_acquire))
		return 0;
	base = atomic_load_explicit(&tlrt.base, memory_order_relaxed);
	return a < base + tlrt.arena_len && base < a + len;
}

TL_EXPORT int madvise(void *addr, size_t len, int advice)
{
	uintptr_t base;
	int r, err;

	if ((advice != MADV_HUGEPAGE && advice != MADV_NOHUGEPAGE) ||
	    atomic_load(&tlrt.state) != TLRT_ACTIVE || !in_arena((uintptr_t)addr, len))
		return tlrt_madvise(addr, len, advice);
	pthread_mutex_lock(&tlrt.lock);
	base = atomic_load_explicit(&tlrt.base, memory_order_relaxed);
	/* the flags go with the memory: it must be where the program has it */
	tlrt_sampler_release(base, tlrt.arena_len);
	tlrt.opt.thp = advice == MADV_HUGEPAGE;
	r = tlrt_madvise((void *)base, tlrt.arena_len, advice);
	err = errno;
	/* best effort: a range that cannot collapse (EAGAIN, no memory) keeps its small pages */
	if (!r && advice == MADV_HUGEPAGE)
		tlrt_madvise((void *)((uintptr_t)addr & ~(TL_UNIT - 1)), len, MADV_COLLAPSE);
	pthread_mutex_unlock(&tlrt.lock);
	errno = err;
	return r;
}
