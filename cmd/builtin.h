/*
 * The tierlab subcommands. Adding one:
 *   1. cmd/<name>.c with cmd_<name>(), its usage lines and option table at
 *      the top, right above the parse_options() call (so -h is generated
 *      from what it accepts);
 *   2. a row in TL_COMMANDS below (its prototype and its place in
 *      `tierlab --help` and dispatch follow);
 * and docs/commands/<name>.md with the synopsis that -h prints
 * (tests/cli/help.sh fails when they disagree), and a test in tests/cli/.
 * Exit codes: 0 ok, 1 some runs failed, 2 bad usage, bad spec or bad input.
 */
#ifndef TL_BUILTIN_H
#define TL_BUILTIN_H

#include <stdbool.h>
#include "parse-options.h"
#include "util/paths.h"

/* X(name, help), in the order `tierlab --help` lists them; help's cmd_help() is in cmd/tierlab.c. */
#define TL_COMMANDS(X) \
	X(run, "run an experiment spec and store every run") \
	X(sweep, "run a spec with axes (chunks, rate, ...) set from the command line") \
	X(report, "compare configurations against a baseline") \
	X(compare, "two experiments or selectors side by side, with significance") \
	X(export, "a table (samples, migrations, allocations, counters, report) as CSV or JSON") \
	X(plot, "draw an experiment's results or a run's log with gnuplot") \
	X(show, "print one stored run whole") \
	X(list, "list known workloads, policies, allocators, samplers, axes, experiments") \
	X(probe, "measure the machine's memory tiers: nodes, latency, bandwidth, counters") \
	X(simulate, "record accesses once, replay them through the policies offline") \
	X(merge, "fold the shard databases of Slurm array tasks into the main database") \
	X(status, "show a Slurm submission's progress: shards, queue, merge") \
	X(help, "show help for tierlab or a command")

#define TL_COMMAND_FN(name, help) int cmd_##name(int argc, const char **argv);
TL_COMMANDS(TL_COMMAND_FN)
#undef TL_COMMAND_FN

/* --db of every command that opens the results: what it is for, then the default tl_path_default_db() takes. */
#define OPT_DB(var, what) OPT_STRING(0, "db", var, "file", what " (default $TIERLAB_DB or " TL_DB_DEFAULT ")")

/*
 * What `run` and `sweep` share: options common to both, then load, plan,
 * dry-run or execute. `axis_lists` (sweep only) are "--<axis> LIST"
 * overrides, indexed by enum tl_axis, NULL where not given.
 */
struct run_options {
	const char *command;	/* "run" or "sweep", for the command that resumes */
	char *command_line;	/* the invocation as typed, stored with the session (invocation()) */
	const char *db;
	int dry_run, resume, quiet;
	const char *only, *where;
	const char *events;	/* --events: replaces the spec's events */
	const char *quiet_host;	/* --quiet-host LOAD[:WAIT] (run/quiet-host.h) */
	/* --slurm: submit to Slurm instead of running here (lib/slurm/slurm.h) */
	int slurm;
	const char *partition, *account, *time_limit;
	const char *nodes, *ntasks, *runs_per_task, *array_limit;	/* counts, read as the spec's slurm: reads them */
	struct tl_optlist sbatch_args;
};
int run_spec(const char *spec_path, const struct run_options *o, const char *const *axis_lists);
/* "tierlab run --where policy=lru demo.yaml": a command's argv (argv[0] its name) as a shell line, malloc'd. */
char *invocation(int argc, const char **argv);

/* The options `run` and `sweep` share, for their option tables (o: a struct run_options). */
#define RUN_OPTIONS(o) \
	OPT_BOOL('n', "dry-run", &(o).dry_run, "print the planned runs and their count, run nothing"), \
	OPT_BOOL(0, "resume", &(o).resume, "skip runs already stored with status ok"), \
	OPT_STRING(0, "only", &(o).only, "runs", "only these runs: numbers from --dry-run (3,5-7) or run-key prefixes"), \
	OPT_STRING(0, "where", &(o).where, "axis=value,..", "only runs whose configuration matches"), \
	OPT_STRING(0, "events", &(o).events, "list", "perf events to count, replacing the spec's: cycles,{instructions,cache-misses}"), \
	OPT_DB(&(o).db, "results database"), \
	OPT_BOOL('q', "quiet", &(o).quiet, "plain progress lines even on a terminal"), \
	OPT_STRING(0, "quiet-host", &(o).quiet_host, "load[:wait]", "before each run, wait until the 1-minute load is below LOAD (at most WAIT, default 10m)"), \
	OPT_GROUP("Slurm (see docs/cluster.md)"), \
	OPT_BOOL(0, "slurm", &(o).slurm, "submit the runs as a Slurm job array and a merge job; with -n print the scripts"), \
	OPT_STRING(0, "partition", &(o).partition, "name", "sbatch --partition"), \
	OPT_STRING(0, "account", &(o).account, "name", "sbatch --account"), \
	OPT_STRING(0, "time-limit", &(o).time_limit, "time", "sbatch --time of each array task (1:00:00)"), \
	OPT_STRING(0, "nodes", &(o).nodes, "n", "nodes per run (sbatch --nodes)"), \
	OPT_STRING(0, "ntasks", &(o).ntasks, "n", "tasks (MPI ranks) per run (sbatch --ntasks; default: the ranks of the spec's launch:, else 1)"), \
	OPT_STRING(0, "runs-per-task", &(o).runs_per_task, "n", "runs per array task, one after another (default 1)"), \
	OPT_STRING(0, "array-limit", &(o).array_limit, "n", "at most n array tasks at once (--array=...%n)"), \
	OPT_STRING_LIST(0, "sbatch-arg", &(o).sbatch_args, "option", "one more sbatch option, as written (--qos=debug); repeatable")

#endif
