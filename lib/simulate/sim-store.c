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

#include "util/hash.h"
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

int tl_sim_store_run(struct tl_store *st, int64_t experiment_id, const struct tl_config *c, const char *source,
		     const char *command, const struct tl_sim_result *r, const struct tl_tier_model *model,
		     double t0_s, double seconds)
{
	static const char *const dir_metric[TL_SIM__DIRS][2] = {
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
					(double)(r->bytes[TL_SIM_SLOW_TO_FAST] + r->bytes[TL_SIM_FAST_TO_SLOW]), "bytes");
	rc = rc ?: tl_record_add_metric(&rec, "sim.samples", (double)r->samples, NULL);
	rc = rc ?: tl_record_add_metric(&rec, "sim.samples_managed", (double)r->samples_managed, NULL);
	for (int d = 0; d < TL_SIM__DIRS && !rc; d++) {
		rc = tl_record_add_metric(&rec, dir_metric[d][0], (double)r->moves[d], NULL);
		rc = rc ?: tl_record_add_metric(&rec, dir_metric[d][1], (double)r->bytes[d], "bytes");
	}
	rc = rc ?: tl_record_add_metric(&rec, "sim.budget_refused", (double)r->refused, NULL);
	rc = rc ?: tl_record_add_metric(&rec, "sim.fast_mean_bytes", mean, "bytes");
	rc = rc ?: tl_record_add_metric(&rec, "sim.fast_peak_bytes", (double)r->fast_peak_bytes, "bytes");
	for (int i = 0; i < TL_SIM_OCC_POINTS && !rc; i++) {
		snprintf(name, sizeof(name), "sim.fast_bytes.%02d", i);
		rc = tl_record_add_metric(&rec, name, r->occupancy[i], "bytes");
	}
	rc = rc ?: tl_record_add_metric(&rec, "sim.trace_s", t0_s, "s");
	if (model && !rc)
		rc = tl_record_add_metric(&rec, "sim.estimate", tl_tier_model_estimate(model, r, t0_s), NULL);
	rc = rc ?: tl_env_put(&rec.env, "simulate.trace", source);
	if (model && model->name && !rc)
		rc = tl_env_put(&rec.env, "simulate.model", model->name);
	rc = rc ?: tl_store_add_run(st, &rec, NULL);
	tl_record_release(&rec);
	return rc;
}
