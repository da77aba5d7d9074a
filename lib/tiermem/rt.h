/*
 * The runtime's internal contracts, shared by its files and by tests that
 * link the core objects directly. Everything here is hidden in
 * libtiermem.so except the TL_EXPORT entry points (the malloc API in
 * override.c is the other export).
 *
 * Locking: one mutex (tlrt.lock) guards regions, chunks, the policy, the
 * log and migration. The small-allocation path never takes it; "is this
 * pointer managed" is a range check on a reservation published once.
 */
#ifndef TLRT_RT_H
#define TLRT_RT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tiermem/options.h"
#include "tiermem/rt-sampler.h"
#include "util/direction.h"
#include "util/export.h"
#include "tiermem/rt-stats.h"
#include "policies/tierlab-policy.h"

#define TLRT_NODE_WORDS 16			/* 1024 nodes */
#define TLRT_MAX_CHUNKS (1U << 24)
#define TLRT_NO_CHUNK UINT32_MAX
#define TLRT_NO_UNIT UINT32_MAX
#define TLRT_CACHE_BINS 128
#define TLRT_CACHE_FLOOR ((uint64_t)TLRT_CACHE_FLOOR_MIB << 20)

/* Lifecycle of the runtime in this process. */
enum tlrt_state {
	TLRT_UNINIT = 0,	/* variables not read yet */
	TLRT_PASSIVE,		/* standing aside: everything forwarded */
	TLRT_READY,		/* variables fine; nothing managed yet */
	TLRT_ACTIVE,		/* reservation, policy, sampler up */
};

/* A range allocator over a bitmap (units of the reservation, chunk ids). */
struct tlrt_bitmap {
	uint64_t *w;
	size_t nbits;
	size_t lowest_free;	/* no free bit below this */
};
int tlrt_bitmap_init(struct tlrt_bitmap *b, size_t nbits);
/* First run of n free bits at first + k*step; marks it used. Index, or -1. */
long tlrt_bitmap_alloc(struct tlrt_bitmap *b, size_t n, size_t first, size_t step);
void tlrt_bitmap_free(struct tlrt_bitmap *b, size_t at, size_t n);
int tlrt_bitmap_test(const struct tlrt_bitmap *b, size_t at);
/* The next set bit at or after `from`, or -1. */
long tlrt_bitmap_next_set(const struct tlrt_bitmap *b, size_t from);

/*
 * A managed allocation: whole 2 MiB units, data from the first byte. A
 * freed one may stay in the cache (cache.c) with its pages: it keeps its
 * units, is no longer "the region of" any pointer, and `held` says how
 * far from its start pages may be present (and not zero).
 */
struct tlrt_region {
	uintptr_t addr;
	uint64_t bytes;		/* as requested */
	uint64_t maplen;	/* units << TL_UNIT_SHIFT */
	uint64_t held;		/* [addr, addr + held) may hold pages from earlier use; 0 when fresh */
	uint32_t units;
	uint32_t first_chunk, nchunks;
	uint32_t seq;		/* allocation order among managed allocations */
	uintptr_t callsite;
	uint8_t cached;
	uint32_t bin_prev, bin_next, lru_prev, lru_next;	/* cache lists, by start unit */
};

/* What the pages of a unit within a cached region's `held` are (unit_state[]). */
enum tlrt_unit_state { TLRT_UNIT_CLEAN = 0, TLRT_UNIT_SLOW, TLRT_UNIT_FAST, TLRT_UNIT_MIXED };

struct tlrt_chunk {
	uintptr_t addr;
	uint64_t len;		/* the last chunk of a region may be partial */
	uint32_t region;	/* start unit of its region */
	uint8_t tier;		/* enum tlp_tier */
	uint8_t touch_tier;	/* where its first touches go (first-touch.c): set before its pages move */
	uint8_t live;
	uint8_t placed;		/* initial placement done */
	uint8_t kept;		/* reused: its pages from earlier use stayed (on its tier), not zero */
	uint8_t tier_before;	/* the tier before its last move */
	uint64_t move_start_ns, move_end_ns;	/* its last move (0, 0: none since it was placed) */
};

struct tlrt_rt {
	struct tlrt_options opt;
	_Atomic int state;
	pthread_mutex_t lock;

	/*
	 * reservation (region.c); published once, size last with release
	 * order. On a cache line of their own: every free() reads them, and
	 * the lock beside them is written on each managed call.
	 */
	_Alignas(64) _Atomic uintptr_t base;
	_Atomic size_t size;
	_Alignas(64) uint32_t nunits;
	struct tlrt_bitmap units_map;
	struct tlrt_region *regions;	/* indexed by start unit */
	uint32_t *owner;		/* unit -> start unit of its region */
	size_t arena_len;		/* [base, base + arena_len): one read-write VMA, whole GiBs */
	uint8_t *unit_state;		/* enum tlrt_unit_state per unit, meaningful in cached regions */

	/* the cache of freed regions (cache.c): lists of start units */
	uint32_t bin_head[TLRT_CACHE_BINS];
	uint32_t lru_head, lru_tail;	/* most and least recently freed */
	uint64_t cache_bytes;		/* sum of the cached regions' held bytes */

	/* chunk table (chunks.c) */
	uint32_t max_chunks;
	struct tlrt_chunk *chunks;
	struct tlrt_bitmap chunk_map;
	uint32_t live_chunks, fast_chunks, budget_chunks;
	uint32_t seq;
	uint64_t cur_bytes;

	/* tiers */
	unsigned long fast_mask[TLRT_NODE_WORDS], slow_mask[TLRT_NODE_WORDS];
	int same_node;
	_Atomic int watched;	/* the sampler sends first touches in the arena to first-touch.c */

	/* policy (policy-load.c) */
	void *dl;
	const struct tlp_policy *pol;
	void *pol_state;
	struct tlp_params params;
	struct tlp_move *moves;		/* decision buffer, max_chunks or TLP_SAMPLE_DECISIONS */
	uint32_t moves_cap;

	/* sampler and the runtime thread (thread.c) */
	const struct rt_sampler_ops *sampler;
	struct rt_sampler_env sampler_env;
	int sampler_started;
	pthread_t thread;
	_Atomic int thread_running;
	_Atomic int stop;
	_Atomic int finished;
	uint64_t start_ns;
};

/* Hidden here too, not only where it is defined: free's range check then reads it without the GOT. */
extern struct tlrt_rt tlrt __attribute__((visibility("hidden")));
/* Set on a thread while it runs runtime code: its allocations bypass management. */
extern __thread int tlrt_in_rt __attribute__((tls_model("initial-exec")));

/* Stats: relaxed atomics into the counters file (or a static array before it exists). */
extern uint64_t *_Atomic tlrt_stats;
static inline void tlrt_stat_add(enum rt_stat s, uint64_t v)
{
	__atomic_fetch_add(&atomic_load_explicit(&tlrt_stats, memory_order_relaxed)[s], v,
			   __ATOMIC_RELAXED);
}
static inline void tlrt_stat_max(enum rt_stat s, uint64_t v)
{
	uint64_t *p = &atomic_load_explicit(&tlrt_stats, memory_order_relaxed)[s];
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (cur < v && !__atomic_compare_exchange_n(p, &cur, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

uint64_t tlrt_now_ns(void);
/* One line "tiermem: ..." on stderr, with write(2) (no stdio, no allocation). */
void tlrt_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* region.c */
/* madvise(2) itself, never the madvise() the runtime exports to the program (advise.c). */
int tlrt_madvise(void *addr, size_t len, int advice);
/* The reservation; on failure -errno and why (naming RLIMIT_AS and its value when one is set). */
int tlrt_region_reserve(char *why, size_t len);
/* Why address space for managed memory (or its tables) could not be mapped, err being the mmap's errno. */
void tlrt_region_explain(int err, char *why, size_t len);
/* A region of at least `bytes`, aligned to `align` (power of two), mapped read-write. */
struct tlrt_region *tlrt_region_alloc(uint64_t bytes, size_t align);
/* Faults [addr, addr + len) in for writing, each page under the policy in force there. */
void tlrt_populate(uintptr_t addr, size_t len);
/*
 * Faults every page of a freshly placed region in (its chunks' policies
 * put them on their tiers), then drops those policies: the pages stay
 * where they are and the arena is one VMA again.
 */
void tlrt_region_populate(const struct tlrt_region *r);
/*
 * The policy every placed page of the arena lives under: bound to the
 * fast and slow nodes together, the same everywhere so the arena stays one
 * VMA. Unlike the default policy it keeps the kernel's NUMA balancing from
 * moving placed pages behind the runtime's back (balancing only scans
 * memory whose policy migrates on fault). 0 or -errno.
 */
int tlrt_region_settle(uintptr_t addr, size_t len);
/* TIERLAB_MEMPOLICY's mode and nodes on [addr, addr+len): 0 or -errno; *mode names it for messages. */
int tlrt_region_mempolicy(uintptr_t addr, size_t len, const char **mode);
int tlrt_first_touch_places(void);
void tlrt_region_placed(uintptr_t addr, size_t len);
/* first-touch.c: puts the page at addr (and its neighbours) on its chunk's tier; the sampler's env.first_touch. */
void tlrt_first_touch(int uffd, uintptr_t addr);
/* Gives a region's memory back (MADV_DONTNEED) and its units to the free map. */
void tlrt_region_free(struct tlrt_region *r);
/* The live region containing p (any interior pointer), or NULL. Lock held. */
struct tlrt_region *tlrt_region_of(uintptr_t p);
/* size is published after base (region.c): while it reads 0, nothing is managed. */
static inline int tlrt_managed(const void *p)
{
	size_t size = atomic_load_explicit(&tlrt.size, memory_order_acquire);

	return (uintptr_t)p - atomic_load_explicit(&tlrt.base, memory_order_relaxed) < size;
}

/* chunks.c */
int tlrt_chunks_init(void);
int tlrt_chunks_alloc(struct tlrt_region *r);		/* 0 or -ENOMEM */
void tlrt_chunks_free(struct tlrt_region *r);
uint32_t tlrt_chunk_of(uintptr_t p);			/* TLRT_NO_CHUNK when none */

/*
 * cache.c: freed regions kept with their pages, by size class, for reuse.
 * All calls with the lock held, except tlrt_cache_poll.
 */
void tlrt_cache_init(void);
/* The bound now, in held bytes (TIERLAB_CACHE: a size, or a fraction of the managed peak, at least TLRT_CACHE_FLOOR). */
uint64_t tlrt_cache_bound(void);
/* Keeps a freed region (its chunks still allocated, their tiers read); 1 kept, 0 the caller frees it. */
int tlrt_cache_put(struct tlrt_region *r);
/* A cached region for `bytes` at `align`, taken out (split if larger), or NULL. */
struct tlrt_region *tlrt_cache_take(uint64_t bytes, size_t align);
/* Returns cached regions, least recently freed first, until at most `keep` bytes are held. */
void tlrt_cache_trim(uint64_t keep);
/*
 * Initial placement of a chunk of a reused region on tier `to`: pages it
 * holds from earlier use stay if all of them are on `to`, else they are
 * dropped (faulted afresh on `to` at populate). Sets c->kept.
 */
void tlrt_cache_place(struct tlrt_chunk *c, enum tlp_tier to);
/* A placed reused region made ready: kept pages zeroed if `zero`, the rest faulted in; settled. */
void tlrt_cache_ready(struct tlrt_region *r, int zero);
/*
 * The runtime thread, at most once a second (lock NOT held): empties the
 * cache when the system is short of memory, as the PSI file p->path
 * (/proc/pressure/memory) tells: some task stalled on memory for more than
 * 1% of the time since the last look. Says once when it cannot be read.
 */
struct tlrt_pressure {
	const char *path;
	uint64_t last_ns;	/* the last look; 0 before the first */
	int64_t last_total;	/* its "some" total, microseconds */
	int said;
};
void tlrt_cache_poll(struct tlrt_pressure *p, uint64_t now_ns);
/* PSI text ("some avg10=... total=N"): the "some" total in microseconds, or -1. */
int64_t tlrt_psi_some_total(const char *text);

/* policy-load.c. An entry point exists only if the plugin's struct is large enough to hold it. */
#define TLRT_POL_FN(field) (tlrt.pol && TLP_HAS(tlrt.pol, field) ? tlrt.pol->field : NULL)
int tlrt_policy_load(char *why, size_t whylen);
void tlrt_policy_unload(void);
/*
 * policy-start.c: checks a policy's size and ABI, gives it its tlp_params
 * (alloc/free backed by mmap: the policy runs inside the allocator) and
 * the decision buffer, and inits it; -1 with why. The loader of plugins
 * and programs that link a policy statically both start it here.
 */
int tlrt_policy_start(const struct tlp_policy *pol, char *why, size_t whylen);
void tlrt_policy_stop(void);

/* core.c: decisions, budget, samples (lock held unless said) */
void tlrt_apply(const struct tlp_move *v, uint32_t n, int initial);
void tlrt_budget_update(void);
void tlrt_process_sample(const struct rt_sample *s);

/* migrate.c */
int tlrt_nodes_init(char *why, size_t whylen);
/* Places or moves one chunk; 0 when it is (or will be, for untouched pages) on the tier. */
int tlrt_migrate(uint32_t chunk, enum tlp_tier to, int initial);

/* thread.c */
void tlrt_ring_reset(void);
void tlrt_ring_push(const struct rt_sample *s);	/* lock-free, async-signal-safe; full: counted, dropped */
int tlrt_ring_pop(struct rt_sample *s);		/* one consumer */
int tlrt_sampler_setup(char *why, size_t whylen);
int tlrt_thread_start(void);
void tlrt_thread_stop(void);
void tlrt_drain(void);					/* lock not held */
void tlrt_atfork_register(void);
/* The tick after the one due at `at`, later than now (jittered; missed ones skipped). */
uint64_t tlrt_tick_after(uint64_t at, uint64_t now, uint64_t period, uint64_t *rng);

/* record.c */
int tlrt_record_open(void);			/* counters file (counters and log modes) */
void tlrt_record_header(void);			/* fills policy, sampler, budget once known */
void tlrt_record_close(int complete);
void tlrt_record_discard(void);			/* stood aside: close and remove the files */
void tlrt_record_child(void);			/* after fork: this process's own files */
void tlrt_record_sampler_counts(const struct rt_sampler_count *c, size_t n);
int tlrt_log_enabled(void);
void tlrt_log_callsite(uintptr_t callsite, const char **module, uintptr_t *off);	/* lock NOT held */
/* The parameters a replay needs to decide as this process does (a P record), once, before any A. */
void tlrt_log_params(void);
void tlrt_log_alloc(const struct tlrt_region *r, uint64_t t_ns, const char *module, uintptr_t off);
void tlrt_log_free(const struct tlrt_region *r, uint64_t t_ns);
void tlrt_log_sample(const struct rt_sample *s, uint32_t chunk, int hit);
/* A move that ran from start_ns until now. */
void tlrt_log_migration(uint32_t chunk, int direction, int ok, uint64_t start_ns);
/* The runtime thread starts handling a batch of samples (their moves start after this). */
void tlrt_log_drain(uint64_t t_ns);
void tlrt_log_flush(void);

/* sampler-select.c */
const struct rt_sampler_ops *tlrt_sampler_find(enum tlrt_sampler s);

/* sampler-call.c: the core's only calls into the sampler (each a no-op where none is started or the op is NULL) */
const char *tlrt_sampler_check(const struct rt_sampler_ops *ops);	/* NULL, or what a required op lacks */
int tlrt_sampler_tick(void);
void tlrt_sampler_release(uintptr_t addr, size_t len);
int tlrt_sampler_one_mapping(void);			/* the sampler arms managed memory as one mapping */
int tlrt_sampler_watch(uintptr_t addr, size_t len);	/* 0 when first touches will reach first-touch.c */
enum tlrt_fork_phase { TLRT_FORK_PREPARE, TLRT_FORK_PARENT, TLRT_FORK_CHILD };
void tlrt_sampler_fork(enum tlrt_fork_phase phase);
void tlrt_sampler_stop(void);				/* stops it and records its counts */

/*
 * Entry points (exported). tlrt_setup reads the variables from envp:
 * 0 = will manage, 1 = stand aside silently, -EINVAL = bad value (said on
 * stderr; with TIERLAB_STRICT the process exits 2 instead).
 */
TL_EXPORT int tlrt_setup(char *const *envp);
TL_EXPORT int tlrt_state(void);
/* At load (override.c): the counters file and fork hooks; -1 = stood aside. */
TL_EXPORT int tlrt_open_files(void);
TL_EXPORT uint64_t tlrt_threshold(void);
/*
 * A managed allocation, or NULL (the caller then uses the next allocator).
 * errno untouched. Its contents are unspecified (a reused region keeps
 * what it held) unless zeroed: tlrt_alloc_zeroed, for calloc.
 */
TL_EXPORT void *tlrt_alloc(size_t bytes, size_t align, uintptr_t callsite);
TL_EXPORT void *tlrt_alloc_zeroed(size_t bytes, uintptr_t callsite);
/* Bytes held by the cache of freed regions. */
TL_EXPORT uint64_t tlrt_cache_held(void);
TL_EXPORT int tlrt_owns(const void *p);
TL_EXPORT void tlrt_free(void *p);
TL_EXPORT size_t tlrt_usable_size(const void *p);
/* Resizes a managed allocation in place when its chunks allow; p or NULL. */
TL_EXPORT void *tlrt_resize(void *p, size_t bytes);
TL_EXPORT void tlrt_count_realloc(void);
/* Tests: a sample as a sampler would deliver it, and a synchronous drain. */
TL_EXPORT void tlrt_deliver(const struct rt_sample *s);
TL_EXPORT void tlrt_process_pending(void);
TL_EXPORT int tlrt_tier_of(const void *p);		/* enum tlp_tier, or -1 */
TL_EXPORT uint64_t tlrt_stat(enum rt_stat s);
TL_EXPORT uint32_t tlrt_fast_chunks(void);
TL_EXPORT uint32_t tlrt_budget(void);
TL_EXPORT void tlrt_finish(void);

#endif
