/*
 * Regions: where managed allocations live. At the first managed
 * allocation the runtime reserves one large PROT_NONE, MAP_NORESERVE range
 * of address space (1 TiB, halved until the kernel agrees), 1 GiB-aligned,
 * so "is this pointer managed" is a range check without a lock.
 *
 * The used front of the reservation, the arena [base, base + arena_len),
 * is one read-write mapping grown a GiB at a time, and stays one VMA: that
 * is what lets the fault sampler arm all managed memory with a single
 * page-table move per GiB (see sampler-fault.c). So an allocation takes
 * whole 2 MiB units of the arena without mapping anything, and a free
 * keeps the region with its pages for reuse (cache.c) or gives the memory
 * back with MADV_DONTNEED, never unmapping. Under the fault sampler chunks
 * get their own NUMA policy only while their pages are placed
 * (migrate.c); otherwise the whole arena is under one policy, bound to the
 * fast and slow nodes together (tlrt_region_settle): a lasting per-chunk
 * policy would split the VMA. Under other samplers chunks keep their
 * policy, and their pages come at first touch (tlrt_populate). The
 * default policy would let the
 * kernel's NUMA balancing move placed pages towards the CPUs touching them
 * (a CPU-less fast node, HBM on Xeon Max, would be emptied).
 *
 * Metadata lives in side tables indexed by unit, never in front of the
 * data: a region's data starts on its 2 MiB boundary, so alignments up to
 * 2 MiB come for free and larger ones are a matter of picking the start
 * unit.
 */
#include "tiermem/rt.h"

#include <errno.h>
#include <numaif.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/units.h"

#define RESERVE_MAX (1ULL << 40)
#define RESERVE_MIN (1ULL << 30)
#define ARENA_STEP (1ULL << 30)

int tlrt_madvise(void *addr, size_t len, int advice)
{
	return (int)syscall(SYS_madvise, addr, len, advice);
}

static void *map_side(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Why no reservation fits. A limit on address space (ulimit -v) is the
 * usual cause, and counts the reservation though nothing backs it: say so,
 * with the limit, rather than leave the user to guess.
 */
void tlrt_region_explain(int err, char *why, size_t len)
{
	struct rlimit rl;
	char lim[32], need[32];

	tl_format_size(need, sizeof(need), RESERVE_MIN + ARENA_STEP);
	if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		tl_format_size(lim, sizeof(lim), (uint64_t)rl.rlim_cur);
		snprintf(why, len, "cannot reserve address space for managed memory: RLIMIT_AS (ulimit -v) is %llu "
			 "bytes (%s), and the runtime reserves at least %s of address space (PROT_NONE, no memory "
			 "behind it) besides the program's own: raise the limit (ulimit -v unlimited)",
			 (unsigned long long)rl.rlim_cur, lim, need);
		return;
	}
	snprintf(why, len, "cannot reserve address space for managed memory (%s at least, PROT_NONE): %s", need,
		 strerror(err));
}

int tlrt_region_reserve(char *why, size_t len)
{
	uint64_t size = RESERVE_MAX;
	uint64_t chunk = tlrt.opt.chunk_size;
	void *p = MAP_FAILED;
	uintptr_t base;
	int err = ENOMEM;

	/* keep the chunk table within TLRT_MAX_CHUNKS ids */
	while (size > RESERVE_MIN && size / chunk + (size >> TL_UNIT_SHIFT) > TLRT_MAX_CHUNKS)
		size /= 2;
	for (; size >= RESERVE_MIN; size /= 2) {
		p = mmap(NULL, size + ARENA_STEP, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p != MAP_FAILED)
			break;
		err = errno;
	}
	if (p == MAP_FAILED) {
		tlrt_region_explain(err, why, len);
		return -err;
	}
	/* trim to a 1 GiB-aligned start (the arena moves by whole page-directory entries); the slack goes back */
	base = ((uintptr_t)p + ARENA_STEP - 1) & ~(uintptr_t)(ARENA_STEP - 1);
	if (base > (uintptr_t)p)
		munmap(p, base - (uintptr_t)p);
	if ((uintptr_t)p + size + ARENA_STEP > base + size)
		munmap((void *)(base + size), (uintptr_t)p + size + ARENA_STEP - (base + size));

	tlrt.nunits = (uint32_t)(size >> TL_UNIT_SHIFT);
	tlrt.regions = map_side((size_t)tlrt.nunits * sizeof(*tlrt.regions));
	tlrt.owner = map_side((size_t)tlrt.nunits * sizeof(*tlrt.owner));
	tlrt.unit_state = map_side(tlrt.nunits);
	if (!tlrt.regions || !tlrt.owner || !tlrt.unit_state || tlrt_bitmap_init(&tlrt.units_map, tlrt.nunits)) {
		tlrt_region_explain(errno ? errno : ENOMEM, why, len);
		munmap((void *)base, size);
		return -ENOMEM;
	}
	tlrt.arena_len = 0;
	atomic_store_explicit(&tlrt.base, base, memory_order_relaxed);
	atomic_store_explicit(&tlrt.size, (size_t)size, memory_order_release);
	return 0;
}

/*
 * The arena covers [base, end). The new part is mapped right after the
 * old one with the same flags, so the kernel merges the two into one VMA.
 * Nothing may be armed: the caller released the span first.
 */
static int arena_grow(uintptr_t base, uintptr_t end)
{
	size_t want = ((end - base) + ARENA_STEP - 1) & ~(size_t)(ARENA_STEP - 1);
	void *p;

	if (want <= tlrt.arena_len)
		return 0;
	tlrt_sampler_release(base, tlrt.arena_len);
	p = mmap((void *)(base + tlrt.arena_len), want - tlrt.arena_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	/* unset, the program gets the pages it would get without the runtime: runs stay comparable with baselines */
	if (tlrt.opt.thp >= 0)
		tlrt_madvise(p, want - tlrt.arena_len, tlrt.opt.thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	tlrt_region_settle((uintptr_t)p, want - tlrt.arena_len);
	/*
	 * One touch gives the new VMA its anon_vma before any chunk policy
	 * splits it. Pieces first faulted while split under different
	 * policies would each get an anon_vma of their own, and VMAs with
	 * different anon_vmas never merge again: the arena would stay split.
	 */
	if (!tlrt.arena_len) {
		*(volatile char *)p = 0;
		/* the whole unit: with THP always that touch faulted a huge page, and dropping 4 KiB of it left 511 pages */
		tlrt_madvise(p, TL_UNIT, MADV_DONTNEED);
	}
	tlrt.arena_len = want;
	if (!tlrt.same_node)
		tlrt.watched = !tlrt_sampler_watch(base, want);
	return 0;
}

struct tlrt_region *tlrt_region_alloc(uint64_t bytes, size_t align)
{
	uintptr_t base = atomic_load_explicit(&tlrt.base, memory_order_relaxed);
	uint64_t units64 = (bytes + TL_UNIT - 1) >> TL_UNIT_SHIFT;
	size_t first = 0, step = 1;
	struct tlrt_region *r;
	long at;

	if (!bytes || units64 > tlrt.nunits)
		return NULL;
	if (align > TL_UNIT) {
		step = align >> TL_UNIT_SHIFT;
		first = ((align - base % align) % align) >> TL_UNIT_SHIFT;
	}
	at = tlrt_bitmap_alloc(&tlrt.units_map, (size_t)units64, first, step);
	if (at < 0)
		return NULL;
	if (arena_grow(base, base + (((uintptr_t)at + units64) << TL_UNIT_SHIFT))) {
		tlrt_bitmap_free(&tlrt.units_map, (size_t)at, (size_t)units64);
		return NULL;
	}
	r = &tlrt.regions[at];
	memset(r, 0, sizeof(*r));
	r->addr = base + ((uintptr_t)at << TL_UNIT_SHIFT);
	r->units = (uint32_t)units64;
	r->maplen = units64 << TL_UNIT_SHIFT;
	r->bytes = bytes;
	for (uint32_t u = 0; u < r->units; u++)
		tlrt.owner[at + u] = (uint32_t)at;
	return r;
}

/*
 * Pages are placed at malloc only where a first touch would land on the
 * wrong tier. With one node set for both tiers it cannot; with a sampler
 * that does not need the arena as one mapping, chunks keep their own
 * policy (the arena splits into a VMA per run of chunks on one tier) and
 * the kernel puts a first touch on the chunk's tier. Either way pages
 * come when the program touches them, as without the runtime, and memory
 * a program allocates but never touches costs it nothing (barnes's tables:
 * 8.7x glibc's peak RSS when populated).
 */
static int chunk_policies_stay(void)
{
	return !tlrt.same_node && !tlrt_sampler_one_mapping();
}

/*
 * Under the fault sampler the arena is one VMA and chunks have no policy
 * of their own; the sampler then hands first touches to first-touch.c,
 * which places them, once it watches the whole arena (after each growth).
 */
int tlrt_first_touch_places(void)
{
	/* under a memory policy on managed memory the kernel places every first touch */
	return tlrt.opt.mempolicy || tlrt.same_node || chunk_policies_stay() || tlrt.watched;
}

/* A chunk's pages are placed: back under the arena's policy, unless the chunk's own policy stays. */
void tlrt_region_placed(uintptr_t addr, size_t len)
{
	/* a memory policy on managed memory: the arena has it already */
	if (!tlrt.opt.mempolicy && !chunk_policies_stay())
		tlrt_region_settle(addr, len);
}

void tlrt_populate(uintptr_t addr, size_t len)
{
	if (tlrt_first_touch_places())
		return;
	/* before Linux 5.14 (EINVAL) a write per page does the same: the memory is fresh zeroes */
	if (len && tlrt_madvise((void *)addr, len, MADV_POPULATE_WRITE) && errno == EINVAL)
		for (size_t off = 0; off < len; off += TLRT_PAGE)
			*(volatile char *)(addr + off) = 0;
}

void tlrt_region_populate(const struct tlrt_region *r)
{
	tlrt_populate(r->addr, (size_t)((r->bytes + TLRT_PAGE - 1) / TLRT_PAGE * TLRT_PAGE));
	/* the pages are placed; a lasting per-chunk policy would split the arena (see above) */
	tlrt_region_placed(r->addr, r->maplen);
}

#ifndef MPOL_PREFERRED_MANY
#define MPOL_PREFERRED_MANY 5
#endif
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif

/*
 * A memory policy on managed memory only (TIERLAB_MEMPOLICY): the arena
 * gets it as it grows, before anything is touched, and keeps it: nothing
 * places chunks, and a freed region goes back under it (settle), so the
 * arena stays one VMA under one policy, as under the fault sampler.
 */
int tlrt_region_mempolicy(uintptr_t addr, size_t len, const char **mode)
{
	unsigned long nodes[TLRT_NODE_WORDS];
	int m = MPOL_INTERLEAVE;

	*mode = "MPOL_INTERLEAVE";
	for (int i = 0; i < TLRT_NODE_WORDS; i++)
		nodes[i] = tlrt.fast_mask[i] | tlrt.slow_mask[i];
	if (tlrt.opt.mempolicy == TLRT_MEMPOLICY_PREFERRED) {
		m = MPOL_PREFERRED_MANY;
		*mode = "MPOL_PREFERRED_MANY";
		memcpy(nodes, tlrt.fast_mask, sizeof(nodes));
	} else if (tlrt.opt.mempolicy == TLRT_MEMPOLICY_WEIGHTED) {
		m = MPOL_WEIGHTED_INTERLEAVE;
		*mode = "MPOL_WEIGHTED_INTERLEAVE";
	}
	return mbind((void *)addr, len, m, nodes, TLRT_NODE_WORDS * 64 + 1, 0) ? -errno : 0;
}

int tlrt_region_settle(uintptr_t addr, size_t len)
{
	unsigned long both[TLRT_NODE_WORDS];
	const char *mode;

	if (tlrt.opt.mempolicy)
		return tlrt_region_mempolicy(addr, len, &mode);

	for (int i = 0; i < TLRT_NODE_WORDS; i++)
		both[i] = tlrt.fast_mask[i] | tlrt.slow_mask[i];
	/* no MPOL_MF_MOVE: pages on either tier stay where they are */
	return mbind((void *)addr, len, MPOL_BIND, both, TLRT_NODE_WORDS * 64 + 1, 0) ? -errno : 0;
}

void tlrt_region_free(struct tlrt_region *r)
{
	uintptr_t base = atomic_load_explicit(&tlrt.base, memory_order_relaxed);
	size_t at = (r->addr - base) >> TL_UNIT_SHIFT;

	/* the memory goes back; the mapping stays so the arena stays one VMA */
	tlrt_madvise((void *)r->addr, r->maplen, MADV_DONTNEED);
	tlrt_region_settle(r->addr, r->maplen);
	/* free units hold no pages: the cache relies on it (cache.c) */
	memset(&tlrt.unit_state[at], TLRT_UNIT_CLEAN, r->units);
	tlrt_bitmap_free(&tlrt.units_map, at, r->units);
	r->units = 0;
	r->bytes = 0;
	r->held = 0;
	r->cached = 0;
}

struct tlrt_region *tlrt_region_of(uintptr_t p)
{
	uintptr_t base = atomic_load_explicit(&tlrt.base, memory_order_relaxed);
	size_t unit;
	struct tlrt_region *r;

	if (!tlrt_managed((void *)p))
		return NULL;
	unit = (p - base) >> TL_UNIT_SHIFT;
	if (!tlrt_bitmap_test(&tlrt.units_map, unit))
		return NULL;
	r = &tlrt.regions[tlrt.owner[unit]];
	return r->units && !r->cached ? r : NULL;
}
