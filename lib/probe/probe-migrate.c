/*
 * Measured move throughput (issue 28): what a tier model's migration
 * figures are, on this machine, instead of assumed. A buffer on the slow
 * tier's first node moves to the fast tier's first node with
 * mbind(MPOL_BIND, MPOL_MF_MOVE), as the runtime migrates (lib/tiermem/
 * migrate.c), one 2 MiB chunk per call; then part of it back one 4 KiB
 * page per call. Each call costs a fixed part (the system call, the page
 * table walk, the TLB shootdown) and a part per byte, so the two sizes
 * give both: bytes / (t_2M - t_4K) and t_4K less its bytes' share.
 */
#include "probe/probe.h"

#include <errno.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "probe/probe-internal.h"

#define BIG (2ull << 20)
#define SMALL 4096ull
#define SMALL_MOVES 256

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds per mbind move of len-byte pieces of buf[0..total) to node. */
static int move_each(char *buf, uint64_t total, uint64_t len, int node, double *per)
{
	unsigned long mask[16] = { 0 };
	double t0;

	mask[node / 64] = 1ul << (node % 64);
	t0 = now();
	for (uint64_t at = 0; at < total; at += len)
		if (mbind(buf + at, len, MPOL_BIND, mask, sizeof(mask) * 8, MPOL_MF_MOVE | MPOL_MF_STRICT))
			return -errno;
	*per = (now() - t0) / (double)(total / len);
	return 0;
}

int tl_probe_move(int from, int to, uint64_t size, double *gbs, double *cost_us)
{
	double t_big, t_small, bw;
	char *buf;
	int err;

	if (to < 0 || to >= 1024 || from < 0 || from >= 1024)
		return -EINVAL;
	size = size / BIG * BIG;
	if (size < 4 * BIG)
		size = 4 * BIG;
	if (!(buf = tl_probe_alloc_on(from, size, &err)))
		return err;
	err = move_each(buf, size, BIG, to, &t_big) ?: tl_probe_check_placement(buf, size, to) ?:
	      move_each(buf, SMALL * SMALL_MOVES, SMALL, from, &t_small) ?:
	      tl_probe_check_placement(buf, SMALL * SMALL_MOVES, from);
	munmap(buf, size);
	if (err)
		return err;
	/* a 2 MiB move no slower than a page's: the fixed part is lost in the noise, all of it is per byte */
	bw = t_big > t_small ? (double)(BIG - SMALL) / (t_big - t_small) : (double)BIG / t_big;
	*gbs = bw / 1e9;
	*cost_us = t_small > SMALL / bw ? (t_small - SMALL / bw) * 1e6 : 0;
	return 0;
}

/* The first node of a node list ("1-2,5" -> 1), -1 when there is none. */
static int first_node(const char *list)
{
	char *end;
	long v = list ? strtol(list, &end, 10) : -1;

	return list && end != list && v >= 0 && v < 1024 ? (int)v : -1;
}

/*
 * Without a slow set in the recommendation (measured figures that do not
 * separate the nodes, as under an emulator), the kernel's own tiers: from
 * its lowest (the largest id) to its highest.
 */
static void kernel_tiers(const struct tl_probe *p, int *from, int *to)
{
	const struct tl_probe_tier *top = NULL, *bottom = NULL;

	for (size_t i = 0; i < p->ntiers; i++) {
		if (!top || p->tiers[i].id < top->id)
			top = &p->tiers[i];
		if (!bottom || p->tiers[i].id > bottom->id)
			bottom = &p->tiers[i];
	}
	if (top && bottom && top != bottom) {
		*from = first_node(bottom->nodes);
		*to = first_node(top->nodes);
	}
}

int tl_probe_migration(struct tl_probe *p)
{
	int from = first_node(p->slow), to = first_node(p->fast), rc;

	if (from < 0 || to < 0 || from == to)
		kernel_tiers(p, &from, &to);
	free(p->move_skip);
	p->move_skip = NULL;
	p->moved = false;
	if (from < 0 || to < 0 || from == to) {
		p->move_skip = strdup("one memory tier: nothing to move between");
		return p->move_skip ? 0 : -ENOMEM;
	}
	p->move_from = from;
	p->move_to = to;
	rc = tl_probe_move(from, to, p->quick ? 16ull << 20 : 64ull << 20, &p->move_gbs, &p->move_cost_us);
	if (rc) {
		p->move_skip = strdup(strerror(-rc));
		return p->move_skip ? 0 : -ENOMEM;
	}
	p->moved = true;
	return 0;
}
