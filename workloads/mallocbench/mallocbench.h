/*
 * mallocbench: malloc/free throughput in the manner of glibc's
 * bench-malloc-thread. Each thread owns a working set of block slots; an
 * iteration frees a random slot and mallocs a block of a random size into
 * it. Sizes and slots come from tables drawn before timing, so the timed
 * loop holds no random number generator.
 *
 * With fill on (the default) each block is written with a tag of its own
 * and checked just before it is freed: an allocator that hands out
 * overlapping blocks, or writes into a live block, is caught. The timed
 * figure then includes that write and read, as an application's use of
 * its memory would. Split from the program so the unit tests can drive the
 * loop with a deliberately broken allocator.
 */
#ifndef MALLOCBENCH_H
#define MALLOCBENCH_H

#include <stddef.h>
#include <stdint.h>

/* The allocator under test; the program passes malloc and free. */
struct mb_allocator {
	void *(*malloc)(size_t size);
	void (*free)(void *p);
};

struct mb_config {
	size_t blocks;          /* slots per thread, >= 1 */
	size_t min_size;        /* block sizes uniform in [min_size, max_size], min >= 1 */
	size_t max_size;
	uint64_t iterations;    /* free+malloc pairs per thread, when seconds == 0 */
	double seconds;         /* > 0: run each thread for this long instead */
	int fill;               /* write and check every block */
	uint64_t seed;
};

struct mb_thread_result {
	uint64_t iterations;    /* free+malloc pairs in the timed loop */
	double seconds;         /* wall time of the timed loop */
	const char *failure;    /* NULL, or points into why[] */
	char why[200];
};

/* splitmix64 */
static inline uint64_t mb_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Write tag over the whole block: 8-byte words, then its low byte in the tail. */
void mb_fill(void *p, size_t size, uint64_t tag);

/* -1 when the block still holds its tag everywhere, else the offset of the first wrong byte. */
long mb_check(const void *p, size_t size, uint64_t tag);

/* The alignment malloc owes a block of this size: 16, or less for blocks too small to need it. */
size_t mb_required_alignment(size_t size);

/*
 * Run threads >= 1 threads (the calling thread waits), each with its own
 * slots, seeds and result in results[0 .. threads-1]. Before the timed
 * loop each thread fills its slots; after it, it checks (with fill) and
 * frees them and checks that no two of its last live blocks overlap.
 * Returns 0 when it ran (failures are in the results), -EINVAL on a bad
 * config, -ENOMEM or -EAGAIN when it could not start.
 */
int mb_run(const struct mb_config *cfg, const struct mb_allocator *a, int threads,
	   struct mb_thread_result *results);

/* The first failure among the threads' results, or NULL. */
const char *mb_failure(const struct mb_thread_result *results, int threads);

#endif
