/*
 * tierlab run: load a spec, expand its plan, then print it (--dry-run) or
 * execute it into the store. run_spec() is shared with `tierlab sweep`.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "builtin.h"
#include "util/error.h"
#include "run/execute.h"
#include "util/nodeset.h"
#include "parse-options.h"
#include "util/paths.h"
#include "plan/plan.h"
#include "probe/probe.h"
#include "spec/spec.h"
#include "store/store.h"

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

static char *results_dir_of(const char *db)
{
	char *copy = strdup(db), *dir;

	if (!copy)
		return NULL;
	dir = strdup(dirname(copy));
	free(copy);
	return dir;
}

/*
 * --events "cycles,{instructions,cache-misses}": split at commas outside
 * braces into the spec's list form (a group stays one "{a,b}" item).
 */
static int set_events(struct tl_spec *spec, const char *text)
{
	struct tl_strlist l = { 0 };
	const char *p = text;

	while (*p) {
		const char *start = p;
		int depth = 0;
		char **v;

		for (; *p && (depth || *p != ','); p++)
			depth += (*p == '{') - (*p == '}');
		if (depth || p == start)
			goto bad;
		v = realloc(l.v, sizeof(*v) * (l.n + 2));
		if (!v)
			die("out of memory");
		l.v = v;
		if (!(l.v[l.n++] = strndup(start, p - start)))
			die("out of memory");
		l.v[l.n] = NULL;
		if (*p)
			p++;
	}
	for (size_t i = 0; i < spec->events.n; i++)
		free(spec->events.v[i]);
	free(spec->events.v);
	spec->events = l;
	return 0;
bad:
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
	return error("--events: '%s' is not a comma-separated list of events and {groups}", text);
}

/* `machine: NAME`: the node sets of a profile saved by `tierlab probe --save NAME`. */
static int use_profile(struct tl_spec *spec, const char *db)
{
	struct tl_store *st = NULL;
	char *fast = NULL, *slow = NULL;
	int rc;

	if (access(db, F_OK))
		return error("%s: machine profile '%s': no database '%s' (save one with 'tierlab probe --save %s')",
			     spec->path, spec->machine.profile, db, spec->machine.profile);
	if (tl_store_open_existing(db, &st))
		return -1;
	rc = tl_probe_profile_nodes(st, spec->machine.profile, &fast, &slow);
	tl_store_close(st);
	if (rc == -ENOENT)
		return error("%s: machine profile '%s' is not in '%s' (save one with 'tierlab probe --save %s')",
			     spec->path, spec->machine.profile, db, spec->machine.profile);
	if (rc)
		return rc;
	if (!spec->machine.fast)
		spec->machine.fast = fast;
	else
		free(fast);
	if (!spec->machine.slow)
		spec->machine.slow = slow ? slow : strdup(spec->machine.fast);
	else
		free(slow);
	return 0;
}

int run_spec(const char *spec_path, const struct run_options *o, const char *const *axis_lists)
{
	struct tl_spec spec = { 0 };
	struct tl_plan plan = { 0 };
	struct tl_selector where = { 0 };
	struct tl_error err = { { 0 } };
	struct tl_execute_opts xo = { .resume = o->resume, .only = o->only };
	struct tl_execute_summary sum;
	struct tl_store *st = NULL;
	const char *db = o->db ? o->db : tl_path_default_db();
	char *results = NULL;
	bool *selected = NULL;
	long nsel;
	int ret = 2;

	if (tl_spec_load(spec_path, tl_path_workloads(), &spec, &err)) {
		error("%s", err.msg);
		goto out;
	}
	for (int a = 0; axis_lists && a < TL_AXIS__COUNT; a++) {
		if (axis_lists[a] && tl_spec_set_axis(&spec, a, axis_lists[a], &err)) {
			error("%s", err.msg);
			goto out;
		}
	}
	if (o->events && set_events(&spec, o->events))
		goto out;
	if (spec.machine.profile && use_profile(&spec, db))
		goto out;
	if (tl_plan_build(&spec, &plan, &err)) {
		error("%s", err.msg);
		goto out;
	}
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
	if (o->dry_run) {
		print_plan(&plan, selected, nsel);
		note_machine(&spec);
		ret = 0;
		goto out;
	}
	results = results_dir_of(db);
	if (!results || tl_store_open(db, &st))
		goto out;
	xo.results_dir = results;
	xo.progress_tty = !o->quiet && isatty(STDERR_FILENO);
	if (tl_execute(&plan, st, &xo, &sum)) {
		ret = sum.ok + sum.failed ? 1 : 2;
		goto out;
	}
	fprintf(stderr, "%s: %zu run%s: %zu ok, %zu failed, %zu skipped (stored in %s)%s\n",
		spec.name, sum.selected, sum.selected == 1 ? "" : "s", sum.ok, sum.failed, sum.skipped,
		db, sum.interrupted ? "; interrupted" : "");
	if (sum.interrupted)
		ret = 130;
	else
		ret = sum.failed ? 1 : 0;
out:
	if (st)
		tl_store_close(st);
	free(results);
	free(selected);
	tl_selector_release(&where);
	tl_plan_release(&plan);
	tl_spec_release(&spec);
	return ret;
}

int cmd_run(int argc, const char **argv)
{
	struct run_options o = { 0 };
	static const char *const usage[] = {
		"tierlab run [<options>] <spec.yaml>",
		NULL
	};
	const struct option options[] = {
		RUN_OPTIONS(o),
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, usage);
	if (argc != 1) {
		error(argc ? "expected one spec, got %d arguments" : "no spec given%.0d", argc);
		usage_with_options(usage, options);
	}
	return run_spec(argv[0], &o, NULL);
}
