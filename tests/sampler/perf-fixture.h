/*
 * The recorded perf ring of test_perf_ring, as perf-ring-record writes it:
 * this header, then ntouched addresses (uint64_t, in the order touched),
 * then data_size bytes of the ring's data area. Native byte order: it is
 * read back on the kind of machine it was recorded on (x86-64).
 */
#ifndef TESTS_SAMPLER_PERF_FIXTURE_H
#define TESTS_SAMPLER_PERF_FIXTURE_H

#include <stdint.h>

#define PERF_FIXTURE_MAGIC "TLPERFR1"

struct perf_fixture_header {
	char magic[8];
	uint64_t sample_type;
	uint64_t data_size;	/* bytes of the data area, a power of two */
	uint64_t tail, head;	/* free-running, as in the control page */
	uint64_t pid, tid;	/* the recording thread */
	uint64_t region, region_len;	/* the mapping the touched pages lie in */
	uint64_t ntouched;
};

#endif
