/*
 * Handing a plan to Slurm: one job array whose tasks each run a batch of
 * planned runs into a shard database of their own (never one SQLite file
 * written from many nodes: network file systems make its locking
 * unsafe), and a merge job, dependent on the array (afterany), that folds
 * the shards into the main database with `tierlab merge`. Slurm
 * schedules; tierlab plans, shards and merges. See docs/cluster.md.
 *
 * Where things go, for a main database DIR/NAME.db and an experiment E:
 *
 *   DIR/shards/E/JOB_TASK/shard.db  the shard of array task TASK of job JOB
 *   DIR/shards/E/JOB_TASK/E/KEY/eN/ its runs' directories (stored relative)
 *   DIR/shards/E/slurm-JOB_TASK.out Slurm's output of the task
 *   DIR/shards/E/jobs               one line per submission: ARRAY MERGE TASKS RUNS
 *
 * A requeued task runs again into the same shard with --resume: what it
 * stored before it was stopped is kept, the rest runs.
 */
#ifndef TL_SLURM_H
#define TL_SLURM_H

#include <stddef.h>
#include <stdio.h>

/* What sbatch is asked for; NULL or 0: Slurm's default (or the spec's slurm: key). */
struct tl_slurm_opts {
	const char *partition, *account;
	const char *time_limit;		/* per array task, as sbatch --time takes it: 30, 1:00:00, 1-0 */
	int nodes, ntasks;		/* per run (a task runs its runs one after another) */
	int runs_per_task;		/* runs per array task (default 1) */
	int array_limit;		/* at most this many tasks at once: --array=0-N%LIMIT */
	const char *const *sbatch_args;	/* NULL-terminated, each one sbatch option as written */
};

/* One submission: everything a script needs, all paths absolute. */
struct tl_slurm_job {
	const char *tierlab;		/* this program */
	const char *experiment, *spec_hash;
	const char *main_db, *shard_dir;
	char *const *task_argv;		/* NULL-terminated: tierlab run|sweep [options] spec [axes] (no --db/--only) */
	const char *session;		/* the submission's session key: every task's runs are of that session */
	char **tasks;			/* per array task, its runs' keys comma-separated */
	size_t ntasks;
	size_t nruns;
	struct tl_slurm_opts opts;
};

/*
 * The array job's sbatch script. 0, -EIO when out could not be written,
 * or -EINVAL when a value cannot go on an #SBATCH line (empty, or a
 * control character: tl_sbatch_value_check), the script then unfinished.
 */
int tl_slurm_array_script(const struct tl_slurm_job *job, FILE *out);
/* The merge job's sbatch script for the array job array_id (any text, for a dry run); returns as above. */
int tl_slurm_merge_script(const struct tl_slurm_job *job, const char *array_id, FILE *out);

/*
 * Splits the selected run keys into tasks of up to per_task keys each
 * (job->tasks, job->ntasks, job->nruns). 0 or -ENOMEM.
 */
int tl_slurm_split(struct tl_slurm_job *job, const char *const *keys, size_t nkeys, int per_task);
void tl_slurm_job_release(struct tl_slurm_job *job);

/*
 * Submits a script with `sbatch --parsable` (extra: more sbatch options,
 * NULL-terminated, or NULL) and returns its job id in id. -errno with why
 * (sbatch's own message when it said one) otherwise.
 */
int tl_slurm_submit(const char *script, const char *const *extra, char *id, size_t idlen, char *why,
		    size_t whylen);

/* The state of each job or array task of these ids in squeue, as "ID STATE" lines. */
struct tl_slurm_queue {
	size_t pending, running, other;	/* tasks of the array by state */
	char merge_state[32];		/* "" when the merge job is not in the queue */
};
int tl_slurm_queue(const char *array_id, const char *merge_id, struct tl_slurm_queue *q, char *why,
		   size_t whylen);

/* DIR/shards/EXPERIMENT for the main database db (malloc'd), NULL when out of memory. */
char *tl_slurm_shard_dir(const char *db, const char *experiment);

#endif
