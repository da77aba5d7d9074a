/*
 * Executing a plan (see execute.h): select, check, then for each run
 * compose, run, extract, store — one transaction per run, before the next.
 */
#include "run/execute.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/quote.h"
#include "ktier/ktier.h"
#include "run/footprint.h"
#include "measure/ingest.h"
#include "measure/measure.h"
#include "measure/environment.h"
#include "measure/fom.h"
#include "util/nodeset.h"
#include "run/progress.h"
#include "run/launch.h"
#include "run/runner.h"
#include "run/session.h"
#include "util/version.h"

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
	tl_runner_kill_current();
}

/* "3,5-7" over 1-based run numbers, or comma-separated run-key prefixes. */
static int select_only(const struct tl_plan *plan, const char *only, bool *sel)
{
	char *copy = strdup(only), *save = NULL;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long a = strtol(tok, &end, 10), b = a;
		size_t hits = 0;

		if (end != tok && (*end == '\0' || *end == '-')) {
			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			if (*end || a < 1 || b < a || (size_t)b > plan->nruns) {
				rc = error("--only: '%s' is not a run number or range within 1-%zu", tok, plan->nruns);
				break;
			}
			for (long i = a; i <= b; i++)
				sel[i - 1] = true;
			continue;
		}
		for (size_t i = 0; i < plan->nruns; i++) {
			if (!strncmp(plan->runs[i].key, tok, strlen(tok))) {
				sel[i] = true;
				hits++;
			}
		}
		if (!hits) {
			rc = error("--only: no planned run has a key starting with '%s'", tok);
			break;
		}
	}
	free(copy);
	return rc;
}

long tl_execute_select(const struct tl_plan *plan, const struct tl_execute_opts *o, bool *selected)
{
	long n = 0;

	for (size_t i = 0; i < plan->nruns; i++)
		selected[i] = !o->only;
	if (o->only && select_only(plan, o->only, selected))
		return -EINVAL;
	for (size_t i = 0; i < plan->nruns; i++) {
		if (selected[i] && o->where && !tl_selector_matches(o->where, plan->runs[i].config->values))
			selected[i] = false;
		n += selected[i];
	}
	return n;
}

/*
 * A node set the planned runs need: set in the spec, and present here.
 * The message points at the node set, or at the policy that needs it.
 */
static int check_nodes(const struct tl_spec *spec, const char *field, const char *text,
		       const struct tl_loc *at, const char *policy)
{
	const struct tl_loc *policy_at = spec->matrix[TL_AXIS_POLICY].values.n ?
		&spec->matrix[TL_AXIS_POLICY].loc : &spec->defaults_loc[TL_AXIS_POLICY];
	struct tl_error err;
	char present[128];

	if (text && tl_nodeset_check(text) == 0)
		return 0;
	if (!text) {
		tl_spec_error(spec, policy_at, &err, "policy '%s' needs %s, which the spec does not set "
			      "(machine: {fast: NODES, slow: NODES})", policy, field);
	} else {
		tl_nodeset_present(present, sizeof(present));
		tl_spec_error(spec, at, &err, "%s '%s' names nodes this machine does not have (present: %s)",
			      field, text, present);
	}
	return error("%s", err.msg);
}

int tl_execute_check(const struct tl_plan *plan, const bool *selected)
{
	const struct tl_spec *spec = plan->spec;
	const struct tl_machine *m = &spec->machine;
	const char *need_fast = NULL, *need_slow = NULL;
	const struct tl_ktier_bandwidth bw = { m->fast_gbs, m->slow_gbs, m->profile };
	int rc = 0;

	for (size_t i = 0; i < plan->nruns; i++) {
		const char *policy = plan->runs[i].config->values[TL_AXIS_POLICY];

		if (!selected[i] || !policy)
			continue;
		if (!need_fast && (tl_policy_binding(policy) == TL_BINDS_FAST || tl_policy_uses_runtime(policy) ||
				   tl_policy_is_mempolicy(policy)))
			need_fast = policy;
		if (!need_slow && (tl_policy_binding(policy) == TL_BINDS_SLOW || tl_policy_uses_runtime(policy) ||
				   (tl_policy_is_mempolicy(policy) && tl_policy_mempolicy(policy) != TL_MEMPOL_PREFERRED)))
			need_slow = policy;
	}
	if (need_fast && check_nodes(spec, "machine.fast", m->fast, &m->fast_loc, need_fast))
		rc = -EINVAL;
	if (need_slow && check_nodes(spec, "machine.slow", m->slow, &m->slow_loc, need_slow))
		rc = -EINVAL;
	if (m->cpus && check_nodes(spec, "machine.cpus", m->cpus, &m->cpus_loc, NULL))
		rc = -EINVAL;
	for (size_t i = 0; i < plan->nruns && !rc; i++) {
		const struct tl_config *c = plan->runs[i].config;
		char why[512];

		if (selected[i] && tl_ktier_kind(c->values[TL_AXIS_POLICY]) != TL_KTIER_NONE &&
		    tl_ktier_check(c->values[TL_AXIS_POLICY], c->values[TL_AXIS_POLICY_ARGS], c->values[TL_AXIS_BUDGET],
				   m->fast, m->slow, &bw, why, sizeof(why)))
			rc = error("policy '%s' cannot run here: %s", c->values[TL_AXIS_POLICY], why);
	}
	if (getenv("LD_PRELOAD") && *getenv("LD_PRELOAD"))
		warning("LD_PRELOAD is set ('%s'): every run inherits it, after tierlab's own libraries",
			getenv("LD_PRELOAD"));
	if (!rc && (need_fast || need_slow) && m->fast && m->slow && !strcmp(m->fast, m->slow))
		warning("machine.fast and machine.slow are both '%s': the tiers are simulated "
			"(placement and migration calls are made and counted, nothing moves)", m->fast);
	return rc;
}

static char *dir_of(const char *path)
{
	char *copy = strdup(path ? path : "."), *slash;
	char *abs;

	if (!copy)
		return NULL;
	slash = strrchr(copy, '/');
	if (slash)
		*(slash == copy ? slash + 1 : slash) = '\0';
	else
		strcpy(copy, ".");
	abs = realpath(copy, NULL);
	free(copy);
	return abs;
}

static double now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * The environment of the experiment: the node sets it ran with and
 * whether its tiers were real (a report must say when fast and slow were
 * one node: nothing could move), the inherited variables, then the
 * machine and its settings.
 */
static int experiment_env(const struct tl_spec *spec, struct tl_env *env)
{
	const struct tl_machine *m = &spec->machine;
	struct tl_env collected = { 0 };
	char present[128];
	bool simulated = m->fast && m->slow && !strcmp(m->fast, m->slow);
	int rc;

	tl_nodeset_present(present, sizeof(present));
	if ((m->fast || m->slow) && !strchr(present, ',') && !strchr(present, '-'))
		simulated = true;	/* one node here: every placement lands on it */
	rc = tl_env_put(env, "machine.fast", m->fast);
	rc = rc ?: tl_env_put(env, "machine.slow", m->slow);
	rc = rc ?: tl_env_put(env, "machine.cpus", m->cpus);
	rc = rc ?: tl_env_put(env, "nodes.present", present);
	rc = rc ?: tl_env_put(env, "tiers.simulated", simulated ? "yes" : "no");
	/* every run inherits them: the record says they were there */
	rc = rc ?: tl_env_put_variables(env, NULL);
	rc = rc ?: tl_env_collect(&collected, spec->hash, NULL);
	for (size_t i = 0; !rc && i < collected.n; i++)
		rc = tl_env_put(env, collected.v[i].key, collected.v[i].value);
	tl_env_release(&collected);
	return rc;
}

/* The spec's baseline as "axis=value,..." (tl_selector_parse reads it back), or NULL. */
static char *baseline_text(const struct tl_spec *spec)
{
	char buf[1024];
	size_t n = 0;

	buf[0] = '\0';
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		if (spec->baseline.values[a] && n < sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s=%s", n ? "," : "", tl_axes[a].name,
				      spec->baseline.values[a]);
	return n ? strdup(buf) : NULL;
}

static int add_experiment(struct tl_store *st, const struct tl_spec *spec, int64_t *id)
{
	char *baseline = baseline_text(spec);
	/* absolute, so the record says which file from anywhere */
	char *spec_path = spec->path ? realpath(spec->path, NULL) : NULL;
	struct tl_env env = { 0 };
	char advice[512];
	struct utsname u;
	int rc;
	struct tl_experiment_record e = {
		.name = spec->name,
		.description = spec->description,
		.spec_path = spec_path ? spec_path : spec->path,
		.spec_text = spec->text,
		.spec_hash = spec->hash,
		.tierlab_version = tl_version,
		.baseline = baseline,
		.created_at = now_wall(),
		.env = &env,
	};

	if (!uname(&u)) {
		e.host = u.nodename;
		e.kernel = u.release;
	}
	rc = experiment_env(spec, &env);
	if (rc)
		error("out of memory collecting the environment");
	else
		rc = tl_store_add_experiment(st, &e, id);
	/* advice when the BLAS runs far below the CPU */
	if (!rc && tl_env_blas_advice(&env, advice, sizeof(advice)) > 0)
		warning("%s", advice);
	tl_env_release(&env);
	free(baseline);
	free(spec_path);
	return rc;
}

/*
 * The last line the runtime said on the run's stderr ("tiermem: ..."), for
 * a failure's reason: standing aside is the last thing it says (notes such
 * as "both node 0" may come before).
 */
static void runtime_said(const char *out_dir, char *buf, size_t len)
{
	char path[PATH_MAX + 16], line[320];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/stderr.txt", out_dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "tiermem: ", 9)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, ": %.300s", line);
		}
	}
	fclose(f);
}

/*
 * A run meant to be tiered must have been: the runtime leaves a counters
 * file when it starts, removes it when it stands aside (a bad variable, a
 * policy it could not load, a sampler it could not start) and counts the
 * allocations it managed; a program none of whose allocations reached the
 * threshold never even loaded the policy. Such a run measured something
 * else and must not pass as ok.
 */
static void check_runtime(const struct tl_config *c, const char *out_dir, const struct tl_ingest *ing,
			  struct tl_run_result *res)
{
	const char *policy = c->values[TL_AXIS_POLICY];
	const char *log = c->values[TL_AXIS_LOG];
	const char *threshold = c->values[TL_AXIS_THRESHOLD] ? c->values[TL_AXIS_THRESHOLD] : "";
	char said[360];

	if (res->status != TL_STATUS_OK || !policy || !tl_policy_uses_runtime(policy) ||
	    (log && !strcmp(log, "none")) || (ing->runtime_seen && ing->allocs))
		return;
	runtime_said(out_dir, said, sizeof(said));
	res->status = TL_STATUS_FAILED;
	if (ing->runtime_seen)
		snprintf(res->error, sizeof(res->error), "the tiering runtime managed no allocation (none "
			 "reached the threshold %s), so the policy never ran%s", threshold, said);
	else
		snprintf(res->error, sizeof(res->error), "the tiering runtime did not manage this run (no "
			 "counters file: it stood aside, or no allocation reached the threshold %s)%s",
			 threshold, said);
}

/*
 * The allocator asked for must be the one that served: the FAT allocator
 * leaves a status file once it serves, and a preloaded library shows in
 * the workload's mappings (when the run lasted long enough to look).
 */
static void check_allocator(const struct tl_config *c, const struct tl_measure *meas,
			    const struct tl_ingest *ing, struct tl_run_result *res)
{
	const char *a = c->values[TL_AXIS_ALLOCATOR];
	const char *lib = NULL;

	if (res->status != TL_STATUS_OK || !a)
		return;
	if (!strcmp(a, "fat")) {
		if (ing->allocator_backing)
			return;
		lib = "libfatalloc";
	} else if (!strcmp(a, "jemalloc")) {
		lib = "libjemalloc";
	} else if (!strncmp(a, "mimalloc", 8)) {
		lib = "libmimalloc";
	} else if (!strncmp(a, "glibc-", 6)) {
		/* glibc told by a tunable: the workload's own environment must carry it */
		const char *want = strcmp(a, "glibc-thp") ? "2" : "1";

		if (!meas->maps_checked || !strcmp(meas->glibc_hugetlb, want))
			return;
		res->status = TL_STATUS_FAILED;
		snprintf(res->error, sizeof(res->error), "allocator '%s' did not serve this run (the workload's "
			 "GLIBC_TUNABLES has glibc.malloc.hugetlb=%s, not %s)", a,
			 meas->glibc_hugetlb[0] ? meas->glibc_hugetlb : "unset", want);
		return;
	}
	if (!lib || !meas->maps_checked || strstr(meas->mapped, lib))
		return;
	res->status = TL_STATUS_FAILED;
	snprintf(res->error, sizeof(res->error), "allocator '%s' did not serve this run (%s.so was not "
		 "mapped in the workload; mapped: %s)", a, lib, meas->mapped[0] ? meas->mapped : "none");
}

/* The runner's hooks, into what is measured around each run. */
static int hook_started(pid_t pid, void *arg)
{
	return tl_measure_started(arg, pid);
}

static void hook_tick(pid_t pid, void *arg)
{
	tl_measure_tick(arg, pid);
}

static void hook_finished(pid_t pid, void *arg)
{
	(void)pid;
	tl_measure_finished(arg);
}

/*
 * Runs one planned run: fills res, the figure of merit and what the
 * runtime left (ing); never fails for reasons of the workload.
 */
struct run_ctx {
	struct tl_store *st;
	int64_t exp_id, session;
	const struct tl_quiet_host *quiet;
	const char *results_dir;
};

static void run_one(const struct run_ctx *ctx, const struct tl_plan *plan, const struct tl_run *run,
		    const char *out_dir, const char *spec_dir, struct tl_measure *meas, struct tl_ktier *kt,
		    struct tl_run_result *res, bool *has_fom, double *fom, struct tl_ingest *ing)
{
	const struct tl_config *c = run->config;
	uint64_t footprint = 0;
	const struct tl_workload *wl = c->workload;
	struct tl_launch re;
	struct tl_error why = { { 0 } };
	const struct tl_machine *m = &plan->spec->machine;
	const struct tl_ktier_bandwidth bw = { m->fast_gbs, m->slow_gbs, m->profile };
	const char *budget;
	struct tl_budget b;
	char bytes[32];
	char **argv;
	int rc;

	*has_fom = false;
	memset(res, 0, sizeof(*res));
	memset(ing, 0, sizeof(*ing));
	tl_measure_reset(meas);
	if (tl_footprint_needed(c)) {
		rc = tl_footprint_get(ctx->st, ctx->exp_id, plan, c, ctx->results_dir, spec_dir,
				      &footprint, &why);
		if (rc) {
			res->status = TL_STATUS_FAILED;
			res->exit_code = -1;
			res->started_at = res->ended_at = now_wall();
			snprintf(res->error, sizeof(res->error), "no footprint for the percentage budget: %.470s", why.msg);
			return;
		}
	}
	rc = tl_launch_build(plan->spec, c, out_dir, spec_dir, footprint, &re, &why);
	if (rc) {
		res->status = TL_STATUS_FAILED;
		res->exit_code = -1;
		res->started_at = res->ended_at = now_wall();
		snprintf(res->error, sizeof(res->error), "%.500s", why.msg);
		return;
	}
	/*
	 * a kernel policy or a memory-policy baseline: the kernel is set up
	 * around the run, and put back however it ends; preferred's share of
	 * the footprint, in bytes
	 */
	budget = c->values[TL_AXIS_BUDGET];
	if (budget && footprint && strchr(budget, '%') && !tl_parse_budget(budget, &b) && b.is_percent) {
		snprintf(bytes, sizeof(bytes), "%lluB", (unsigned long long)(b.fraction * (double)footprint));
		budget = bytes;
	}
	rc = tl_ktier_begin(kt, c->values[TL_AXIS_POLICY], c->values[TL_AXIS_POLICY_ARGS], budget,
			    plan->spec->machine.fast, plan->spec->machine.slow, &bw, why.msg, sizeof(why.msg));
	if (rc) {
		tl_launch_release(&re);
		res->status = TL_STATUS_FAILED;
		res->exit_code = -1;
		res->started_at = res->ended_at = now_wall();
		snprintf(res->error, sizeof(res->error), "kernel policy not set up: %.470s", why.msg);
		return;
	}
	/* the launcher of MPI ranks (the spec's launch:), if any, then the program */
	argv = tl_launch_argv(&re, c->argv.v, c->argv.n);
	if (!argv) {
		tl_ktier_end(kt, why.msg, sizeof(why.msg));
		tl_launch_release(&re);
		res->status = TL_STATUS_FAILED;
		snprintf(res->error, sizeof(res->error), "out of memory");
		return;
	}
	struct tl_runner_hooks hooks = {
		.started = hook_started, .tick = hook_tick, .finished = hook_finished,
		.arg = meas, .tick_ms = 100,
	};
	/* what ran and with which variables: the record says, whatever the outcome */
	tl_measure_program(meas, re.program, re.envp);
	struct tl_run_request req = {
		.argv = argv,
		.envp = re.envp,
		.dir = re.dir,
		.out_dir = out_dir,
		.cpu_nodes = plan->spec->machine.cpus,
		.mem_nodes = re.mem_nodes,
		.mem_mode = re.mem_mode,
		.timeout = plan->spec->timeout,
		.hooks = &hooks,
	};
	tl_runner_run(&req, res);
	free(argv);
	if (tl_ktier_end(kt, why.msg, sizeof(why.msg))) {
		error("the kernel's settings are not all back as they were: %s", why.msg);
		if (res->status == TL_STATUS_OK) {
			res->status = TL_STATUS_FAILED;
			snprintf(res->error, sizeof(res->error), "settings not restored: %.480s", why.msg);
		}
	}

	/* a crashed or failed run still has its partial records ingested */
	if (tl_ingest_scan(out_dir, ing))
		warning("out of memory reading the runtime's files of %s", run->key);
	check_runtime(c, out_dir, ing, res);
	check_allocator(c, meas, ing, res);
	if (res->status != TL_STATUS_OK)
		goto out;
	if (!wl->fom.regex) {
		*has_fom = true;	/* no pattern: the figure of merit is the wall time */
		*fom = res->wall;
		goto out;
	}
	rc = tl_fom_extract_ranked(out_dir, re.dir ? re.dir : out_dir, wl->fom.file, wl->fom.regex,
				   plan->spec->launch.with, fom, &why);
	if (rc) {
		res->status = TL_STATUS_FAILED;
		snprintf(res->error, sizeof(res->error), "no figure of merit: %.480s", why.msg);
		goto out;
	}
	*has_fom = true;
out:
	tl_launch_release(&re);
}

/* The run's record: what ran, how it ended, and everything measured; stored in one transaction. */
/* --quiet-host: how long the run waited for a quiet host, and how that ended */
static int record_quiet(const struct tl_quiet_host *q, const struct tl_quiet_result *qr, struct tl_run_record *r)
{
	char text[160];

	if (!(q->load > 0))
		return 0;
	tl_quiet_result_text(q, qr, text, sizeof(text));
	return tl_record_add_metric(r, "host.quiet_wait_s", qr->waited_s, "s") ?: tl_env_put(&r->env, "host.quiet", text);
}

static int store_one(const struct run_ctx *ctx, const struct tl_run *run,
		     const char *out_dir, const struct tl_run_result *res, bool has_fom, double fom,
		     const struct tl_ingest *ing, const struct tl_measure *meas, const struct tl_ktier *kt,
		     const struct tl_quiet_result *qr)
{
	const struct tl_config *c = run->config;
	const struct tl_workload *wl = c->workload;
	struct tl_run_record r = {
		.experiment_id = ctx->exp_id,
		.session_id = ctx->session,
		.run_key = run->key,
		.config_key = c->key,
		.rep = run->rep,
		.out_dir = out_dir,
		.result = res,
		.has_fom = has_fom,
		.fom = fom,
		.fom_unit = wl->fom.regex ? wl->fom.unit : "s",
		.higher_is_better = wl->fom.regex ? wl->fom.higher_is_better : false,
	};
	char *cmd = tl_quote_shell_argv(c->argv.v, c->argv.n);
	int rc;

	for (int a = 0; a < TL_AXIS__COUNT; a++)
		r.values[a] = c->values[a];
	r.command = cmd;
	rc = tl_ingest_record(ing, out_dir, &r);
	rc = rc ?: tl_measure_record(meas, &r);
	/* a run started as ranks: the ranks' own counts replace the launcher's */
	rc = rc ?: tl_ingest_counters(ing, &r);
	rc = rc ?: tl_ktier_record(kt, &r);
	rc = rc ?: record_quiet(ctx->quiet, qr, &r);
	if (rc)
		rc = error("cannot record run '%s': %s", run->key, strerror(-rc));
	else
		rc = tl_store_add_run(ctx->st, &r, NULL);
	tl_record_release(&r);
	free(cmd);
	return rc;
}

/* What SIGINT, SIGTERM and SIGHUP (a closed terminal) do while a plan executes. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void catch_stop_signals(struct sigaction *old)
{
	struct sigaction sa = { .sa_handler = on_interrupt };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &sa, &old[i]);
}

static void restore_stop_signals(const struct sigaction *old)
{
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &old[i], NULL);
}

int tl_execute(const struct tl_plan *plan, const struct tl_execute_opts *o, struct tl_execute_summary *sum)
{
	bool *selected = calloc(plan->nruns ? plan->nruns : 1, sizeof(*selected));
	struct sigaction old_sa[ARRAY_SIZE(stop_signals)];
	struct tl_progress prog;
	struct tl_measure meas = { 0 };
	struct tl_store *st = NULL;
	char *spec_dir = dir_of(plan->spec->path);
	int64_t exp_id = 0;
	long nsel;
	int rc = 0;

	memset(sum, 0, sizeof(*sum));
	interrupted = 0;
	if (!selected || !spec_dir) {
		rc = error("out of memory");
		goto out;
	}
	nsel = tl_execute_select(plan, o, selected);
	if (nsel < 0) {
		rc = (int)nsel;
		goto out;
	}
	sum->selected = (size_t)nsel;
	/* what a tierlab that died during a kernel-policy run left changed goes back first */
	{
		char why[512];
		int r = tl_ktier_replay(why, sizeof(why));

		if (r > 0)
			warning("a tierlab that died left kernel tiering settings changed: put back as they were");
		else if (r == -EINVAL || r == -EPERM || r == -ELOOP)
			warning("%s", why);	/* not tierlab's journal: nothing was written */
		else if (r < 0)
			warning("a tierlab that died left kernel tiering settings changed, and not all could be "
				"put back: %s", why);
	}
	/* everything that can be refused is, before the database is made or touched */
	rc = tl_execute_check(plan, selected);
	rc = rc ?: tl_session_check();
	rc = rc ?: tl_measure_init(&meas, plan->spec->events.v, plan->spec->events.n);
	rc = rc ?: tl_store_open(o->db, &st);
	if (rc)
		goto out;
	catch_stop_signals(old_sa);
	/* a finished run is stored even if another process holds the database a long while */
	tl_store_wait_for_lock(st, &interrupted);
	rc = tl_session_begin(st, o->command_line, &sum->session);
	rc = rc ?: add_experiment(st, plan->spec, &exp_id);
	if (rc)
		goto restore;
	sum->began = true;

	struct run_ctx ctx = { .st = st, .exp_id = exp_id, .session = sum->session, .quiet = &o->quiet,
			       .results_dir = tl_store_dir(st) };

	if (!ctx.results_dir)
		ctx.results_dir = ".";	/* a database in memory (tests) */

	tl_progress_start(&prog, sum->selected, o->progress_tty);
	for (size_t i = 0; i < plan->nruns && !interrupted; i++) {
		const struct tl_run *run = &plan->runs[i];
		struct tl_run_result res;
		struct tl_ingest ing;
		char out_dir[PATH_MAX], desc[512];
		struct tl_ktier kt = { .kind = TL_KTIER_NONE };
		struct tl_quiet_result qr = { 0 };
		bool has_fom;
		double fom = 0;

		if (!selected[i])
			continue;
		tl_config_describe(plan, run->config, desc, sizeof(desc));
		/* a lookup that failed (the store said why) must not run and store a finished run again */
		if (o->resume && (rc = tl_store_run_done(st, plan->spec->name, run->key)) < 0)
			break;
		if (o->resume && rc == 1) {
			rc = 0;
			sum->skipped++;
			tl_progress_skip(&prog, run->key, desc);
			continue;
		}
		/*
		 * One new directory per execution of the spec, so a re-run never
		 * overwrites a stored run's files, nor reads another's logs as its own
		 */
		snprintf(out_dir, sizeof(out_dir), "%s/%s/%s/e%lld", ctx.results_dir, plan->spec->name,
			 run->key, (long long)exp_id);
		if ((rc = tl_mkdir_new(out_dir, sizeof(out_dir)))) {
			rc = error("cannot create '%s': %s", out_dir, strerror(-rc));
			break;
		}
		if (o->quiet.load > 0) {
			tl_quiet_host_wait(&o->quiet, NULL, &interrupted, stderr, &qr);
			if (interrupted)
				break;
		}
		tl_progress_begin(&prog, run->key, desc);
		run_one(&ctx, plan, run, out_dir, spec_dir, &meas, &kt, &res, &has_fom, &fom, &ing);
		if (interrupted) {
			tl_ingest_release(&ing);
			break;	/* a run cut short by the user is not a result */
		}
		rc = store_one(&ctx, run, out_dir, &res, has_fom, fom, &ing, &meas, &kt, &qr);
		tl_ingest_release(&ing);
		if (rc) {
			tl_progress_finish(&prog);
			error("run '%s' finished (%s) but is not stored; it runs again with --resume", run->key,
			      tl_status_names[res.status]);
			break;
		}
		if (res.status == TL_STATUS_OK)
			sum->ok++;
		else
			sum->failed++;
		tl_progress_end(&prog, &res, has_fom, fom, run->config->workload->fom.regex ?
				(run->config->workload->fom.unit ? run->config->workload->fom.unit : "") : "s");
	}
	tl_progress_finish(&prog);
	sum->left = sum->selected - sum->skipped - sum->ok - sum->failed;
	sum->interrupted = interrupted;
restore:
	restore_stop_signals(old_sa);
out:
	tl_store_close(st);
	tl_measure_release(&meas);
	free(selected);
	free(spec_dir);
	return rc;
}
