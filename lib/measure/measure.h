/*
 * What is measured around each run besides its own output: perf counters
 * (opened on the corked child, as perf stat does), /proc/vmstat deltas,
 * the process tree's memory peaks, and the host around it (its load
 * before and after, the CPUs' clock and governor, the program and the
 * variables it ran with: environment.h). One struct per execution of a plan,
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
#include "measure/environment.h"
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
	char glibc_hugetlb[16];	/* glibc.malloc.hugetlb in its GLIBC_TUNABLES, read with the maps ("" none) */
	bool hugetlb_mapped;	/* it had hugetlb memory mapped then (anon_hugepage) */
	struct tl_host_load load_before, load_after;
	struct tl_env host;	/* the run's own environment rows: clock, governor, program, variables */
	int host_rc;		/* collecting them failed (-ENOMEM): the record would lack them */
};

/* Before each run: forget the previous one. */
void tl_measure_reset(struct tl_measure *m);

/* Encodes the events (a spec's `events:` items). -EINVAL with an error line for a malformed list. */
int tl_measure_init(struct tl_measure *m, char *const *events, size_t nevents);
/*
 * Before the run starts: the program it executes and the environment it
 * gets (tl_env_put_program, tl_env_put_variables), into the run's record.
 */
void tl_measure_program(struct tl_measure *m, const char *program, char *const *envp);
/* The child is corked: snapshot, the host's load and clock, open the counters on it. 0, or non-zero to abort. */
int tl_measure_started(struct tl_measure *m, pid_t pid);
/* Every tick while the child runs: peaks, and once its mappings. */
void tl_measure_tick(struct tl_measure *m, pid_t pid);
/* The child was reaped: read the counters, the second snapshot, the host's load again. */
void tl_measure_finished(struct tl_measure *m);
/*
 * Adds what the last run measured to its record: counters, vmstat deltas,
 * process peaks, the libraries mapped (environment allocator.mapped), the
 * host's load (metrics host.load1_before, host.load1_after,
 * host.running_before, host.running_after, host.cpus; environment
 * host.loadavg_before, host.loadavg_after) and the rows of
 * tl_measure_program and the clock (cpu.freq_mhz, cpu.governor).
 * Nothing when the run never started. 0 or -ENOMEM.
 */
int tl_measure_record(const struct tl_measure *m, struct tl_run_record *r);
void tl_measure_release(struct tl_measure *m);

#endif
