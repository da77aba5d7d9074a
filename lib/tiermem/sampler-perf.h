/*
 * The perf sampler's own counters, for tests and the benchmark (the core
 * publishes ticks and samples through rt-stats.h), and its test vehicle.
 * Read under the sampler's lock, so a snapshot is consistent.
 */
#ifndef TLRT_SAMPLER_PERF_H
#define TLRT_SAMPLER_PERF_H

#include <stdint.h>

struct tlrt_perf_counts {
	uint64_t threads;	/* threads given events at the first tick (later ones inherit them) */
	uint64_t events;	/* events open: those threads x the PMU's CPUs */
	uint64_t records;	/* access records read (samples, or SPE records with a data address) */
	uint64_t in_span;	/* of which in managed memory: what the ticks drew from */
	uint64_t foreign;	/* records of another process (none expected: inherit_thread) */
	uint64_t lost;		/* records the kernel dropped on a full buffer, plus truncated AUX chunks */
	uint64_t throttled;	/* THROTTLE records: the kernel held an event back (too many interrupts) */
	uint64_t malformed;	/* buffers left at a record that could not be parsed */
	uint64_t delivered;	/* samples delivered: at most one per tick */
};

void tlrt_sampler_perf_counts(struct tlrt_perf_counts *out);

/*
 * The test vehicle: set before start(), the sampler takes the software
 * page-fault event (PERF_COUNT_SW_PAGE_FAULTS, every fault) instead of a
 * PMU's precise memory-access event, so its whole path (threads, buffers,
 * the draw, fork) can be tested on a machine without a PMU. A sample is
 * then a page's first touch, not an access: never a sampler for real runs.
 * Hidden in libtiermem.so; only tests that link the sampler set it.
 */
extern int tlrt_perf_test_page_faults;

#endif
