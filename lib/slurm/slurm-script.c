/*
 * The two sbatch scripts of a submission (slurm.h): the array, whose task
 * N runs the N-th batch of run keys into its own shard with --resume (so
 * a requeued task carries on), and the merge job. Options Slurm reads
 * come as #SBATCH lines; every value from outside is shell-quoted.
 */
#include "slurm/slurm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "run/execute.h"
#include "run/session.h"

/* One word, quoted as a shell reads it back. */
static void put_word(FILE *out, const char *w)
{
	char *const argv[] = { (char *)w };
	char *q = tl_argv_quote(argv, 1);

	fputs(q ? q : "''", out);
	free(q);
}

/* The #SBATCH lines both scripts share. */
static void common_options(const struct tl_slurm_opts *o, FILE *out)
{
	if (o->partition)
		fprintf(out, "#SBATCH --partition=%s\n", o->partition);
	if (o->account)
		fprintf(out, "#SBATCH --account=%s\n", o->account);
	if (o->time_limit)
		fprintf(out, "#SBATCH --time=%s\n", o->time_limit);
}

int tl_slurm_array_script(const struct tl_slurm_job *job, FILE *out)
{
	const struct tl_slurm_opts *o = &job->opts;

	fprintf(out, "#!/bin/bash\n");
	fprintf(out, "#SBATCH --job-name=tierlab-%s\n", job->experiment);
	if (o->array_limit > 0)
		fprintf(out, "#SBATCH --array=0-%zu%%%d\n", job->ntasks - 1, o->array_limit);
	else
		fprintf(out, "#SBATCH --array=0-%zu\n", job->ntasks - 1);
	common_options(o, out);
	if (o->nodes > 0)
		fprintf(out, "#SBATCH --nodes=%d\n", o->nodes);
	fprintf(out, "#SBATCH --ntasks=%d\n", o->ntasks > 0 ? o->ntasks : 1);
	fprintf(out, "#SBATCH --output=%s/slurm-%%A_%%a.out\n", job->shard_dir);
	/* a task stopped by a node failure or a preemption runs again and resumes its shard; its log goes on */
	fprintf(out, "#SBATCH --requeue\n#SBATCH --open-mode=append\n");
	for (size_t i = 0; o->sbatch_args && o->sbatch_args[i]; i++)
		fprintf(out, "#SBATCH %s\n", o->sbatch_args[i]);
	fprintf(out, "# tierlab: experiment %s, %zu run%s in %zu array task%s\n", job->experiment, job->nruns,
		job->nruns == 1 ? "" : "s", job->ntasks, job->ntasks == 1 ? "" : "s");
	fprintf(out, "runs=(\n");
	for (size_t i = 0; i < job->ntasks; i++)
		fprintf(out, "  %s\n", job->tasks[i]);
	fprintf(out, ")\n");
	fprintf(out, "shard=");
	put_word(out, job->shard_dir);
	/* a directory per task: its runs' directories go beside its database, apart from other tasks' */
	fprintf(out, "/${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}/shard.db\n");
	/* one submission, one session: its tasks' runs are compared with the baseline among them (run/session.h) */
	if (job->session) {
		fprintf(out, "export " TL_SESSION_VAR "=");
		put_word(out, job->session);
		fputc('\n', out);
	}
	fprintf(out, "exec");
	for (size_t i = 0; job->task_argv[i]; i++) {
		fputc(' ', out);
		put_word(out, job->task_argv[i]);
		if (i == 1)	/* after the subcommand: where this task stores, and what it runs */
			fprintf(out, " --quiet --resume --db \"$shard\" --only \"${runs[$SLURM_ARRAY_TASK_ID]}\"");
	}
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

int tl_slurm_merge_script(const struct tl_slurm_job *job, const char *array_id, FILE *out)
{
	fprintf(out, "#!/bin/bash\n");
	fprintf(out, "#SBATCH --job-name=tierlab-%s-merge\n", job->experiment);
	common_options(&job->opts, out);
	fprintf(out, "#SBATCH --ntasks=1\n");
	fprintf(out, "#SBATCH --output=%s/slurm-%%j-merge.out\n", job->shard_dir);
	fprintf(out, "# tierlab: folds the shards of array job %s into the main database\n", array_id);
	fprintf(out, "shopt -s nullglob\n");
	fprintf(out, "shards=(");
	put_word(out, job->shard_dir);
	fprintf(out, "/");
	put_word(out, array_id);
	fprintf(out, "_*/shard.db)\n");
	fprintf(out, "if [ ${#shards[@]} -eq 0 ]; then echo \"no array task of job %s stored anything\" >&2; exit 1; fi\n",
		array_id);
	fprintf(out, "exec ");
	put_word(out, job->tierlab);
	fprintf(out, " merge --db ");
	put_word(out, job->main_db);
	fprintf(out, " --experiment ");
	put_word(out, job->experiment);
	if (job->spec_hash) {
		fprintf(out, " --spec-hash ");
		put_word(out, job->spec_hash);
	}
	fprintf(out, " \"${shards[@]}\"\n");
	return ferror(out) ? -EIO : 0;
}

int tl_slurm_split(struct tl_slurm_job *job, const char *const *keys, size_t nkeys, int per_task)
{
	size_t per = per_task > 0 ? (size_t)per_task : 1;

	job->ntasks = (nkeys + per - 1) / per;
	job->nruns = nkeys;
	job->tasks = calloc(job->ntasks ? job->ntasks : 1, sizeof(*job->tasks));
	if (!job->tasks)
		return -ENOMEM;
	for (size_t t = 0; t < job->ntasks; t++) {
		size_t len = 0;
		char *p;

		for (size_t k = t * per; k < nkeys && k < (t + 1) * per; k++)
			len += strlen(keys[k]) + 1;
		p = job->tasks[t] = malloc(len + 1);
		if (!p)
			return -ENOMEM;
		for (size_t k = t * per; k < nkeys && k < (t + 1) * per; k++)
			p += sprintf(p, "%s%s", k > t * per ? "," : "", keys[k]);
		*p = '\0';
	}
	return 0;
}

void tl_slurm_job_release(struct tl_slurm_job *job)
{
	for (size_t t = 0; job->tasks && t < job->ntasks; t++)
		free(job->tasks[t]);
	free(job->tasks);
	job->tasks = NULL;
	job->ntasks = 0;
}
