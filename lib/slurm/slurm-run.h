/*
 * Submitting a plan to Slurm (slurm-run.c), for `tierlab run --slurm`
 * and `tierlab sweep --slurm`.
 */
#ifndef TL_SLURM_RUN_H
#define TL_SLURM_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include "plan/plan.h"
#include "slurm/slurm.h"

struct tl_slurm_request {
	struct tl_slurm_opts opts;
	const char *db;			/* the main database */
	char *const *task_argv;		/* what each task runs, see struct tl_slurm_job */
	bool resume;			/* leave out runs stored ok in db */
	bool dry_run;			/* print both scripts, submit nothing */
};

/*
 * Submits the selected runs of plan (selected is updated by --resume) as
 * an array job and its merge job, or prints the scripts; says what it did
 * on out. 0, or -errno after an error line; -EINVAL, before anything is
 * written, when an option or the database's path cannot go on an #SBATCH
 * line (the error names the option: "--partition: 'a\nb' holds a
 * newline, ...").
 */
int tl_slurm_run(const struct tl_plan *plan, bool *selected, const struct tl_slurm_request *req, FILE *out);

#endif
