/*
 * The experiment's record, stored once per invocation before its runs:
 * the spec (its text, hash and absolute path), its baseline, the host and
 * the environment every run shares.
 */
#include "run/experiment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "measure/environment.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/nodeset.h"
#include "util/version.h"

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

int tl_experiment_store(struct tl_store *st, const struct tl_spec *spec, int64_t *id)
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
		.created_at = tl_wall_s(),
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
