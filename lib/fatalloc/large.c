/*
 * Large blocks (above the size classes, 1 MiB): one address-ordered list of free
 * ranges, first fit, with coalescing of neighbours on free. The same list
 * takes back the rest of an exited thread's segment, and gives new
 * segments and medium blocks before any pool's top is bumped: memory a
 * thread left behind is the next thread's.
 *
 * Address order makes coalescing a look at two neighbours, and first fit
 * in address order keeps the low end of the pools dense, which is what
 * lets a long-running program reuse its freed big arrays instead of
 * bumping new memory. A block is cut from the end of the range that
 * fits, so the range keeps its place in the list and only its size
 * changes; a segment is cut from the low end instead (the node moves up),
 * next to the memory its neighbours use, whose huge page is faulted in
 * already. The list lives in the free ranges themselves; its node keeps
 * the header's magic in place, so a double free of a large block is
 * still recognised.
 *
 * Dense low ends leave the free memory at the pools' high ends: a range
 * that ends at its pool's top is the pool's free tail, and when a free
 * makes it longer than TIERLAB_FAT_TRIM its whole pages go back to the
 * kernel and the top comes down (pool.c), as glibc trims the top of its
 * heap. A block longer than that bound gives its whole pages back when it
 * is freed, wherever it lies (glibc unmaps such blocks); it stays in the
 * list, and is faulted in again when reused. Other holes keep their pages.
 *
 * All of this is under one lock: large blocks are rare next to small ones,
 * and each costs far more in first-touch page faults than in the lock.
 */
#include "fatalloc/fatalloc.h"

#include <errno.h>
#include <sys/mman.h>

#define MIN_SPLIT 256	/* a smaller remainder goes with the block */

struct range {
	uint64_t size;
	uint32_t unused;
	uint16_t cls;
	uint16_t magic;		/* where struct fat_hdr keeps it */
	struct range *prev, *next;
};
_Static_assert(sizeof(struct range) == 32, "a free range's node is 32 bytes");

static struct range *head;
static size_t nranges, nbytes;

static void unlink_range(struct range *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	nranges--;
}

void *fat_large_alloc(size_t size, size_t *got, bool *fresh)
{
	struct range *r;
	char *blk;

	pthread_mutex_lock(&fat_large_lock);
	for (r = head; r && r->size < size; r = r->next)
		;
	if (r) {
		if (r->size - size >= MIN_SPLIT) {
			r->size -= size;
			blk = (char *)r + r->size;
			*got = size;
		} else {
			unlink_range(r);
			blk = (char *)r;
			*got = r->size;
		}
		nbytes -= *got;
		pthread_mutex_unlock(&fat_large_lock);
		*fresh = false;
		return blk;
	}
	pthread_mutex_unlock(&fat_large_lock);
	/* whole cache lines, so the next block carved starts where this one ends: freed, they coalesce */
	size = (size + FAT_LARGE_ALIGN - 1) & ~(size_t)(FAT_LARGE_ALIGN - 1);
	blk = fat_pool_carve(size, FAT_LARGE_ALIGN);
	*got = size;
	*fresh = true;
	return blk;
}

void *fat_large_take(size_t min, size_t want, size_t *got)
{
	struct range *r, *rest;

	pthread_mutex_lock(&fat_large_lock);
	for (r = head; r && r->size < min; r = r->next)
		;
	if (!r) {
		pthread_mutex_unlock(&fat_large_lock);
		return NULL;
	}
	if (r->size < want + MIN_SPLIT) {
		unlink_range(r);
		*got = r->size;
	} else {
		rest = (struct range *)((char *)r + want);
		*rest = *r;
		rest->size -= want;
		if (rest->prev)
			rest->prev->next = rest;
		else
			head = rest;
		if (rest->next)
			rest->next->prev = rest;
		*got = want;
	}
	nbytes -= *got;
	pthread_mutex_unlock(&fat_large_lock);
	return r;
}

/*
 * Under the lock: when r is its pool's free tail, detaches the part from
 * its first page boundary to the top (r keeps what lies before, at least
 * MIN_SPLIT bytes) and says where it is; NULL when there is nothing to
 * give back.
 */
static struct fat_pool *tail_of(struct range *r, char **cut, char **top)
{
	struct fat_pool *pool = fat_pool_of(r);
	uintptr_t start = (uintptr_t)r;

	if (!pool || atomic_load_explicit(&pool->untrimmable, memory_order_relaxed))
		return NULL;
	*top = pool->base + atomic_load_explicit(&pool->top, memory_order_relaxed);
	if ((char *)r + r->size != *top)
		return NULL;
	if (start % pool->page)
		start = (start + MIN_SPLIT + pool->page - 1) & ~(uintptr_t)(pool->page - 1);
	*cut = (char *)start;
	if (*cut >= *top)
		return NULL;
	if (*cut == (char *)r)
		unlink_range(r);
	else
		r->size = (uint64_t)(*cut - (char *)r);
	nbytes -= (size_t)(*top - *cut);
	return pool;
}

/*
 * The whole pages of a block about to be freed, back to the kernel (none
 * of its first 32 bytes: the node). Not for a block at the top: the
 * tail's trim gives its pages back and brings the top down too.
 */
static void release_pages(char *start, size_t len)
{
	struct fat_pool *pool = fat_pool_of(start);
	uintptr_t lo, hi;
	int saved = errno;

	if (!pool || atomic_load_explicit(&pool->untrimmable, memory_order_relaxed) ||
	    start + len == pool->base + atomic_load_explicit(&pool->top, memory_order_relaxed))
		return;
	lo = ((uintptr_t)start + sizeof(struct range) + pool->page - 1) & ~(uintptr_t)(pool->page - 1);
	hi = ((uintptr_t)start + len) & ~(uintptr_t)(pool->page - 1);
	if (hi > lo && !madvise((void *)lo, hi - lo, MADV_DONTNEED))
		fat_stat_add(FAT_STAT_bytes_released, (int64_t)(hi - lo));
	errno = saved;
}

void fat_large_free(void *start, size_t len)
{
	struct range *r = start, *prev = NULL, *next;
	struct fat_pool *pool = NULL;
	char *cut = NULL, *top = NULL;

	/* before the block joins the list: no other thread can have it yet */
	if (len > fat_opt.trim)
		release_pages(start, len);

	pthread_mutex_lock(&fat_large_lock);
	for (next = head; next && (char *)next < (char *)start; next = next->next)
		prev = next;
	nbytes += len;
	if (prev && (char *)prev + prev->size == (char *)start) {
		prev->size += len;
		r = prev;
	} else {
		r->size = len;
		r->cls = FAT_CLASS_LARGE;
		r->magic = FAT_MAGIC_FREE;
		r->prev = prev;
		r->next = next;
		if (prev)
			prev->next = r;
		else
			head = r;
		if (next)
			next->prev = r;
		nranges++;
	}
	if (next && (char *)r + r->size == (char *)next) {
		r->size += next->size;
		unlink_range(next);
	}
	if (r->size > fat_opt.trim)
		pool = tail_of(r, &cut, &top);
	pthread_mutex_unlock(&fat_large_lock);
	/* the system calls without the list's lock; a top that moved meanwhile takes the range back */
	if (pool && !fat_pool_trim(pool, cut, top))
		fat_large_free(cut, (size_t)(top - cut));
}

void fat_large_count(size_t *ranges, size_t *bytes)
{
	pthread_mutex_lock(&fat_large_lock);
	*ranges = nranges;
	*bytes = nbytes;
	pthread_mutex_unlock(&fat_large_lock);
}

void fat_large_reset(void)
{
	head = NULL;
	nranges = nbytes = 0;
}
