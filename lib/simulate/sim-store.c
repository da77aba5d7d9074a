/*
 * Replays into the store (see sim-store.h).
 */
#include "simulate/sim-store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

#include "util/fs.h"
#include "util/hash.h"
#include "util/units.h"
#include "util/version.h"

static double now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int tl_sim_store_experiment(struct tl_store *st, const struct tl_spec *spec, const char *source,
			    const struct tl_env *base, int64_t *id)
{
	char baseline[1024] = "", desc[1024];
	char *spec_path = spec->path ? realpath(spec->path, NULL) : NULL;
	struct tl_env env = { 0 };
	struct utsname u;
	size_t n = 0;
	int rc;
	struct tl_experiment_record e = {
		.name = spec->name, .description = desc, .spec_path = spec_path ? spec_path : spec->path,
		.spec_text = spec->text, .spec_hash = spec->hash, .tierlab_version = tl_version,
		.created_at = now_wall(), .env = &env,
	};

	for (int a = 0; a < TL_AXIS__COUNT; a++)
		if (spec->baseline.values[a] && n < sizeof(baseline))
			n += (size_t)snprintf(baseline + n, sizeof(baseline) - n, "%s%s=%s", n ? "," : "",
					      tl_axes[a].name, spec->baseline.values[a]);
	e.baseline = n ? baseline : NULL;
	snprintf(desc, sizeof(desc), "simulated from %s", source);
	if (!uname(&u)) {
		e.host = u.nodename;
		e.kernel = u.release;
	}
	rc = 0;
	for (size_t i = 0; base && i < base->n && !rc; i++)
		rc = tl_env_put(&env, base->v[i].key, base->v[i].value);
	rc = rc ?: tl_env_put(&env, "simulate.trace", source);
	rc = rc ?: tl_store_add_experiment(st, &e, id);
	tl_env_release(&env);
	free(spec_path);
	return rc;
}

int tl_sim_store_run(struct tl_store *st, int64_t experiment_id, int64_t session, const struct tl_config *c,
		     const char *source, const char *command, const struct tl_sim_result *r, const struct tl_tier_model *model,
		     const struct tl_model_place *pl, double t0_s, double seconds)
{
	static const char *const dir_metric[TL_DIR__COUNT][2] = {
		{ "sim.mig_initial_fast", "sim.bytes_initial_fast" }, { "sim.mig_initial_slow", "sim.bytes_initial_slow" },
		{ "sim.mig_slow_to_fast", "sim.bytes_slow_to_fast" }, { "sim.mig_fast_to_slow", "sim.bytes_fast_to_slow" },
	};
	char config_key[TL_KEY_LEN + 8], run_key[TL_KEY_LEN + 32], tag[17], name[32];
	double end = now_wall(), mean = 0;
	struct tl_run_result res = {
		.status = TL_STATUS_OK, .exit_code = -1, .wall = seconds, .user = seconds,
		.started_at = end - seconds, .ended_at = end,
	};
	struct tl_run_record rec = { 0 };
	int rc = 0;

	tl_hash_hex(source, strlen(source), tag);
	snprintf(config_key, sizeof(config_key), "%s-sim", c->key);
	snprintf(run_key, sizeof(run_key), "%s-sim-%.8s", c->key, tag);
	rec.experiment_id = experiment_id;
	rec.session_id = session;
	rec.run_key = run_key;
	rec.config_key = config_key;
	rec.rep = 1;
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		rec.values[a] = c->values[a];
	rec.command = command;
	rec.result = &res;
	rec.simulated = true;
	for (int i = 0; i < TL_SIM_OCC_POINTS; i++)
		mean += r->occupancy[i] / TL_SIM_OCC_POINTS;
	if (r->samples_managed)
		rc = tl_record_add_metric(&rec, "hit_rate", tl_sim_hit_rate(r), NULL);
	rc = rc ?: tl_record_add_metric(&rec, "migrated_bytes",
					(double)(r->bytes[TL_DIR_SLOW_TO_FAST] + r->bytes[TL_DIR_FAST_TO_SLOW]), "bytes");
	rc = rc ?: tl_record_add_metric(&rec, "sim.samples", (double)r->samples, NULL);
	rc = rc ?: tl_record_add_metric(&rec, "sim.samples_managed", (double)r->samples_managed, NULL);
	for (int d = 0; d < TL_DIR__COUNT && !rc; d++) {
		rc = tl_record_add_metric(&rec, dir_metric[d][0], (double)r->moves[d], NULL);
		rc = rc ?: tl_record_add_metric(&rec, dir_metric[d][1], (double)r->bytes[d], "bytes");
	}
	rc = rc ?: tl_record_add_metric(&rec, "sim.budget_refused", (double)r->refused, NULL);
	rc = rc ?: tl_record_add_metric(&rec, "sim.samples_in_motion", (double)r->in_motion, NULL);
	rc = rc ?: tl_record_add_metric(&rec, "sim.fast_mean_bytes", mean, "bytes");
	rc = rc ?: tl_record_add_metric(&rec, "sim.fast_peak_bytes", (double)r->fast_peak_bytes, "bytes");
	for (int i = 0; i < TL_SIM_OCC_POINTS && !rc; i++) {
		snprintf(name, sizeof(name), "sim.fast_bytes.%02d", i);
		rc = tl_record_add_metric(&rec, name, r->occupancy[i], "bytes");
	}
	rc = rc ?: tl_record_add_metric(&rec, "sim.trace_s", t0_s, "s");
	if (model && !rc)
		rc = tl_record_add_metric(&rec, "sim.estimate", tl_tier_model_estimate(model, r, pl), NULL);
	rc = rc ?: tl_env_put(&rec.env, "simulate.trace", source);
	if (model && model->name && !rc)
		rc = tl_env_put(&rec.env, "simulate.model", model->name);
	rc = rc ?: tl_store_add_run(st, &rec, NULL);
	tl_record_release(&rec);
	return rc;
}

/* hit rate and migrated bytes as the run logged them */
static int recorded_metrics(struct tl_run_record *rec, const struct tl_trace *t)
{
	uint64_t hits = 0, managed = 0, bytes = 0;
	int rc = 0;

	for (size_t i = 0; i < t->nprocs; i++) {
		const struct tl_trace_proc *p = &t->procs[i];

		for (size_t e = 0; e < p->nev; e++) {
			if (p->ev[e].kind != TL_EV_SAMPLE || p->chunks[e] < 0)
				continue;
			managed++;
			hits += p->ev[e].hit;
		}
		for (size_t m = 0; m < p->nmoves; m++)
			if (p->moves[m].ok && (p->moves[m].dir == TL_DIR_SLOW_TO_FAST ||
					       p->moves[m].dir == TL_DIR_FAST_TO_SLOW))
				bytes += p->moves[m].bytes;
	}
	if (managed)
		rc = tl_record_add_metric(rec, "hit_rate", (double)hits / (double)managed, NULL);
	return rc ?: tl_record_add_metric(rec, "migrated_bytes", (double)bytes, "bytes");
}

int tl_sim_store_import(struct tl_store *st, const char *path, const char *name, int64_t session,
			const struct tl_trace *t,
			char *key, char *why, size_t whylen)
{
	const struct tl_trace_params *pp = t->nprocs ? &t->procs[0].p : NULL;
	char tag[17], dir[4096], config_key[TL_KEY_LEN + 1], policy[600], rate[32], threshold[32], desc[1024];
	const char *results = tl_store_dir(st);
	double now = now_wall();
	struct tl_run_result res = { .status = TL_STATUS_OK, .exit_code = -1, .started_at = now, .ended_at = now };
	struct tl_experiment_record e = { .name = name, .description = desc, .spec_path = path,
					  .tierlab_version = tl_version, .created_at = now };
	struct tl_run_record rec = { 0 };
	struct tl_env env = { 0 };
	size_t used = 0;
	int64_t exp_id;
	int rc;

	if (!pp || !pp->known)
		return snprintf(why, whylen, "'%s': no P record (a log from before the runtime wrote one)", path), -EINVAL;
	{
		/* the key names the content: the same trace imported twice is the same run */
		char buf[8192];
		FILE *f = fopen(path, "r");
		uint64_t h = 0x9E3779B97F4A7C15ULL;
		size_t n;

		while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
			h = tl_hash64(buf, n) ^ (h * 0x100000001B3ULL);
		if (f)
			fclose(f);
		snprintf(tag, sizeof(tag), "%016llx", (unsigned long long)h);
	}
	snprintf(dir, sizeof(dir), "%s/imported/%s", results ? results : ".", tag);
	if (tl_mkdir_p(dir))
		return snprintf(why, whylen, "'%s': %s", dir, strerror(errno)), -errno;
	rc = tl_trace_split_file(path, dir, why, whylen);
	if (rc == -EEXIST)
		return snprintf(why, whylen, "'%s' was imported already (%s)", path, dir), rc;
	if (rc)
		return rc;
	used = (size_t)snprintf(policy, sizeof(policy), "%s", pp->policy);
	for (uint32_t i = 0; i < pp->nfractions && used + 24 < sizeof(policy); i++)
		used += (size_t)snprintf(policy + used, sizeof(policy) - used, "%s%g", i ? "," : ":", pp->fractions[i]);
	tl_format_rate(rate, sizeof(rate), pp->rate_hz);
	tl_format_size(threshold, sizeof(threshold), pp->threshold);
	snprintf(desc, sizeof(desc), "trace imported from %s", path);
	rc = tl_env_put(&env, "simulate.imported", path);
	e.env = &env;
	rc = rc ?: tl_store_add_experiment(st, &e, &exp_id);
	tl_env_release(&env);
	if (rc)
		return snprintf(why, whylen, "cannot store the import"), rc;
	snprintf(config_key, sizeof(config_key), "%.16s", tag);
	snprintf(key, TL_KEY_LEN + 8, "%.16s-r1", tag);
	rec.experiment_id = exp_id;
	rec.session_id = session;
	rec.run_key = key;
	rec.config_key = config_key;
	rec.rep = 1;
	rec.values[TL_AXIS_POLICY] = policy;
	rec.values[TL_AXIS_RATE] = rate;
	rec.values[TL_AXIS_THRESHOLD] = threshold;
	rec.values[TL_AXIS_LOG] = "log";
	rec.command = desc;
	rec.out_dir = dir;
	rec.result = &res;
	rc = recorded_metrics(&rec, t) ?: tl_env_put(&rec.env, "simulate.imported", path);
	rc = rc ?: tl_store_add_run(st, &rec, NULL);
	tl_record_release(&rec);
	if (rc)
		snprintf(why, whylen, "cannot store the import");
	return rc;
}
