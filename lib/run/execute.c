/*
 * Executing a plan (see execute.h): select, check, store the experiment,
 * then for each run compose, run, verify, extract, store — one
 * transaction per run, before the next.
 */
#include "run/execute.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ktier/ktier.h"
#include "measure/fom.h"
#include "measure/ingest.h"
#include "measure/measure.h"
#include "run/experiment.h"
#include "run/footprint.h"
#include "run/launch.h"
#include "run/progress.h"
#include "run/runner.h"
#include "run/session.h"
#include "run/verify.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/quote.h"

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
	tl_runner_kill_current();
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

/* What every run of one invocation shares. */
struct run_ctx {
	const struct tl_plan *plan;
	const char *spec_dir;		/* where the spec's relative paths start */
	const char *results_dir;	/* each run's directory goes under it */
	struct tl_store *st;
	int64_t exp_id, session;
	const struct tl_quiet_host *quiet;
	struct tl_measure meas;		/* reset before each run */
};

/* One run: where its files go, and everything its record holds. */
struct run_state {
	const struct tl_run *run;
	char out_dir[PATH_MAX];
	struct tl_run_result res;
	struct tl_ingest ing;		/* what the runtime and allocator left */
	struct tl_ktier kt;
	struct tl_quiet_result qr;
	bool has_fom;
	double fom;
};

/* A run that could not start fails with no exit status, at this moment. */
static void __attribute__((format(printf, 2, 3))) not_started(struct tl_run_result *res, const char *fmt, ...)
{
	va_list ap;

	res->status = TL_STATUS_FAILED;
	res->exit_code = -1;
	res->started_at = res->ended_at = tl_wall_s();
	va_start(ap, fmt);
	vsnprintf(res->error, sizeof(res->error), fmt, ap);
	va_end(ap);
}

/*
 * Sets the kernel up around the run (a kernel policy or a memory-policy
 * baseline) and runs it; the kernel is put back however it ends. False
 * when the run never started.
 */
static bool launch(struct run_ctx *ctx, struct run_state *s, const struct tl_launch *re, uint64_t footprint)
{
	const struct tl_spec *spec = ctx->plan->spec;
	const struct tl_config *c = s->run->config;
	const struct tl_machine *m = &spec->machine;
	const struct tl_ktier_bandwidth bw = { m->fast_gbs, m->slow_gbs, m->profile };
	const char *budget = c->values[TL_AXIS_BUDGET];
	struct tl_run_result *res = &s->res;
	struct tl_error why = { { 0 } };
	struct tl_budget b;
	char bytes[32];
	char **argv;

	/* preferred's share of the footprint, in bytes */
	if (budget && footprint && strchr(budget, '%') && !tl_parse_budget(budget, &b) && b.is_percent) {
		snprintf(bytes, sizeof(bytes), "%lluB", (unsigned long long)(b.fraction * (double)footprint));
		budget = bytes;
	}
	if (tl_ktier_begin(&s->kt, c->values[TL_AXIS_POLICY], c->values[TL_AXIS_POLICY_ARGS], budget, m->fast,
			   m->slow, &bw, why.msg, sizeof(why.msg))) {
		not_started(res, "kernel policy not set up: %.470s", why.msg);
		return false;
	}
	/* the launcher of MPI ranks (the spec's launch:), if any, then the program */
	argv = tl_launch_argv(re, c->argv.v, c->argv.n);
	if (!argv) {
		tl_ktier_end(&s->kt, why.msg, sizeof(why.msg));
		not_started(res, "out of memory");
		return false;
	}
	struct tl_runner_hooks hooks = {
		.started = hook_started, .tick = hook_tick, .finished = hook_finished,
		.arg = &ctx->meas, .tick_ms = 100,
	};
	/* what ran and with which variables: the record says, whatever the outcome */
	tl_measure_program(&ctx->meas, re->program, re->envp);
	struct tl_run_request req = {
		.argv = argv,
		.envp = re->envp,
		.dir = re->dir,
		.out_dir = s->out_dir,
		.cpu_nodes = m->cpus,
		.mem_nodes = re->mem_nodes,
		.mem_mode = re->mem_mode,
		.timeout = spec->timeout,
		.hooks = &hooks,
	};
	tl_runner_run(&req, res);
	free(argv);
	if (tl_ktier_end(&s->kt, why.msg, sizeof(why.msg))) {
		error("the kernel's settings are not all back as they were: %s", why.msg);
		if (res->status == TL_STATUS_OK) {
			res->status = TL_STATUS_FAILED;
			snprintf(res->error, sizeof(res->error), "settings not restored: %.480s", why.msg);
		}
	}
	return true;
}

/* What a run that ran left: the runtime's files, whether it was served as asked, its figure of merit. */
static void take_outcome(struct run_ctx *ctx, struct run_state *s, const struct tl_launch *re)
{
	const struct tl_workload *wl = s->run->config->workload;
	struct tl_run_result *res = &s->res;
	struct tl_error why = { { 0 } };

	/* a crashed or failed run still has its partial records ingested */
	if (tl_ingest_scan(s->out_dir, &s->ing))
		warning("out of memory reading the runtime's files of %s", s->run->key);
	tl_verify_run(s->run->config, s->out_dir, &ctx->meas, &s->ing, res);
	if (res->status != TL_STATUS_OK)
		return;
	if (!wl->fom.regex) {
		s->has_fom = true;	/* no pattern: the figure of merit is the wall time */
		s->fom = res->wall;
		return;
	}
	if (tl_fom_extract_ranked(s->out_dir, re->dir ? re->dir : s->out_dir, wl->fom.file, wl->fom.regex,
				  ctx->plan->spec->launch.with, &s->fom, &why)) {
		res->status = TL_STATUS_FAILED;
		snprintf(res->error, sizeof(res->error), "no figure of merit: %.480s", why.msg);
		return;
	}
	s->has_fom = true;
}

/* Runs one planned run into s; never fails for reasons of the workload. */
static void run_one(struct run_ctx *ctx, struct run_state *s)
{
	const struct tl_config *c = s->run->config;
	struct tl_error why = { { 0 } };
	uint64_t footprint = 0;
	struct tl_launch re;

	tl_measure_reset(&ctx->meas);
	if (tl_footprint_needed(c) && tl_footprint_get(ctx->st, ctx->exp_id, ctx->plan, c, ctx->results_dir,
						       ctx->spec_dir, &footprint, &why)) {
		not_started(&s->res, "no footprint for the percentage budget: %.470s", why.msg);
		return;
	}
	if (tl_launch_build(ctx->plan->spec, c, s->out_dir, ctx->spec_dir, footprint, &re, &why)) {
		not_started(&s->res, "%.500s", why.msg);
		return;
	}
	if (launch(ctx, s, &re, footprint))
		take_outcome(ctx, s, &re);
	tl_launch_release(&re);
}

/* --quiet-host: how long the run waited for a quiet host, and how that ended */
static int record_quiet(const struct tl_quiet_host *q, const struct tl_quiet_result *qr, struct tl_run_record *r)
{
	char text[160];

	if (!(q->load > 0))
		return 0;
	tl_quiet_result_text(q, qr, text, sizeof(text));
	return tl_record_add_metric(r, "host.quiet_wait_s", qr->waited_s, "s") ?: tl_env_put(&r->env, "host.quiet", text);
}

/* The run's record: what ran, how it ended, and everything measured; stored in one transaction. */
static int store_one(struct run_ctx *ctx, const struct run_state *s)
{
	const struct tl_config *c = s->run->config;
	const struct tl_workload *wl = c->workload;
	struct tl_run_record r = {
		.experiment_id = ctx->exp_id,
		.session_id = ctx->session,
		.run_key = s->run->key,
		.config_key = c->key,
		.rep = s->run->rep,
		.out_dir = s->out_dir,
		.result = &s->res,
		.has_fom = s->has_fom,
		.fom = s->fom,
		.fom_unit = wl->fom.regex ? wl->fom.unit : "s",
		.higher_is_better = wl->fom.regex ? wl->fom.higher_is_better : false,
	};
	char *cmd = tl_quote_shell_argv(c->argv.v, c->argv.n);
	int rc;

	for (int a = 0; a < TL_AXIS__COUNT; a++)
		r.values[a] = c->values[a];
	r.command = cmd;
	rc = tl_ingest_record(&s->ing, s->out_dir, &r);
	rc = rc ?: tl_measure_record(&ctx->meas, &r);
	/* a run started as ranks: the ranks' own counts replace the launcher's */
	rc = rc ?: tl_ingest_counters(&s->ing, &r);
	rc = rc ?: tl_ktier_record(&s->kt, &r);
	rc = rc ?: record_quiet(ctx->quiet, &s->qr, &r);
	if (rc)
		rc = error("cannot record run '%s': %s", s->run->key, strerror(-rc));
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

/* What a tierlab that died during a kernel-policy run left changed goes back first. */
static void replay_journal(void)
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

int tl_execute(const struct tl_plan *plan, const struct tl_execute_opts *o, struct tl_execute_summary *sum)
{
	bool *selected = calloc(plan->nruns ? plan->nruns : 1, sizeof(*selected));
	char *spec_dir = tl_dir_of(plan->spec->path);
	struct run_ctx ctx = { .plan = plan, .spec_dir = spec_dir, .quiet = &o->quiet };
	struct sigaction old_sa[ARRAY_SIZE(stop_signals)];
	struct tl_progress prog;
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
	replay_journal();
	/* everything that can be refused is, before the database is made or touched */
	rc = tl_execute_check(plan, selected);
	rc = rc ?: tl_session_check();
	rc = rc ?: tl_measure_init(&ctx.meas, plan->spec->events.v, plan->spec->events.n);
	rc = rc ?: tl_store_open(o->db, &ctx.st);
	if (rc)
		goto out;
	catch_stop_signals(old_sa);
	/* a finished run is stored even if another process holds the database a long while */
	tl_store_wait_for_lock(ctx.st, &interrupted);
	rc = tl_session_begin(ctx.st, o->command_line, &sum->session);
	rc = rc ?: tl_experiment_store(ctx.st, plan->spec, &ctx.exp_id);
	if (rc)
		goto restore;
	sum->began = true;
	ctx.session = sum->session;
	ctx.results_dir = tl_store_dir(ctx.st);
	if (!ctx.results_dir)
		ctx.results_dir = ".";	/* a database in memory (tests) */

	tl_progress_start(&prog, sum->selected, o->progress_tty);
	for (size_t i = 0; i < plan->nruns && !interrupted; i++) {
		struct run_state s = { .run = &plan->runs[i], .kt = { .kind = TL_KTIER_NONE } };
		const struct tl_workload *wl = s.run->config->workload;
		char desc[512];

		if (!selected[i])
			continue;
		tl_config_describe(plan, s.run->config, desc, sizeof(desc));
		/* a lookup that failed (the store said why) must not run and store a finished run again */
		if (o->resume && (rc = tl_store_run_done(ctx.st, plan->spec->name, s.run->key)) < 0)
			break;
		if (o->resume && rc == 1) {
			rc = 0;
			sum->skipped++;
			tl_progress_skip(&prog, s.run->key, desc);
			continue;
		}
		/*
		 * One new directory per execution of the spec, so a re-run never
		 * overwrites a stored run's files, nor reads another's logs as its own
		 */
		snprintf(s.out_dir, sizeof(s.out_dir), "%s/%s/%s/e%lld", ctx.results_dir, plan->spec->name,
			 s.run->key, (long long)ctx.exp_id);
		if ((rc = tl_mkdir_new(s.out_dir, sizeof(s.out_dir)))) {
			rc = error("cannot create '%s': %s", s.out_dir, strerror(-rc));
			break;
		}
		if (o->quiet.load > 0) {
			tl_quiet_host_wait(&o->quiet, NULL, &interrupted, stderr, &s.qr);
			if (interrupted)
				break;
		}
		tl_progress_begin(&prog, s.run->key, desc);
		run_one(&ctx, &s);
		if (interrupted) {
			tl_ingest_release(&s.ing);
			break;	/* a run cut short by the user is not a result */
		}
		rc = store_one(&ctx, &s);
		tl_ingest_release(&s.ing);
		if (rc) {
			tl_progress_finish(&prog);
			error("run '%s' finished (%s) but is not stored; it runs again with --resume", s.run->key,
			      tl_status_names[s.res.status]);
			break;
		}
		if (s.res.status == TL_STATUS_OK)
			sum->ok++;
		else
			sum->failed++;
		tl_progress_end(&prog, &s.res, s.has_fom, s.fom,
				wl->fom.regex ? (wl->fom.unit ? wl->fom.unit : "") : "s");
	}
	tl_progress_finish(&prog);
	sum->left = sum->selected - sum->skipped - sum->ok - sum->failed;
	sum->interrupted = interrupted;
restore:
	restore_stop_signals(old_sa);
out:
	tl_store_close(ctx.st);
	tl_measure_release(&ctx.meas);
	free(selected);
	free(spec_dir);
	return rc;
}
