/*
 * The runtime's counters: one list that generates the counters file
 * layout (tiermem-PID.counters), the names tierlab stores per process and
 * the report's names. Append only: a field's position is its identity in
 * files already written (the file header carries the count).
 *
 * X(name, unit, description)
 */
#ifndef TL_RT_STATS_H
#define TL_RT_STATS_H

#include <stdint.h>

#define RT_STATS(X) \
	X(allocs,             "",      "managed allocations") \
	X(frees,              "",      "managed frees") \
	X(reallocs,           "",      "reallocs of managed allocations") \
	X(managed_bytes_peak, "bytes", "peak bytes in managed allocations") \
	X(retired_small_allocs, "",    "retired (issue 31): always 0; it counted the requests left to the underlying allocator") \
	X(ticks,              "",      "sampler ticks") \
	X(samples,            "",      "samples taken") \
	X(samples_managed,    "",      "samples that fell in a managed chunk") \
	X(hits,               "",      "samples in a chunk that was in the fast tier") \
	X(misses,             "",      "samples in a chunk that was in the slow tier") \
	X(mig_initial_fast,   "",      "chunks placed in the fast tier at allocation") \
	X(mig_initial_slow,   "",      "chunks placed in the slow tier at allocation") \
	X(mig_slow_to_fast,   "",      "chunks promoted") \
	X(mig_fast_to_slow,   "",      "chunks demoted") \
	X(bytes_initial_fast, "bytes", "bytes placed in the fast tier at allocation") \
	X(bytes_initial_slow, "bytes", "bytes placed in the slow tier at allocation") \
	X(bytes_slow_to_fast, "bytes", "bytes promoted") \
	X(bytes_fast_to_slow, "bytes", "bytes demoted") \
	X(mig_failed,         "",      "migrations the kernel refused or left incomplete") \
	X(budget_refused,     "",      "promotions refused because the fast tier was full") \
	X(sample_ns_total,    "ns",    "time spent taking samples") \
	X(run_ns,             "ns",    "time the runtime was active") \
	X(cache_reuses,       "",      "managed allocations served by a freed region kept in the cache") \
	X(cache_chunks_replaced, "",   "chunks of reused regions whose pages were on the other tier: dropped, faulted afresh") \
	X(cache_bytes_peak,   "bytes", "peak bytes held by the cache of freed regions") \
	X(cache_bytes_returned, "bytes", "bytes the cache gave back to the kernel (over its bound, under memory pressure)") \
	X(cache_pressure_trims, "",    "times the cache was emptied because the system was short of memory") \
	X(first_touch_bytes,  "bytes", "bytes the fault sampler's handler placed on their chunk's tier at first touch") \
	X(ticks_late,         "",      "ticks skipped: due while the runtime thread was still busy (never fired late)") \
	X(arm_wait_ns,        "ns",    "time ticks waited for the thread of the last sample to run again (to make its access) before arming") \
	X(drain_ns_total,     "ns",    "time the runtime thread spent on samples: policy decisions and migrations") \
	X(samples_in_motion,  "",      "samples in a chunk whose move had not completed at the sample's time: counted as misses") \
	X(samples_dropped,    "",      "samples lost because the ring was full (the runtime thread fell behind the sampler)")

enum rt_stat {
#define RT_STAT_ENUM(name, unit, desc) RT_STAT_##name,
	RT_STATS(RT_STAT_ENUM)
#undef RT_STAT_ENUM
	RT_STAT__COUNT
};

/*
 * Counters file: this header, then RT_STAT__COUNT uint64_t values, then
 * the names (NUL-separated, in order) so a reader needs no header of its
 * own to name them, then at sampler_offset RT_SAMPLER_COUNTS_MAX slots
 * for the sampler's own counts, nsampler of them filled at exit. Written
 * with one mmap at start; read after the run. Files written before the
 * sampler slots have a header_size that ends before sampler_offset.
 */
#define RT_COUNTERS_MAGIC "TLRTCNT\0"
#define RT_COUNTERS_VERSION 1

struct rt_counters_header {
	char magic[8];
	uint32_t version;
	uint32_t nstats;
	uint32_t header_size;		/* sizeof(struct rt_counters_header) */
	uint32_t pid;
	uint64_t chunk_size;
	uint64_t budget_bytes;		/* 0 = unlimited */
	double rate_hz;
	double start_time;		/* seconds since the epoch */
	uint32_t complete;		/* 1 once written at exit */
	uint32_t same_node;		/* fast and slow are the same node: nothing physically moved */
	char policy[64];
	char sampler[32];
	uint32_t sampler_offset;	/* from the file's start: struct rt_counters_sampler[RT_SAMPLER_COUNTS_MAX] */
	uint32_t nsampler;		/* of them filled */
};

#define RT_SAMPLER_COUNTS_MAX 16
struct rt_counters_sampler {
	char name[24];			/* [a-z_], NUL-terminated */
	uint64_t value;
};

#endif
