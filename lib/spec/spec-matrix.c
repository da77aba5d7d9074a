/*
 * The parts of a spec that speak in axis values: matrix: (value lists,
 * zip groups, exclude rules), baseline:, and one value of any axis. Values
 * are canonicalised by tl_axis_canonical(); workload and size values are
 * also checked against the spec's workloads, and selector values against
 * what the matrix can produce, so a rule that can never match is an error
 * here rather than a silent no-op in the plan.
 */
#include "spec/spec-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policies/policies.h"

const char *const *tl_spec_axis_names(void)
{
	static const char *names[TL_AXIS__COUNT + 1];

	for (int a = 0; a < TL_AXIS__COUNT; a++)
		names[a] = tl_axes[a].name;
	return names;
}

static void join_names(char *buf, size_t len, const char *const *names, size_t n)
{
	size_t w = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && w < len; i++)
		w += (size_t)snprintf(buf + w, len - w, "%s%s", i ? ", " : "", names[i]);
}

/*
 * err for a value not among names: "no WHAT 'value' WHERE", then the
 * closest name or the whole list.
 */
static int unknown_value(struct tl_error *err, const char *what, const char *value, const char *where,
			 const char *list_name, const char *const *names, size_t n)
{
	const char *dym = tl_did_you_mean(value, names);
	char list[512];

	join_names(list, sizeof(list), names, n);
	if (dym)
		return tl_error_set(err, "no %s '%s' %s (did you mean '%s'?)", what, value, where, dym);
	return tl_error_set(err, "no %s '%s' %s (%s: %s)", what, value, where, list_name, list);
}

/*
 * Is a canonical workload or size value one this spec can run? Fills err
 * (without a field prefix) when not.
 */
static int check_known(const struct tl_spec *spec, enum tl_axis axis, const char *value,
		       struct tl_error *err)
{
	const char *names[65];
	size_t n = 0;

	if (axis == TL_AXIS_WORKLOAD) {
		if (tl_spec_workload(spec, value))
			return 0;
		for (size_t i = 0; i < spec->nworkloads && n < 64; i++)
			names[n++] = spec->workloads[i].name;
		names[n] = NULL;
		return unknown_value(err, "workload", value, "in this spec", "workloads", names, n);
	}
	if (axis == TL_AXIS_SIZE) {
		for (size_t w = 0; w < spec->nworkloads; w++) {
			const struct tl_workload *wl = &spec->workloads[w];

			if (tl_workload_has_size(wl, value))
				return 0;
			for (size_t i = 0; i < wl->nsizes && n < 64; i++) {
				bool seen = false;

				for (size_t j = 0; j < n && !seen; j++)
					seen = !strcmp(names[j], wl->sizes[i].name);
				if (!seen)
					names[n++] = wl->sizes[i].name;
			}
		}
		names[n] = NULL;
		if (!n) {
			return tl_error_set(err, "no size '%s': the workloads have no sizes: presets", value);
		}
		return unknown_value(err, "size", value, "in the workloads", "sizes", names, n);
	}
	return 0;
}

/* {static: [F, ...]} or {static: F} as the text "static:F,..." */
static int static_map(struct tl_yaml *y, yaml_node_t *n, const char *field, char **text)
{
	yaml_node_t *k, *v, *item;
	struct tl_strlist parts = { 0 };
	char *canon = NULL, *joined = NULL;
	size_t len = 8;
	int rc = -EINVAL;

	if (tl_yaml_count(n) != 1)
		return tl_yaml_error(y, n, "%s: expected a policy name or {static: [F, ...]}, got a map with %zu keys",
				     field, tl_yaml_count(n));
	tl_yaml_for_pairs(y, n, k, v) {
		if (!tl_yaml_text(k) || strcmp(tl_yaml_text(k), "static")) {
			const char *key = tl_yaml_text(k) ? tl_yaml_text(k) : "?";

			if (tl_did_you_mean(key, (const char *const[]){ "static", NULL }))
				return tl_yaml_error(y, k, "%s: unknown key '%s' (did you mean 'static'?)", field, key);
			return tl_yaml_error(y, k, "%s: expected a policy name or {static: [F, ...]}, got a map "
					     "with '%s'", field, key);
		}
		if (v->type == YAML_SCALAR_NODE) {
			if (tl_yaml_is_null(v)) {
				rc = tl_yaml_error(y, v, "%s: static needs fractions, e.g. {static: [1.0, 0.5]}", field);
				goto out;
			}
			if (tl_strlist_push(&parts, tl_yaml_text(v)))
				goto nomem;
		} else if (v->type == YAML_SEQUENCE_NODE) {
			if (!tl_yaml_count(v)) {
				rc = tl_yaml_error(y, v, "%s: static needs fractions, e.g. {static: [1.0, 0.5]}, got []",
						   field);
				goto out;
			}
			tl_yaml_for_items(y, v, i, item) {
				char *one;

				if (!tl_yaml_text(item) || tl_yaml_is_null(item)) {
					rc = tl_yaml_error(y, item, "%s: expected a fraction from 0 to 1, got %s", field,
							   tl_yaml_kind(item));
					goto out;
				}
				/* checked one by one so the error points at the bad fraction */
				if (asprintf(&one, "static:%s", tl_yaml_text(item)) < 0)
					goto nomem;
				rc = tl_axis_canonical(TL_AXIS_POLICY, one, &canon, y->err);
				free(one);
				free(canon);
				canon = NULL;
				if (rc) {
					rc = tl_yaml_error(y, item, "%s: %s", field, y->err->msg);
					goto out;
				}
				if (tl_strlist_push(&parts, tl_yaml_text(item)))
					goto nomem;
			}
		} else {
			rc = tl_yaml_error(y, v, "%s: static needs a list of fractions, got %s", field, tl_yaml_kind(v));
			goto out;
		}
	}
	for (size_t i = 0; i < parts.n; i++)
		len += strlen(parts.v[i]) + 1;
	joined = malloc(len);
	if (!joined)
		goto nomem;
	strcpy(joined, "static:");
	for (size_t i = 0; i < parts.n; i++) {
		if (i)
			strcat(joined, ",");
		strcat(joined, parts.v[i]);
	}
	*text = joined;
	rc = 0;
	goto out;
nomem:
	rc = tl_error_set(y->err, "out of memory");
out:
	tl_strlist_release(&parts);
	return rc;
}

/* {name: value, ...} as the text "name=value,..." (canonicalised by the caller). */
static int args_map(struct tl_yaml *y, yaml_node_t *n, const char *field, char **text)
{
	yaml_node_t *k, *v;
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	const char *sep = "";

	if (!f)
		return tl_error_set(y->err, "out of memory");
	tl_yaml_for_pairs(y, n, k, v) {
		if (!tl_yaml_text(v) || tl_yaml_is_null(v)) {
			fclose(f);
			free(*text);
			*text = NULL;
			return tl_yaml_error(y, v, "%s: %s: expected a value, got %s", field,
					     tl_yaml_text(k) ? tl_yaml_text(k) : "?", tl_yaml_kind(v));
		}
		fprintf(f, "%s%s=%s", sep, tl_yaml_text(k) ? tl_yaml_text(k) : "", tl_yaml_text(v));
		sep = ",";
	}
	if (fclose(f)) {
		free(*text);
		*text = NULL;
		return tl_error_set(y->err, "out of memory");
	}
	return 0;
}

/* Canonical value of one node; bare "static" passes when allow_base (selectors match variants). */
static int axis_value(struct tl_yaml *y, const struct tl_spec *spec, yaml_node_t *n, enum tl_axis axis,
		      const char *field, bool allow_base, char **out)
{
	char *text = NULL;
	const char *v;
	int rc;

	if (axis == TL_AXIS_POLICY && n && n->type == YAML_MAPPING_NODE) {
		if (static_map(y, n, field, &text))
			return -EINVAL;
		v = text;
	} else if (tl_axes[axis].kind == TL_KIND_ARGS && n && n->type == YAML_MAPPING_NODE && tl_yaml_count(n)) {
		if (args_map(y, n, field, &text))
			return -EINVAL;
		v = text;
	} else {
		if (!n || n->type != YAML_SCALAR_NODE || tl_yaml_is_null(n))
			return tl_yaml_error(y, n, "%s: expected a value, got %s", field, tl_yaml_kind(n));
		v = tl_yaml_text(n);
	}
	if (allow_base && axis == TL_AXIS_POLICY && !strcmp(v, "static"))
		rc = (*out = strdup(v)) ? 0 : tl_error_set(y->err, "out of memory");
	else if (tl_axis_canonical(axis, v, out, y->err))
		rc = tl_yaml_error(y, n, "%s: %s", field, y->err->msg);
	else
		rc = 0;
	free(text);
	if (rc)
		return rc;
	if (check_known(spec, axis, *out, y->err)) {
		free(*out);
		*out = NULL;
		return tl_yaml_error(y, n, "%s: %s", field, y->err->msg);
	}
	return 0;
}

int tl_spec_axis_value(struct tl_yaml *y, const struct tl_spec *spec, yaml_node_t *n, enum tl_axis axis,
		       const char *field, char **out)
{
	return axis_value(y, spec, n, axis, field, false, out);
}

/* A selector value matches a configuration value (plan.h: a policy base matches its variants). */
static bool value_matches(const char *sel, const char *val)
{
	size_t n = strlen(sel);

	if (!val)
		return false;
	return !strcmp(sel, val) || (!strcmp(sel, "static") && !strncmp(val, "static:", 7) && n == 6);
}

/* The value an axis takes when the matrix does not vary it. */
static const char *fixed_value(const struct tl_spec *spec, enum tl_axis a)
{
	if (spec->defaults[a])
		return spec->defaults[a];
	if (a == TL_AXIS_WORKLOAD)
		return spec->nworkloads ? spec->workloads[0].name : NULL;
	if (a == TL_AXIS_SIZE) {
		const struct tl_workload *wl = spec->matrix[TL_AXIS_WORKLOAD].values.n ?
			tl_spec_workload(spec, spec->matrix[TL_AXIS_WORKLOAD].values.v[0]) :
			spec->nworkloads ? &spec->workloads[0] : NULL;

		return wl ? wl->default_size : NULL;
	}
	return tl_axes[a].def;
}

/* A selector value no configuration can have makes a rule that never fires. */
static int check_reachable(struct tl_yaml *y, const struct tl_spec *spec, yaml_node_t *at, const char *field,
			   enum tl_axis a, const char *value)
{
	const struct tl_strlist *vals = &spec->matrix[a].values;
	const char *fixed;
	char list[512];

	if (vals->n) {
		for (size_t i = 0; i < vals->n; i++)
			if (value_matches(value, vals->v[i]))
				return 0;
		join_names(list, sizeof(list), (const char *const *)vals->v, vals->n);
		return tl_yaml_error(y, at, "%s: '%s' is not one of matrix.%s's values (%s)", field, value,
				     tl_axes[a].name, list);
	}
	fixed = fixed_value(spec, a);
	if (value_matches(value, fixed))
		return 0;
	if (!fixed)
		return tl_yaml_error(y, at, "%s: no configuration sets %s (it is neither in matrix: nor set "
				     "elsewhere in the spec)", field, tl_axes[a].name);
	return tl_yaml_error(y, at, "%s: no configuration has %s=%s (matrix: does not vary %s, which is %s)",
			     field, tl_axes[a].name, value, tl_axes[a].name, fixed);
}

int tl_spec_parse_selector(struct tl_yaml *y, yaml_node_t *map, const char *field, struct tl_spec *spec,
			   struct tl_selector *sel)
{
	const char *const *axes = tl_spec_axis_names();
	yaml_node_t *k, *v;
	char f[TL_FIELD_MAX];

	if (tl_yaml_expect_map(y, map, field, "a map of axis: value (e.g. {policy: all-fast})"))
		return -EINVAL;
	if (!tl_yaml_count(map))
		return tl_yaml_error(y, map, "%s: an empty selector matches every configuration", field);
	sel->loc = tl_yaml_loc(map);
	tl_yaml_for_pairs(y, map, k, v) {
		const char *name = tl_yaml_text(k);
		int a = tl_axis_lookup(name);

		if (a < 0) {
			const char *dym = tl_did_you_mean(name, axes);
			char list[512];

			join_names(list, sizeof(list), axes, TL_AXIS__COUNT);
			if (dym)
				return tl_yaml_error(y, k, "%s: unknown axis '%s' (did you mean '%s'?)", field,
						     name ? name : "", dym);
			return tl_yaml_error(y, k, "%s: unknown axis '%s' (axes: %s)", field, name ? name : "", list);
		}
		tl_yaml_field(f, field, name);
		if (sel->values[a])
			return tl_yaml_error(y, k, "%s: '%s' is given twice", field, name);
		if (axis_value(y, spec, v, a, f, true, &sel->values[a]) ||
		    check_reachable(y, spec, v, f, a, sel->values[a]))
			return -EINVAL;
	}
	return 0;
}

static int parse_axis_list(struct tl_yaml *y, struct tl_spec *spec, yaml_node_t *list, enum tl_axis a,
			   const char *field)
{
	struct tl_axis_values *av = &spec->matrix[a];
	yaml_node_t *item;

	if (tl_yaml_expect_list(y, list, field, "a list of values, e.g. [a, b]"))
		return -EINVAL;
	if (!tl_yaml_count(list))
		return tl_yaml_error(y, list, "%s: the list is empty; give at least one value or leave the axis out",
				     field);
	av->loc = tl_yaml_loc(list);
	av->zip_group = -1;
	tl_yaml_for_items(y, list, i, item) {
		char *canon = NULL;
		int rc;

		if (axis_value(y, spec, item, a, field, false, &canon))
			return -EINVAL;
		rc = tl_strlist_push(&av->values, canon);
		free(canon);
		if (rc)
			return tl_error_set(y->err, "out of memory");
	}
	return 0;
}

static int parse_zip(struct tl_yaml *y, struct tl_spec *spec, yaml_node_t *zip)
{
	const char *const *axes = tl_spec_axis_names();
	yaml_node_t *group, *item;
	bool flat = true;

	if (tl_yaml_expect_list(y, zip, "matrix.zip", "a list of axis groups, e.g. [[budget, chunks]]"))
		return -EINVAL;
	if (!tl_yaml_count(zip))
		return tl_yaml_error(y, zip, "matrix.zip: the list is empty; give groups such as [[budget, chunks]]");
	tl_yaml_for_items(y, zip, i, group)
		flat = flat && group->type == YAML_SCALAR_NODE;
	/* zip: [a, b] is one group, written without the outer brackets */
	for (size_t g = 0; g < (flat ? 1 : tl_yaml_count(zip)); g++) {
		yaml_node_t *grp = flat ? zip : tl_yaml_node(y, zip->data.sequence.items.start[g]);
		int first = -1;

		if (tl_yaml_expect_list(y, grp, "matrix.zip", "a list of axis names, e.g. [budget, chunks]"))
			return -EINVAL;
		if (tl_yaml_count(grp) < 2)
			return tl_yaml_error(y, grp, "matrix.zip: a group needs at least two axes, got %zu",
					     tl_yaml_count(grp));
		tl_yaml_for_items(y, grp, i, item) {
			const char *name = tl_yaml_text(item);
			int a = tl_axis_lookup(name);

			if (a < 0) {
				const char *dym = tl_did_you_mean(name, axes);

				if (dym)
					return tl_yaml_error(y, item, "matrix.zip: unknown axis '%s' (did you mean '%s'?)",
							     name ? name : "", dym);
				return tl_yaml_error(y, item, "matrix.zip: unknown axis '%s'", name ? name : "");
			}
			if (!spec->matrix[a].values.n)
				return tl_yaml_error(y, item, "matrix.zip: '%s' is not in the matrix; zip groups axes "
						     "listed in matrix:", name);
			if (spec->matrix[a].zip_group >= 0)
				return tl_yaml_error(y, item, "matrix.zip: '%s' is already zipped (an axis belongs to "
						     "one group)", name);
			if (first >= 0 && spec->matrix[a].values.n != spec->matrix[first].values.n)
				return tl_yaml_error(y, item, "matrix.zip: %s has %zu values but %s has %zu; zipped "
						     "axes advance together and need the same number", name,
						     spec->matrix[a].values.n, tl_axes[first].name,
						     spec->matrix[first].values.n);
			if (first < 0)
				first = a;
			spec->matrix[a].zip_group = spec->nzip;
		}
		spec->nzip++;
	}
	return 0;
}

/* Sizes against the workloads they will be combined with (pairwise when zipped together). */
static int check_sizes(struct tl_yaml *y, struct tl_spec *spec, yaml_node_t *sizes)
{
	const struct tl_axis_values *wv = &spec->matrix[TL_AXIS_WORKLOAD], *sv = &spec->matrix[TL_AXIS_SIZE];
	bool paired = wv->values.n && wv->zip_group >= 0 && wv->zip_group == sv->zip_group;
	yaml_node_t *item;

	tl_yaml_for_items(y, sizes, i, item) {
		const char *size = sv->values.v[i];

		for (size_t w = 0; w < (wv->values.n ? wv->values.n : 1); w++) {
			const struct tl_workload *wl;
			char names[256];

			if (paired && w != i)
				continue;
			wl = wv->values.n ? tl_spec_workload(spec, wv->values.v[w]) : &spec->workloads[0];
			if (!wl || tl_workload_has_size(wl, size))
				continue;
			tl_workload_size_names(wl, names, sizeof(names));
			return tl_yaml_error(y, item, "matrix.size: workload '%s' has no size '%s' (sizes: %s)",
					     wl->name, size, wl->nsizes ? names : "none");
		}
	}
	return 0;
}

/* Repeated values would plan the same configuration twice; zipped axes may repeat. */
static int check_repeats(struct tl_yaml *y, struct tl_spec *spec, yaml_node_t *list, enum tl_axis a)
{
	const struct tl_strlist *v = &spec->matrix[a].values;
	struct tl_seen seen;
	yaml_node_t *item;
	int rc = 0;

	if (spec->matrix[a].zip_group >= 0)
		return 0;
	if (tl_seen_init(&seen, v->n))
		return tl_error_set(y->err, "out of memory");
	tl_yaml_for_items(y, list, i, item) {
		const char *written = tl_yaml_text(item) ? tl_yaml_text(item) : v->v[i];
		bool fresh;

		if (!tl_seen_add(&seen, v->v[i], strlen(v->v[i]), i, &fresh)) {
			rc = tl_error_set(y->err, "out of memory");
			break;
		}
		if (fresh)
			continue;
		if (strcmp(written, v->v[i]))
			rc = tl_yaml_error(y, item, "matrix.%s: '%s' repeats an earlier value (both are %s)",
					   tl_axes[a].name, written, v->v[i]);
		else
			rc = tl_yaml_error(y, item, "matrix.%s: '%s' repeats an earlier value", tl_axes[a].name,
					   written);
		break;
	}
	tl_seen_release(&seen);
	return rc;
}

/* Several workloads with no matrix.workload: run them all, not just the first. */
static int all_workloads(struct tl_yaml *y, struct tl_spec *spec)
{
	struct tl_axis_values *av = &spec->matrix[TL_AXIS_WORKLOAD];

	if (spec->nworkloads < 2 || av->values.n)
		return 0;
	av->zip_group = -1;
	for (size_t i = 0; i < spec->nworkloads; i++)
		if (tl_strlist_push(&av->values, spec->workloads[i].name))
			return tl_error_set(y->err, "out of memory");
	return 0;
}

int tl_spec_parse_matrix(struct tl_yaml *y, yaml_node_t *map, struct tl_spec *spec)
{
	const char *known[TL_AXIS__COUNT + 3];
	yaml_node_t *k, *v, *zip = NULL, *exclude = NULL, *item;
	char f[TL_FIELD_MAX];

	if (!map)
		return all_workloads(y, spec);

	for (int a = 0; a < TL_AXIS__COUNT; a++)
		known[a] = tl_axes[a].name;
	known[TL_AXIS__COUNT] = "zip";
	known[TL_AXIS__COUNT + 1] = "exclude";
	known[TL_AXIS__COUNT + 2] = NULL;
	if (tl_yaml_expect_map(y, map, "matrix", "a map of axis: [values]") ||
	    tl_yaml_check_keys(y, map, "matrix", known))
		return -EINVAL;
	tl_yaml_for_pairs(y, map, k, v) {
		int a = tl_axis_lookup(tl_yaml_text(k));

		if (a < 0) {
			if (!strcmp(tl_yaml_text(k), "zip")) {
				zip = v;
			} else {
				exclude = v;
				spec->exclude_loc = tl_yaml_loc(k);
			}
			continue;
		}
		if (parse_axis_list(y, spec, v, a, tl_yaml_field(f, "matrix", tl_axes[a].name)))
			return -EINVAL;
	}
	if (all_workloads(y, spec) || (zip && parse_zip(y, spec, zip)))
		return -EINVAL;
	tl_yaml_for_pairs(y, map, k, v) {
		int a = tl_axis_lookup(tl_yaml_text(k));

		if (a >= 0 && check_repeats(y, spec, v, a))
			return -EINVAL;
		if (a == TL_AXIS_SIZE && check_sizes(y, spec, v))
			return -EINVAL;
	}
	if (!exclude)
		return 0;
	if (tl_yaml_expect_list(y, exclude, "matrix.exclude", "a list of selectors, e.g. [{policy: lru, chunks: 2}]"))
		return -EINVAL;
	/* the planner checks every rule against every combination (up to TL_PLAN_MAX_COMBINATIONS) */
	if (tl_yaml_count(exclude) > TL_SPEC_MAX_EXCLUDES)
		return tl_yaml_error(y, exclude, "matrix.exclude: %zu rules; at most %d (a smaller matrix or zip: "
				     "says more with fewer)", tl_yaml_count(exclude), TL_SPEC_MAX_EXCLUDES);
	spec->exclude = calloc(tl_yaml_count(exclude) + 1, sizeof(*spec->exclude));
	if (!spec->exclude)
		return tl_error_set(y->err, "out of memory");
	tl_yaml_for_items(y, exclude, i, item) {
		char idx[32];

		snprintf(idx, sizeof(idx), "[%zu]", i);
		spec->nexclude++;
		if (tl_spec_parse_selector(y, item, tl_yaml_field(f, "matrix.exclude", idx), spec,
					   &spec->exclude[i]))
			return -EINVAL;
	}
	return 0;
}

/* The policies a spec plans: the matrix's, else its default, else the axis's. */
static void spec_policies(const struct tl_spec *spec, const char **v, size_t *n, size_t max)
{
	const struct tl_axis_values *m = &spec->matrix[TL_AXIS_POLICY];

	*n = 0;
	for (size_t i = 0; i < m->values.n && *n < max; i++)
		v[(*n)++] = m->values.v[i];
	if (!*n)
		v[(*n)++] = spec->defaults[TL_AXIS_POLICY] ? spec->defaults[TL_AXIS_POLICY]
							   : tl_axes[TL_AXIS_POLICY].def;
}

/* The parameters the spec's built-in and kernel policies declare, for did-you-mean. */
static size_t declared_params(const char *const *policies, size_t np, const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < np; i++) {
		for (const struct tlp_param *p = tl_policy_params(policies[i]); p && p->name && n < max; p++)
			names[n++] = p->name;
	}
	names[n] = NULL;
	return n;
}

static int check_args_value(struct tl_yaml *y, struct tl_loc at, const char *field, const char *args,
			    const char *const *policies, size_t np)
{
	const char *names[33];

	for (const char *p = args; *p;) {
		size_t len = strcspn(p, "="), span = strcspn(p, ",");
		char param[128];
		bool taken = false;

		snprintf(param, sizeof(param), "%.*s", (int)len, p);
		for (size_t i = 0; i < np && !taken; i++)
			taken = tl_policy_takes(policies[i], param);
		if (!taken) {
			const char *dym;

			declared_params(policies, np, names, 32);
			dym = tl_did_you_mean(param, names);
			return tl_error_set(y->err, "%s:%d:%d: %s: no policy of this spec takes a parameter '%s'%s%s%s",
					    y->path, at.line, at.col, field, param, dym ? " (did you mean '" : "",
					    dym ? dym : "", dym ? "'?)" : "");
		}
		/* a memory policy's scope: process or managed, refused here, with the line */
		if (!strcmp(param, tl_policy_params("interleave")[TL_MEMPOL_SCOPE].name)) {
			char value[32];

			snprintf(value, sizeof(value), "%.*s", len < span ? (int)(span - len - 1) : 0, p + len + 1);
			if (len >= span || !tl_policy_scope_valid(value))
				return tl_error_set(y->err, "%s:%d:%d: %s: scope '%s' is not a scope (" TL_SCOPE_PROCESS
						    ": the whole process, as numactl; " TL_SCOPE_MANAGED
						    ": the runtime's managed memory only)",
						    y->path, at.line, at.col, field, len < span ? value : "");
		}
		/* weights are what the kernel takes, 1-255: refused here, with the line, not at the run */
		if ((!strcmp(param, "fast_weight") || !strcmp(param, "slow_weight")) &&
		    tl_policy_takes("weighted-interleave", param) && len < span) {
			char value[32], *end;
			long w;

			snprintf(value, sizeof(value), "%.*s", (int)(span - len - 1), p + len + 1);
			w = strtol(value, &end, 10);
			if (*end || !*value || w < 1 || w > 255)
				return tl_error_set(y->err, "%s:%d:%d: %s: %s '%s' is not a weight (a whole number, 1 to 255)",
						    y->path, at.line, at.col, field, param, value);
		}
		p += span + (p[span] == ',');
	}
	return 0;
}

int tl_spec_check_policy_args(struct tl_yaml *y, const struct tl_spec *spec)
{
	const struct tl_axis_values *m = &spec->matrix[TL_AXIS_POLICY_ARGS];
	const char *policies[65];
	size_t np;

	spec_policies(spec, policies, &np, 64);
	for (size_t i = 0; i < m->values.n; i++)
		if (check_args_value(y, m->loc, "matrix.policy_args", m->values.v[i], policies, np))
			return -EINVAL;
	if (spec->defaults[TL_AXIS_POLICY_ARGS])
		return check_args_value(y, spec->defaults_loc[TL_AXIS_POLICY_ARGS], "runtime.policy_args",
					spec->defaults[TL_AXIS_POLICY_ARGS], policies, np);
	return 0;
}
