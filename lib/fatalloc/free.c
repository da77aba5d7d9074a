/*
 * Freeing: the header check, the thread's bins and the central lists.
 *
 * free() of a pointer outside every pool is the system allocator's (a
 * fallback block, or one allocated before this library was in charge);
 * start-up buffer pointers are ignored. A pool pointer's header must say
 * "live": a freed one aborts as a double free, anything else as an invalid
 * pointer, as glibc does, rather than corrupting the lists.
 *
 * A small block goes onto the freeing thread's bin for its class, whichever
 * thread allocated it (tcmalloc's choice rather than mimalloc's return to
 * the owner: no atomics on the free path). A bin longer than its limit
 * spills half into the central list of the class, under that class's own
 * lock, and an empty bin refills from there before bumping new memory; so
 * a producer/consumer pair of threads recycles blocks instead of growing.
 *
 * The central list is a stack of batches, each a spilled run of blocks
 * linked as in the bin, whose first block also says how many it holds,
 * where it ends and which batch comes next (struct batch). Spilling walks
 * the run in the spilling thread's bin, outside the lock (those blocks are
 * in its cache: it just freed them); under the lock a batch is pushed or
 * popped whole. Walking another thread's blocks under the lock, a cache
 * miss per block, was what made producer/consumer programs slow.
 */
#include "fatalloc/fatalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The first block of a batch. next is the bin's link and keeps its place;
 * count sits where a live header keeps back and cls, and the magic stays
 * "free", so a double free of the block is still caught. Every class
 * holds at least 32 bytes.
 */
struct batch {
	void *next;
	uint32_t count;
	uint16_t unused;
	uint16_t magic;
	struct batch *below;	/* the next batch down the stack */
	void *last;		/* the batch's last block */
};
_Static_assert(sizeof(struct batch) == 32, "a batch's head fits the smallest class");

struct central {
	pthread_mutex_t lock;
	struct batch *top;
	size_t count;
} __attribute__((aligned(64)));

static struct central central[FAT_NCLASSES] = {
	[0 ... FAT_NCLASSES - 1] = { .lock = PTHREAD_MUTEX_INITIALIZER }
};

uint16_t fat_bin_limits[FAT_NCLASSES];

void fat_classes_init(void)
{
	for (unsigned c = 0; c < FAT_NCLASSES; c++) {
		size_t n = ((size_t)256 << 10) / fat_class_size(c);
		size_t min = fat_class_size(c) > FAT_SMALL_MAX ? 2 : 8;

		fat_bin_limits[c] = (uint16_t)(n < min ? min : n > 1024 ? 1024 : n);
	}
}

_Noreturn void fat_fatal(const char *msg)
{
	(void)!write(2, "fatalloc: ", 10);
	(void)!write(2, msg, strlen(msg));
	(void)!write(2, "\n", 1);
	abort();
}

void fat_bin_spill(struct fat_bin *b, unsigned cls, uint32_t n)
{
	struct central *c = &central[cls];
	struct batch *first = b->head;
	void *last = first;
	uint32_t moved = 1;

	if (!n || !first)
		return;
	for (; moved < n && *(void **)last; moved++)
		last = *(void **)last;
	b->head = *(void **)last;
	b->count -= moved;
	*(void **)last = NULL;
	first->count = moved;
	first->last = last;
	pthread_mutex_lock(&c->lock);
	first->below = c->top;
	__atomic_store_n(&c->top, first, __ATOMIC_RELAXED);
	c->count += moved;
	pthread_mutex_unlock(&c->lock);
}

uint32_t fat_central_take(struct fat_bin *b, unsigned cls, uint32_t n)
{
	struct central *c = &central[cls];
	struct batch *first, *bt;
	uint32_t got;

	/* a peek without the lock: an empty list is the common case */
	if (!n || b->head || !__atomic_load_n(&c->top, __ATOMIC_RELAXED))
		return 0;
	pthread_mutex_lock(&c->lock);
	first = bt = c->top;
	if (!first) {
		pthread_mutex_unlock(&c->lock);
		return 0;
	}
	/* whole batches, chained through their last blocks, until n */
	for (got = bt->count; got < n && bt->below; got += bt->count) {
		*(void **)bt->last = bt->below;
		bt = bt->below;
	}
	__atomic_store_n(&c->top, bt->below, __ATOMIC_RELAXED);
	c->count -= got;
	pthread_mutex_unlock(&c->lock);
	b->head = first;
	b->count = got;
	return got;
}

void fat_small_free(void *blk, unsigned cls)
{
	struct fat_tcache *tc = &fat_tc;
	struct fat_bin *b = &tc->bins[cls];

	*(void **)blk = b->head;
	b->head = blk;
	b->count++;
	/* a thread past its exit flush keeps nothing */
	if (unlikely(b->count > fat_bin_limits[cls] || tc->state == FAT_TC_DEAD))
		fat_bin_spill(b, cls, tc->state == FAT_TC_DEAD ? b->count : b->count / 2);
}

void fat_dealloc(void *p)
{
	struct fat_hdr *h = fat_hdr_of(p);
	struct fat_tcache *tc = &fat_tc;
	size_t len = h->len;
	unsigned cls = h->cls;
	char *blk = (char *)p - h->back;

	if (unlikely(h->magic != FAT_MAGIC_LIVE))
		fat_fatal(h->magic == FAT_MAGIC_FREE ? "free(): double free detected" : "free(): invalid pointer");
	if (unlikely(h->back < FAT_HDR || (cls < FAT_NCLASSES ? len != fat_class_size(cls) : cls != FAT_CLASS_LARGE)))
		fat_fatal("free(): invalid pointer (corrupt block header)");
	h->magic = FAT_MAGIC_FREE;
	tc->frees++;
	tc->live_delta -= (int64_t)len;
	if (unlikely(++tc->ops >= 4096))
		fat_stats_flush(tc);
	if (likely(cls < FAT_NCLASSES))
		fat_small_free(blk, cls);
	else
		fat_large_free(blk, len);
}

void fat_free(void *p)
{
	if (!p)
		return;
	if (likely(fat_in_pool(p))) {
		fat_dealloc(p);
		return;
	}
	if (fat_sys_is_boot(p))
		return;
	fat_stat_add(FAT_STAT_foreign_frees, 1);
	fat_sys_free(p);
}

void fat_tcache_flush(struct fat_tcache *tc)
{
	for (unsigned c = 0; c < FAT_NCLASSES; c++)
		fat_bin_spill(&tc->bins[c], c, tc->bins[c].count);
	/* the rest of the segment is worth keeping: it is usually most of it */
	if (tc->seg_end - tc->seg_cur >= 256)
		fat_large_free(tc->seg_cur, (size_t)(tc->seg_end - tc->seg_cur));
	tc->seg_cur = tc->seg_end = NULL;
	fat_stats_flush(tc);
}

void fat_central_lock_all(void)
{
	for (unsigned c = 0; c < FAT_NCLASSES; c++)
		pthread_mutex_lock(&central[c].lock);
}

void fat_central_unlock_all(void)
{
	for (unsigned c = FAT_NCLASSES; c-- > 0;)
		pthread_mutex_unlock(&central[c].lock);
}

void fat_central_reinit_all(void)
{
	for (unsigned c = 0; c < FAT_NCLASSES; c++)
		pthread_mutex_init(&central[c].lock, NULL);
}

void fat_central_reset(void)
{
	for (unsigned c = 0; c < FAT_NCLASSES; c++) {
		central[c].top = NULL;
		central[c].count = 0;
	}
}
