/*
 * Experiment specs (see spec.h and docs/spec.md): the top level of the
 * file, the machine, the defaults for every axis, repetitions and timeout,
 * and the command line's replacement of a matrix axis. The workload and
 * matrix sections live in spec-workload.c and spec-matrix.c.
 *
 * Sections are read in dependency order (workloads, then the defaults, then
 * the matrix, then baseline:) because later ones are checked against
 * earlier ones: a matrix size must be a preset of its workloads, a baseline
 * must name a configuration the matrix produces.
 */
#include "spec/spec-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/hash.h"
#include "util/name.h"
#include "util/nodeset.h"
#include "util/units.h"

static const char *const top_keys[] = {
	"name", "description", "workload", "workloads", "machine", "allocator", "policy", "runtime",
	"events", "repetitions", "timeout", "baseline", "matrix", "launch", "slurm", NULL
};
static const char *const machine_keys[] = { "fast", "slow", "cpus", NULL };
/* runtime: takes the axes the runtime reads (those with a variable of its own). */
static const char *const runtime_keys[] = {
#define TL_RUNTIME_KEY(id, name, ...) name,
	TL_RUNTIME_AXES(TL_RUNTIME_KEY)
#undef TL_RUNTIME_KEY
	NULL
};

#define NODE_SYNTAX "numactl node syntax: 0, 0-3, 1,3, all, !2"

static int parse_workloads(struct tl_yaml *y, yaml_node_t *root, const char *dir, struct tl_spec *spec)
{
	yaml_node_t *one, *many, *onekey, *manykey, *item;
	struct tl_seen seen;
	char f[TL_FIELD_MAX];
	int rc = 0;

	one = tl_yaml_get(y, root, "workload", &onekey);
	many = tl_yaml_get(y, root, "workloads", &manykey);
	if (one && many)
		return tl_yaml_error(y, manykey, "workloads: give either workload: (one) or workloads: (a list), "
				     "not both");
	if (!one && !many)
		return tl_yaml_error(y, root, "a spec needs workload: (a map such as {name: hpcg, size: small}) "
				     "or workloads: (a list of them)");
	if (one) {
		spec->workloads = calloc(1, sizeof(*spec->workloads));
		if (!spec->workloads)
			return tl_error_set(y->err, "out of memory");
		spec->nworkloads = 1;
		return tl_spec_parse_workload(y, one, "workload", TL_WL_SPEC, dir, &spec->workloads[0],
					      &spec->defaults[TL_AXIS_SIZE], &spec->defaults[TL_AXIS_THREADS]);
	}
	if (tl_yaml_expect_list(y, many, "workloads", "a list of workload maps"))
		return -EINVAL;
	if (!tl_yaml_count(many))
		return tl_yaml_error(y, many, "workloads: the list is empty");
	spec->workloads = calloc(tl_yaml_count(many), sizeof(*spec->workloads));
	if (!spec->workloads)
		return tl_error_set(y->err, "out of memory");
	if (tl_seen_init(&seen, tl_yaml_count(many)))
		return tl_error_set(y->err, "out of memory");
	tl_yaml_for_items(y, many, i, item) {
		const char *name;
		char idx[32];
		bool fresh;

		snprintf(idx, sizeof(idx), "[%zu]", i);
		spec->nworkloads++;
		if (tl_spec_parse_workload(y, item, tl_yaml_field(f, "workloads", idx), TL_WL_LIST, dir,
					   &spec->workloads[i], NULL, NULL)) {
			rc = -EINVAL;
			break;
		}
		name = spec->workloads[i].name;
		if (!tl_seen_add(&seen, name, strlen(name), i, &fresh)) {
			rc = tl_error_set(y->err, "out of memory");
			break;
		}
		if (!fresh) {
			rc = tl_yaml_error(y, item, "%s: a second workload named '%s'; give each a distinct name:", f,
					   name);
			break;
		}
	}
	tl_seen_release(&seen);
	return rc;
}

static int parse_machine(struct tl_yaml *y, yaml_node_t *n, struct tl_spec *spec)
{
	struct tl_machine *m = &spec->machine;
	char **slots[] = { &m->fast, &m->slow, &m->cpus };
	struct tl_loc *locs[] = { &m->fast_loc, &m->slow_loc, &m->cpus_loc };
	char f[TL_FIELD_MAX];
	int rc;

	m->loc = tl_yaml_loc(n);
	if (n->type == YAML_SCALAR_NODE && !tl_yaml_is_null(n)) {
		struct tl_error bad;

		if (tl_name_check("machine", tl_yaml_text(n), &bad))
			return tl_yaml_error(y, n, "%s; or give {fast: NODES, slow: NODES, cpus: NODES}", bad.msg);
		return tl_yaml_string(y, n, "machine", &m->profile);
	}
	if (tl_yaml_expect_map(y, n, "machine", "{fast: NODES, slow: NODES, cpus: NODES} or a profile name") ||
	    tl_yaml_check_keys(y, n, "machine", machine_keys))
		return -EINVAL;
	for (int i = 0; machine_keys[i]; i++) {
		yaml_node_t *v = tl_yaml_get(y, n, machine_keys[i], NULL);

		if (!v)
			continue;
		tl_yaml_field(f, "machine", machine_keys[i]);
		if (tl_yaml_string(y, v, f, slots[i]))
			return -EINVAL;
		*locs[i] = tl_yaml_loc(v);
		/* 1 (nodes absent here) is fine: a paper-size spec still plans on a small machine */
		rc = tl_nodeset_check(*slots[i]);
		if (rc == -ENOENT) {
			char present[128];

			tl_nodeset_present(present, sizeof(present));
			if (strstr(*slots[i], "all"))
				return tl_yaml_error(y, v, "%s: '%s' names no nodes", f, *slots[i]);
			return tl_yaml_error(y, v, "%s: '%s' names no nodes on this machine (present: %s)", f,
					     *slots[i], present);
		}
		if (rc < 0)
			return tl_yaml_error(y, v, "%s: '%s' is not a NUMA node list (" NODE_SYNTAX ")", f, *slots[i]);
	}
	return 0;
}

/* One default from the top level or runtime:, into spec->defaults. */
static int set_default(struct tl_yaml *y, struct tl_spec *spec, yaml_node_t *n, enum tl_axis a,
		       const char *field)
{
	spec->defaults_loc[a] = tl_yaml_loc(n);
	return tl_spec_axis_value(y, spec, n, a, field, &spec->defaults[a]);
}

static int parse_runtime(struct tl_yaml *y, yaml_node_t *n, yaml_node_t *top_policy, struct tl_spec *spec)
{
	yaml_node_t *k, *v;
	char f[TL_FIELD_MAX];

	if (tl_yaml_expect_map(y, n, "runtime", "a map such as {threshold: 32MiB, budget: 40%}") ||
	    tl_yaml_check_keys(y, n, "runtime", runtime_keys))
		return -EINVAL;
	tl_yaml_for_pairs(y, n, k, v) {
		int a = tl_axis_lookup(tl_yaml_text(k));

		if (a == TL_AXIS_POLICY && top_policy)
			return tl_yaml_error(y, k, "runtime.policy: also given as policy: at line %d; set it once",
					     tl_yaml_loc(top_policy).line);
		if (set_default(y, spec, v, a, tl_yaml_field(f, "runtime", tl_yaml_text(k))))
			return -EINVAL;
	}
	return 0;
}

static int parse_repetitions(struct tl_yaml *y, yaml_node_t *n, struct tl_spec *spec)
{
	const char *s = tl_yaml_text(n);
	long v;

	if (!s || tl_yaml_is_null(n) || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 6 ||
	    (v = strtol(s, NULL, 10)) < 1 || v > 10000) {
		if (s && !tl_yaml_is_null(n))
			return tl_yaml_error(y, n, "repetitions: expected an integer from 1 to 10000, got '%s'", s);
		return tl_yaml_error(y, n, "repetitions: expected an integer from 1 to 10000, got %s",
				     tl_yaml_kind(n));
	}
	spec->repetitions = (int)v;
	spec->repetitions_loc = tl_yaml_loc(n);
	return 0;
}

static int parse_timeout(struct tl_yaml *y, yaml_node_t *n, struct tl_spec *spec)
{
	const char *s = tl_yaml_text(n);

	if (!s || tl_yaml_is_null(n))
		return tl_yaml_error(y, n, "timeout: expected a duration such as 90s, 10m or 1h, got %s",
				     tl_yaml_kind(n));
	if (tl_parse_duration(s, &spec->timeout))
		return tl_yaml_error(y, n, "timeout: expected a duration such as 90s, 10m or 1h (ms, s, m, h; "
				     "0 = none), got '%s'", s);
	return 0;
}

/* Perf event names: each counted once, none empty (they are part of every run key). */
static int parse_events(struct tl_yaml *y, yaml_node_t *n, struct tl_spec *spec)
{
	struct tl_seen seen;
	yaml_node_t *item;
	int rc = 0;

	if (tl_yaml_strlist(y, n, "events", false, &spec->events))
		return -EINVAL;
	if (tl_seen_init(&seen, spec->events.n))
		return tl_error_set(y->err, "out of memory");
	tl_yaml_for_items(y, n, i, item) {
		const char *ev = spec->events.v[i];
		size_t *first;
		bool fresh;

		if (!ev[0]) {
			rc = tl_yaml_error(y, item, "events[%zu]: empty value; give a perf event name such as cycles", i);
			break;
		}
		if (!(first = tl_seen_add(&seen, ev, strlen(ev), i, &fresh))) {
			rc = tl_error_set(y->err, "out of memory");
			break;
		}
		if (!fresh) {
			rc = tl_yaml_error(y, item, "events: '%s' is given twice (first at line %d)", ev,
					   tl_yaml_loc(tl_yaml_node(y, n->data.sequence.items.start[*first])).line);
			break;
		}
	}
	tl_seen_release(&seen);
	return rc;
}

static int parse_spec(struct tl_yaml *y, const char *workloads_dir, struct tl_spec *spec)
{
	yaml_node_t *root = tl_yaml_root(y), *n, *key, *policy;
	struct tl_error bad;

	if (!root)
		return tl_error_set(y->err, "%s:1:1: the spec is empty (expected name:, workload:, matrix:, ...)",
				    y->path);
	if (root->type != YAML_MAPPING_NODE)
		return tl_yaml_error(y, root, "a spec is a map of fields (name:, workload:, matrix:, ...), got %s",
				     tl_yaml_kind(root));
	if (tl_yaml_check_keys(y, root, "", top_keys))
		return -EINVAL;

	n = tl_yaml_get(y, root, "name", NULL);
	if (!n)
		return tl_yaml_error(y, root, "name: missing; every spec needs a name (letters, digits, . _ -)");
	if (tl_yaml_string(y, n, "name", &spec->name))
		return -EINVAL;
	if (tl_name_check("name", spec->name, &bad))
		return tl_yaml_error(y, n, "%s", bad.msg);
	if ((n = tl_yaml_get(y, root, "description", NULL))) {
		if (n->type != YAML_SCALAR_NODE)
			return tl_yaml_error(y, n, "description: expected text, got %s", tl_yaml_kind(n));
		if (!tl_yaml_is_null(n) && tl_yaml_string(y, n, "description", &spec->description))
			return -EINVAL;
	}

	if (parse_workloads(y, root, workloads_dir, spec))
		return -EINVAL;
	if ((n = tl_yaml_get(y, root, "machine", NULL)) && parse_machine(y, n, spec))
		return -EINVAL;
	if ((n = tl_yaml_get(y, root, "allocator", NULL)) &&
	    set_default(y, spec, n, TL_AXIS_ALLOCATOR, "allocator"))
		return -EINVAL;
	if ((policy = tl_yaml_get(y, root, "policy", &key)) &&
	    set_default(y, spec, policy, TL_AXIS_POLICY, "policy"))
		return -EINVAL;
	if ((n = tl_yaml_get(y, root, "runtime", NULL)) && parse_runtime(y, n, policy ? key : NULL, spec))
		return -EINVAL;
	if ((n = tl_yaml_get(y, root, "events", NULL)) && parse_events(y, n, spec))
		return -EINVAL;
	if ((n = tl_yaml_get(y, root, "repetitions", NULL)) && parse_repetitions(y, n, spec))
		return -EINVAL;
	if ((n = tl_yaml_get(y, root, "timeout", NULL)) && parse_timeout(y, n, spec))
		return -EINVAL;
	if ((n = tl_yaml_get(y, root, "launch", NULL)) && tl_spec_parse_launch(y, n, spec))
		return -EINVAL;
	if ((n = tl_yaml_get(y, root, "slurm", NULL)) && tl_spec_parse_slurm(y, n, spec))
		return -EINVAL;
	if (tl_spec_parse_matrix(y, tl_yaml_get(y, root, "matrix", NULL), spec))
		return -EINVAL;
	if ((n = tl_yaml_get(y, root, "baseline", NULL)) &&
	    tl_spec_parse_selector(y, n, "baseline", spec, &spec->baseline))
		return -EINVAL;
	return tl_spec_check_policy_args(y, spec);
}

int tl_spec_load_string(const char *path, const char *text, const char *workloads_dir,
			struct tl_spec *spec, struct tl_error *err)
{
	struct tl_yaml y;
	char hash[17];
	int rc;

	memset(spec, 0, sizeof(*spec));
	spec->repetitions = 1;
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		spec->matrix[a].zip_group = -1;
	if (err)
		err->msg[0] = '\0';
	if (!path)
		path = "<spec>";
	if (!text)
		return tl_error_set(err, "%s: no text", path);
	spec->path = strdup(path);
	spec->text = strdup(text);
	tl_hash_hex(text, strlen(text), hash);
	spec->hash = strdup(hash);
	if (!spec->path || !spec->text || !spec->hash) {
		tl_spec_release(spec);
		return tl_error_set(err, "out of memory");
	}
	rc = tl_yaml_load(&y, path, text, err);
	if (!rc)
		rc = parse_spec(&y, workloads_dir, spec);
	tl_yaml_release(&y);
	if (rc) {
		tl_spec_release(spec);
		return -EINVAL;
	}
	return 0;
}

int tl_spec_load(const char *path, const char *workloads_dir, struct tl_spec *spec, struct tl_error *err)
{
	char *text = NULL;
	int rc;

	memset(spec, 0, sizeof(*spec));
	if (tl_spec_read_file(path, &text, err))
		return -EINVAL;
	rc = tl_spec_load_string(path, text, workloads_dir, spec, err);
	free(text);
	return rc;
}

static void selector_release(struct tl_selector *sel)
{
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		free(sel->values[a]);
	memset(sel, 0, sizeof(*sel));
}

void tl_spec_release(struct tl_spec *spec)
{
	if (!spec)
		return;
	free(spec->path);
	free(spec->text);
	free(spec->hash);
	free(spec->name);
	free(spec->description);
	free(spec->launch.with);
	for (size_t i = 0; i < spec->launch.args.n; i++)
		free(spec->launch.args.v[i]);
	free(spec->launch.args.v);
	free(spec->slurm.partition);
	free(spec->slurm.account);
	free(spec->slurm.time_limit);
	for (size_t i = 0; i < spec->slurm.sbatch.n; i++)
		free(spec->slurm.sbatch.v[i]);
	free(spec->slurm.sbatch.v);
	for (size_t i = 0; i < spec->nworkloads; i++)
		tl_workload_release(&spec->workloads[i]);
	free(spec->workloads);
	free(spec->machine.fast);
	free(spec->machine.slow);
	free(spec->machine.cpus);
	free(spec->machine.profile);
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		free(spec->defaults[a]);
		tl_strlist_release(&spec->matrix[a].values);
	}
	tl_strlist_release(&spec->events);
	selector_release(&spec->baseline);
	for (size_t i = 0; i < spec->nexclude; i++)
		selector_release(&spec->exclude[i]);
	free(spec->exclude);
	memset(spec, 0, sizeof(*spec));
}

int tl_spec_error(const struct tl_spec *spec, const struct tl_loc *at, struct tl_error *err,
		  const char *fmt, ...)
{
	char msg[sizeof(err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (at && at->line)
		return tl_error_set(err, "%s:%d:%d: %s", spec->path ? spec->path : "<spec>", at->line, at->col,
				    msg);
	return tl_error_set(err, "%s", msg);
}

const struct tl_workload *tl_spec_workload(const struct tl_spec *spec, const char *name)
{
	for (size_t i = 0; name && i < spec->nworkloads; i++)
		if (spec->workloads[i].name && !strcmp(spec->workloads[i].name, name))
			return &spec->workloads[i];
	return NULL;
}

/* A number, as a static fraction is written: it continues the static:F,... before it. */
static bool is_fraction(const char *s)
{
	return *s && strspn(s, "0123456789. ") == strlen(s);
}

/* Splits the command line's comma list; "static:1,0.5" stays one value. */
static int split_list(enum tl_axis axis, const char *list, struct tl_strlist *out)
{
	char *copy = strdup(list), *tok, *rest = copy;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	while (!rc && (tok = strsep(&rest, ","))) {
		char *last = out->n ? out->v[out->n - 1] : NULL;

		if (axis == TL_AXIS_POLICY && last && !strncmp(last, "static", 6) && is_fraction(tok)) {
			char *joined;

			if (asprintf(&joined, "%s,%s", last, tok) < 0) {
				rc = -ENOMEM;
				break;
			}
			free(last);
			out->v[out->n - 1] = joined;
			continue;
		}
		rc = tl_strlist_push(out, tok);
	}
	free(copy);
	return rc;
}

int tl_spec_set_axis(struct tl_spec *spec, enum tl_axis axis, const char *list, struct tl_error *err)
{
	struct tl_strlist raw = { 0 }, canon = { 0 };
	const char *name;
	int rc = 0;

	if ((unsigned)axis >= TL_AXIS__COUNT)
		return tl_error_set(err, "no such axis");
	name = tl_axes[axis].name;
	if (!list || !*list)
		return tl_error_set(err, "--%s: no values (give a comma-separated list)", name);
	if (split_list(axis, list, &raw))
		return tl_error_set(err, "out of memory");
	for (size_t i = 0; i < raw.n && !rc; i++) {
		char *c = NULL;

		if (tl_axis_canonical(axis, raw.v[i], &c, err)) {
			char msg[sizeof(err->msg)];

			snprintf(msg, sizeof(msg), "%s", err->msg);
			rc = tl_error_set(err, "--%s: %s", name, msg);
			break;
		}
		for (size_t j = 0; j < canon.n && !rc; j++)
			if (!strcmp(canon.v[j], c) && spec->matrix[axis].zip_group < 0)
				rc = tl_error_set(err, "--%s: '%s' is given twice", name, c);
		if (!rc && axis == TL_AXIS_WORKLOAD && !tl_spec_workload(spec, c))
			rc = tl_error_set(err, "--%s: no workload '%s' in this spec", name, c);
		if (!rc && axis == TL_AXIS_SIZE) {
			bool any = false;

			for (size_t w = 0; w < spec->nworkloads && !any; w++)
				any = tl_workload_has_size(&spec->workloads[w], c);
			if (!any)
				rc = tl_error_set(err, "--%s: no workload in this spec has a size '%s'", name, c);
		}
		if (!rc && tl_strlist_push(&canon, c))
			rc = tl_error_set(err, "out of memory");
		free(c);
	}
	tl_strlist_release(&raw);
	if (rc) {
		tl_strlist_release(&canon);
		return rc;
	}
	tl_strlist_release(&spec->matrix[axis].values);
	spec->matrix[axis].values = canon;
	spec->matrix[axis].loc = (struct tl_loc){ 0, 0 };
	return 0;
}
