/*
 * What is measured around each run besides its own output: perf counters
 * (opened on the corked child, as perf stat does), /proc/vmstat deltas and
 * the process tree's memory peaks. One struct per execution of a plan,
 * reused run after run. The caller wires the three calls below to the
 * runner's hooks: started while the child is corked, tick while it runs,
 * finished after it was reaped.
 */
#ifndef TL_MEASURE_H
#define TL_MEASURE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "measure/counters.h"
#include "measure/procpeak.h"
#include "measure/vmstat.h"

struct tl_run_record;

struct tl_measure {
	struct tl_counter_set counters;
	struct tl_vmstat before, after;
	struct tl_procpeak peak;
	int vmstat_rc;		/* a snapshot that failed (-errno): the run's record would lack its deltas */
	bool ran;		/* the last run reached its started hook: there is something to store */
	bool maps_checked;	/* the workload's mappings were read while it ran */
	char mapped[160];	/* allocator and runtime libraries mapped in it: "libjemalloc libtiermem" */
};

/* Before each run: forget the previous one. */
void tl_measure_reset(struct tl_measure *m);

/* Encodes the events (a spec's `events:` items). -EINVAL with an error line for a malformed list. */
int tl_measure_init(struct tl_measure *m, char *const *events, size_t nevents);
/* The child is corked: snapshot, open the counters on it. 0, or non-zero to abort the run. */
int tl_measure_started(struct tl_measure *m, pid_t pid);
/* Every tick while the child runs: peaks, and once its mappings. */
void tl_measure_tick(struct tl_measure *m, pid_t pid);
/* The child was reaped: read the counters, the second snapshot. */
void tl_measure_finished(struct tl_measure *m);
/*
 * Adds what the last run measured to its record: counters, vmstat deltas,
 * process peaks, the libraries mapped (environment allocator.mapped).
 * Nothing when the run never started. 0 or -ENOMEM.
 */
int tl_measure_record(const struct tl_measure *m, struct tl_run_record *r);
void tl_measure_release(struct tl_measure *m);

#endif
