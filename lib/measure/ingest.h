/*
 * Ingesting what the parts that run inside a workload leave in its output
 * directory: the tiering runtime's counters files (tiermem-PID.counters,
 * the layout of lib/tiermem/rt-stats.h) and logs (tiermem-PID.log), and
 * the FAT allocator's status files (fatalloc-PID.txt).
 *
 * tl_ingest_scan() reads them and sums what a report needs into metrics
 * (stored with the run, in its transaction); tl_ingest_store() then
 * writes the per-process detail (process_stats, allocations, samples,
 * migrations). A malformed or truncated file is skipped with a warning
 * naming it, never fatal: the run's own result stands.
 */
#ifndef TL_INGEST_H
#define TL_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/store.h"

struct tl_ingest_process {
	int pid;
	uint64_t *stats;		/* RT_STAT__COUNT values, NULL when no counters file */
	bool complete;			/* the process wrote its counters at exit */
	char *fat_backing;		/* from fatalloc-PID.txt, or NULL */
};

struct tl_ingest {
	struct tl_ingest_process *procs;
	size_t nprocs;
	struct tl_metric *metrics;	/* names and units owned here */
	size_t nmetrics;
	bool runtime_seen;		/* some process ran under libtiermem */
	bool same_node;			/* the runtime said fast and slow were one node */
	char *allocator_backing;	/* FAT pool backing of the first process that had one */
};

int tl_ingest_scan(const char *out_dir, struct tl_ingest *ing);
int tl_ingest_store(struct tl_store *st, int64_t run_id, const char *out_dir,
		    const struct tl_ingest *ing);
void tl_ingest_release(struct tl_ingest *ing);

#endif
