/*
 * A plan: the spec's matrix expanded into configurations, each run
 * `repetitions` times. Axes that do not apply to a configuration's policy
 * are dropped (value NULL) before duplicates are removed, so e.g. all-fast
 * is planned once whatever the chunks and rate axes hold.
 *
 * Expansion order is stable: the cartesian product of the matrix axes in
 * enum tl_axis order, the first axis varying slowest, zip groups advancing
 * together at the position of their first axis; duplicates keep their
 * first position; exclude rules drop matching configurations, and when
 * they drop every one the plan fails with the spec's exclude: line (a
 * mistake in the spec that only expansion can see).
 *
 * Keys: a configuration's key is a hash of its canonical text (every
 * applicable axis "name=value", the workload's resolved command, env and
 * fom, and the machine node sets), so it stays the same across runs of
 * tierlab and changes when anything that affects the run changes. A run
 * key is the configuration key and "-rN" (N from 1).
 */
#ifndef TL_PLAN_H
#define TL_PLAN_H

#include <stddef.h>
#include "spec/spec.h"

#define TL_KEY_LEN 16		/* hex digits of a configuration key */

struct tl_config {
	char *values[TL_AXIS__COUNT];	/* canonical; NULL = does not apply */
	const struct tl_workload *workload;
	struct tl_strlist argv;		/* the full command for this configuration */
	char *canonical;		/* the hashed text */
	char key[TL_KEY_LEN + 1];
};

struct tl_run {
	const struct tl_config *config;
	int rep;			/* 1-based */
	char key[TL_KEY_LEN + 8];	/* "<config key>-r<rep>" */
};

struct tl_plan {
	const struct tl_spec *spec;
	struct tl_config *configs;
	size_t nconfigs;
	struct tl_run *runs;		/* configs x repetitions, config-major */
	size_t nruns;
	/* In the matrix, or two configurations hold different values: what describe shows. */
	bool varies[TL_AXIS__COUNT];
};

/*
 * Expands spec into plan. Returns 0, or -EINVAL with err (zip lengths
 * differ; "FILE:LINE:COL: matrix.exclude: the rules drop every
 * configuration; nothing would run").
 */
int tl_plan_build(const struct tl_spec *spec, struct tl_plan *plan, struct tl_error *err);
void tl_plan_release(struct tl_plan *plan);

/*
 * The canonical text of one configuration into *out (malloc'd): a
 * "name=value" line for each axis in values that is set, in enum order,
 * then command (argv joined with \x1f, size preset args included), env,
 * dir, fom (regex, \x1f and file), fast, slow, cpus and events. An unset
 * field adds no line, so a field added later leaves old keys alone; so
 * does rate=10Hz and sampler=fault for a static policy, which ran at those
 * before either applied to it. Returns 0 or -ENOMEM.
 */
int tl_plan_canonical(const struct tl_spec *spec, const char *const values[TL_AXIS__COUNT],
		      const struct tl_workload *wl, const struct tl_size_preset *preset, char **out);

/*
 * Does config match selector? A selector value matches a config value when
 * equal, or when the selector names a policy base ("static") and the config
 * holds a variant of it ("static:1,0"). A selector value for an axis the
 * config does not have does not match.
 */
bool tl_selector_matches(const struct tl_selector *sel, char *const values[TL_AXIS__COUNT]);

/*
 * Parses "KEY=VALUE[,KEY=VALUE...]" (axis names, values canonicalised) into
 * sel, for --where. Returns 0 or -EINVAL with err.
 */
int tl_selector_parse(const char *text, struct tl_selector *sel, struct tl_error *err);
void tl_selector_release(struct tl_selector *sel);

/*
 * "policy=lru chunks=8 rate=10Hz" — the applicable axes that vary in the
 * plan (plan->varies), for display; "policy=X" when none does. Returns the
 * length of the whole text and writes what fits (snprintf semantics).
 */
int tl_config_describe(const struct tl_plan *plan, const struct tl_config *c, char *buf, size_t len);

#endif
