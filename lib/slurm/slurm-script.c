/*
 * The two sbatch scripts of a submission (slurm.h): the array, whose task
 * N runs the N-th batch of run keys into its own shard with --resume (so
 * a requeued task carries on), and the merge job. Options Slurm reads
 * come as #SBATCH lines, their values quoted as sbatch reads them
 * (tl_quote_sbatch); every word of a command is shell-quoted
 * (tl_quote_shell). tl_slurm_run checks the values first.
 */
#include "slurm/slurm.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "run/execute.h"
#include "run/session.h"
#include "util/quote.h"

/* "#SBATCH --OPTION=VALUE", the value made by fmt; -EINVAL when it cannot be one. */
static int directive(FILE *out, const char *option, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int directive(FILE *out, const char *option, const char *fmt, ...)
{
	va_list ap;
	char *v;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&v, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	fprintf(out, "#SBATCH --%s=", option);
	rc = tl_quote_sbatch(out, v);
	fputc('\n', out);
	free(v);
	return rc;
}

/* The #SBATCH lines both scripts share. */
static int common_options(const struct tl_slurm_opts *o, FILE *out)
{
	int rc = 0;

	if (o->partition)
		rc = directive(out, "partition", "%s", o->partition);
	if (!rc && o->account)
		rc = directive(out, "account", "%s", o->account);
	if (!rc && o->time_limit)
		rc = directive(out, "time", "%s", o->time_limit);
	return rc;
}

int tl_slurm_array_script(const struct tl_slurm_job *job, FILE *out)
{
	const struct tl_slurm_opts *o = &job->opts;
	const char *why;
	int rc;

	fprintf(out, "#!/bin/bash\n");
	rc = directive(out, "job-name", "tierlab-%s", job->experiment);
	if (o->array_limit > 0)
		fprintf(out, "#SBATCH --array=0-%zu%%%d\n", job->ntasks - 1, o->array_limit);
	else
		fprintf(out, "#SBATCH --array=0-%zu\n", job->ntasks - 1);
	rc = rc ?: common_options(o, out);
	if (o->nodes > 0)
		fprintf(out, "#SBATCH --nodes=%d\n", o->nodes);
	fprintf(out, "#SBATCH --ntasks=%d\n", o->ntasks > 0 ? o->ntasks : 1);
	rc = rc ?: directive(out, "output", "%s/slurm-%%A_%%a.out", job->shard_dir);
	/* a task stopped by a node failure or a preemption runs again and resumes its shard; its log goes on */
	fprintf(out, "#SBATCH --requeue\n#SBATCH --open-mode=append\n");
	/* an option as the user wrote it, quotes and all: only a line break could do harm */
	for (size_t i = 0; !rc && o->sbatch_args && o->sbatch_args[i]; i++)
		if (!(rc = tl_sbatch_value_check(o->sbatch_args[i], &why)))
			fprintf(out, "#SBATCH %s\n", o->sbatch_args[i]);
	fputs("# tierlab: experiment ", out);
	tl_quote_shell(out, job->experiment);
	fprintf(out, ", %zu run%s in %zu array task%s\n", job->nruns, job->nruns == 1 ? "" : "s", job->ntasks,
		job->ntasks == 1 ? "" : "s");
	fprintf(out, "runs=(\n");
	for (size_t i = 0; i < job->ntasks; i++) {
		fputs("  ", out);
		tl_quote_shell(out, job->tasks[i]);
		fputc('\n', out);
	}
	fprintf(out, ")\n");
	fprintf(out, "shard=");
	tl_quote_shell(out, job->shard_dir);
	/* a directory per task: its runs' directories go beside its database, apart from other tasks' */
	fprintf(out, "/${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}/shard.db\n");
	/* one submission, one session: its tasks' runs are compared with the baseline among them (run/session.h) */
	if (job->session) {
		fprintf(out, "export " TL_SESSION_VAR "=");
		tl_quote_shell(out, job->session);
		fputc('\n', out);
	}
	fprintf(out, "exec");
	for (size_t i = 0; job->task_argv[i]; i++) {
		fputc(' ', out);
		tl_quote_shell(out, job->task_argv[i]);
		if (i == 1)	/* after the subcommand: where this task stores, and what it runs */
			fprintf(out, " --quiet --resume --db \"$shard\" --only \"${runs[$SLURM_ARRAY_TASK_ID]}\"");
	}
	fputc('\n', out);
	return rc ?: ferror(out) ? -EIO : 0;
}

int tl_slurm_merge_script(const struct tl_slurm_job *job, const char *array_id, FILE *out)
{
	int rc;

	fprintf(out, "#!/bin/bash\n");
	rc = directive(out, "job-name", "tierlab-%s-merge", job->experiment);
	rc = rc ?: common_options(&job->opts, out);
	fprintf(out, "#SBATCH --ntasks=1\n");
	rc = rc ?: directive(out, "output", "%s/slurm-%%j-merge.out", job->shard_dir);
	fputs("# tierlab: folds the shards of array job ", out);
	tl_quote_shell(out, array_id);
	fputs(" into the main database\nshopt -s nullglob\nshards=(", out);
	tl_quote_shell(out, job->shard_dir);
	fputc('/', out);
	tl_quote_shell(out, array_id);
	fputs("_*/shard.db)\nif [ ${#shards[@]} -eq 0 ]; then echo no array task of job ", out);
	tl_quote_shell(out, array_id);
	fputs(" stored anything >&2; exit 1; fi\nexec ", out);
	tl_quote_shell(out, job->tierlab);
	fprintf(out, " merge --db ");
	tl_quote_shell(out, job->main_db);
	fprintf(out, " --experiment ");
	tl_quote_shell(out, job->experiment);
	if (job->spec_hash) {
		fprintf(out, " --spec-hash ");
		tl_quote_shell(out, job->spec_hash);
	}
	fprintf(out, " \"${shards[@]}\"\n");
	return rc ?: ferror(out) ? -EIO : 0;
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
