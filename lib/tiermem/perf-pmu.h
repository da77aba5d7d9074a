/*
 * Which PMU gives the perf sampler precise memory-access samples on this
 * machine, and how to ask it: AMD IBS op (ibs_op), Arm SPE (arm_spe_*),
 * Intel PEBS load latency (encoded by libpfm4), or, for tests only, the
 * software page-fault event. The result
 * is plain data the sampler turns into a perf_event_attr; this module
 * needs no perf header of its own, so libpfm4's copy of perf_event.h stays
 * inside perf-pmu.c.
 *
 * `devices` is the sysfs directory of event sources
 * (TLRT_PERF_DEVICES); tests point it at a directory of their own.
 * Called at start(), from the program's thread: these allocate.
 */
#ifndef TLRT_PERF_PMU_H
#define TLRT_PERF_PMU_H

#include <stddef.h>
#include <stdint.h>

#define TLRT_PERF_DEVICES "/sys/bus/event_source/devices"

enum tlrt_perf_source {
	TLRT_PERF_IBS,
	TLRT_PERF_SPE,
	TLRT_PERF_PEBS,
	TLRT_PERF_PAGE_FAULTS,	/* the test vehicle: not a sampler of accesses */
};

struct tlrt_perf_pmu {
	enum tlrt_perf_source source;
	char event[96];		/* what is sampled, for messages: "ibs_op l3missonly", ... */
	char dev[64];		/* its directory under devices, "" when it has none (software) */
	uint32_t type;
	uint64_t config, config1, config2;
	unsigned precise;	/* precise_ip to ask for first */
	int exclude_kernel;	/* user-mode accesses only (0 when the PMU cannot filter) */
	int aux;		/* records come through an AUX area (SPE), not as samples */
	uint64_t period;	/* a fixed sample period, or 0 for frequency mode */
};

/*
 * The first of IBS, SPE and PEBS this machine has: 0, or -ENOENT with the
 * reason in why, naming what was looked for.
 */
int tlrt_perf_pmu_find(struct tlrt_perf_pmu *p, const char *devices, char *why, size_t whylen);

/* Each source alone: 0, -ENOENT when the machine lacks it (why says so), or -errno. */
int tlrt_perf_pmu_ibs(struct tlrt_perf_pmu *p, const char *devices, char *why, size_t whylen);
int tlrt_perf_pmu_spe(struct tlrt_perf_pmu *p, const char *devices, char *why, size_t whylen);
int tlrt_perf_pmu_pebs(struct tlrt_perf_pmu *p, const char *devices, char *why, size_t whylen);
void tlrt_perf_pmu_page_faults(struct tlrt_perf_pmu *p);

/*
 * The CPUs the PMU's events can be opened on: its sysfs `cpus` or
 * `cpumask` list (hybrid cores, SPE), else every online CPU. *cpus is
 * malloc'ed (the caller frees it); the count, or -errno.
 */
int tlrt_perf_pmu_cpus(const struct tlrt_perf_pmu *p, const char *devices, int **cpus);

/*
 * Sets `field` of the PMU's sysfs format (devices/dev/format/field, e.g.
 * "config:16" or "config1:0-11") to value in p's config words: 0, -ENOENT
 * when the PMU has no such field, -EINVAL when the file cannot be parsed.
 */
int tlrt_perf_pmu_format(struct tlrt_perf_pmu *p, const char *devices, const char *field, uint64_t value);

/* /proc/sys/kernel/<name> (perf_event_paranoid, perf_event_max_sample_rate): 0, or -errno. */
int tlrt_perf_sysctl(const char *name, long *value);

#endif
