/* Shared between the probe's measuring files (probe-measure.c, probe-migrate.c); not part of probe.h's contract. */
#ifndef TL_PROBE_INTERNAL_H
#define TL_PROBE_INTERNAL_H

#include <stdint.h>

/* size bytes mmap'd, bound to node, touched and checked; NULL with *err (-errno, -EIO misplaced) on failure. */
void *tl_probe_alloc_on(int node, uint64_t size, int *err);
/* 0 when up to 64 pages spread over the buffer are on node, -EIO when not, -errno when move_pages fails. */
int tl_probe_check_placement(void *buf, uint64_t size, int node);

#endif
