/*
 * The fault sampler's own counters, for tests and the benchmark (the core
 * publishes ticks and samples through rt-stats.h). Read under the
 * sampler's lock, so a snapshot is consistent.
 */
#ifndef TLRT_SAMPLER_FAULT_H
#define TLRT_SAMPLER_FAULT_H

#include <stdint.h>

struct tlrt_fault_counts {
	uint64_t armed;		/* times all managed memory was armed */
	uint64_t samples;	/* first accesses taken (one per arming at most) */
	uint64_t kernel;	/* of which the access came from a system call */
	uint64_t expired;	/* disarmed untouched: released by the core, fork, stop */
	uint64_t skipped_other;	/* ticks that could not arm (no span, memory split, no stash) */
	uint64_t fallback;	/* restores the kernel refused to move, done page by page */
	uint64_t stray;		/* later faults of an arming: threads that only needed waking */
	uint64_t first_touch;	/* first touches of watched memory, placed by the core */
	uint64_t not_yet;	/* ticks that waited: the last sample's thread had not made its access yet */
	uint64_t gave_up;	/* waits given up (the thread stayed off its CPU RETRY_GIVE_UP_NS) */
	uint64_t fd_lost;	/* the program closed the userfaultfd in its table (or reused the number): 0 or 1 */
};

void tlrt_sampler_fault_counts(struct tlrt_fault_counts *out);

#endif
