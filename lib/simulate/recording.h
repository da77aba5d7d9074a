/*
 * What a recording is (issue 28): whether its samples can stand for the
 * program on a tiered machine. A managed footprint that fits in the last
 * level cache is served by the cache, not by memory, whatever tier it is
 * on; a sampler that delivered fewer samples per second than it was asked
 * for cannot be thinned to rates between the two.
 */
#ifndef TL_SIMULATE_RECORDING_H
#define TL_SIMULATE_RECORDING_H

#include <stdbool.h>
#include <stdint.h>

#include "simulate/trace.h"

#define TL_RECORDING_SHORT 0.9	/* a delivered rate under this share of the asked one is short */

struct tl_recording_facts {
	double asked_hz;		/* the P record's rate (0 unknown) */
	double delivered_hz;		/* the lowest over processes with samples (0: none) */
	uint64_t managed_bytes;		/* peak managed footprint, summed over processes */
	uint64_t llc_bytes;		/* the largest cache of cpu0 (0 unknown) */
	bool fits_llc, short_rate;
};

/*
 * The last-level cache of this machine, from sysfs (root the directory
 * holding cpu0/cache/, NULL for /sys/devices/system/cpu): the size of
 * cpu0's cache of the highest level. 0 when unknown.
 */
uint64_t tl_llc_bytes(const char *root);

/* The facts of a recording t on a machine of llc_bytes of last-level cache. */
void tl_recording_facts(const struct tl_trace *t, uint64_t llc_bytes, struct tl_recording_facts *f);

#endif
