/*
 * The plan: a spec's matrix expanded into configurations and runs (see
 * plan.h for the order and the rules). Each combination of matrix values
 * is resolved against the spec's defaults and the axis table, stripped of
 * the axes its policy ignores, given its canonical text and key
 * (plan-key.c), and kept unless an exclude rule or an earlier identical
 * configuration claims it. Also here: selectors (--where, baselines,
 * excludes) and the one-line description of a configuration.
 */
#include "plan/plan.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/hash.h"
#include "util/strings.h"

/* Bounds on the raw product and on the runs, so a typo'd matrix fails fast instead of eating memory. */
#define TL_PLAN_MAX_COMBINATIONS (1u << 20)
#define TL_PLAN_MAX_RUNS (1u << 20)

/* One wheel of the odometer: a lone axis, or a zip group whose axes turn together. */
struct dim {
	enum tl_axis axes[TL_AXIS__COUNT];
	int naxes;
	size_t n;
};

/* Configurations seen so far, by the hash of their canonical text, to drop duplicates. */
struct seen {
	struct seen_slot {
		uint64_t hash;
		size_t idx1;	/* config index + 1; 0 = empty */
	} *slots;
	size_t cap;
};

static int oom(struct tl_error *err)
{
	if (err)
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	return -ENOMEM;
}

static bool in_zip(const struct tl_spec *spec, enum tl_axis a)
{
	/* A zeroed struct has zip_group 0: only groups the spec declared count. */
	return spec->matrix[a].zip_group >= 0 && spec->matrix[a].zip_group < spec->nzip;
}

static int build_dims(const struct tl_spec *spec, struct dim *dims, int *ndims, struct tl_error *err)
{
	*ndims = 0;
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		const struct tl_axis_values *m = &spec->matrix[a];
		struct dim *d;
		bool later = false;

		if (!m->values.n)
			continue;
		if (in_zip(spec, a)) {
			for (int b = 0; b < a && !later; b++)
				later = spec->matrix[b].values.n && in_zip(spec, b) &&
					spec->matrix[b].zip_group == m->zip_group;
			if (later)
				continue;	/* turns with the group's first axis */
		}
		d = &dims[(*ndims)++];
		d->naxes = 0;
		d->n = m->values.n;
		d->axes[d->naxes++] = a;
		if (!in_zip(spec, a))
			continue;
		for (int b = a + 1; b < TL_AXIS__COUNT; b++) {
			const struct tl_axis_values *o = &spec->matrix[b];

			if (!o->values.n || !in_zip(spec, b) || o->zip_group != m->zip_group)
				continue;
			if (o->values.n != m->values.n)
				return tl_error_set(err, "zip: axis '%s' has %zu values but '%s' has %zu; "
						    "zipped axes need the same number",
						    tl_axes[b].name, o->values.n, tl_axes[a].name, m->values.n);
			d->axes[d->naxes++] = b;
		}
	}
	return 0;
}

static const struct tl_size_preset *find_size(const struct tl_workload *wl, const char *name)
{
	for (size_t i = 0; i < wl->nsizes; i++)
		if (!strcmp(wl->sizes[i].name, name))
			return &wl->sizes[i];
	return NULL;
}

static int no_such_size(const struct tl_workload *wl, const char *size, struct tl_error *err)
{
	char list[512];
	size_t n = 0;

	list[0] = '\0';
	for (size_t i = 0; i < wl->nsizes && n < sizeof(list); i++)
		n += snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", wl->sizes[i].name);
	if (!wl->nsizes)
		return tl_error_set(err, "workload '%s' has no size presets, so size '%s' does not apply",
				    wl->name, size);
	return tl_error_set(err, "workload '%s' has no size '%s' (sizes: %s)", wl->name, size, list);
}

/*
 * The values of one combination: matrix, else spec default, else the axis
 * table's default; then the workload and its size; then the axes the
 * policy ignores are dropped, and the policy arguments it does not take.
 * Strings point into spec or the axis table, the arguments into *args
 * (malloc'd, the caller's to free).
 */
static int resolve(const struct tl_spec *spec, const struct dim *dims, int ndims, const size_t *idx,
		   const char *vals[TL_AXIS__COUNT], const struct tl_workload **wlp,
		   const struct tl_size_preset **presetp, char **args, struct tl_error *err)
{
	const struct tl_workload *wl;
	const char *policy;
	bool managed;

	for (int a = 0; a < TL_AXIS__COUNT; a++)
		vals[a] = spec->defaults[a] ? spec->defaults[a] : tl_axes[a].def;
	for (int d = 0; d < ndims; d++)
		for (int k = 0; k < dims[d].naxes; k++)
			vals[dims[d].axes[k]] = spec->matrix[dims[d].axes[k]].values.v[idx[d]];
	if (!vals[TL_AXIS_WORKLOAD])
		vals[TL_AXIS_WORKLOAD] = spec->workloads[0].name;
	wl = tl_spec_workload(spec, vals[TL_AXIS_WORKLOAD]);
	if (!wl)
		return tl_error_set(err, "unknown workload '%s'", vals[TL_AXIS_WORKLOAD]);
	if (!vals[TL_AXIS_SIZE])
		vals[TL_AXIS_SIZE] = wl->default_size;
	policy = vals[TL_AXIS_POLICY];
	if (!policy)
		return tl_error_set(err, "no policy: the spec sets none and the axis has no default");
	/* a memory policy of scope managed is on what the runtime manages: the threshold says what that is */
	managed = tl_policy_managed_scope(policy, vals[TL_AXIS_POLICY_ARGS]);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		if (a != TL_AXIS_POLICY && a != TL_AXIS_WORKLOAD && vals[a] && !tl_axis_applies(a, policy) &&
		    !(managed && a == TL_AXIS_THRESHOLD))
			vals[a] = NULL;
	/* of the policy's arguments, those it takes */
	if (tl_policy_args_for(policy, vals[TL_AXIS_POLICY_ARGS], args))
		return tl_error_set(err, "out of memory");
	vals[TL_AXIS_POLICY_ARGS] = *args;
	*presetp = NULL;
	if (vals[TL_AXIS_SIZE]) {
		*presetp = find_size(wl, vals[TL_AXIS_SIZE]);
		if (!*presetp)
			return no_such_size(wl, vals[TL_AXIS_SIZE], err);
	}
	*wlp = wl;
	return 0;
}

static bool excluded(const struct tl_spec *spec, const char *vals[TL_AXIS__COUNT])
{
	for (size_t i = 0; i < spec->nexclude; i++)
		if (tl_selector_matches(&spec->exclude[i], (char *const *)vals))
			return true;
	return false;
}

/* Index of the configuration with this canonical text, or -1; *slot is where a new one goes. */
static long seen_find(const struct seen *s, const struct tl_config *configs, uint64_t h,
		      const char *canonical, size_t *slot)
{
	size_t i = h & (s->cap - 1);

	while (s->slots[i].idx1) {
		if (s->slots[i].hash == h && !strcmp(configs[s->slots[i].idx1 - 1].canonical, canonical))
			return (long)s->slots[i].idx1 - 1;
		i = (i + 1) & (s->cap - 1);
	}
	*slot = i;
	return -1;
}

static int seen_grow(struct seen *s)
{
	size_t cap = s->cap ? 2 * s->cap : 64;
	struct seen_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->slots[i].idx1)
			continue;
		for (j = s->slots[i].hash & (cap - 1); slots[j].idx1; j = (j + 1) & (cap - 1))
			;
		slots[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

static int copy_argv(struct tl_strlist *argv, const struct tl_workload *wl,
		     const struct tl_size_preset *preset)
{
	size_t nargs = preset ? preset->args.n : 0;

	argv->v = calloc(wl->command.n + nargs + 1, sizeof(*argv->v));
	if (!argv->v)
		return -ENOMEM;
	for (size_t i = 0; i < wl->command.n + nargs; i++) {
		const char *s = i < wl->command.n ? wl->command.v[i] : preset->args.v[i - wl->command.n];

		argv->v[i] = strdup(s);
		if (!argv->v[i])
			return -ENOMEM;
		argv->n++;
	}
	return 0;
}

/* Takes canonical; on failure the caller's plan release frees what was filled. */
static int add_config(struct tl_plan *plan, size_t *cap, const char *vals[TL_AXIS__COUNT],
		      const struct tl_workload *wl, const struct tl_size_preset *preset, char *canonical)
{
	struct tl_config *c;

	if (plan->nconfigs == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		struct tl_config *p = realloc(plan->configs, ncap * sizeof(*p));

		if (!p) {
			free(canonical);
			return -ENOMEM;
		}
		plan->configs = p;
		*cap = ncap;
	}
	c = &plan->configs[plan->nconfigs++];
	memset(c, 0, sizeof(*c));
	c->canonical = canonical;
	c->workload = wl;
	tl_hash_hex(canonical, strlen(canonical), c->key);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		if (vals[a] && !(c->values[a] = strdup(vals[a])))
			return -ENOMEM;
	return copy_argv(&c->argv, wl, preset);
}

static void mark_varying(struct tl_plan *plan)
{
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		const char *first = NULL;

		plan->varies[a] = plan->spec->matrix[a].values.n > 0;
		for (size_t i = 0; i < plan->nconfigs && !plan->varies[a]; i++) {
			const char *v = plan->configs[i].values[a];

			if (v && !first)
				first = v;
			else if (v && strcmp(v, first))
				plan->varies[a] = true;
		}
	}
}

static int make_runs(struct tl_plan *plan)
{
	int reps = plan->spec->repetitions;

	plan->runs = calloc(plan->nconfigs * reps + 1, sizeof(*plan->runs));
	if (!plan->runs)
		return -ENOMEM;
	for (size_t i = 0; i < plan->nconfigs; i++) {
		for (int r = 1; r <= reps; r++) {
			struct tl_run *run = &plan->runs[plan->nruns++];

			run->config = &plan->configs[i];
			run->rep = r;
			/* check_spec keeps r below 100000, which the modulo tells the compiler */
			snprintf(run->key, sizeof(run->key), "%.16s-r%u", plan->configs[i].key,
				 (unsigned)r % 100000u);
		}
	}
	return 0;
}

static int check_spec(const struct tl_spec *spec, struct tl_error *err)
{
	if (!spec->nworkloads)
		return tl_error_set(err, "spec '%s' has no workload", spec->name ? spec->name : "?");
	/* "-r<rep>" must fit the run key */
	if (spec->repetitions < 1 || spec->repetitions > 99999)
		return tl_error_set(err, "repetitions must be between 1 and 99999, not %d", spec->repetitions);
	return 0;
}

/* Product of the wheels' sizes, or 0 when it passes the bound (*over: the wheel that passed it). */
static size_t combinations(const struct dim *dims, int ndims, int *over)
{
	size_t total = 1;

	for (int d = 0; d < ndims; d++) {
		if (dims[d].n > TL_PLAN_MAX_COMBINATIONS / total) {
			*over = d;
			return 0;
		}
		total *= dims[d].n;
	}
	return total;
}

/* The runs the configurations make with the spec's repetitions, within TL_PLAN_MAX_RUNS. */
static int check_runs(const struct tl_plan *plan, struct tl_error *err)
{
	const struct tl_spec *spec = plan->spec;
	size_t runs = plan->nconfigs * (size_t)spec->repetitions;

	if (runs <= TL_PLAN_MAX_RUNS)
		return 0;
	return tl_spec_error(spec, &spec->repetitions_loc, err, "repetitions: %zu configurations x %d "
			     "repetitions = %zu runs, more than a plan may hold (%u); split the experiment",
			     plan->nconfigs, spec->repetitions, runs, TL_PLAN_MAX_RUNS);
}

/* A resolved combination: dropped when excluded or already planned, else a new configuration. */
static int add_combination(struct tl_plan *plan, size_t *cap, struct seen *seen, const char *vals[TL_AXIS__COUNT],
			   const struct tl_workload *wl, const struct tl_size_preset *preset)
{
	char *canonical;
	size_t slot = 0;
	uint64_t h;

	if (excluded(plan->spec, vals))
		return 0;
	if (2 * (plan->nconfigs + 1) > seen->cap && seen_grow(seen))
		return -ENOMEM;
	if (tl_plan_canonical(plan->spec, vals, wl, preset, &canonical))
		return -ENOMEM;
	h = tl_hash64(canonical, strlen(canonical));
	if (seen_find(seen, plan->configs, h, canonical, &slot) >= 0) {
		free(canonical);
		return 0;
	}
	if (add_config(plan, cap, vals, wl, preset, canonical))
		return -ENOMEM;
	seen->slots[slot].hash = h;
	seen->slots[slot].idx1 = plan->nconfigs;
	return 0;
}

int tl_plan_build(const struct tl_spec *spec, struct tl_plan *plan, struct tl_error *err)
{
	struct dim dims[TL_AXIS__COUNT];
	size_t idx[TL_AXIS__COUNT] = { 0 };
	struct seen seen = { 0 };
	size_t cap = 0, total;
	int ndims, over = 0, rc;

	memset(plan, 0, sizeof(*plan));
	plan->spec = spec;
	rc = check_spec(spec, err);
	rc = rc ?: build_dims(spec, dims, &ndims, err);
	if (rc)
		goto fail;
	total = combinations(dims, ndims, &over);
	if (!total) {
		enum tl_axis a = dims[over].axes[0];

		/* no place in the file: the axis came from the command line (sweep --<axis>) */
		rc = tl_spec_error(spec, &spec->matrix[a].loc, err, "%s%s: with this axis the matrix expands "
				   "to more than %u combinations; split the experiment",
				   spec->matrix[a].loc.line ? "matrix." : "--", tl_axes[a].name,
				   TL_PLAN_MAX_COMBINATIONS);
		goto fail;
	}
	for (size_t k = 0; k < total; k++) {
		const char *vals[TL_AXIS__COUNT];
		const struct tl_workload *wl = NULL;
		const struct tl_size_preset *preset = NULL;
		char *args = NULL;

		rc = resolve(spec, dims, ndims, idx, vals, &wl, &preset, &args, err);
		if (!rc)
			rc = add_combination(plan, &cap, &seen, vals, wl, preset);
		free(args);
		if (rc == -ENOMEM)
			goto nomem;
		if (rc)
			goto fail;
		/* the last wheel turns fastest */
		for (int d = ndims - 1; d >= 0 && ++idx[d] == dims[d].n; d--)
			idx[d] = 0;
	}
	if (!plan->nconfigs && spec->nexclude) {
		/* exclude rules that drop every configuration leave nothing to run: the spec's mistake */
		rc = tl_spec_error(spec, &spec->exclude_loc, err, "matrix.exclude: the rules drop every "
				   "configuration; nothing would run");
		goto fail;
	}
	if ((rc = check_runs(plan, err)))
		goto fail;
	if (make_runs(plan))
		goto nomem;
	mark_varying(plan);
	free(seen.slots);
	return 0;
nomem:
	rc = oom(err);
fail:
	free(seen.slots);
	tl_plan_release(plan);
	plan->spec = spec;
	return rc;
}

void tl_plan_release(struct tl_plan *plan)
{
	for (size_t i = 0; plan->configs && i < plan->nconfigs; i++) {
		struct tl_config *c = &plan->configs[i];

		for (int a = 0; a < TL_AXIS__COUNT; a++)
			free(c->values[a]);
		for (size_t j = 0; j < c->argv.n; j++)
			free(c->argv.v[j]);
		free(c->argv.v);
		free(c->canonical);
	}
	free(plan->configs);
	free(plan->runs);
	memset(plan, 0, sizeof(*plan));
}

bool tl_selector_matches(const struct tl_selector *sel, char *const values[TL_AXIS__COUNT])
{
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		const char *want = sel->values[a], *have = values[a];
		char base[64];

		if (!want)
			continue;
		if (!have)
			return false;
		if (!strcmp(want, have))
			continue;
		/* "static" picks every static:F,F,... configuration */
		if (a == TL_AXIS_POLICY && !strchr(want, ':') && strchr(have, ':') &&
		    !strcmp(tl_policy_base(have, base, sizeof(base)), want))
			continue;
		return false;
	}
	return true;
}

/* Adds "name=value" to sel; value may be a policy base such as "static". */
static int selector_set(struct tl_selector *sel, const char *name, const char *value,
			struct tl_error *err)
{
	const char *names[TL_AXIS__COUNT + 1];
	struct tl_error why;
	const char *hint;
	int a;

	for (int i = 0; i < TL_AXIS__COUNT; i++)
		names[i] = tl_axes[i].name;
	names[TL_AXIS__COUNT] = NULL;
	a = tl_axis_lookup(name);
	if (a < 0) {
		hint = tl_did_you_mean(name, names);
		if (hint)
			return tl_error_set(err, "--where: unknown axis '%s' (did you mean '%s'?)", name, hint);
		return tl_error_set(err, "--where: unknown axis '%s'", name);
	}
	if (sel->values[a])
		return tl_error_set(err, "--where: axis '%s' given twice", name);
	if (a == TL_AXIS_POLICY && !strcmp(value, "static")) {
		sel->values[a] = strdup(value);
		return sel->values[a] ? 0 : oom(err);
	}
	why.msg[0] = '\0';
	if (tl_axis_canonical(a, value, &sel->values[a], &why)) {
		sel->values[a] = NULL;
		return tl_error_set(err, "--where: %s: %s", name, why.msg);
	}
	return 0;
}

/*
 * A comma also separates the fractions of "static:1,0.5": a piece without
 * '=' continues the previous value, so cut at a comma only before "NAME=".
 */
int tl_selector_parse(const char *text, struct tl_selector *sel, struct tl_error *err)
{
	char *copy = strdup(text), *p;
	int rc = 0;

	memset(sel, 0, sizeof(*sel));
	if (!copy)
		return oom(err);
	for (p = copy; *p;) {
		char *eq = strchr(p, '='), *end, *comma;

		if (!eq || (strchr(p, ',') && strchr(p, ',') < eq)) {
			rc = tl_error_set(err, "--where: expected AXIS=VALUE, got '%.*s'",
					  (int)strcspn(p, ","), p);
			goto out;
		}
		/* the value runs to the last comma before the next "NAME=" */
		end = eq + strlen(eq);
		for (comma = strchr(eq, ','); comma; comma = strchr(comma + 1, ',')) {
			char *next_eq = strchr(comma, '=');
			char *next_comma = strchr(comma + 1, ',');

			if (next_eq && (!next_comma || next_eq < next_comma)) {
				end = comma;
				break;
			}
		}
		*eq = '\0';
		if (*end)
			*end++ = '\0';
		rc = selector_set(sel, tl_trim(p), tl_trim(eq + 1), err);
		if (rc)
			goto out;
		p = end;
	}
	if (p == copy)
		rc = tl_error_set(err, "--where: no AXIS=VALUE given");
out:
	free(copy);
	if (rc)
		tl_selector_release(sel);
	return rc;
}

void tl_selector_release(struct tl_selector *sel)
{
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		free(sel->values[a]);
	memset(sel, 0, sizeof(*sel));
}

/* snprintf semantics: returns the length of the whole description, writes what fits. */
int tl_config_describe(const struct tl_plan *plan, const struct tl_config *c, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		if (!c->values[a] || !plan->varies[a])
			continue;
		n += snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, "%s%s=%s", n ? " " : "",
			      tl_axes[a].name, c->values[a]);
	}
	if (!n && c->values[TL_AXIS_POLICY])
		n = snprintf(buf, len, "policy=%s", c->values[TL_AXIS_POLICY]);
	return (int)n;
}
