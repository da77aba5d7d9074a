/*
 * tierlab simulate: record a workload's accesses once, then replay them
 * through the policies offline (lib/simulate). Modes:
 *   --record SPEC        run the spec once under the runtime, recording
 *                        (policy static:0, log mode, a high rate);
 *   RUN | --trace FILE   replay; with a spec (and --<axis> lists, as in
 *                        sweep), every configuration of its matrix; without
 *                        one, the trace's own configuration (--verify
 *                        checks it decides as the live run did, --events
 *                        prints what it decides);
 *   --export RUN         the run's logs as one trace file;
 *   --advise RUN         the static placement that keeps the most sampled
 *                        accesses in a --budget.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "axis/axis.h"
#include "builtin.h"
#include "parse-options.h"
#include "plan/plan.h"
#include "run/launch.h"
#include "run/session.h"
#include "run/spec-plan.h"
#include "simulate/advise.h"
#include "simulate/calibrate.h"
#include "simulate/calibrate-moves.h"
#include "simulate/model.h"
#include "simulate/recording.h"
#include "simulate/replay-own.h"
#include "simulate/setup.h"
#include "simulate/sim-print.h"
#include "simulate/sim-store.h"
#include "spec/spec.h"
#include "spec/yaml.h"
#include "store/query.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/name.h"
#include "util/paths.h"
#include "util/units.h"

struct sim_opts {
	const char *db, *trace, *record, *export, *import, *output, *advise, *model;
	int format;			/* enum tl_sim_format */
	char *command_line;		/* the invocation, stored with its session */
	const char *unmanaged;		/* --unmanaged SIZE: instead of the recording's measured footprint */
	double unmanaged_share;		/* u of the tier model (model.h) */
	long maxrss_kb;			/* the recorded run's, 0 unknown */
	double delivered_hz;		/* the recording's lowest delivered rate (recording.h) */
	double short_warned;		/* the last rate warned about as not thinned */
	int seed;			/* --seed: of the thinned ticks' jitter (0: the default draw) */
	int events, verify, no_store, calibrate;
	char *source;			/* what the trace is: the run's key, or the trace file's path */
	int64_t source_id;		/* the run's id, 0 for a trace file */
	size_t nsamples;		/* in the trace: what a replay walks */
	const char *lists[TL_AXIS__COUNT];
	struct tl_tier_model tm;
	int have_model;
};

/* The output directory of a stored run; its key into *key when key is not NULL. */
static char *run_dir(const char *db, const char *which, char **key, int64_t *id, long *maxrss_kb)
{
	struct tl_store *st = NULL;
	struct tl_run_row r = { 0 };
	char *dir = NULL;

	if (tl_store_open_existing(db, &st))
		return NULL;
	if (!tl_store_get_run_or_latest(st, which, true, &r)) {
		if (r.out_dir) {
			dir = strdup(r.out_dir);
			if (key)
				*key = r.run_key ? strdup(r.run_key) : NULL;
			if (id)
				*id = r.id;
			if (maxrss_kb)
				*maxrss_kb = r.maxrss_kb;
		} else
			error("run '%s' has no output directory", which);
	}
	tl_run_row_release(&r);
	tl_store_close(st);
	return dir;
}

static int load_trace(struct sim_opts *o, const char *run, struct tl_trace *t)
{
	char why[1024] = "";
	char *dir;
	int rc;

	if (o->trace) {
		struct stat sb;

		/* a directory: the tiermem-PID.log files a run left there */
		if (!stat(o->trace, &sb) && S_ISDIR(sb.st_mode))
			rc = tl_trace_load_dir(t, o->trace, why, sizeof(why));
		else
			rc = tl_trace_load_file(t, o->trace, why, sizeof(why));
		o->source = realpath(o->trace, NULL);
	} else if (!(dir = run_dir(o->db, run, &o->source, &o->source_id, &o->maxrss_kb)))
		return -1;
	else {
		rc = tl_trace_load_dir(t, dir, why, sizeof(why));
		free(dir);
	}
	if (rc)
		return error("%s", why[0] ? why : strerror(-rc));
	return 0;
}

/*
 * --model: a tier model file (YAML), a probe's JSON output (a file whose
 * text starts with '{'), or profile:NAME, a profile saved in the store.
 */
static int load_model(struct sim_opts *o)
{
	struct tl_error err = { { 0 } };
	char *text = NULL;
	int rc;

	if (!strncmp(o->model, "profile:", 8)) {
		struct tl_store *st = NULL;

		if (tl_store_open_existing(o->db, &st))
			return -1;
		rc = tl_store_profile(st, o->model + 8, &text);
		tl_store_close(st);
		if (rc)
			return -1;
		rc = tl_tier_model_from_probe(o->model, text, &o->tm, &err);
	} else {
		FILE *f = fopen(o->model, "r");
		int c = ' ';

		while (f && (c = fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\t' || c == '\r'))
			;
		if (f)
			fclose(f);
		if (c == '{') {
			rc = tl_spec_read_file(o->model, &text, &err);
			rc = rc ?: tl_tier_model_from_probe(o->model, text, &o->tm, &err);
		} else {
			rc = tl_tier_model_load(o->model, &o->tm, &err);
		}
	}
	free(text);
	if (rc)
		return error("%s", err.msg);
	o->have_model = 1;
	return 0;
}

/*
 * u of the tier model: the share of the program's memory outside managed
 * allocations, taken to be accessed as densely per byte as managed memory
 * (no sample sees it). From --unmanaged, or the recorded run's peak RSS
 * less its managed peak; a trace file has no RSS: 0, said so.
 */
static int unmanaged_share(struct sim_opts *o, const struct tl_trace *t)
{
	uint64_t managed = 0, unmanaged = 0, rss = (uint64_t)(o->maxrss_kb > 0 ? o->maxrss_kb : 0) * 1024;

	for (size_t i = 0; i < t->nprocs; i++)
		managed += t->procs[i].peak_bytes;
	if (o->unmanaged) {
		if (tl_parse_size(o->unmanaged, &unmanaged))
			return error("--unmanaged: '%s': expected a size (e.g. 64MiB)", o->unmanaged);
	} else if (rss) {
		unmanaged = rss > managed ? rss - managed : 0;
	} else
		fprintf(stderr, "note: no measured footprint for the trace: unmanaged memory taken as 0 (--unmanaged)\n");
	o->unmanaged_share = managed + unmanaged ? (double)unmanaged / (double)(managed + unmanaged) : 0;
	return 0;
}

static const struct tl_tier_model *model_of(const struct sim_opts *o)
{
	return o->have_model ? &o->tm : NULL;
}

static void print_result(const struct sim_opts *o, const char *label, const struct tl_sim_result *r,
			 const struct tl_model_place *pl, double seconds)
{
	tl_sim_print_result(stdout, o->format, label, r, model_of(o), pl,
			    seconds > 0 ? (double)o->nsamples / seconds : 0);
}

/* ---- the trace's own configuration: --verify and --events ---- */

static int replay_own(const struct sim_opts *o, const struct tl_trace *t)
{
	struct tl_sim_result total;
	size_t mismatches;
	double t0 = tl_mono_s();

	if (tl_sim_replay_own(t, o->verify, o->events ? stdout : NULL, &total, &mismatches))
		return -1;
	if (o->events)
		return 0;
	if (o->verify) {
		if (mismatches)
			return error("replay differs from the run (%zu differences)", mismatches);
		printf("replay matches the run: %llu samples, %llu placements and migrations, same order\n",
		       (unsigned long long)total.samples,
		       (unsigned long long)(total.moves[0] + total.moves[1] + total.moves[2] + total.moves[3]));
		return 0;
	}
	tl_sim_print_header(stdout, o->format, model_of(o));
	print_result(o, t->nprocs && t->procs[0].p.policy ? t->procs[0].p.policy : "?", &total,
		     &(struct tl_model_place){ o->unmanaged_share, false }, tl_mono_s() - t0);
	return 0;
}

/* ---- a spec's matrix ---- */

/*
 * Replays configuration c of the plan into *r: the variables `tierlab
 * run` would give it, read by the runtime's parser, with the model's
 * migration speed and pace when there is a model. *pl: where its
 * unmanaged memory is. The replay's CPU seconds into *secs.
 */
static int config_replay(struct sim_opts *o, const struct tl_trace *t, const struct tl_plan *plan,
			 const struct tl_config *c, const char *spec_dir, const char *label, struct tl_sim_result *r,
			 struct tl_model_place *pl, double *secs)
{
	const char *policy = c->values[TL_AXIS_POLICY];
	bool binds_all = policy && !tl_policy_uses_runtime(policy);
	struct tl_launch re = { 0 };
	struct tl_error err = { { 0 } };
	struct tl_sim_setup s;
	/* all-fast binds the program's unmanaged memory fast as well; everything else leaves it slow */
	struct tl_model_pacer pacer = { &o->tm, { o->unmanaged_share, binds_all && tl_policy_binding(policy) == TL_BINDS_FAST } };
	char why[1024] = "";
	double t0;
	int rc;

	*pl = pacer.place;
	if (binds_all) {
		/*
		 * all-fast and all-slow run without the runtime: their built-ins,
		 * no budget, and every recorded allocation theirs whatever its
		 * size, as the live run binds all of the program's memory.
		 */
		char pv[80];
		char *env[] = { pv, NULL };

		snprintf(pv, sizeof(pv), "TIERLAB_POLICY=%s", policy);
		rc = tl_sim_setup_env(&s, env, why, sizeof(why));
		s.c.rate_hz = 0;	/* no sampler runs with them: every recorded sample counts */
		s.c.threshold = 0;
	} else {
		uint64_t threshold = 0;

		if (c->values[TL_AXIS_THRESHOLD])
			tl_parse_size(c->values[TL_AXIS_THRESHOLD], &threshold);
		rc = tl_launch_build(plan->spec, c, ".", spec_dir, tl_trace_footprint(t, threshold), &re, &err);
		if (rc)
			return error("%s: %s", label, err.msg);
		rc = tl_sim_setup_env(&s, re.envp, why, sizeof(why));
		tl_launch_release(&re);
	}
	if (rc)
		return error("%s: %s", label, why);
	if (o->have_model) {
		/* a sample in a chunk still moving at the model's migration speed is a miss */
		s.c.move_gbs = o->tm.migration_gbs;
		s.c.move_cost_us = o->tm.migration_cost_us;
		/* ... in model time: a move takes longer in recorded time where the model runs faster */
		s.c.pace = tl_tier_model_pace;
		s.c.pace_ctx = &pacer;
	}
	/* another draw of the thinned ticks: a live run at that rate is one draw of them */
	if (o->seed > 0)
		s.c.seed = (uint64_t)o->seed * 0x9E3779B97F4A7C15ULL;
	if (s.c.rate_hz > 0 && o->delivered_hz > 0 && s.c.rate_hz >= o->delivered_hz &&
	    o->short_warned != s.c.rate_hz) {
		/* once per rate: every configuration at that rate replays the recording whole */
		warning("rate %.0f Hz: the recording delivered %.0f samples/s; every recorded sample replayed, not "
			"thinned to %.0f Hz", s.c.rate_hz, o->delivered_hz, s.c.rate_hz);
		o->short_warned = s.c.rate_hz;
	}
	if (t->nprocs && t->procs[0].p.known && s.c.threshold < t->procs[0].p.threshold && !binds_all)
		warning("%s: threshold %llu is below the recording's (%llu): allocations in between were not recorded",
			label, (unsigned long long)s.c.threshold, (unsigned long long)t->procs[0].p.threshold);
	t0 = tl_mono_s();
	rc = tl_sim_replay(t, &s.c, NULL, r, why, sizeof(why));
	*secs = tl_mono_s() - t0;
	tl_sim_setup_release(&s);
	return rc ? error("%s: %s", label, why) : 0;
}

static int replay_config(struct sim_opts *o, const struct tl_trace *t, const struct tl_plan *plan,
			 const struct tl_config *c, const char *spec_dir, struct tl_store *st, int64_t exp_id,
			 int64_t session)
{
	struct tl_sim_result r;
	struct tl_model_place pl;
	char label[256];
	double secs = 0;

	tl_config_describe(plan, c, label, sizeof(label));
	if (config_replay(o, t, plan, c, spec_dir, label, &r, &pl, &secs))
		return -1;
	print_result(o, label, &r, &pl, secs);
	if (st) {
		char command[1024];

		snprintf(command, sizeof(command), "tierlab simulate %s %s (%s)", o->trace ? "--trace" : "",
			 o->source ? o->source : "-", label);
		if (tl_sim_store_run(st, exp_id, session, c, o->source ? o->source : "-", command, &r,
				     model_of(o), &pl, tl_trace_seconds(t), secs))
			return -1;
	}
	return 0;
}

static int replay_spec(struct sim_opts *o, const struct tl_trace *t, const char *spec_path)
{
	struct tl_spec spec = { 0 };
	struct tl_plan plan = { 0 };
	char *spec_dir = tl_dir_of(spec_path);
	struct tl_store *st = NULL;
	int64_t exp_id = 0, session = 0;
	int rc = -1;

	if (!spec_dir)
		return error("out of memory");
	if (tl_spec_plan(spec_path, o->lists, NULL, o->db, &spec, &plan))
		goto out;
	if (!o->no_store) {
		struct tl_env env = { 0 };
		int64_t eid;

		if (tl_store_open(o->db, &st) || tl_session_begin(st, o->command_line, &session))
			goto out;
		/* the recording's environment: the simulated runs were "taken" under it */
		if (o->source_id && (tl_store_run_experiment(st, o->source_id, &eid) ||
				     tl_store_env_load(st, eid, 0, &env)))
			goto out;
		rc = tl_sim_store_experiment(st, &spec, o->source ? o->source : "-", &env, &exp_id);
		tl_env_release(&env);
		if (rc)
			goto out;
	}
	tl_sim_print_header(stdout, o->format, model_of(o));
	rc = 0;
	for (size_t i = 0; i < plan.nconfigs && !rc; i++)
		rc = replay_config(o, t, &plan, &plan.configs[i], spec_dir, st, exp_id, session);
	if (!rc && st)
		fprintf(stderr, "%s: %zu simulated configurations stored in %s\n", spec.name, plan.nconfigs, o->db);
out:
	if (st)
		tl_store_close(st);
	tl_plan_release(&plan);
	tl_spec_release(&spec);
	free(spec_dir);
	return rc;
}

/* ---- --calibrate: the model's workload parameters from live runs ---- */

/* The mean figure of merit of c's measured runs in rows (0 runs: *n = 0). */
static double measured_fom(const struct tl_run_row *rows, size_t nrows, const struct tl_config *c, int *n,
			   bool *higher)
{
	double sum = 0;

	*n = 0;
	for (size_t i = 0; i < nrows; i++) {
		const struct tl_run_row *w = &rows[i];

		if (w->simulated || w->status != TL_STATUS_OK || !w->has_fom || !(w->fom > 0) || !w->config_key ||
		    strcmp(w->config_key, c->key))
			continue;
		sum += w->fom;
		*higher = w->higher_is_better;
		(*n)++;
	}
	return *n ? sum / *n : 0;
}

/* Configurations with no migration: the placements a user runs live to calibrate (all-fast, all-slow, static). */
static bool calibrating_policy(const char *policy)
{
	return tl_policy_bounds(policy) || (policy && !strncmp(policy, "static", 6));
}

/*
 * The model's migration figures from the experiment's measured runs that
 * migrated (calibrate-moves.h). 1 when fitted (printed, and the model's
 * migration set), 0 with no such run, -1 after an error.
 */
static int calibrate_moves(struct sim_opts *o, const struct tl_run_row *rows, size_t nrows, const char *experiment)
{
	struct tl_calib_moves *runs = calloc(nrows + 1, sizeof(*runs));
	struct tl_calib_moves_fit fit;
	size_t n = 0;
	double moves = 0, drain = 0;
	char src[1024];

	if (!runs)
		return error("out of memory"), -1;
	for (size_t i = 0; i < nrows; i++) {
		const struct tl_run_row *w = &rows[i];

		if (w->simulated || w->status != TL_STATUS_OK || !w->has_drain || !(w->moves > 0) || !w->has_directions)
			continue;
		runs[n++] = (struct tl_calib_moves){ w->drain_ns, w->moves, w->to_fast_bytes + w->to_slow_bytes };
		moves += w->moves;
		drain += w->drain_ns;
	}
	if (!n || tl_calibrate_moves(runs, n, &fit)) {
		free(runs);
		return 0;
	}
	free(runs);
	tl_sim_print_moves_fit(stdout, n, moves, drain, &fit);
	snprintf(src, sizeof(src),
		 "tierlab simulate --calibrate: the runtime's drain time over its moves and bytes in %zu measured runs "
		 "of experiment %s", n, experiment);
	o->tm.migration_cost_us = fit.cost_us;
	o->tm.migration_gbs = fit.gbs;
	free(o->tm.migration_source);
	o->tm.migration_source = strdup(src);
	return 1;
}

static int calibrate(struct sim_opts *o, const struct tl_trace *t, const char *spec_path)
{
	struct tl_spec spec = { 0 };
	struct tl_plan plan = { 0 };
	struct tl_store *st = NULL;
	struct tl_run_row *rows = NULL;
	size_t nrows = 0, n = 0, fast = (size_t)-1;
	char *spec_dir = tl_dir_of(spec_path), why[1024] = "", src[2048], name[512];
	struct tl_sim_result *rs = NULL;
	struct tl_calib_point *pts = NULL;
	double *fom = NULL;
	char **labels = NULL;
	int *nruns = NULL, rc = -1, moved;
	bool higher = true;
	struct tl_calib_fit fit;
	FILE *out;

	if (!o->output)
		return error("--calibrate needs -o <file>: where the fitted model is written");
	if (!spec_dir) {
		error("out of memory");
		goto out;
	}
	if (tl_spec_plan(spec_path, o->lists, NULL, o->db, &spec, &plan))
		goto out;
	if (tl_store_open_existing(o->db, &st) || tl_store_query_runs(st, spec.name, &rows, &nrows))
		goto out;
	rs = calloc(plan.nconfigs + 1, sizeof(*rs));
	pts = calloc(plan.nconfigs + 1, sizeof(*pts));
	fom = calloc(plan.nconfigs + 1, sizeof(*fom));
	labels = calloc(plan.nconfigs + 1, sizeof(*labels));
	nruns = calloc(plan.nconfigs + 1, sizeof(*nruns));
	if (!rs || !pts || !fom || !labels || !nruns) {
		error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < plan.nconfigs; i++) {
		const struct tl_config *c = &plan.configs[i];
		char label[256];
		double secs;

		tl_config_describe(&plan, c, label, sizeof(label));
		if (!calibrating_policy(c->values[TL_AXIS_POLICY])) {
			fprintf(stderr, "note: %s: not a placement without migration (all-fast, all-slow, static): not "
					"used to fit the workload's figures\n", label);
			continue;
		}
		fom[n] = measured_fom(rows, nrows, c, &nruns[n], &higher);
		if (!nruns[n]) {
			fprintf(stderr, "note: %s: no measured run in experiment '%s': not used\n", label, spec.name);
			continue;
		}
		if (config_replay(o, t, &plan, c, spec_dir, label, &rs[n], &pts[n].place, &secs))
			goto out;
		if (!(labels[n] = strdup(label))) {
			error("out of memory");
			goto out;
		}
		pts[n].label = labels[n];
		pts[n].r = &rs[n];
		if (tl_policy_binding(c->values[TL_AXIS_POLICY]) == TL_BINDS_FAST)
			fast = n;
		n++;
	}
	moved = calibrate_moves(o, rows, nrows, spec.name);
	if (moved < 0)
		goto out;
	if (fast == (size_t)-1 || n < 3) {
		if (!moved) {
			if (fast == (size_t)-1)
				error("--calibrate: no measured all-fast run of experiment '%s' (the baseline of every "
				      "figure; run the spec with policy all-fast)", spec.name);
			else
				error("--calibrate: %zu measured configurations of experiment '%s'; it needs all-fast "
				      "and at least two more (all-slow, static fractions)", n, spec.name);
			goto out;
		}
		fprintf(stderr, "note: experiment '%s' lacks measured all-fast and two more placements without "
				"migration: the workload's figures are not fitted, only the migration's\n", spec.name);
	} else {
		for (size_t i = 0; i < n; i++)
			pts[i].measured = higher ? fom[i] / fom[fast] : fom[fast] / fom[i];
		if (tl_calibrate(&o->tm, pts, n, &fit)) {
			error("--calibrate: the measurements cannot be fitted");
			goto out;
		}
		tl_sim_print_calibration(stdout, &o->tm, pts, nruns, n, &fit);
		snprintf(src, sizeof(src),
			 "tierlab simulate --calibrate: recording %s replayed in %zu configurations of experiment %s, "
			 "their measured runs' figures of merit relative to all-fast",
			 o->source ? o->source : "-", n, spec.name);
		free(o->tm.workload_source);
		o->tm.workload_source = strdup(src);
	}
	snprintf(name, sizeof(name), "%s+%s", o->tm.name ? o->tm.name : "model", spec.name);
	free(o->tm.name);
	o->tm.name = strdup(name);
	if (!(out = fopen(o->output, "w"))) {
		error("'%s': %s", o->output, strerror(errno));
		goto out;
	}
	rc = tl_tier_model_save(&o->tm, out, why, sizeof(why));
	if (fclose(out) && !rc)
		rc = -errno;
	if (rc)
		error("'%s': %s", o->output, why[0] ? why : strerror(-rc));
	else
		fprintf(stderr, "fitted model written to %s\n", o->output);
out:
	for (size_t i = 0; labels && i < plan.nconfigs; i++)
		free(labels[i]);
	free(labels);
	free(nruns);
	free(fom);
	free(pts);
	free(rs);
	tl_run_rows_free(rows, nrows);
	if (st)
		tl_store_close(st);
	tl_plan_release(&plan);
	tl_spec_release(&spec);
	free(spec_dir);
	return rc;
}

/* ---- the static-placement advisor ---- */

static int advise(const struct sim_opts *o, const struct tl_trace *t)
{
	struct tl_sim_advice a;
	struct tl_budget b;
	char why[1024] = "";
	int rc;

	if (!o->lists[TL_AXIS_BUDGET] || tl_parse_budget(o->lists[TL_AXIS_BUDGET], &b))
		return error("--advise needs one --budget (a size or a percentage of the footprint)");
	if (t->nprocs > 1)
		warning("the trace has %zu processes: advising for the first (pid %d)", t->nprocs, t->procs[0].pid);
	rc = tl_sim_advice_make(t, &b, &a, why, sizeof(why));
	if (rc)
		error("%s", why);
	else
		tl_sim_advice_print(stdout, &t->procs[0], &a);
	tl_sim_advice_release(&a);
	return rc;
}

/* ---- recording and export ---- */

/*
 * What the recording just made is (recording.h): its delivered rate and
 * the machine's last-level cache stored as facts of the run
 * (recording.delivered_hz, recording.llc_bytes, recording.managed_bytes),
 * and a warning when its managed memory fits in that cache or its sampler
 * delivered short. Nothing here fails the recording.
 */
static void describe_recording(const struct sim_opts *o)
{
	struct tl_store *st = NULL;
	struct tl_run_row r = { 0 };
	struct tl_trace t = { 0 };
	struct tl_recording_facts f;
	char why[1024] = "", v[64];
	int64_t eid;

	if (tl_store_open(o->db, &st) || tl_store_get_run_or_latest(st, "latest", true, &r) || !r.out_dir ||
	    tl_trace_load_dir(&t, r.out_dir, why, sizeof(why)))
		goto out;
	tl_recording_facts(&t, tl_llc_bytes(NULL), &f);
	if (f.fits_llc)
		warning("the recording's managed footprint (%.1f MiB) fits in the last-level cache (%.1f MiB): its "
			"accesses are served by the cache, not by a memory tier; record a larger size",
			(double)f.managed_bytes / 1048576.0, (double)f.llc_bytes / 1048576.0);
	if (f.short_rate)
		warning("the sampler delivered %.0f samples/s of the %.0f Hz asked (%.0f%%): replays at rates above "
			"%.0f Hz are not thinned",
			f.delivered_hz, f.asked_hz, 100 * f.delivered_hz / f.asked_hz, f.delivered_hz);
	if (tl_store_run_experiment(st, r.id, &eid))
		goto out;
	snprintf(v, sizeof(v), "%.1f", f.delivered_hz);
	if (tl_store_set_env(st, eid, r.id, "recording.delivered_hz", v))
		goto out;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)f.llc_bytes);
	if (tl_store_set_env(st, eid, r.id, "recording.llc_bytes", v))
		goto out;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)f.managed_bytes);
	tl_store_set_env(st, eid, r.id, "recording.managed_bytes", v);
out:
	tl_trace_release(&t);
	tl_run_row_release(&r);
	if (st)
		tl_store_close(st);
}

static int record(const struct sim_opts *o)
{
	int rc;
	struct run_options ro = { .command = "simulate --record", .db = o->db, .command_line = o->command_line };
	const char *lists[TL_AXIS__COUNT] = { 0 };

	lists[TL_AXIS_POLICY] = "static:0";
	lists[TL_AXIS_LOG] = "log";
	lists[TL_AXIS_RATE] = o->lists[TL_AXIS_RATE] ? o->lists[TL_AXIS_RATE] : "1kHz";
	lists[TL_AXIS_SAMPLER] = o->lists[TL_AXIS_SAMPLER];
	rc = run_spec(o->record, &ro, lists);
	if (!rc)
		describe_recording(o);
	return rc;
}

static int export(const struct sim_opts *o)
{
	char why[1024] = "";
	char *dir = run_dir(o->db, o->export, NULL, NULL, NULL);
	FILE *out;
	int rc;

	if (!dir)
		return -1;
	out = o->output && strcmp(o->output, "-") ? fopen(o->output, "w") : stdout;
	if (!out) {
		free(dir);
		return error("'%s': %s", o->output, strerror(errno));
	}
	rc = tl_trace_export_dir(dir, out, why, sizeof(why));
	if (out != stdout && fclose(out) && !rc)
		rc = -errno;
	free(dir);
	return rc ? error("%s", why[0] ? why : strerror(-rc)) : 0;
}

/* The experiment an imported trace goes under: its file name without directory and extension. */
static void import_name(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *dot;

	snprintf(buf, len, "%s", *base ? base : "trace");
	if ((dot = strrchr(buf, '.')) && dot != buf)
		*dot = '\0';
}

static int import(const struct sim_opts *o)
{
	struct tl_trace t = { 0 };
	struct tl_store *st = NULL;
	char why[1024] = "", name[4096], key[TL_KEY_LEN + 8];
	struct tl_error bad;
	int64_t session = 0;
	int rc = tl_trace_load_file(&t, o->import, why, sizeof(why));

	if (rc) {
		tl_trace_release(&t);
		return error("%s", why);
	}
	import_name(o->import, name, sizeof(name));
	if (tl_name_check("the experiment named after the file", name, &bad)) {
		tl_trace_release(&t);
		tl_error_set(&bad, "--import '%s': %s (rename the file)", o->import, bad.msg);
		return error("%s", bad.msg);
	}
	rc = tl_store_open(o->db, &st);
	rc = rc ?: tl_session_begin(st, o->command_line, &session);
	if (!rc && (rc = tl_sim_store_import(st, o->import, name, session, &t, key, why, sizeof(why))))
		error("%s", why);
	tl_store_close(st);
	tl_trace_release(&t);
	if (!rc)
		printf("imported '%s' as run %s (experiment %s); replay it with: tierlab simulate %s SPEC\n", o->import,
		       key, name, key);
	return rc;
}

int cmd_simulate(int argc, const char **argv)
{
	struct sim_opts o = { .format = TL_SIM_TEXT };
	static const char *const usage[] = {
		"tierlab simulate [<options>] (<run> | --trace <file>) [<spec.yaml>] [--<axis> <v1,v2,...>]...",
		"tierlab simulate --record <spec.yaml> [--rate <rate>]",
		"tierlab simulate --export <run> [-o <file>]",
		"tierlab simulate --import <file>",
		"tierlab simulate --advise (<run> | --trace <file>) --budget <budget>",
		"tierlab simulate --calibrate (<run> | --trace <file>) <spec.yaml> --model <model> -o <file>",
		NULL
	};
	const struct option common[] = {
		OPT_STRING(0, "trace", &o.trace, "file", "replay a trace file (from --export), a tiermem log, or a directory of them, instead of a run"),
		OPT_STRING(0, "record", &o.record, "spec", "run the spec once recording accesses (static:0, log mode, 1kHz)"),
		OPT_STRING(0, "export", &o.export, "run", "write the run's logs as one trace file"),
		OPT_STRING('o', "output", &o.output, "file", "where --export writes (default: stdout), or --calibrate its fitted model"),
		OPT_STRING(0, "import", &o.import, "file", "store a trace file as a recorded run, to replay by its key"),
		OPT_BOOL(0, "advise", &o.advise, "print the static placement that keeps the most samples in --budget"),
		OPT_STRING(0, "model", &o.model, "file", "tier model (experiments/machines/*.yaml, a probe's JSON, or profile:NAME): add the estimate"),
		OPT_INTEGER(0, "seed", &o.seed, "n", "another draw of the thinned ticks' times (1, 2, ...; default: the fixed draw)"),
		OPT_STRING(0, "unmanaged", &o.unmanaged, "size", "the program's memory outside managed allocations (default: the recording's measured footprint)"),
		OPT_BOOL(0, "calibrate", &o.calibrate, "fit the model's workload parameters to the spec's measured all-fast, all-slow and static runs; -o: the fitted model"),
		OPT_BOOL(0, "verify", &o.verify, "replay the run's own configuration and compare with what it did"),
		OPT_BOOL(0, "events", &o.events, "print the replay's samples and migrations (own configuration)"),
		OPT_FORMAT(&o.format, tl_sim_format_names),
		OPT_BOOL(0, "no-store", &o.no_store, "with a spec: print only, store no simulated runs"),
		OPT_DB(&o.db, "results database"),
	};
	struct option options[ARRAY_SIZE(common) + TL_AXIS__COUNT + 2];
	struct tl_trace t = { 0 };
	size_t n = 0;
	int rc;

	for (size_t i = 0; i < ARRAY_SIZE(common); i++)
		options[n++] = common[i];
	options[n++] = (struct option)OPT_GROUP("axes (each replaces the spec's matrix axis; comma-separated values)");
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		options[n++] = (struct option)OPT_STRING(0, tl_axes[a].name, &o.lists[a], "list", tl_axis_help(a));
	options[n] = (struct option)OPT_END();

	o.command_line = invocation(argc, argv);
	argc = parse_options(argc, argv, options, usage);
	if (!o.db)
		o.db = tl_path_default_db();
	if (o.record || o.export || o.import) {
		if (argc)
			usage_with_options(usage, options);
		if (o.record)
			rc = record(&o);	/* run's own exit status */
		else
			rc = (o.export ? export(&o) : import(&o)) ? 2 : 0;
		free(o.command_line);
		return rc;
	}
	if (argc > (o.trace ? 1 : 2) || (!o.trace && argc < 1))
		usage_with_options(usage, options);
	if (o.model) {
		if (load_model(&o))
			return 2;
		if (!o.tm.calibrated)
			fprintf(stderr, "note: model '%s' is not calibrated: the workload is taken as memory-bound and "
					"bandwidth-bound (fit it with tierlab simulate --calibrate)\n",
				o.tm.name ? o.tm.name : o.model);
	}
	if (load_trace(&o, o.trace ? NULL : argv[0], &t) || (o.have_model && unmanaged_share(&o, &t))) {
		rc = 2;
		goto out;
	}
	o.nsamples = tl_trace_samples(&t);
	o.delivered_hz = tl_trace_lowest_hz(&t);
	if (o.calibrate) {
		if (argc != (o.trace ? 1 : 2) || !o.have_model) {
			error("--calibrate needs a recording, a spec and --model");
			rc = 2;
		} else
			rc = calibrate(&o, &t, argv[o.trace ? 0 : 1]) ? 2 : 0;
	} else if (o.advise)
		rc = advise(&o, &t) ? 2 : 0;
	else if (argc == (o.trace ? 1 : 2))
		rc = replay_spec(&o, &t, argv[o.trace ? 0 : 1]) ? 2 : 0;
	else
		rc = replay_own(&o, &t) ? (o.verify ? 1 : 2) : 0;
out:
	free(o.source);
	free(o.command_line);
	tl_trace_release(&t);
	if (o.have_model)
		tl_tier_model_release(&o.tm);
	return rc;
}
