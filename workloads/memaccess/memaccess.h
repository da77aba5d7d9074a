/*
 * memaccess: pointer chasing through a linked list of 72-byte nodes laid
 * out in ONE block, in sequential or random order, as in the FAT paper's
 * memory-access benchmark. Each access depends on the previous one, so the
 * time per access is the latency of the memory (and of its address
 * translation: the TLB/huge-page probe). Split from the program so the
 * unit tests link the kernel and the validators without main().
 */
#ifndef MEMACCESS_H
#define MEMACCESS_H

#include <stddef.h>
#include <stdint.h>

struct ma_node {
	struct ma_node *next;
	uint64_t payload;
	char pad[56];    /* 72 bytes: nodes straddle cache lines as in the paper */
};

_Static_assert(sizeof(struct ma_node) == 72, "memaccess nodes are 72 bytes");

enum ma_order { MA_SEQ, MA_RANDOM };

/* splitmix64: the shuffle's generator and the payload hash. */
static inline uint64_t ma_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The payload of node i: a hash, so a list that skips or repeats nodes sums differently. */
static inline uint64_t ma_payload(uint64_t seed, size_t i)
{
	return ma_mix(seed ^ ((uint64_t)i * 0xd1b54a32d192ed03ULL));
}

/*
 * Parse a working-set size: a whole number with an optional binary unit
 * K, M, G or T (also KiB..TiB, and B for bytes), e.g. "256M". Returns 0
 * and stores bytes, or -EINVAL.
 */
int ma_parse_size(const char *s, uint64_t *bytes);

/*
 * Lay out n >= 1 nodes: write every payload (this also touches every
 * page) and link them into one cycle through all n nodes starting at
 * nodes[0]: in index order (MA_SEQ) or as a uniformly random cyclic
 * permutation (MA_RANDOM, Sattolo's shuffle from seed).
 */
void ma_build(struct ma_node *nodes, size_t n, enum ma_order order, uint64_t seed);

/* The sum of all n payloads, from the formula (not from memory). */
uint64_t ma_expected_sum(size_t n, uint64_t seed);

/*
 * Follow steps links from head, adding up the payloads. This is the
 * timed loop: one dependent load per access.
 */
uint64_t ma_chase(const struct ma_node *head, uint64_t steps);

/*
 * Validator: starting at nodes[0], the list must stay inside the block,
 * come back to nodes[0] after exactly n links (every node once), and the
 * payloads met on the way must sum to ma_expected_sum(n, seed). Returns
 * NULL or a message (static buffer, valid until the next call).
 */
const char *ma_check(const struct ma_node *nodes, size_t n, uint64_t seed);

#endif
