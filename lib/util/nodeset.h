/*
 * NUMA node sets in numactl syntax ("0", "0-3", "1,3", "all", "!2"),
 * parsed by libnuma. A node set in a spec may name nodes this machine does
 * not have (a paper-size spec must still plan here): parsing keeps the
 * text, and tl_nodeset_check() tells whether this machine can honour it.
 */
#ifndef TL_NODESET_H
#define TL_NODESET_H

#include <stddef.h>

struct bitmask;

/*
 * Validates the syntax of `text`. Returns 0 when libnuma accepts it on this
 * machine, 1 when the syntax is a node list but names nodes that do not
 * exist here, -EINVAL when it is not a node list at all (a reversed range
 * such as "1-0" included, as numactl has it), -ENOENT when it is a node
 * list that leaves no node of this machine ("!all", "!0" on node 0 alone).
 */
int tl_nodeset_check(const char *text);

/* Parses for use on this machine; NULL when invalid or empty here. Free with numa_bitmask_free. */
struct bitmask *tl_nodeset_parse(const char *text);

/* Same for CPU node sets (numactl --cpunodebind). */
struct bitmask *tl_nodeset_parse_cpus(const char *text);

/* "0-1" etc. of the nodes present on this machine, into buf. */
int tl_nodeset_present(char *buf, size_t len);

/* The nodes as an integer bitmask (SHAMBLES_*_NODEMASK form); -1 if a node >= 64. */
long long tl_nodeset_mask(const struct bitmask *bm);

#endif
