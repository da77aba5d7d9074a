/*
 * Regions: where managed allocations live. At the first managed
 * allocation the runtime reserves one large PROT_NONE, MAP_NORESERVE range
 * of address space (1 TiB, halved until the kernel agrees), so "is this
 * pointer managed" is a range check without a lock. Each allocation takes
 * whole 2 MiB units of it, mapped read-write with MAP_FIXED (and advised
 * for huge pages); a free maps the units back to PROT_NONE, MAP_NORESERVE,
 * which gives the memory back. Metadata lives in side tables indexed by
 * unit, never in front of the data: a region's data starts on its 2 MiB
 * boundary, so alignments up to 2 MiB come for free and larger ones are a
 * matter of picking the start unit.
 */
#include "tiermem/rt.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define RESERVE_MAX (1ULL << 40)
#define RESERVE_MIN (1ULL << 30)

static void *map_side(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int tlrt_region_reserve(void)
{
	uint64_t size = RESERVE_MAX;
	uint64_t chunk = tlrt.opt.chunk_size;
	void *p = MAP_FAILED;
	uintptr_t base;

	/* keep the chunk table within TLRT_MAX_CHUNKS ids */
	while (size > RESERVE_MIN && size / chunk + (size >> TLRT_UNIT_SHIFT) > TLRT_MAX_CHUNKS)
		size /= 2;
	for (; size >= RESERVE_MIN; size /= 2) {
		p = mmap(NULL, size + TLRT_UNIT, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p != MAP_FAILED)
			break;
	}
	if (p == MAP_FAILED)
		return -ENOMEM;
	/* trim to a 2 MiB-aligned start; the slack goes back */
	base = ((uintptr_t)p + TLRT_UNIT - 1) & ~(TLRT_UNIT - 1);
	if (base > (uintptr_t)p)
		munmap(p, base - (uintptr_t)p);
	if ((uintptr_t)p + size + TLRT_UNIT > base + size)
		munmap((void *)(base + size), (uintptr_t)p + size + TLRT_UNIT - (base + size));

	tlrt.nunits = (uint32_t)(size >> TLRT_UNIT_SHIFT);
	tlrt.regions = map_side((size_t)tlrt.nunits * sizeof(*tlrt.regions));
	tlrt.owner = map_side((size_t)tlrt.nunits * sizeof(*tlrt.owner));
	if (!tlrt.regions || !tlrt.owner || tlrt_bitmap_init(&tlrt.units_map, tlrt.nunits)) {
		munmap((void *)base, size);
		return -ENOMEM;
	}
	atomic_store_explicit(&tlrt.size, (size_t)size, memory_order_relaxed);
	atomic_store_explicit(&tlrt.base, base, memory_order_release);
	return 0;
}

struct tlrt_region *tlrt_region_alloc(uint64_t bytes, size_t align)
{
	uintptr_t base = atomic_load_explicit(&tlrt.base, memory_order_relaxed);
	uint64_t units64 = (bytes + TLRT_UNIT - 1) >> TLRT_UNIT_SHIFT;
	size_t first = 0, step = 1;
	struct tlrt_region *r;
	long at;
	void *p;

	if (!bytes || units64 > tlrt.nunits)
		return NULL;
	if (align > TLRT_UNIT) {
		step = align >> TLRT_UNIT_SHIFT;
		first = ((align - base % align) % align) >> TLRT_UNIT_SHIFT;
	}
	at = tlrt_bitmap_alloc(&tlrt.units_map, (size_t)units64, first, step);
	if (at < 0)
		return NULL;
	r = &tlrt.regions[at];
	memset(r, 0, sizeof(*r));
	r->addr = base + ((uintptr_t)at << TLRT_UNIT_SHIFT);
	r->units = (uint32_t)units64;
	r->maplen = units64 << TLRT_UNIT_SHIFT;
	r->bytes = bytes;
	p = mmap((void *)r->addr, r->maplen, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED) {
		tlrt_bitmap_free(&tlrt.units_map, (size_t)at, (size_t)units64);
		return NULL;
	}
	if (tlrt.opt.thp)
		madvise(p, r->maplen, MADV_HUGEPAGE);
	for (uint32_t u = 0; u < r->units; u++)
		tlrt.owner[at + u] = (uint32_t)at;
	return r;
}

void tlrt_region_free(struct tlrt_region *r)
{
	uintptr_t base = atomic_load_explicit(&tlrt.base, memory_order_relaxed);
	size_t at = (r->addr - base) >> TLRT_UNIT_SHIFT;

	/* replacing the mapping drops its pages and its memory policy */
	mmap((void *)r->addr, r->maplen, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	tlrt_bitmap_free(&tlrt.units_map, at, r->units);
	r->units = 0;
	r->bytes = 0;
}

struct tlrt_region *tlrt_region_of(uintptr_t p)
{
	uintptr_t base = atomic_load_explicit(&tlrt.base, memory_order_relaxed);
	size_t unit;
	struct tlrt_region *r;

	if (!tlrt_managed((void *)p))
		return NULL;
	unit = (p - base) >> TLRT_UNIT_SHIFT;
	if (!tlrt_bitmap_test(&tlrt.units_map, unit))
		return NULL;
	r = &tlrt.regions[tlrt.owner[unit]];
	return r->units ? r : NULL;
}
