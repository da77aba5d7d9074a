/*
 * Kernel memory-management counters around a run: /proc/vmstat is read
 * before and after, and the deltas of the tiering families (pgmigrate_*,
 * numa_*, pgpromote_*, pgdemote_*, thp_*) become metrics named
 * "vmstat.<kernel name>", whatever counters of those families this kernel
 * has. The counters are machine-wide: anything else running at the same
 * time adds to them, so they tell "this run migrated at least N pages",
 * and a quiet machine makes that "exactly".
 *
 * Wiring: tl_vmstat_snapshot(&before) in the runner's started hook (or just
 * before tl_runner_run), tl_vmstat_snapshot(&after) in its finished hook,
 * then tl_vmstat_record() adds the deltas to the run record.
 */
#ifndef TL_VMSTAT_H
#define TL_VMSTAT_H

#include <stddef.h>
#include <stdint.h>

struct tl_run_record;
struct tl_metric;

struct tl_vmstat_value {
	char name[64];		/* the kernel's name, "thp_fault_alloc" */
	uint64_t value;
};

struct tl_vmstat {
	struct tl_vmstat_value *v;
	size_t n;
};

/* 1 when a /proc/vmstat name belongs to the families kept (pgmigrate_, numa_, ...). */
int tl_vmstat_wanted(const char *name);

/*
 * Reads /proc/vmstat (or `path`, for tests; NULL = /proc/vmstat) keeping the
 * wanted counters. Replaces what snap held. 0, or a negative errno after an
 * error line (unreadable file; -ENOMEM).
 */
int tl_vmstat_snapshot(struct tl_vmstat *snap, const char *path);

/* The value of one counter, or -ENOENT when the snapshot does not have it. */
int tl_vmstat_get(const struct tl_vmstat *snap, const char *name, uint64_t *value);

/* The unit of a counter's delta: "pages" for page counts, "events" for the rest. */
const char *tl_vmstat_unit(const char *name);

/*
 * The deltas as metrics ("vmstat.<name>", after - before, unit as above),
 * one per counter present in both snapshots. *out is malloc'd with its
 * names and units: free with tl_metrics_free (store/result.h).
 */
int tl_vmstat_metrics(const struct tl_vmstat *before, const struct tl_vmstat *after,
		      struct tl_metric **out, size_t *n);

/* tl_vmstat_metrics added to the run record. 0 or -ENOMEM. */
int tl_vmstat_record(const struct tl_vmstat *before, const struct tl_vmstat *after, struct tl_run_record *r);

/* Frees the values; safe on a zeroed snapshot. */
void tl_vmstat_release(struct tl_vmstat *snap);

#endif
