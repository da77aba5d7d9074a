/*
 * DAMON through its sysfs interface, as the `damon` sampler uses it
 * (sampler-damon.c): one kdamond monitoring this process's virtual
 * addresses, and the regions it publishes; plus the draw of one address
 * from those regions. Every function takes the interface's root, which is
 * TLRT_DAMON_ROOT in production and a directory of plain files laid out
 * the same way in tests.
 *
 * The sysfs interface recreates every kdamond's directory when
 * nr_kdamonds is written, so this code only ever uses kdamond 0 of a
 * machine where nr_kdamonds was 0, and puts it back to 0 when done.
 *
 * No allocation, no stdio: the runtime thread calls these. Reasons are one
 * line in why (truncated to whylen).
 */
#ifndef TLRT_DAMON_H
#define TLRT_DAMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TLRT_DAMON_ROOT "/sys/kernel/mm/damon/admin"

/* One region of DAMON's last aggregation, as published under tried_regions/N/. */
struct tlrt_damon_region {
	uint64_t start, end;	/* [start, end), page-aligned */
	uint32_t nr_accesses;	/* sampling intervals of the aggregation in which its sampled page was accessed */
};

/* Monitoring attributes for a sampling rate and a span (damon-sysfs.c says why these). */
struct tlrt_damon_attrs {
	unsigned long sample_us, aggr_us, update_us;
	unsigned long min_regions, max_regions;
};
void tlrt_damon_attrs_for(double rate_hz, size_t span_len, struct tlrt_damon_attrs *a);

/*
 * The requirements, by reading only: the interface is there, its files
 * are writable by us, and nr_kdamonds is 0 (nobody else uses DAMON).
 * 0, or -errno with the reason.
 */
int tlrt_damon_check(const char *root, char *why, size_t whylen);

/*
 * Creates kdamond 0 with one context of vaddr operations whose one target
 * is pid, and one DAMOS scheme of action "stat" matching every region; it
 * is not started (that needs the region: tlrt_damon_watch). Fails when
 * DAMON has no vaddr operations. On failure everything it created is
 * gone again (nr_kdamonds 0). 0, or -errno with the reason.
 */
int tlrt_damon_create(const char *root, pid_t pid, char *why, size_t whylen);

/*
 * Monitors [start, end) with attributes a: turns the kdamond on when
 * running is 0, else commits the new values to the running kdamond.
 * 0, or -errno with the reason (the kdamond is left as it was).
 */
int tlrt_damon_watch(const char *root, const struct tlrt_damon_attrs *a, uintptr_t start, uintptr_t end,
		     int running, char *why, size_t whylen);

/*
 * Asks the kdamond to publish the regions of its next aggregation under
 * tried_regions/ and waits until it has: every call gives a snapshot taken
 * after the call began. 0 or -errno (e.g. the kdamond stopped).
 */
int tlrt_damon_snapshot(const char *root);

/* Whether the kdamond's state reads "off" (an unreadable state is not taken for off). */
int tlrt_damon_stopped(const char *root);

/*
 * Calls fn for each published region, in the order of their directories
 * (0, 1, ... up to the first missing one). The number of regions, or
 * -errno when a region's file is unreadable or malformed.
 */
long tlrt_damon_regions(const char *root, void (*fn)(void *arg, const struct tlrt_damon_region *r), void *arg);

/*
 * Turns the kdamond off and writes nr_kdamonds back to 0. 0 when
 * nr_kdamonds then reads 0, else -errno.
 */
int tlrt_damon_release(const char *root);

/*
 * The draw (damon-pick.c): offered the regions one by one, keeps one with
 * probability proportional to nr_accesses x its pages inside [lo, hi),
 * then gives a uniformly random page of it. No region with accesses: 0.
 */
struct tlrt_damon_pick {
	uint64_t total;		/* sum of the weights offered */
	uintptr_t start;	/* the kept region, clipped */
	uint64_t pages;
	uint64_t *rng;		/* xorshift64 state, not 0 */
};
void tlrt_damon_pick_offer(struct tlrt_damon_pick *p, const struct tlrt_damon_region *r, uintptr_t lo, uintptr_t hi);
uintptr_t tlrt_damon_pick_addr(const struct tlrt_damon_pick *p);

/* What the sampler did, for tests and measurements (sampler-damon.c). */
struct tlrt_damon_counts {
	uint64_t snapshots;	/* aggregations read */
	uint64_t regions;	/* regions read, over all snapshots */
	uint64_t idle;		/* snapshots in which no region of the span was accessed */
	uint64_t samples;	/* delivered */
	uint64_t snapshot_ns;	/* time waiting for DAMON to publish */
};
void tlrt_sampler_damon_counts(struct tlrt_damon_counts *out);

#endif
