/*
 * The environment record: the facts about the machine and its settings
 * that a result depends on, as key/value text (struct tl_env of
 * store/result.h, stored in the environment table per experiment and per
 * run, printed by `tierlab show`, compared by the report so it can warn
 * "runs compared were taken under different settings: thp_enabled madvise
 * vs always").
 *
 * Keys, in the order collected (values are never empty; "absent" when the
 * kernel has no such setting):
 *   tierlab_version, spec_hash, host, kernel, kernel_version, arch,
 *   cpu_model, cpu_flags, cpu_count, numa_nodes, numa_cpu_nodes,
 *   numa_mem_nodes, numa_distances, thp_enabled, thp_defrag,
 *   numa_balancing, demotion_enabled, perf_event_paranoid,
 *   hugetlb_<size>_nr and hugetlb_<size>_free per pool size
 *   ("hugetlb_2048kB_nr"), blas_coretype, blas_coretype_source,
 *   blas_config.
 * The BLAS core type is the one a workload would run with: the child's
 * OPENBLAS_CORETYPE when set, else what libopenblas.so.0 detects
 * (openblas_get_corename), else "absent".
 */
#ifndef TL_ENVIRONMENT_H
#define TL_ENVIRONMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/result.h"

/*
 * Collects every key above into env (replacing what it held). spec_hash
 * may be NULL ("absent"); envp is the environment the workload will get
 * (NULL: this process's). 0 or -ENOMEM; a fact that cannot be read is
 * recorded as "absent" or "unknown", not an error.
 */
int tl_env_collect(struct tl_env *env, const char *spec_hash, char *const *envp);

/* Sets key (replacing its value, else appending); NULL is "absent". 0 or -ENOMEM. */
int tl_env_set(struct tl_env *env, const char *key, const char *value);

/*
 * Whether a key takes part in comparisons. Not compared: spec_hash (runs
 * of different specs are compared on purpose) and the free counts of
 * hugetlb pools (they move with whatever else runs).
 */
bool tl_env_key_compared(const char *key);

/* One difference between two records; a or b is NULL when the key is missing there. */
struct tl_env_change {
	const char *key, *a, *b;	/* point into the records compared */
};

/*
 * The compared keys whose values differ between a and b (in a's order,
 * then keys only b has). *out is malloc'd (free it; the strings belong to
 * the records); *n may be 0.
 */
int tl_env_diff(const struct tl_env *a, const struct tl_env *b, struct tl_env_change **out,
		size_t *n);

/*
 * "thp_enabled madvise vs always, numa_balancing 0 vs 1" ("(unset)" for a
 * missing side; cpu_flags is shortened to the flags that differ) into buf.
 * Returns the length it needed, as snprintf does.
 */
int tl_env_diff_describe(const struct tl_env_change *c, size_t n, char *buf, size_t len);

/*
 * What is recorded per run, in its own environment rows and metrics, so
 * that a figure says what the host was doing while it was taken
 * (host.c, program-id.c; docs/schema.md lists the keys):
 */

/* The host's load at one moment: /proc/loadavg's averages, /proc/stat's procs_running, the CPUs online. */
struct tl_host_load {
	double load[3];		/* 1-, 5- and 15-minute averages; NaN when unreadable */
	long running;		/* tasks runnable now (the reader among them); -1 when unreadable */
	long cpus;		/* online */
};
void tl_host_load_read(struct tl_host_load *l);
/* The same from the files' text (tests); -EINVAL when either says nothing of it (the fields stay NaN, -1). */
int tl_host_load_parse(const char *loadavg, const char *stat, struct tl_host_load *l);

/*
 * cpu.freq_mhz ("2400 (1200-3500 over 8 CPUs)": the mean of the CPUs'
 * current frequencies, their range) and cpu.governor ("performance", or
 * "powersave x4, performance x4"), from cpufreq under cpu_dir
 * (/sys/devices/system/cpu); "unreadable (no cpufreq in sysfs)" where a
 * VM or a container shows none. 0 or -ENOMEM.
 */
int tl_env_put_cpufreq(struct tl_env *env);
int tl_env_put_cpufreq_from(struct tl_env *env, const char *cpu_dir);

/*
 * env.NAME for each variable of envp (NULL: this process's) that sets a
 * program's threading, libraries or allocator: OMP_*, GOMP_*, KMP_*,
 * MKL_*, OPENBLAS_*, LD_PRELOAD, LD_LIBRARY_PATH, MALLOC_*,
 * GLIBC_TUNABLES, NUMA*; with an envp (a run's) and none of OMP_*,
 * GOMP_*, KMP_*, MKL_*, OPENBLAS_* in it, env.threading says so. 0 or
 * -ENOMEM.
 */
int tl_env_put_variables(struct tl_env *env, char *const *envp);

/*
 * The program a run executed: workload.program (its path; a bare name
 * found along PATH, as the runner's execvp finds it),
 * workload.build_id (its GNU build id) or, without one, workload.sha256
 * (of the file), workload.compiler (the .comment section: "GCC: (Debian
 * 12.2.0-14) 12.2.0") and workload.cflags (.GCC.command.line, which
 * -frecord-gcc-switches writes; the built-in workloads are compiled
 * with it), each "unknown ..." or "not recorded ..." saying why when the
 * file has none. 0 or -ENOMEM.
 */
int tl_env_put_program(struct tl_env *env, const char *path);

/*
 * Advice about the BLAS core type: when OpenBLAS detected a core older
 * than the CPU's vector units (it takes this VM's CPU for "Prescott"),
 * fills buf with "OpenBLAS uses the 'Prescott' kernels although the CPU
 * has AVX-512: set OPENBLAS_CORETYPE=SkylakeX" and returns 1; else 0.
 */
int tl_env_blas_advice(const struct tl_env *env, char *buf, size_t len);

#endif
