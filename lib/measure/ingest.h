/*
 * Ingesting what the parts that run inside a workload leave in its output
 * directory: the tiering runtime's counters files (tiermem-PID.counters,
 * the layout of lib/tiermem/rt-stats.h) and logs (tiermem-PID.log), named
 * tiermem-rankR-PID.* in an MPI rank R (the ranks of a run are one run:
 * hit rate pooled over them, migrations summed, a "rank" process stat on
 * each rank's rows), and
 * the FAT allocator's status files (fatalloc-PID.txt).
 *
 * tl_ingest_scan() reads the counters and status files and sums what a
 * report needs into metrics; tl_ingest_record() adds those, the
 * per-process detail (process_stats) and the logs' allocations, samples
 * and migrations to the run record. A malformed or truncated file is
 * skipped with a warning naming it, and a malformed log line is skipped,
 * never fatal: the run's own result stands.
 *
 * The log's rows are held in the record until it is stored (48 bytes a
 * sample: a million samples, 48 MB).
 */
#ifndef TL_INGEST_H
#define TL_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/result.h"

struct rt_counters_sampler;

struct tl_ingest_process {
	int pid;
	int rank;			/* MPI rank from tiermem-rankR-PID.counters, -1 when none */
	uint64_t *stats;		/* RT_STAT__COUNT values, NULL when no counters file */
	bool complete;			/* the process wrote its counters at exit */
	struct rt_counters_sampler *sampler;	/* the sampler's own counts (NULL, 0 when none) */
	size_t nsampler;
	char *fat_backing;		/* from fatalloc-PID.txt, or NULL */
};

/* One perf event as the ranks counted it (tierlab-rank's perf-rankR-PID.txt), summed over ranks. */
struct tl_ingest_perf {
	char *event;
	char *stat_name;		/* "perf.EVENT", the name of its per-rank process_stats rows */
	size_t ranks, ok;		/* ranks that reported it, and that counted it */
	double sum;			/* over the ranks that counted it */
	uint64_t enabled_ns, running_ns;	/* summed likewise */
	char *reason;			/* the first rank's, when one did not count it */
	struct { int pid; uint64_t value; } *per_rank;	/* ok ranks' values */
};

struct tl_ingest {
	struct tl_ingest_process *procs;
	size_t nprocs;
	struct tl_metric *metrics;	/* names and units owned here */
	size_t nmetrics;
	bool runtime_seen;		/* some process ran under libtiermem */
	uint64_t allocs;		/* allocations it managed, summed over processes */
	bool same_node;			/* the runtime said fast and slow were one node */
	char *allocator_backing;	/* FAT pool backing of the first process that had one */
	struct tl_ingest_perf *perf;	/* the ranks' perf events, when a launcher ran tierlab-rank */
	size_t nperf;
};

int tl_ingest_scan(const char *out_dir, struct tl_ingest *ing);
/* Adds the metrics, process stats, log rows and the allocator's backing to r. 0 or -errno. */
int tl_ingest_record(const struct tl_ingest *ing, const char *out_dir, struct tl_run_record *r);
/*
 * The run's counters as its ranks counted them: each event tierlab-rank
 * reported replaces the row of the same event that tierlab counted on the
 * launcher (or is added), its value summed over the ranks that counted
 * it (status ok when all did, else as the first that did not, with its
 * reason); each rank's value is kept as a process_stats row "perf.EVENT".
 * Call after the launcher's counters are in r. 0 or -ENOMEM.
 */
int tl_ingest_counters(const struct tl_ingest *ing, struct tl_run_record *r);
void tl_ingest_release(struct tl_ingest *ing);

#endif
