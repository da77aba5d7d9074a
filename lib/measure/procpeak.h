/*
 * Peaks of a workload's memory footprint, sampled during the run: page
 * table size (VmPTE), resident set (VmRSS, VmHWM), hugetlb pages in use
 * (HugetlbPages) and transparent huge pages (AnonHugePages), summed over
 * the workload process and its descendants (found through
 * /proc/PID/task/TID/children), and the largest sum seen is kept.
 *
 * Each sample reads /proc/PID/status of each process (a few microseconds).
 * AnonHugePages is only in /proc/PID/smaps_rollup, which walks the whole
 * address space under the mm lock (about 12 ms for 512 MiB here), so it is
 * read at the first sample and then only as often as keeps its cost below
 * 1% of the run's time.
 *
 * A peak sampled every tick can miss a spike between ticks, and a run
 * shorter than one tick has no sample: its peaks are then not stored at
 * all (no zeros). VmHWM, the kernel's own high-water mark, does not miss.
 *
 * Wiring: the runner's tick hook calls tl_procpeak_sample(&pp, pid); after
 * the run, tl_procpeak_record() adds the peaks to the run record.
 */
#ifndef TL_PROCPEAK_H
#define TL_PROCPEAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tl_run_record;
struct tl_metric;

struct tl_procpeak {
	/* Peaks of the sums over the process tree, bytes. */
	uint64_t vmpte, vmrss, vmhwm, hugetlb, anon_huge;
	unsigned samples;	/* samples that read at least the leader's status */
	unsigned smaps_samples;	/* of which also read smaps_rollup (anon_huge valid when > 0) */
	unsigned procs;		/* most processes seen in one sample */
	bool no_smaps;		/* set before sampling: never read smaps_rollup */

	/* Private to procpeak.c. */
	double smaps_next;	/* CLOCK_MONOTONIC seconds: earliest next smaps_rollup read */
};

/* Zeroes p. */
void tl_procpeak_init(struct tl_procpeak *p);

/*
 * One sample of pid and its descendants. Returns 0, or -ENOENT when pid is
 * gone (nothing recorded): a tick can race with the exit.
 */
int tl_procpeak_sample(struct tl_procpeak *p, pid_t pid);

/*
 * The peaks as metrics: "proc.vmpte_peak", "proc.vmrss_peak",
 * "proc.vmhwm_peak", "proc.hugetlb_peak" (unit "B"), "proc.anonhugepages_peak"
 * (when smaps_rollup was read) and "proc.samples"; none when there was no
 * sample. Free with tl_metrics_free.
 */
int tl_procpeak_metrics(const struct tl_procpeak *p, struct tl_metric **out, size_t *n);

/* tl_procpeak_metrics added to the run record. 0 or -ENOMEM. */
int tl_procpeak_record(const struct tl_procpeak *p, struct tl_run_record *r);

#endif
