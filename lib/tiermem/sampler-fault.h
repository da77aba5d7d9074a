/*
 * The fault sampler's own counters, for tests and the benchmark (the core
 * publishes ticks and samples through rt-stats.h). Read under the
 * sampler's lock, so a snapshot is consistent.
 */
#ifndef TLRT_SAMPLER_FAULT_H
#define TLRT_SAMPLER_FAULT_H

#include <stdint.h>

struct tlrt_fault_counts {
	uint64_t armed;		/* blocks armed */
	uint64_t samples;	/* faults taken (one per armed block at most) */
	uint64_t kernel;	/* of which the access came from a system call */
	uint64_t expired;	/* disarmed untouched: evicted, released, fork, stop */
	uint64_t skipped_shared;	/* pages shared with a forked child: UFFDIO_MOVE refused */
	uint64_t skipped_other;	/* could not register or move for another reason */
	uint64_t fallback;	/* restores that had to copy (the program changed protections while armed) */
	uint64_t stray;		/* fault events outside any armed block (already restored, or a hole made again) */
};

void tlrt_sampler_fault_counts(struct tlrt_fault_counts *out);

#endif
