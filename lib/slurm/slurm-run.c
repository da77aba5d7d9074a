/*
 * `tierlab run --slurm`: the selected runs of a plan (less those stored
 * ok already, with --resume) split into array tasks, the two scripts
 * printed (--dry-run) or submitted, the array first and the merge job
 * after it (afterany: it merges whatever the tasks stored, also when some
 * failed, timed out or were cancelled). Each submission is noted in the
 * shard directory's `jobs` file for `tierlab status`.
 */
#include "slurm/slurm.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "run/session.h"
#include "slurm/slurm-run.h"
#include "store/query.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/quote.h"

/* Unselects the runs stored ok in the main database already; a database not made yet has none. */
static int drop_done(const struct tl_plan *plan, bool *selected, const char *db)
{
	struct tl_store *st;
	int rc = 0;

	if (access(db, F_OK))
		return 0;
	if (tl_store_open_existing(db, &st))
		return -EIO;
	for (size_t i = 0; i < plan->nruns && rc >= 0; i++) {
		if (!selected[i])
			continue;
		rc = tl_store_run_done(st, plan->spec->name, plan->runs[i].key);
		if (rc == 1)
			selected[i] = false;
	}
	tl_store_close(st);
	return rc < 0 ? rc : 0;
}

/* DIR/NAME absolute for a database that may not exist yet (its directory does). */
static char *absolute_db(const char *db)
{
	const char *slash = strrchr(db, '/');
	char *dir = slash ? strndup(db, slash == db ? 1 : (size_t)(slash - db)) : strdup(".");
	char *abs = dir ? realpath(dir, NULL) : NULL, *out = NULL;

	if (!abs)
		out = strdup(db);	/* a dry run, before the directory is made */
	else if (asprintf(&out, "%s/%s", abs, slash ? slash + 1 : db) < 0)
		out = NULL;
	free(dir);
	free(abs);
	return out;
}

/* One value of an #SBATCH line, named by the option that gave it: 0, or -EINVAL after an error line. */
static int check_value(const char *option, const char *v)
{
	struct tl_error err;
	const char *why;

	if (!v || !tl_sbatch_value_check(v, &why))
		return 0;
	tl_error_set(&err, "%s: '%s' %s", option, v, why);
	return error("%s", err.msg);
}

/*
 * What goes on the scripts' #SBATCH lines from outside: the options (the
 * spec's were checked where they are written), and the database's path,
 * as Slurm's logs go beside it.
 */
static int check_values(const struct tl_slurm_opts *o, const char *db)
{
	int rc = check_value("--partition", o->partition);

	rc = rc ?: check_value("--account", o->account);
	rc = rc ?: check_value("--time-limit", o->time_limit);
	for (size_t i = 0; !rc && o->sbatch_args && o->sbatch_args[i]; i++)
		rc = check_value("--sbatch-arg", o->sbatch_args[i]);
	return rc ?: check_value("--db", db);
}

/* "tierlab WHAT --db DB LAST" as a shell reads it, for a user to run (malloc'd; NULL when out of memory). */
static char *command_line(const char *what, const char *db, const char *last)
{
	char *const argv[] = { "tierlab", (char *)what, "--db", (char *)db, (char *)last };

	return tl_quote_shell_argv(argv, 5);
}

static int submit(struct tl_slurm_job *job, FILE *out)
{
	char *script = NULL, *cmd, array_id[64], merge_id[64], why[512], dep[96], path[PATH_MAX];
	size_t len = 0;
	FILE *f = open_memstream(&script, &len);
	const char *extra[] = { dep, NULL };
	int rc;

	if (!f)
		return error("out of memory");
	rc = tl_slurm_array_script(job, f);
	if (fclose(f) || rc) {
		free(script);
		return error("cannot write the array job's script: %s", strerror(rc ? -rc : ENOMEM));
	}
	rc = tl_slurm_submit(script, NULL, array_id, sizeof(array_id), why, sizeof(why));
	free(script);
	if (rc)
		return error("cannot submit the array job: %s", why);
	script = NULL;
	f = open_memstream(&script, &len);
	if (!f)
		return error("out of memory (array job %s is submitted; merge its shards with 'tierlab merge')",
			     array_id);
	rc = tl_slurm_merge_script(job, array_id, f);
	if (fclose(f) || rc) {
		free(script);
		return error("out of memory (array job %s is submitted; merge its shards with 'tierlab merge')",
			     array_id);
	}
	snprintf(dep, sizeof(dep), "--dependency=afterany:%s", array_id);
	rc = tl_slurm_submit(script, extra, merge_id, sizeof(merge_id), why, sizeof(why));
	free(script);
	if (rc) {
		cmd = command_line("merge", job->main_db, job->shard_dir);
		rc = error("array job %s is submitted, but not the merge job: %s; merge its shards with "
			   "'%s/%s_*/shard.db' when it is done", array_id, why, cmd ? cmd : "tierlab merge", array_id);
		free(cmd);
		return rc;
	}
	snprintf(path, sizeof(path), "%s/jobs", job->shard_dir);
	f = fopen(path, "a");
	if (!f || fprintf(f, "%s %s %zu %zu\n", array_id, merge_id, job->ntasks, job->nruns) < 0 || fclose(f))
		warning("cannot note the submission in '%s': %s ('tierlab status' will not know it)", path,
			strerror(errno));
	cmd = command_line("status", job->main_db, job->experiment);
	fprintf(out, "%s: %zu run%s submitted as array job %s (%zu task%s), merge job %s into %s\n"
		"follow with: %s\n", job->experiment, job->nruns, job->nruns == 1 ? "" : "s", array_id,
		job->ntasks, job->ntasks == 1 ? "" : "s", merge_id, job->main_db, cmd ? cmd : "tierlab status");
	free(cmd);
	return 0;
}

int tl_slurm_run(const struct tl_plan *plan, bool *selected, const struct tl_slurm_request *req, FILE *out)
{
	struct tl_slurm_job job = { .opts = req->opts };
	char session[65];
	const char **keys = calloc(plan->nruns ? plan->nruns : 1, sizeof(*keys));
	char *shard_dir = NULL, *main_db = NULL, *tierlab = realpath("/proc/self/exe", NULL);
	size_t nkeys = 0;
	int rc = 0;

	if (!keys || !tierlab) {
		rc = error("out of memory");
		goto out;
	}
	if ((rc = check_values(&req->opts, req->db)) || (rc = tl_session_check()))
		goto out;
	if (req->resume && (rc = drop_done(plan, selected, req->db)))
		goto out;
	for (size_t i = 0; i < plan->nruns; i++)
		if (selected[i])
			keys[nkeys++] = plan->runs[i].key;
	if (!nkeys) {
		fprintf(out, "%s: every selected run is stored ok in %s already; nothing to submit\n",
			plan->spec->name, req->db);
		goto out;
	}
	shard_dir = tl_slurm_shard_dir(req->db, plan->spec->name);
	if (!shard_dir) {
		rc = error("out of memory");
		goto out;
	}
	if (!req->dry_run && (rc = tl_mkdir_p(shard_dir))) {
		rc = error("cannot create '%s': %s", shard_dir, strerror(-rc));
		goto out;
	}
	/* absolute, now that the directory exists (a dry run: when it does), as the tasks may start elsewhere */
	free(shard_dir);
	main_db = absolute_db(req->db);
	shard_dir = main_db ? tl_slurm_shard_dir(main_db, plan->spec->name) : NULL;
	if (!shard_dir) {
		rc = error("out of memory");
		goto out;
	}
	job.tierlab = tierlab;
	job.experiment = plan->spec->name;
	job.spec_hash = plan->spec->hash;
	job.main_db = main_db;
	job.shard_dir = shard_dir;
	job.task_argv = req->task_argv;
	/* the key of a session already given (TIERLAB_SESSION), else a new one for this submission */
	if (getenv(TL_SESSION_VAR) && *getenv(TL_SESSION_VAR))
		snprintf(session, sizeof(session), "%.64s", getenv(TL_SESSION_VAR));
	else
		tl_session_key(session);
	job.session = session;
	if (tl_slurm_split(&job, keys, nkeys, job.opts.runs_per_task)) {
		rc = error("out of memory");
		goto out;
	}
	if (req->dry_run) {
		fprintf(out, "# the array job: sbatch --parsable <<'EOF'\n");
		rc = tl_slurm_array_script(&job, out);
		fprintf(out, "# EOF\n# the merge job: sbatch --parsable --dependency=afterany:ARRAY_JOB_ID <<'EOF'\n");
		rc = rc ?: tl_slurm_merge_script(&job, "ARRAY_JOB_ID", out);
		fprintf(out, "# EOF\n");
		goto out;
	}
	rc = submit(&job, out);
out:
	tl_slurm_job_release(&job);
	free(keys);
	free(shard_dir);
	free(main_db);
	free(tierlab);
	return rc;
}
