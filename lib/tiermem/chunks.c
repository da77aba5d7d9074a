/*
 * The chunk table: a managed allocation is split into chunks of
 * opt.chunk_size bytes (the last one may be partial), the unit of
 * placement and migration. Chunk ids are dense and reused after free, an
 * allocation owns a contiguous range of them, and policies see only ids.
 * The table is an anonymous NORESERVE mapping sized for the most chunks
 * the reservation can hold, so only the entries in use take memory.
 */
#include "tiermem/rt.h"

#include <errno.h>
#include <sys/mman.h>

int tlrt_chunks_init(void)
{
	uint64_t size = atomic_load_explicit(&tlrt.size, memory_order_relaxed);
	uint64_t max = size / tlrt.opt.chunk_size + tlrt.nunits;	/* + one partial chunk per region */
	void *p;

	if (max > TLRT_MAX_CHUNKS)
		max = TLRT_MAX_CHUNKS;
	p = mmap(NULL, (size_t)max * sizeof(struct tlrt_chunk), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	if (tlrt_bitmap_init(&tlrt.chunk_map, (size_t)max)) {
		munmap(p, (size_t)max * sizeof(struct tlrt_chunk));
		return -ENOMEM;
	}
	tlrt.chunks = p;
	tlrt.max_chunks = (uint32_t)max;
	return 0;
}

int tlrt_chunks_alloc(struct tlrt_region *r)
{
	uint64_t len = (r->bytes + TLRT_PAGE - 1) / TLRT_PAGE * TLRT_PAGE;
	uint64_t cs = tlrt.opt.chunk_size;
	uint64_t n = (len + cs - 1) / cs;
	uintptr_t base = atomic_load_explicit(&tlrt.base, memory_order_relaxed);
	long first;

	first = tlrt_bitmap_alloc(&tlrt.chunk_map, (size_t)n, 0, 1);
	if (first < 0)
		return -ENOMEM;
	r->first_chunk = (uint32_t)first;
	r->nchunks = (uint32_t)n;
	for (uint64_t i = 0; i < n; i++) {
		struct tlrt_chunk *c = &tlrt.chunks[first + (long)i];

		c->addr = r->addr + i * cs;
		c->len = (i + 1) * cs <= len ? cs : len - i * cs;
		c->region = (uint32_t)((r->addr - base) >> TL_UNIT_SHIFT);
		c->tier = TLP_SLOW;
		__atomic_store_n(&c->touch_tier, TLP_SLOW, __ATOMIC_RELEASE);
		c->live = 1;
		c->move_start_ns = c->move_end_ns = 0;
	}
	tlrt.live_chunks += (uint32_t)n;
	return 0;
}

void tlrt_chunks_free(struct tlrt_region *r)
{
	for (uint32_t i = 0; i < r->nchunks; i++) {
		struct tlrt_chunk *c = &tlrt.chunks[r->first_chunk + i];

		if (c->tier == TLP_FAST)
			tlrt.fast_chunks--;
		c->live = 0;
		c->tier = TLP_SLOW;
	}
	tlrt.live_chunks -= r->nchunks;
	tlrt_bitmap_free(&tlrt.chunk_map, r->first_chunk, r->nchunks);
}

uint32_t tlrt_chunk_of(uintptr_t p)
{
	struct tlrt_region *r = tlrt_region_of(p);
	uint64_t i;

	if (!r)
		return TLRT_NO_CHUNK;
	i = (p - r->addr) / tlrt.opt.chunk_size;
	return i < r->nchunks ? r->first_chunk + (uint32_t)i : TLRT_NO_CHUNK;
}
