/*
 * Large blocks (above the size classes, 1 MiB): one address-ordered list of free
 * ranges, first fit, with coalescing of neighbours on free.
 *
 * Address order makes coalescing a look at two neighbours, and first fit
 * in address order keeps the low end of the pools dense, which is what
 * lets a long-running program reuse its freed big arrays instead of
 * bumping new memory. A request is cut from the end of the range that
 * fits, so the range keeps its place in the list and only its size
 * changes. The list lives in the free ranges themselves; its node keeps
 * the header's magic in place, so a double free of a large block is
 * still recognised.
 *
 * All of this is under one lock: large blocks are rare next to small ones,
 * and each costs far more in first-touch page faults than in the lock.
 */
#include "fatalloc/fatalloc.h"

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
	blk = fat_pool_carve(size, FAT_LARGE_ALIGN);
	*got = size;
	*fresh = true;
	return blk;
}

void fat_large_free(void *start, size_t len)
{
	struct range *r = start, *prev = NULL, *next;

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
	pthread_mutex_unlock(&fat_large_lock);
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
