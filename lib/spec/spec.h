/*
 * Experiment specs: YAML (parsed with libyaml) into struct tl_spec.
 * See docs/spec.md for every field.
 *
 * Errors are one line "FILE:LINE:COL: message" in err->msg, naming the
 * field and what is allowed, with a did-you-mean for misspelt keys and
 * values. Unknown keys are errors.
 *
 * Ownership: tl_spec_load() fills a caller-provided struct; everything in
 * it is owned by it and released by tl_spec_release(), which is safe on a
 * zeroed or partly filled struct.
 */
#ifndef TL_SPEC_H
#define TL_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include "axis/axis.h"
#include "util/error.h"

struct tl_strlist {
	char **v;
	size_t n;
};

/* Where a value came from, for messages raised after parsing. */
struct tl_loc {
	int line, col;		/* 1-based; 0 when not from the file */
};

struct tl_fom {
	char *regex;		/* POSIX ERE with exactly one capture group */
	char *file;		/* glob relative to the run directory; NULL = stdout */
	char *unit;		/* "GF/s" */
	bool higher_is_better;
};

struct tl_size_preset {
	char *name;
	struct tl_strlist args;	/* appended to the command */
};

/*
 * A workload: built-in (descriptor loaded from the workloads directory,
 * same form as an external one) or external.
 */
struct tl_workload {
	char *name;		/* built-in name, or the user's `name:` (default: basename of argv[0]) */
	bool builtin;
	char *descriptor;	/* path of the descriptor file, for built-ins */
	char *description;	/* NULL when not given */
	struct tl_strlist command;	/* argv prefix */
	struct tl_strlist env;	/* "KEY=VALUE" */
	char *dir;		/* working directory, NULL = the run's output directory */
	struct tl_fom fom;
	struct tl_size_preset *sizes;	/* may be empty */
	size_t nsizes;
	char *default_size;	/* NULL when there are no presets */
	struct tl_loc loc;
};

struct tl_machine {
	char *fast;		/* numactl node syntax; NULL = not given */
	char *slow;
	char *cpus;		/* cpu node binding; NULL = no binding */
	char *profile;		/* `machine: NAME` — a saved probe profile (issue 5) */
	/* the profile's measured read bandwidth (GB/s, mean over each set's nodes); 0 = not measured */
	double fast_gbs, slow_gbs;
	struct tl_loc loc;
	struct tl_loc fast_loc, slow_loc, cpus_loc;	/* of each value (a profile's: loc) */
};

/* One axis's values, in the order written. */
struct tl_axis_values {
	struct tl_strlist values;	/* canonical */
	struct tl_loc loc;
	int zip_group;		/* -1, or index of the zip group it belongs to */
};

/* A partial configuration: values for some axes (NULL = any). */
struct tl_selector {
	char *values[TL_AXIS__COUNT];
	struct tl_loc loc;
};

/* `launch:`: a run's program started as MPI ranks by a launcher (NULL with: none). */
struct tl_launch_spec {
	int ranks;
	char *with;			/* "srun" or "mpirun" */
	struct tl_strlist args;		/* the launcher's own options, before the ranks */
};

/* The most nodes, tasks, runs per task or array limit `slurm:` and `--slurm`'s options take. */
#define TL_SLURM_COUNT_MAX (1 << 20)

/* `slurm:`: defaults of `tierlab run --slurm` (NULL or 0: not given). */
struct tl_slurm_spec {
	char *partition, *account, *time_limit;
	int nodes, ntasks, runs_per_task, array_limit;
	struct tl_strlist sbatch;	/* more sbatch options, as written */
};

struct tl_spec {
	char *path;
	char *text;		/* the file as read, for the store */
	char *hash;		/* hex hash of text */

	char *name;
	char *description;

	struct tl_workload *workloads;	/* `workload:` gives one, `workloads:` several */
	size_t nworkloads;

	struct tl_machine machine;

	/* Defaults for every axis (from workload:, allocator:, runtime:, top level); NULL = unset. */
	char *defaults[TL_AXIS__COUNT];
	struct tl_loc defaults_loc[TL_AXIS__COUNT];	/* where each was written */

	struct tl_strlist events;	/* perf event strings, as written */
	int repetitions;		/* >= 1, default 1 */
	struct tl_loc repetitions_loc;
	double timeout;			/* seconds, 0 = none */
	struct tl_launch_spec launch;
	struct tl_slurm_spec slurm;

	struct tl_selector baseline;	/* all NULL when not given */

	struct tl_axis_values matrix[TL_AXIS__COUNT];	/* values.n == 0: not in the matrix */
	int nzip;
	struct tl_selector *exclude;
	size_t nexclude;
	struct tl_loc exclude_loc;	/* of the matrix's exclude: key, for the planner's messages */
};

/* A spec or workload descriptor file is text of at most this many bytes. */
#define TL_SPEC_MAX_BYTES (16u << 20)
#define TL_SPEC_MAX_TEXT "16 MiB"
/* matrix.exclude holds at most this many rules. */
#define TL_SPEC_MAX_EXCLUDES 1024

/*
 * Loads and validates a spec. workloads_dir is where built-in descriptors
 * live (tl_path_workloads()). Returns 0 or -EINVAL with err filled.
 */
int tl_spec_load(const char *path, const char *workloads_dir, struct tl_spec *spec,
		 struct tl_error *err);
/* Same, from a string; `path` is only used in messages. */
int tl_spec_load_string(const char *path, const char *text, const char *workloads_dir,
			struct tl_spec *spec, struct tl_error *err);

/* Loads one workload descriptor file (workloads/NAME/workload.yaml form). */
int tl_workload_load(const char *path, struct tl_workload *wl, struct tl_error *err);

void tl_spec_release(struct tl_spec *spec);
void tl_workload_release(struct tl_workload *wl);

/*
 * A message about the spec raised after parsing (by the planner, or the
 * checks before a run), as "FILE:LINE:COL: ..." when `at` is a place in
 * the file (line 0: from the command line, no place). Returns -EINVAL.
 */
int tl_spec_error(const struct tl_spec *spec, const struct tl_loc *at, struct tl_error *err,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The workload with this name, or NULL. */
const struct tl_workload *tl_spec_workload(const struct tl_spec *spec, const char *name);

/*
 * Sets a matrix axis from a comma list given on the command line
 * (`tierlab sweep --chunks 2,8`), replacing what the spec had. Values are
 * canonicalised; returns -EINVAL with err filled ("--chunks: ...").
 */
int tl_spec_set_axis(struct tl_spec *spec, enum tl_axis axis, const char *list,
		     struct tl_error *err);

#endif
