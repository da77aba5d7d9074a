/*
 * libfatalloc's internal contract: a FAT-style huge-page pool allocator.
 *
 * Memory comes from pools: large reservations backed, in order of
 * preference, by 1 GiB hugetlb pages, 2 MiB hugetlb pages, or anonymous
 * memory advised for transparent huge pages (pool.c). Blocks are bumped out
 * of the pools as in the FAT paper; where FAT keeps a block's bounds in a
 * CHERI capability, here a 16-byte header right before the user pointer
 * keeps them (struct fat_hdr), so free, realloc and malloc_usable_size know
 * the block, and a pointer can be checked to lie in a pool.
 *
 * Blocks up to FAT_CLASS_MAX (header included) come in size classes; each
 * thread bumps small ones (to FAT_SMALL_MAX) out of its own segment carved
 * from a pool with an atomic, medium ones straight from the pool, and keeps
 * freed ones in per-class lists of its own (alloc.c, free.c), so the fast
 * path takes no lock. Lists that grow too long spill into per-class central
 * lists (locked). Larger blocks live in one address-ordered free list with
 * coalescing (large.c), under a lock; that list is also where an exited
 * thread's segment goes, and where new segments come from first. A pool's
 * free tail past TIERLAB_FAT_TRIM goes back to the kernel in whole pages.
 * What the pools cannot serve goes to the system allocator (sys.c),
 * counted. override.c maps the malloc API onto the fat_* calls below; the
 * unit tests call those directly (with sanitizers), without the override.
 *
 * Every fat_* function here is hidden in libfatalloc.so except those
 * marked TL_EXPORT (see fatalloc-api.h).
 */
#ifndef FAT_FATALLOC_H
#define FAT_FATALLOC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fatalloc/fatalloc-api.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* ---- blocks ---------------------------------------------------------- */

#define FAT_HDR 16		/* header bytes; also the default alignment */
#define FAT_SMALL_MAX 65536	/* largest block bumped from a thread's segment */
#define FAT_CLASS_MAX 1048576	/* largest block with a size class (header included) */
#define FAT_NCLASSES 59		/* 32..128 by 16, then 4 classes per power of two to 1 MiB */
#define FAT_CLASS_LARGE 0xffff
#define FAT_MAGIC_LIVE 0xfa71
#define FAT_MAGIC_FREE 0xf4ee
#define FAT_LARGE_ALIGN 64	/* large blocks start on a cache line */
#define FAT_MAX_ALIGN ((size_t)1 << 30)	/* bigger alignments go to the system */

/*
 * The bounds of a live block (the capability's job on CHERI). The block
 * starts at (char *)user - back and is len bytes long; the usable bytes are
 * len - back. magic tells a live block from a freed one or a stray pointer.
 */
struct fat_hdr {
	uint64_t len;
	uint32_t back;
	uint16_t cls;		/* size class, or FAT_CLASS_LARGE */
	uint16_t magic;
};
_Static_assert(sizeof(struct fat_hdr) == FAT_HDR, "the header is 16 bytes");

static inline struct fat_hdr *fat_hdr_of(const void *user)
{
	return (struct fat_hdr *)((char *)user - FAT_HDR);
}

/* Size classes: total block bytes (header included), multiples of 16. */
static inline unsigned fat_class_of(size_t total)
{
	unsigned k;

	if (total <= 128)
		return total <= 32 ? 0 : (unsigned)((total + 15) / 16 - 2);
	k = 63u - (unsigned)__builtin_clzll((unsigned long long)(total - 1));
	return 7 + (k - 7) * 4 + (unsigned)(((total - 1) >> (k - 2)) - 4);
}

static inline size_t fat_class_size(unsigned cls)
{
	unsigned g, k;

	if (cls < 7)
		return (size_t)(cls + 2) * 16;
	g = (cls - 7) / 4;
	k = 7 + g;
	return ((size_t)1 << k) + (size_t)((cls - 7) % 4 + 1) * ((size_t)1 << (k - 2));
}

/* ---- options (options.c) --------------------------------------------- */

enum fat_backing {
	FAT_BACKING_NONE,	/* no pool: everything went to the system allocator */
	FAT_BACKING_HUGETLB_1G,
	FAT_BACKING_HUGETLB_2M,
	FAT_BACKING_THP,
	FAT_BACKING_4K,		/* anonymous memory, THP off or not supported */
	FAT_BACKING__COUNT
};
/* Must match enum fat_backing. */
extern const char *const fat_backing_names[FAT_BACKING__COUNT];

/* X(id, variable, default, help): the one table of variables. */
#define FAT_OPTIONS(X) \
	X(POOL, "TIERLAB_FAT_POOL", "1G", "bytes per pool (K/M/G binary units); a larger block gets a pool of its own") \
	X(MAX_POOLS, "TIERLAB_FAT_MAX_POOLS", "16", "pools reserved at most; then the system allocator serves, counted") \
	X(BACKING, "TIERLAB_FAT_BACKING", "auto", "first backing to try: auto (= hugetlb-1G), hugetlb-1G, hugetlb-2M, thp, 4k") \
	X(TRIM, "TIERLAB_FAT_TRIM", "64M", "a pool's free tail past this size goes back to the kernel in whole pages (K/M/G; off: never)") \
	X(VERBOSE, "TIERLAB_FAT_VERBOSE", "0", "1: say on stderr, once, which backing the first pool got") \
	X(OUT, "TIERLAB_OUT", "", "directory for the status file fatalloc-PID.txt")

enum fat_opt {
#define FAT_OPT_ENUM(id, var, def, help) FAT_OPT_##id,
	FAT_OPTIONS(FAT_OPT_ENUM)
#undef FAT_OPT_ENUM
	FAT_OPT__COUNT
};

struct fat_option_desc {
	const char *var, *def, *help;
};
extern const struct fat_option_desc fat_option_table[FAT_OPT__COUNT];

struct fat_options {
	size_t pool_size;		/* a multiple of 2 MiB, >= 2 MiB */
	unsigned max_pools;		/* 1..FAT_POOLS_LIMIT */
	enum fat_backing first;		/* HUGETLB_1G .. 4K */
	size_t trim;			/* free tail that triggers a trim; SIZE_MAX: never */
	bool verbose;
	char out[512];			/* "" when unset */
};

/*
 * Reads the variables from envp (the process's environ in the library),
 * without allocating. A bad value warns once on stderr (the variable, the
 * value, why) and leaves the default.
 */
void fat_options_load(char *const *envp, struct fat_options *o);

/* The options of this process: loaded at the first pool reservation. */
extern struct fat_options fat_opt;

/* ---- pools (pool.c) -------------------------------------------------- */

#define FAT_POOLS_LIMIT 256

struct fat_pool {
	char *base;
	size_t size;
	/*
	 * Bytes bumped so far, from base. Everything at or above top is zero
	 * (never written, or given back): carve relies on it for calloc.
	 */
	_Atomic size_t top;
	size_t page;			/* the backing's page: what a trim gives back whole */
	enum fat_backing backing;
	_Atomic bool untrimmable;	/* madvise refused to give its pages back */
};

extern struct fat_pool fat_pools[FAT_POOLS_LIMIT];
extern _Atomic unsigned fat_npools;	/* published after the pool is filled in */

/* Does p lie in a pool? Lock-free: pools are only ever added. */
static inline bool fat_in_pool(const void *p)
{
	unsigned n = atomic_load_explicit(&fat_npools, memory_order_acquire);

	for (unsigned i = 0; i < n; i++)
		if ((uintptr_t)p - (uintptr_t)fat_pools[i].base < fat_pools[i].size)
			return true;
	return false;
}

/*
 * Bumps size bytes aligned to align (a power of two) out of a pool,
 * reserving a new pool when none has room (the first one at the first
 * call), one of its own when size exceeds the pool size. Returns NULL when
 * max_pools are reserved and full or the reservation fails. The memory is
 * untouched, hence zero. Takes the pool lock only to reserve.
 */
void *fat_pool_carve(size_t size, size_t align);

/* Grows the block ending at end by extra bytes when it ends at its pool's top. */
bool fat_pool_extend(char *end, size_t extra);

/* The pool that holds p, NULL when none does. */
struct fat_pool *fat_pool_of(const void *p);

/*
 * Gives [start, top) back: start is a page boundary of pool, the range is
 * free and in no list, and top was the pool's top. Its pages go back to
 * the kernel and the top comes down to start. False when the top has moved
 * since (nothing given back: the range is the caller's again).
 */
bool fat_pool_trim(struct fat_pool *pool, char *start, char *top);

/* The backing of the first pool, FAT_BACKING_NONE before any. */
enum fat_backing fat_pool_backing(void);

/* Why the first pool did not get a better backing ("" when it got the first choice). */
const char *fat_pool_note(void);

/* Free hugetlb pages of one size (kB as in sysfs), minus reserved ones; -1 if unknown. */
long fat_hugetlb_available(unsigned long kb);

/* ---- thread caches and the small path (alloc.c, free.c) -------------- */

struct fat_bin {
	void *head;		/* free blocks linked through their first word */
	uint32_t count;
};

struct fat_tcache {
	struct fat_bin bins[FAT_NCLASSES];
	char *seg_cur, *seg_end;	/* this thread's bump segment */
	size_t seg_next;		/* size of its next segment: doubles up to 1 MiB */
	int64_t live_delta;		/* bytes allocated minus freed, not yet published */
	uint64_t mallocs, frees, ops;
	int state;			/* FAT_TC_* */
};
enum { FAT_TC_NEW, FAT_TC_LIVE, FAT_TC_DEAD };

extern __thread struct fat_tcache fat_tc __attribute__((tls_model("initial-exec")));

/* How many free blocks of a class a thread keeps before spilling half (about 256 KiB). */
extern uint16_t fat_bin_limits[FAT_NCLASSES];
void fat_classes_init(void);
static inline uint32_t fat_bin_limit(unsigned cls)
{
	return fat_bin_limits[cls];
}

/* A free block of class cls, from the thread's bin, the central list or a segment. */
void *fat_small_alloc(unsigned cls);
/* The slow half of fat_small_alloc (empty bin). */
void *fat_small_refill(struct fat_tcache *tc, unsigned cls);
/* Returns a small block to the thread's bin (spilling when it is too long). */
void fat_small_free(void *blk, unsigned cls);
/* Moves n blocks of the bin to the central list of cls. */
void fat_bin_spill(struct fat_bin *b, unsigned cls, uint32_t n);
/* Fills the empty bin with whole batches from the central list of cls, n blocks or more if it has them; how many. */
uint32_t fat_central_take(struct fat_bin *b, unsigned cls, uint32_t n);
/* Returns everything the thread holds (thread exit). */
void fat_tcache_flush(struct fat_tcache *tc);
/* First use of the thread's cache: registers the thread-exit flush. */
void fat_tcache_init(struct fat_tcache *tc);

/* ---- large blocks (large.c) ------------------------------------------ */

/*
 * A block of at least size bytes (a multiple of 16), 16-aligned, first fit
 * from the free list, else bumped from a pool on a FAT_LARGE_ALIGN boundary
 * (then *fresh is set: the memory is zero). *got is the block's real
 * length. NULL when the pools cannot serve it.
 */
void *fat_large_alloc(size_t size, size_t *got, bool *fresh);
/*
 * A segment for a thread: the lowest free range of at least min bytes, cut
 * to want bytes from its low end (the end nearest memory in use). *got is
 * its length (min..want, or a little more when the rest would be a
 * sliver). NULL when no range is that long.
 */
void *fat_large_take(size_t min, size_t want, size_t *got);
/*
 * Returns a range (16-aligned, a multiple of 16, >= 32 bytes) to the list,
 * coalescing; when the result is its pool's free tail (it ends at the top)
 * and longer than fat_opt.trim, gives the tail's whole pages back; a range
 * itself longer than that gives back its whole pages wherever it lies.
 */
void fat_large_free(void *start, size_t len);
/* Free ranges and bytes in the list (tests). */
void fat_large_count(size_t *ranges, size_t *bytes);

/* ---- the allocator (alloc.c, free.c) --------------------------------- */

/*
 * Allocation with the header filled in: size bytes aligned to align (a
 * power of two; <= 16 means the default). NULL when the pools cannot serve
 * (no errno set: the caller falls back). *fresh: the bytes are known zero.
 */
void *fat_alloc(size_t size, size_t align, bool *fresh);
/* Frees a pointer fat_alloc returned; aborts on a freed or stray block header. */
void fat_dealloc(void *p);
/* Usable bytes of a pool block. */
size_t fat_usable(const void *p);

/* The malloc API over the pools, with the system allocator behind (override.c maps it). */
void *fat_malloc(size_t size);
void fat_free(void *p);
void *fat_calloc(size_t n, size_t size);
void *fat_realloc(void *p, size_t size);
int fat_posix_memalign(void **out, size_t align, size_t size);
void *fat_memalign(size_t align, size_t size);
void *fat_aligned_alloc(size_t align, size_t size);
size_t fat_malloc_usable_size(void *p);

/* Prints "fatalloc: <msg>" on stderr without allocating, then aborts. */
_Noreturn void fat_fatal(const char *msg);

/* ---- the system allocator (sys.c) ------------------------------------ */

void *fat_sys_malloc(size_t size);
void fat_sys_free(void *p);
void *fat_sys_calloc(size_t n, size_t size);
void *fat_sys_realloc(void *p, size_t size);
int fat_sys_posix_memalign(void **out, size_t align, size_t size);
size_t fat_sys_usable_size(void *p);
/* Pointers from the start-up buffer (served while dlsym runs): never freed. */
bool fat_sys_is_boot(const void *p);
size_t fat_sys_boot_size(const void *p);

/* ---- process-wide set-up (init.c) ------------------------------------ */

/* Locks every allocator lock (fork prepare) / unlocks them / re-creates them in a child. */
void fat_fork_prepare(void);
void fat_fork_parent(void);
void fat_fork_child(void);
/* Once per process, under the pool lock: options, fork handlers, the thread key. */
void fat_init_locked(void);
extern pthread_mutex_t fat_pool_lock, fat_large_lock;
extern pthread_key_t fat_thread_key;

/* ---- statistics (stats.c) -------------------------------------------- */

/* X(name, help): the one list; the status file prints them in this order. */
#define FAT_STATS(X) \
	X(mallocs, "blocks served from the pools") \
	X(frees, "blocks returned to the pools") \
	X(large_allocs, "blocks above the size classes (from the address-ordered free list or a pool)") \
	X(fallback_allocs, "allocations the system allocator served (pools full, unavailable, or alignment too big)") \
	X(foreign_frees, "frees of pointers in no pool, passed to the system allocator") \
	X(bytes_allocated, "bytes in live pool blocks, headers included (published in batches per thread)") \
	X(bytes_allocated_peak, "peak of bytes_allocated, as published") \
	X(pool_bytes_used, "bytes below the pools' tops: bumped out and not given back") \
	X(pool_bytes_reserved, "bytes of address space reserved as pools") \
	X(segments, "per-thread bump segments started") \
	X(segments_reused, "segments taken from freed memory (exited threads' segments, freed large blocks) instead of a pool's top") \
	X(trims, "times a pool's free tail went back to the kernel") \
	X(bytes_trimmed, "bytes of free tails given back (whole pages; the top came down by as much)") \
	X(bytes_released, "bytes of whole pages given back by blocks longer than TIERLAB_FAT_TRIM, freed below a top")

enum fat_stat {
#define FAT_STAT_ENUM(name, help) FAT_STAT_##name,
	FAT_STATS(FAT_STAT_ENUM)
#undef FAT_STAT_ENUM
	FAT_STAT__COUNT
};
extern const char *const fat_stat_names[FAT_STAT__COUNT];
extern _Atomic int64_t fat_stats[FAT_STAT__COUNT];

static inline void fat_stat_add(enum fat_stat s, int64_t v)
{
	atomic_fetch_add_explicit(&fat_stats[s], v, memory_order_relaxed);
}

/* Publishes the thread's batched counters (and raises the peak). */
void fat_stats_flush(struct fat_tcache *tc);

/*
 * Writes $TIERLAB_OUT/fatalloc-PID.txt (key: value lines) when TIERLAB_OUT
 * is set, through a temporary file and rename; says on stderr (once, when
 * verbose) which backing the first pool got. Neither allocates.
 */
void fat_status_update(void);
void fat_verbose_once(void);

/* The central lists' locks, for the fork handlers (init.c). */
void fat_central_lock_all(void);
void fat_central_unlock_all(void);
void fat_central_reinit_all(void);

/*
 * Test-only: unmaps every pool, empties the lists, zeroes the counters and
 * reads the options again (no other thread may hold blocks or run).
 */
void fat_test_reset(void);
void fat_pool_reset(void);
void fat_large_reset(void);
void fat_central_reset(void);

#endif
