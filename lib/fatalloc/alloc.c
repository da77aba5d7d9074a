/*
 * Allocation: the bump pointer, the size classes and the malloc side of
 * the API (the free side is free.c).
 *
 * As in the FAT paper a block is bumped out of a huge-page pool and its
 * bounds are recorded with it: here in a 16-byte header right before the
 * pointer (start as the distance back, length), since ordinary hardware has
 * no capability to carry them. Unlike FAT, freed blocks cannot be unmapped
 * (that would punch 4 KiB holes in a huge page, or give back nothing at
 * all for a hugetlb page), so they are kept for reuse: small ones in
 * size-class lists, large ones in an address-ordered list (large.c).
 *
 * The fast path is thread-local: each thread pops from its own bin, and
 * when the bin is empty bumps from its own segment. A thread's first
 * segment is 64 KiB and each next one twice the last, up to 1 MiB (or an
 * eighth of a small pool): a thread that allocates little (one of many
 * short-lived ones) holds little. A segment comes first from the free
 * ranges of large.c, which is where exited threads' segments go, and only
 * then from a pool's top (one compare-and-swap); medium blocks (64 KiB to
 * 1 MiB) likewise, one by one. No lock is taken until a bin has to be
 * refilled. Above 1 MiB, blocks come from large.c.
 *
 * What the pools cannot serve (alignments above 1 GiB, pools exhausted,
 * no memory) goes to the system allocator and is counted as a fallback.
 */
#include "fatalloc/fatalloc.h"

#include <errno.h>
#include <string.h>

#define FLUSH_EVERY 4096	/* operations between publishing a thread's counters */
#define SEGMENT_MIN ((size_t)FAT_SMALL_MAX)	/* holds a block of the largest small class */
#define SEGMENT_MAX ((size_t)1 << 20)

__thread struct fat_tcache fat_tc __attribute__((tls_model("initial-exec")));

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) & ~(to - 1);
}

static inline void count_alloc(struct fat_tcache *tc, size_t len)
{
	tc->mallocs++;
	tc->live_delta += (int64_t)len;
	if (unlikely(++tc->ops >= FLUSH_EVERY))
		fat_stats_flush(tc);
}

void fat_tcache_init(struct fat_tcache *tc)
{
	pthread_mutex_lock(&fat_pool_lock);
	fat_init_locked();
	pthread_mutex_unlock(&fat_pool_lock);
	/* LIVE before setspecific: it may allocate (for keys past the first 32) */
	tc->state = FAT_TC_LIVE;
	pthread_setspecific(fat_thread_key, tc);
}

/* The size of the thread's next segment; the one after is twice as big, to the cap. */
static size_t next_segment(struct fat_tcache *tc)
{
	size_t cap = fat_opt.pool_size / 8, s;

	if (cap > SEGMENT_MAX)
		cap = SEGMENT_MAX;
	s = tc->seg_next < SEGMENT_MIN ? SEGMENT_MIN : tc->seg_next > cap ? cap : tc->seg_next;
	tc->seg_next = s * 2;
	return s;
}

/* A new segment for the thread: freed memory first, else a pool's top. False when neither has one. */
static bool new_segment(struct fat_tcache *tc, size_t min)
{
	size_t want = next_segment(tc), got;
	char *seg = fat_large_take(min, want, &got);

	if (seg) {
		fat_stat_add(FAT_STAT_segments_reused, 1);
	} else {
		if (!(seg = fat_pool_carve(want, FAT_LARGE_ALIGN)))
			return false;
		got = want;
	}
	fat_stat_add(FAT_STAT_segments, 1);
	tc->seg_cur = seg;
	tc->seg_end = seg + got;
	return true;
}

void *fat_small_refill(struct fat_tcache *tc, unsigned cls)
{
	struct fat_bin *b = &tc->bins[cls];
	size_t sz = fat_class_size(cls), got;
	char *blk;
	bool fresh;

	if (unlikely(tc->state == FAT_TC_NEW))
		fat_tcache_init(tc);
	fat_stats_flush(tc);
	if (fat_central_take(b, cls, fat_bin_limit(cls) / 2)) {
		blk = b->head;
		b->head = *(void **)blk;
		b->count--;
		return blk;
	}
	/* medium blocks are few and big: each is a range on its own, freed memory first */
	if (sz > FAT_SMALL_MAX)
		return fat_large_alloc(sz, &got, &fresh);
	/*
	 * The old segment's tail (smaller than this class) is dropped: at most
	 * one block's worth per segment, and keeping tails out of the large
	 * list keeps that list short. With the pools nearly full, a block on
	 * its own.
	 */
	if ((size_t)(tc->seg_end - tc->seg_cur) < sz && !new_segment(tc, sz))
		return fat_pool_carve(sz, FAT_HDR);
	blk = tc->seg_cur;
	tc->seg_cur += sz;
	return blk;
}

void *fat_small_alloc(unsigned cls)
{
	struct fat_tcache *tc = &fat_tc;
	struct fat_bin *b = &tc->bins[cls];
	void *blk = b->head;

	if (likely(blk)) {
		b->head = *(void **)blk;
		b->count--;
		return blk;
	}
	return fat_small_refill(tc, cls);
}

void *fat_alloc(size_t size, size_t align, bool *fresh)
{
	struct fat_tcache *tc = &fat_tc;
	struct fat_hdr *h;
	size_t need, len;
	unsigned cls;
	char *blk, *user;

	*fresh = false;
	if (align <= FAT_HDR) {
		if (likely(size <= FAT_CLASS_MAX - FAT_HDR)) {
			cls = fat_class_of(size + FAT_HDR);
			blk = fat_small_alloc(cls);
			if (unlikely(!blk))
				return NULL;
			h = (struct fat_hdr *)blk;
			h->len = fat_class_size(cls);
			h->back = FAT_HDR;
			h->cls = (uint16_t)cls;
			h->magic = FAT_MAGIC_LIVE;
			count_alloc(tc, h->len);
			return blk + FAT_HDR;
		}
		align = FAT_HDR;
		if (size > SIZE_MAX / 2)
			return NULL;
		need = size + FAT_HDR;
	} else {
		/* room for the header before the aligned pointer, inside the block */
		if (align > FAT_MAX_ALIGN || size > SIZE_MAX / 2)
			return NULL;
		need = size + align;
	}
	if (need <= FAT_CLASS_MAX) {
		cls = fat_class_of(need);
		blk = fat_small_alloc(cls);
		len = fat_class_size(cls);
	} else {
		cls = FAT_CLASS_LARGE;
		blk = fat_large_alloc(round_up(need, FAT_HDR), &len, fresh);
	}
	if (!blk)
		return NULL;
	user = (char *)round_up((uintptr_t)blk + FAT_HDR, align);
	h = fat_hdr_of(user);
	h->len = len;
	h->back = (uint32_t)(user - blk);
	h->cls = (uint16_t)cls;
	h->magic = FAT_MAGIC_LIVE;
	if (cls == FAT_CLASS_LARGE)
		fat_stat_add(FAT_STAT_large_allocs, 1);
	count_alloc(tc, len);
	return user;
}

size_t fat_usable(const void *p)
{
	const struct fat_hdr *h = fat_hdr_of(p);

	return (size_t)(h->len - h->back);
}

/* The system allocator's answer, counted when it is one. */
static void *fallback(void *p)
{
	if (p) {
		/* the first fallback is news for the status file */
		if (atomic_fetch_add_explicit(&fat_stats[FAT_STAT_fallback_allocs], 1, memory_order_relaxed) == 0)
			fat_status_write();
	} else {
		errno = ENOMEM;
	}
	return p;
}

void *fat_malloc(size_t size)
{
	bool fresh;
	void *p = fat_alloc(size, 0, &fresh);

	if (likely(p))
		return p;
	return fallback(fat_sys_malloc(size));
}

void *fat_calloc(size_t n, size_t size)
{
	size_t total;
	bool fresh;
	void *p;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	p = fat_alloc(total, 0, &fresh);
	if (likely(p)) {
		/* freshly bumped pool memory was never written: zero already */
		if (!fresh)
			memset(p, 0, total);
		return p;
	}
	return fallback(fat_sys_calloc(n, size));
}

void *fat_memalign(size_t align, size_t size)
{
	bool fresh;
	void *p, *q;

	/* glibc's rules: a small alignment is malloc's, others round up to a power of two */
	if (align <= FAT_HDR)
		return fat_malloc(size);
	if (align > SIZE_MAX / 2 + 1) {
		errno = EINVAL;
		return NULL;
	}
	if (align & (align - 1))
		align = (size_t)1 << (64 - __builtin_clzll((unsigned long long)align));
	p = fat_alloc(size, align, &fresh);
	if (likely(p))
		return p;
	if (fat_sys_posix_memalign(&q, align, size))
		q = NULL;
	return fallback(q);
}

void *fat_aligned_alloc(size_t align, size_t size)
{
	/* glibc 2.36 treats aligned_alloc as memalign */
	return fat_memalign(align, size);
}

int fat_posix_memalign(void **out, size_t align, size_t size)
{
	bool fresh;
	void *p;
	int rc;

	if (!align || (align & (align - 1)) || align % sizeof(void *))
		return EINVAL;
	p = fat_alloc(size, align, &fresh);
	if (likely(p)) {
		*out = p;
		return 0;
	}
	rc = fat_sys_posix_memalign(&p, align, size);
	if (rc)
		return rc;
	fallback(p);
	*out = p;
	return 0;
}

/* Resizes a large block where it lies: gives a long tail back, or grows into the pool's top. */
static bool resize_large(void *p, size_t size)
{
	struct fat_hdr *h = fat_hdr_of(p);
	char *blk = (char *)p - h->back;
	size_t want, len = h->len;

	if (size > SIZE_MAX / 2)
		return false;
	want = round_up(h->back + size, FAT_HDR);
	if (want <= len) {
		if (len - want >= FAT_SMALL_MAX) {
			fat_large_free(blk + want, len - want);
			h->len = want;
			fat_tc.live_delta -= (int64_t)(len - want);
		}
		return true;
	}
	if (!fat_pool_extend(blk + len, want - len))
		return false;
	h->len = want;
	fat_tc.live_delta += (int64_t)(want - len);
	return true;
}

void *fat_realloc(void *p, size_t size)
{
	size_t old, boot;
	void *q;

	if (!p)
		return fat_malloc(size);
	if (!size) {
		/* glibc frees and returns NULL */
		fat_free(p);
		return NULL;
	}
	if (!fat_in_pool(p)) {
		if (!fat_sys_is_boot(p))
			return fat_sys_realloc(p, size);
		boot = fat_sys_boot_size(p);
		if ((q = fat_malloc(size)))
			memcpy(q, p, boot < size ? boot : size);
		return q;
	}
	if (fat_hdr_of(p)->magic != FAT_MAGIC_LIVE)
		fat_fatal("realloc(): invalid pointer");
	old = fat_usable(p);
	if (fat_hdr_of(p)->cls == FAT_CLASS_LARGE) {
		if (resize_large(p, size))
			return p;
	} else if (size <= old && (size >= old / 2 || old <= 128)) {
		return p;
	}
	q = fat_malloc(size);
	if (!q)
		return NULL;
	memcpy(q, p, old < size ? old : size);
	fat_free(p);
	return q;
}

size_t fat_malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (fat_in_pool(p))
		return fat_usable(p);
	if (fat_sys_is_boot(p))
		return fat_sys_boot_size(p);
	return fat_sys_usable_size(p);
}
