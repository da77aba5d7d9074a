/*
 * tierlab run: load a spec, expand its plan, then print it (--dry-run) or
 * execute it into the store. run_spec() is shared with `tierlab sweep`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "builtin.h"
#include "util/error.h"
#include "run/execute.h"
#include "run/spec-plan.h"
#include "util/nodeset.h"
#include "parse-options.h"
#include "util/paths.h"
#include "util/quote.h"
#include "plan/plan.h"
#include "spec/spec.h"
#include "slurm/slurm-run.h"

static void print_plan(const struct tl_plan *plan, const bool *selected, long nsel)
{
	char desc[512];

	printf("%s: %zu configuration%s x %d repetition%s = %zu runs",
	       plan->spec->name, plan->nconfigs, plan->nconfigs == 1 ? "" : "s",
	       plan->spec->repetitions, plan->spec->repetitions == 1 ? "" : "s", plan->nruns);
	if ((size_t)nsel != plan->nruns)
		printf(" (%ld selected)", nsel);
	printf("\n");
	for (size_t i = 0; i < plan->nruns; i++) {
		if (!selected[i])
			continue;
		tl_config_describe(plan, plan->runs[i].config, desc, sizeof(desc));
		printf("%4zu  %s  %s\n", i + 1, plan->runs[i].key, desc);
	}
}

/* A dry run must work for paper-size specs on any machine: say what would not start here. */
static void note_machine(const struct tl_spec *spec)
{
	const char *fields[] = { "fast", "slow", "cpus" };
	const char *vals[] = { spec->machine.fast, spec->machine.slow, spec->machine.cpus };
	char present[128];

	tl_nodeset_present(present, sizeof(present));
	for (int i = 0; i < 3; i++)
		if (vals[i] && tl_nodeset_check(vals[i]) != 0)
			printf("note: machine.%s '%s' names nodes this machine does not have (present: %s); "
			       "runs that need it would not start here\n", fields[i], vals[i], present);
}

/* Appends "--AXIS list" for each axis given on the command line; opts holds the option names. */
static size_t axis_args(const char **argv, size_t n, char opts[][64], const char *const *axis_lists)
{
	for (int a = 0; axis_lists && a < TL_AXIS__COUNT; a++) {
		if (!axis_lists[a])
			continue;
		snprintf(opts[a], sizeof(opts[a]), "--%s", tl_axes[a].name);
		argv[n++] = opts[a];
		argv[n++] = axis_lists[a];
	}
	return n;
}

/*
 * The command that carries on where this one stopped: the same selection
 * with --resume, which skips what is stored ok and runs the rest.
 */
static void print_resume(const char *spec_path, const struct run_options *o, const char *const *axis_lists)
{
	const char *argv[2 * TL_AXIS__COUNT + 16];
	char opts[TL_AXIS__COUNT][64];
	size_t n = 0;
	char *line;

	argv[n++] = "tierlab";
	argv[n++] = o->command;
	argv[n++] = "--resume";
	if (o->db) {
		argv[n++] = "--db";
		argv[n++] = o->db;
	}
	if (o->only) {
		argv[n++] = "--only";
		argv[n++] = o->only;
	}
	if (o->where) {
		argv[n++] = "--where";
		argv[n++] = o->where;
	}
	if (o->events) {
		argv[n++] = "--events";
		argv[n++] = o->events;
	}
	if (o->quiet_host) {
		argv[n++] = "--quiet-host";
		argv[n++] = o->quiet_host;
	}
	argv[n++] = spec_path;
	n = axis_args(argv, n, opts, axis_lists);
	line = tl_quote_shell_argv((char *const *)argv, n);
	if (line)
		fprintf(stderr, "to run the rest: %s\n", line);
	free(line);
}

/* --nodes and the like: a count as the spec's slurm: key takes one; 0 and negatives are refused alike. */
static int slurm_count(const char *option, const char *text)
{
	struct tl_error err;
	char *end;
	long n;

	errno = 0;
	n = strtol(text, &end, 10);
	if (!*text || *end || errno || n < 1 || n > TL_SLURM_COUNT_MAX) {
		tl_error_set(&err, "%s: expected a number from 1 to %d, got '%s'", option, TL_SLURM_COUNT_MAX, text);
		die("%s", err.msg);
	}
	return (int)n;
}

/*
 * --slurm: each array task runs its batch of runs with this same command
 * (the spec by its absolute path, the same --events and axis lists), into
 * its own shard.
 */
static int submit_slurm(const char *spec_path, const struct run_options *o, const char *const *axis_lists,
			const struct tl_plan *plan, bool *selected, const char *db)
{
	const struct tl_slurm_spec *ss = &plan->spec->slurm;
	const char *argv[2 * TL_AXIS__COUNT + 8], *sbatch[ss->sbatch.n + o->sbatch_args.n + 1];
	char opts[TL_AXIS__COUNT][64];
	char *tierlab = realpath("/proc/self/exe", NULL), *spec = realpath(spec_path, NULL);
	size_t n = 0;
	int rc;

	if (!tierlab || !spec)
		die("cannot resolve '%s': %s", tierlab ? spec_path : "/proc/self/exe", strerror(errno));
	argv[n++] = tierlab;
	argv[n++] = o->command;
	if (o->events) {
		argv[n++] = "--events";
		argv[n++] = o->events;
	}
	/* each task waits for a quiet node as a run here would */
	if (o->quiet_host) {
		argv[n++] = "--quiet-host";
		argv[n++] = o->quiet_host;
	}
	argv[n++] = spec;
	n = axis_args(argv, n, opts, axis_lists);
	argv[n] = NULL;
	/* the spec's slurm: first, the command line's after (sbatch takes the last of an option) */
	for (size_t i = 0; i < ss->sbatch.n; i++)
		sbatch[i] = ss->sbatch.v[i];
	for (int i = 0; i < o->sbatch_args.n; i++)
		sbatch[ss->sbatch.n + i] = o->sbatch_args.v[i];
	sbatch[ss->sbatch.n + o->sbatch_args.n] = NULL;

	struct tl_slurm_request req = {
		.opts = {
			.partition = o->partition ? o->partition : ss->partition,
			.account = o->account ? o->account : ss->account,
			.time_limit = o->time_limit ? o->time_limit : ss->time_limit,
			.nodes = o->nodes ? slurm_count("--nodes", o->nodes) : ss->nodes,
			/* a run of N ranks needs N tasks in its allocation, however its launcher starts them */
			.ntasks = o->ntasks ? slurm_count("--ntasks", o->ntasks)
					    : ss->ntasks ? ss->ntasks : plan->spec->launch.ranks,
			.runs_per_task = o->runs_per_task ? slurm_count("--runs-per-task", o->runs_per_task)
							  : ss->runs_per_task,
			.array_limit = o->array_limit ? slurm_count("--array-limit", o->array_limit) : ss->array_limit,
			.sbatch_args = sbatch,
		},
		.db = db,
		.task_argv = (char *const *)argv,
		.resume = o->resume,
		.dry_run = o->dry_run,
	};
	rc = tl_slurm_run(plan, selected, &req, stdout);
	free(tierlab);
	free(spec);
	return rc;
}

int run_spec(const char *spec_path, const struct run_options *o, const char *const *axis_lists)
{
	struct tl_spec spec = { 0 };
	struct tl_plan plan = { 0 };
	struct tl_selector where = { 0 };
	struct tl_error err = { { 0 } };
	struct tl_execute_opts xo = { .resume = o->resume, .only = o->only };
	struct tl_execute_summary sum;
	const char *db = o->db ? o->db : tl_path_default_db();
	bool *selected = NULL;
	long nsel;
	int rc, ret = 2;

	if (!o->slurm && (o->partition || o->account || o->time_limit || o->nodes || o->ntasks ||
			  o->runs_per_task || o->array_limit || o->sbatch_args.n)) {
		error("--partition, --account, --time-limit, --nodes, --ntasks, --runs-per-task, --array-limit "
		      "and --sbatch-arg go with --slurm");
		goto out;
	}
	if (o->quiet_host && tl_quiet_host_parse(o->quiet_host, &xo.quiet, &err)) {
		error("%s", err.msg);
		goto out;
	}
	if (tl_spec_plan(spec_path, axis_lists, o->events, db, &spec, &plan))
		goto out;
	if (o->where) {
		if (tl_selector_parse(o->where, &where, &err)) {
			error("%s", err.msg);
			goto out;
		}
		xo.where = &where;
	}
	selected = calloc(plan.nruns ? plan.nruns : 1, sizeof(*selected));
	if (!selected)
		die("out of memory");
	nsel = tl_execute_select(&plan, &xo, selected);
	if (nsel < 0)
		goto out;
	if (!nsel && plan.nruns) {
		error("no planned run is selected by%s%s%s%s%s", o->only ? " --only '" : "",
		      o->only ? o->only : "", o->only ? "'" : "", o->where ? " --where " : "",
		      o->where ? o->where : "");
		goto out;
	}
	if (o->slurm) {
		ret = submit_slurm(spec_path, o, axis_lists, &plan, selected, db) ? 2 : 0;
		goto out;
	}
	if (o->dry_run) {
		print_plan(&plan, selected, nsel);
		note_machine(&spec);
		ret = 0;
		goto out;
	}
	xo.db = db;
	xo.command_line = o->command_line;
	xo.progress_tty = !o->quiet && isatty(STDERR_FILENO);
	rc = tl_execute(&plan, &xo, &sum);
	if (!sum.began)
		goto out;	/* refused before anything was stored; the error says why */
	fprintf(stderr, "%s: %zu run%s: %zu ok, %zu failed, %zu skipped", spec.name, sum.selected,
		sum.selected == 1 ? "" : "s", sum.ok, sum.failed, sum.skipped);
	if (sum.left)
		fprintf(stderr, ", %zu not run", sum.left);
	fprintf(stderr, " (stored in %s, session %lld)%s\n", db, (long long)sum.session,
		sum.interrupted ? "; interrupted" : rc ? "; stopped by the error above" : "");
	if (sum.left)
		print_resume(spec_path, o, axis_lists);
	if (sum.interrupted)
		ret = 130;
	else if (rc)
		ret = sum.ok + sum.failed ? 1 : 2;
	else
		ret = sum.failed ? 1 : 0;
out:
	free(selected);
	tl_selector_release(&where);
	tl_plan_release(&plan);
	tl_spec_release(&spec);
	return ret;
}

char *invocation(int argc, const char **argv)
{
	char *words[argc + 1];
	char *line;

	words[0] = "tierlab";
	for (int i = 0; i < argc; i++)
		words[i + 1] = (char *)argv[i];
	line = tl_quote_shell_argv(words, (size_t)argc + 1);
	if (!line)
		die("out of memory");
	return line;
}

int cmd_run(int argc, const char **argv)
{
	struct run_options o = { .command = "run" };
	static const char *const usage[] = {
		"tierlab run [<options>] <spec.yaml>",
		NULL
	};
	const struct option options[] = {
		RUN_OPTIONS(o),
		OPT_END(),
	};
	int ret;

	o.command_line = invocation(argc, argv);
	argc = parse_options(argc, argv, options, usage);
	if (argc != 1) {
		error(argc ? "expected one spec, got %d arguments" : "no spec given%.0d", argc);
		usage_with_options(usage, options);
	}
	ret = run_spec(argv[0], &o, NULL);
	free(o.command_line);
	return ret;
}
