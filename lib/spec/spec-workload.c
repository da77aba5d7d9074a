/*
 * Workloads: a spec's `workload:` / `workloads:` entries and the
 * descriptor files of built-in workloads, which share one form (command,
 * env, sizes, figure of merit), so a user describes an external program
 * exactly as tierlab describes its own.
 *
 * A built-in entry names a descriptor and may only pick a size, threads and
 * extra environment; everything else comes from the descriptor.
 */
#include "spec/spec-internal.h"

#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/paths.h"

static const char *const spec_keys[] = {
	"name", "description", "size", "threads", "env", "command", "dir", "sizes", "default_size",
	"fom", "unit", "higher_is_better", NULL
};
static const char *const descriptor_keys[] = {
	"name", "description", "env", "command", "dir", "sizes", "default_size", "fom", "unit",
	"higher_is_better", NULL
};
/* What a built-in entry may set in a spec; the rest is the descriptor's. */
static const char *const builtin_keys[] = { "name", "description", "size", "threads", "env", NULL };
static const char *const fom_keys[] = { "regex", "file", "unit", "higher_is_better", NULL };

static int nomem(struct tl_yaml *y)
{
	tl_error_set(y->err, "out of memory");
	return -ENOMEM;
}

bool tl_workload_has_size(const struct tl_workload *wl, const char *size)
{
	for (size_t i = 0; i < wl->nsizes; i++)
		if (!strcmp(wl->sizes[i].name, size))
			return true;
	return false;
}

void tl_workload_size_names(const struct tl_workload *wl, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < wl->nsizes && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", wl->sizes[i].name);
}

/* The line of the first key in map with the same text as key, a later one. */
static int first_line(struct tl_yaml *y, yaml_node_t *map, yaml_node_t *key)
{
	yaml_node_t *k, *v;

	tl_yaml_for_pairs(y, map, k, v) {
		(void)v;
		if (k != key && tl_yaml_text(k) && !strcmp(tl_yaml_text(k), tl_yaml_text(key)))
			return tl_yaml_loc(k).line;
	}
	return tl_yaml_loc(key).line;
}

/* "KEY=VALUE" for every pair; a later KEY replaces an earlier one (the spec's over the descriptor's). */
static int parse_env(struct tl_yaml *y, yaml_node_t *map, const char *field, struct tl_strlist *env)
{
	static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";
	size_t inherited = env->n;
	struct tl_seen seen;
	yaml_node_t *k, *v;
	char f[TL_FIELD_MAX];
	int rc = 0;

	if (tl_yaml_expect_map(y, map, field, "a map of NAME: value"))
		return -EINVAL;
	/* every name with its place in env; a name of the map's own, once set, is at SIZE_MAX */
	if (tl_seen_init(&seen, inherited + tl_yaml_count(map)))
		return nomem(y);
	for (size_t i = 0; i < inherited; i++) {
		bool fresh;

		if (!tl_seen_add(&seen, env->v[i], strcspn(env->v[i], "="), i, &fresh)) {
			tl_seen_release(&seen);
			return nomem(y);
		}
	}
	tl_yaml_for_pairs(y, map, k, v) {
		const char *name = tl_yaml_text(k), *value;
		size_t nlen = name ? strlen(name) : 0, *at;
		char *kv;
		bool fresh;

		if (!name || !nlen || strspn(name, alnum) != nlen || (*name >= '0' && *name <= '9')) {
			rc = tl_yaml_error(y, k, "%s: '%s' is not an environment variable name "
					   "(letters, digits and _, not starting with a digit)", field, name ? name : "");
			break;
		}
		tl_yaml_field(f, field, name);
		/* an empty value is a legitimate setting: VAR="" */
		if (v->type != YAML_SCALAR_NODE) {
			rc = tl_yaml_error(y, v, "%s: expected a value, got %s", f, tl_yaml_kind(v));
			break;
		}
		value = tl_yaml_is_null(v) ? "" : tl_yaml_text(v);
		if (!(at = tl_seen_add(&seen, name, nlen, SIZE_MAX, &fresh)) || asprintf(&kv, "%s=%s", name, value) < 0) {
			rc = nomem(y);
			break;
		}
		if (*at == SIZE_MAX && !fresh) {
			free(kv);
			rc = tl_yaml_error(y, k, "%s: '%s' is given twice (first at line %d)", field, name,
					   first_line(y, map, k));
			break;
		}
		if (!fresh) {
			free(env->v[*at]);
			env->v[*at] = kv;
			*at = SIZE_MAX;
			continue;
		}
		rc = tl_strlist_push(env, kv);
		free(kv);
		if (rc) {
			rc = nomem(y);
			break;
		}
	}
	tl_seen_release(&seen);
	return rc;
}

static int parse_sizes(struct tl_yaml *y, yaml_node_t *map, const char *field, struct tl_workload *wl)
{
	struct tl_seen seen;
	yaml_node_t *k, *v;
	char f[TL_FIELD_MAX];
	int rc = 0;

	if (tl_yaml_expect_map(y, map, field, "a map of preset: [args...]"))
		return -EINVAL;
	if (!tl_yaml_count(map))
		return tl_yaml_error(y, map, "%s: expected at least one preset, got {}", field);
	wl->sizes = calloc(tl_yaml_count(map), sizeof(*wl->sizes));
	if (!wl->sizes)
		return nomem(y);
	if (tl_seen_init(&seen, tl_yaml_count(map)))
		return nomem(y);
	tl_yaml_for_pairs(y, map, k, v) {
		struct tl_size_preset *p = &wl->sizes[wl->nsizes];
		const char *name = tl_yaml_text(k);
		bool fresh;

		if (!name || tl_yaml_is_null(k)) {
			rc = tl_yaml_error(y, k, "%s: preset names must be plain names, not %s", field, tl_yaml_kind(k));
			break;
		}
		if (tl_axis_canonical(TL_AXIS_SIZE, name, &p->name, y->err)) {
			rc = tl_yaml_error(y, k, "%s: %s", field, y->err->msg);
			break;
		}
		wl->nsizes++;
		if (!tl_seen_add(&seen, name, strlen(name), wl->nsizes - 1, &fresh)) {
			rc = nomem(y);
			break;
		}
		if (!fresh) {
			rc = tl_yaml_error(y, k, "%s: '%s' is given twice (first at line %d)", field, name,
					   first_line(y, map, k));
			break;
		}
		tl_yaml_field(f, field, name);
		if (tl_yaml_strlist(y, v, f, false, &p->args)) {
			rc = -EINVAL;
			break;
		}
	}
	tl_seen_release(&seen);
	return rc;
}

static int check_regex(struct tl_yaml *y, yaml_node_t *at, const char *field, const char *re)
{
	regex_t rx;
	char why[256];
	int rc = regcomp(&rx, re, REG_EXTENDED);
	size_t groups;

	if (rc) {
		regerror(rc, &rx, why, sizeof(why));
		return tl_yaml_error(y, at, "%s: '%s' is not a POSIX extended regex: %s", field, re, why);
	}
	groups = rx.re_nsub;
	regfree(&rx);
	if (groups != 1)
		return tl_yaml_error(y, at, "%s: '%s' has %zu capture groups; it needs exactly one, around the "
				     "number (e.g. 'rate: ([0-9.]+)')", field, re, groups);
	return 0;
}

static int parse_fom(struct tl_yaml *y, yaml_node_t *map, const char *field, struct tl_fom *fom,
		     bool *unit_set, bool *hib_set)
{
	yaml_node_t *regex, *n, *key;
	char f[TL_FIELD_MAX];

	if (tl_yaml_expect_map(y, map, field, "a map {regex: ..., file: ..., unit: ..., higher_is_better: ...}") ||
	    tl_yaml_check_keys(y, map, field, fom_keys))
		return -EINVAL;
	tl_yaml_field(f, field, "regex");
	regex = tl_yaml_get(y, map, "regex", NULL);
	if (!regex)
		return tl_yaml_error(y, map, "%s: needs a regex with one capture group around the number "
				     "(without fom: the figure of merit is the wall time)", f);
	if (tl_yaml_string(y, regex, f, &fom->regex) || check_regex(y, regex, f, fom->regex))
		return -EINVAL;
	tl_yaml_field(f, field, "file");
	if ((n = tl_yaml_get(y, map, "file", NULL))) {
		if (tl_yaml_string(y, n, f, &fom->file))
			return -EINVAL;
		if (!*fom->file)
			return tl_yaml_error(y, n, "%s: empty value; give a glob such as 'HPCG-Benchmark*.txt', or "
					     "leave it out to read stdout", f);
	}
	tl_yaml_field(f, field, "unit");
	if ((n = tl_yaml_get(y, map, "unit", &key))) {
		if (tl_yaml_string(y, n, f, &fom->unit))
			return -EINVAL;
		*unit_set = true;
	}
	tl_yaml_field(f, field, "higher_is_better");
	if ((n = tl_yaml_get(y, map, "higher_is_better", NULL))) {
		if (tl_yaml_bool(y, n, f, &fom->higher_is_better))
			return -EINVAL;
		*hib_set = true;
	}
	return 0;
}

/* unit: and higher_is_better: beside fom: (the DESIGN sketch's form). */
static int parse_fom_extras(struct tl_yaml *y, yaml_node_t *map, const char *field, struct tl_workload *wl,
			    bool unit_set, bool hib_set)
{
	yaml_node_t *n, *key;
	char f[TL_FIELD_MAX];

	if ((n = tl_yaml_get(y, map, "unit", &key))) {
		tl_yaml_field(f, field, "unit");
		if (!wl->fom.regex)
			return tl_yaml_error(y, key, "%s: needs fom: {regex: ...}; without one the figure of merit "
					     "is the wall time in s", f);
		if (unit_set)
			return tl_yaml_error(y, key, "%s: also given as %s.fom.unit; set it once", f, field);
		if (tl_yaml_string(y, n, f, &wl->fom.unit))
			return -EINVAL;
	}
	if ((n = tl_yaml_get(y, map, "higher_is_better", &key))) {
		tl_yaml_field(f, field, "higher_is_better");
		if (!wl->fom.regex)
			return tl_yaml_error(y, key, "%s: needs fom: {regex: ...}; without one the figure of merit "
					     "is the wall time (lower is better)", f);
		if (hib_set)
			return tl_yaml_error(y, key, "%s: also given as %s.fom.higher_is_better; set it once", f,
					     field);
		if (tl_yaml_bool(y, n, f, &wl->fom.higher_is_better))
			return -EINVAL;
	}
	return 0;
}

/* The program's own fields: command, dir, env, sizes, default_size, fom. */
static int parse_program(struct tl_yaml *y, yaml_node_t *map, const char *field, struct tl_workload *wl)
{
	yaml_node_t *n, *key;
	bool unit_set = false, hib_set = false;
	char f[TL_FIELD_MAX];

	tl_yaml_field(f, field, "command");
	n = tl_yaml_get(y, map, "command", &key);
	if (!n)
		return tl_yaml_error(y, map, "%s: needs command: [program, args...]", field);
	if (tl_yaml_strlist(y, n, f, true, &wl->command))
		return -EINVAL;
	if (!wl->command.v[0][0])
		return tl_yaml_error(y, n, "%s: the program name is empty", f);
	tl_yaml_field(f, field, "dir");
	if ((n = tl_yaml_get(y, map, "dir", NULL))) {
		if (tl_yaml_string(y, n, f, &wl->dir))
			return -EINVAL;
		if (!*wl->dir)
			return tl_yaml_error(y, n, "%s: empty value; leave it out to run in the run's output "
					     "directory", f);
	}
	tl_yaml_field(f, field, "env");
	if ((n = tl_yaml_get(y, map, "env", NULL)) && parse_env(y, n, f, &wl->env))
		return -EINVAL;
	tl_yaml_field(f, field, "sizes");
	if ((n = tl_yaml_get(y, map, "sizes", NULL)) && parse_sizes(y, n, f, wl))
		return -EINVAL;
	tl_yaml_field(f, field, "default_size");
	if ((n = tl_yaml_get(y, map, "default_size", &key))) {
		const char *dym;
		char names[256];

		if (!wl->nsizes)
			return tl_yaml_error(y, key, "%s: there are no sizes: presets to choose from", f);
		if (tl_yaml_string(y, n, f, &wl->default_size))
			return -EINVAL;
		if (!tl_workload_has_size(wl, wl->default_size)) {
			const char *list[64];
			size_t i;

			for (i = 0; i < wl->nsizes && i < 63; i++)
				list[i] = wl->sizes[i].name;
			list[i] = NULL;
			dym = tl_did_you_mean(wl->default_size, list);
			tl_workload_size_names(wl, names, sizeof(names));
			if (dym)
				return tl_yaml_error(y, n, "%s: no preset '%s' (did you mean '%s'?)", f,
						     wl->default_size, dym);
			return tl_yaml_error(y, n, "%s: no preset '%s' (sizes: %s)", f, wl->default_size, names);
		}
	} else if (wl->nsizes && !(wl->default_size = strdup(wl->sizes[0].name))) {
		return nomem(y);
	}
	tl_yaml_field(f, field, "fom");
	if ((n = tl_yaml_get(y, map, "fom", NULL)) && parse_fom(y, n, f, &wl->fom, &unit_set, &hib_set))
		return -EINVAL;
	if (parse_fom_extras(y, map, field, wl, unit_set, hib_set))
		return -EINVAL;
	if (!wl->fom.regex) {
		/* the wall time is the figure of merit */
		wl->fom.unit = strdup("s");
		wl->fom.higher_is_better = false;
		if (!wl->fom.unit)
			return nomem(y);
	} else if (!hib_set && !tl_yaml_get(y, map, "higher_is_better", NULL)) {
		/* a rate (GF/s, ops/s) is the common figure of merit */
		wl->fom.higher_is_better = true;
	}
	return 0;
}

/* Built-in names present in dir, for did-you-mean; NULL-terminated, malloc'd. */
static char **builtin_names(const char *dir)
{
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char name[256], *path;
		char **grown;

		if (de->d_name[0] == '.' || len >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%s", de->d_name);
		if (len > 5 && !strcmp(name + len - 5, ".yaml"))
			name[len - 5] = '\0';
		path = tl_path_workload_descriptor(dir, name);
		if (!path)
			continue;
		free(path);
		grown = realloc(names, sizeof(*names) * (n + 2));
		if (!grown)
			break;
		names = grown;
		if (!(names[n] = strdup(name)))
			break;
		names[++n] = NULL;
	}
	closedir(d);
	return names;
}

static int load_builtin(struct tl_yaml *y, yaml_node_t *namenode, const char *field, const char *dir,
			struct tl_workload *wl)
{
	char *path = tl_path_workload_descriptor(dir, wl->name);
	char *name;
	int rc;

	if (!path) {
		char **names = builtin_names(dir);
		const char *dym = tl_did_you_mean(wl->name, (const char *const *)names);
		char list[512];
		size_t n = 0;

		list[0] = '\0';
		for (size_t i = 0; names && names[i] && n < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", names[i]);
		if (dym)
			rc = tl_yaml_error(y, namenode, "%s.name: unknown workload '%s' (did you mean '%s'?)", field,
					   wl->name, dym);
		else if (!dir)
			rc = tl_yaml_error(y, namenode, "%s.name: unknown workload '%s' (no workloads directory "
					   "found; an external program needs command:)", field, wl->name);
		else
			rc = tl_yaml_error(y, namenode, "%s.name: unknown workload '%s' (built-in: %s; an external "
					   "program needs command:)", field, wl->name, n ? list : "none");
		for (size_t i = 0; names && names[i]; i++)
			free(names[i]);
		free(names);
		return rc;
	}
	/* the descriptor's own errors name its own file and line */
	name = wl->name;
	wl->name = NULL;
	rc = tl_workload_load(path, wl, y->err);
	free(path);
	if (rc) {
		free(name);
		return rc;
	}
	free(wl->name);
	wl->name = name;
	return 0;
}

/* size: must be one of the workload's presets. */
static int check_size(struct tl_yaml *y, yaml_node_t *n, const char *field, const struct tl_workload *wl,
		      const char *size)
{
	const char *list[64];
	char names[256];
	const char *dym;
	size_t i;

	if (tl_workload_has_size(wl, size))
		return 0;
	if (!wl->nsizes)
		return tl_yaml_error(y, n, "%s: workload '%s' has no sizes: presets", field, wl->name);
	for (i = 0; i < wl->nsizes && i < 63; i++)
		list[i] = wl->sizes[i].name;
	list[i] = NULL;
	dym = tl_did_you_mean(size, list);
	tl_workload_size_names(wl, names, sizeof(names));
	if (dym)
		return tl_yaml_error(y, n, "%s: workload '%s' has no size '%s' (did you mean '%s'?)", field,
				     wl->name, size, dym);
	return tl_yaml_error(y, n, "%s: workload '%s' has no size '%s' (sizes: %s)", field, wl->name, size,
			     names);
}

static int parse_choice(struct tl_yaml *y, yaml_node_t *map, const char *field, enum tl_wl_mode mode,
			struct tl_workload *wl, char **size, char **threads)
{
	yaml_node_t *n, *key;
	char f[TL_FIELD_MAX];

	if ((n = tl_yaml_get(y, map, "threads", &key))) {
		tl_yaml_field(f, field, "threads");
		if (mode == TL_WL_LIST)
			return tl_yaml_error(y, key, "%s: not per workload in a workloads: list; use matrix: "
					     "{threads: [N]}", f);
		if (tl_yaml_text(n) && !tl_yaml_is_null(n) &&
		    tl_axis_canonical(TL_AXIS_THREADS, tl_yaml_text(n), threads, y->err))
			return tl_yaml_error(y, n, "%s: %s", f, y->err->msg);
		if (!*threads)
			return tl_yaml_error(y, n, "%s: expected a positive integer, got %s", f, tl_yaml_kind(n));
	}
	if ((n = tl_yaml_get(y, map, "size", &key))) {
		char *s = NULL;

		tl_yaml_field(f, field, "size");
		if (tl_yaml_string(y, n, f, &s))
			return -EINVAL;
		if (check_size(y, n, f, wl, s)) {
			free(s);
			return -EINVAL;
		}
		if (mode == TL_WL_LIST) {
			free(wl->default_size);
			wl->default_size = s;
		} else {
			*size = s;
		}
	}
	return 0;
}

int tl_spec_parse_workload(struct tl_yaml *y, yaml_node_t *map, const char *field, enum tl_wl_mode mode,
			   const char *workloads_dir, struct tl_workload *wl, char **size, char **threads)
{
	yaml_node_t *n, *namenode, *k, *v;
	char f[TL_FIELD_MAX];

	if (tl_yaml_expect_map(y, map, field, mode == TL_WL_DESCRIPTOR ? "a map (name:, command:, ...)" :
					      "a map (name: and size:, or command: for an external program)") ||
	    tl_yaml_check_keys(y, map, field, mode == TL_WL_DESCRIPTOR ? descriptor_keys : spec_keys))
		return -EINVAL;
	tl_yaml_field(f, field, "name");
	n = tl_yaml_get(y, map, "name", &namenode);
	if (n && tl_yaml_string(y, n, f, &wl->name))
		return -EINVAL;
	if (wl->name) {
		char *canon = NULL;

		if (tl_axis_canonical(TL_AXIS_WORKLOAD, wl->name, &canon, y->err))
			return tl_yaml_error(y, n, "%s: %s", f, y->err->msg);
		free(canon);
	}
	tl_yaml_field(f, field, "description");
	if ((n = tl_yaml_get(y, map, "description", NULL)) && n->type != YAML_SCALAR_NODE)
		return tl_yaml_error(y, n, "%s: expected text, got %s", f, tl_yaml_kind(n));

	if (mode != TL_WL_DESCRIPTOR && !tl_yaml_get(y, map, "command", NULL)) {
		if (!wl->name)
			return tl_yaml_error(y, map, "%s: needs name: (a built-in workload) or command: "
					     "(an external program)", field);
		/* a built-in: only what a spec may choose, the rest is the descriptor's */
		tl_yaml_for_pairs(y, map, k, v) {
			const char *key = tl_yaml_text(k);
			bool ok = false;

			(void)v;
			for (size_t i = 0; builtin_keys[i] && !ok; i++)
				ok = !strcmp(key, builtin_keys[i]);
			if (!ok)
				return tl_yaml_error(y, k, "%s.%s: the built-in workload '%s' sets its own; for an "
						     "external program give command: too", field, key, wl->name);
		}
		if (load_builtin(y, tl_yaml_get(y, map, "name", NULL), field, workloads_dir, wl))
			return -EINVAL;
		tl_yaml_field(f, field, "env");
		if ((n = tl_yaml_get(y, map, "env", NULL)) && parse_env(y, n, f, &wl->env))
			return -EINVAL;
	} else {
		if (mode == TL_WL_DESCRIPTOR && !wl->name)
			return tl_yaml_error(y, map, "%s: needs name:", field);
		if (parse_program(y, map, field, wl))
			return -EINVAL;
		if (!wl->name) {
			const char *argv0 = wl->command.v[0], *slash = strrchr(argv0, '/');
			char *canon = NULL;

			if (tl_axis_canonical(TL_AXIS_WORKLOAD, slash ? slash + 1 : argv0, &canon, y->err))
				return tl_yaml_error(y, tl_yaml_get(y, map, "command", NULL),
						     "%s: cannot name the workload after '%s' (%s); add name:", field,
						     argv0, y->err->msg);
			wl->name = canon;
		}
		wl->builtin = mode == TL_WL_DESCRIPTOR;
	}
	/* after a built-in's descriptor, so that the spec's own wins */
	tl_yaml_field(f, field, "description");
	if ((n = tl_yaml_get(y, map, "description", NULL)) && !tl_yaml_is_null(n)) {
		free(wl->description);
		wl->description = NULL;
		if (tl_yaml_string(y, n, f, &wl->description))
			return -EINVAL;
	}
	if (mode != TL_WL_DESCRIPTOR && parse_choice(y, map, field, mode, wl, size, threads))
		return -EINVAL;
	wl->loc = tl_yaml_loc(map);
	return 0;
}

int tl_workload_load(const char *path, struct tl_workload *wl, struct tl_error *err)
{
	struct tl_yaml y;
	yaml_node_t *root;
	char *text = NULL;
	int rc;

	memset(wl, 0, sizeof(*wl));
	rc = tl_spec_read_file(path, &text, err);
	if (rc)
		return rc;
	rc = tl_yaml_load(&y, path, text, err);
	if (rc)
		goto out;
	root = tl_yaml_root(&y);
	if (!root) {
		rc = tl_error_set(err, "%s:1:1: empty workload descriptor (expected name:, command:, ...)", path);
		goto out;
	}
	rc = tl_spec_parse_workload(&y, root, "workload", TL_WL_DESCRIPTOR, NULL, wl, NULL, NULL);
	if (rc)
		goto out;
	wl->descriptor = strdup(path);
	if (!wl->descriptor)
		rc = tl_error_set(err, "out of memory");
out:
	tl_yaml_release(&y);
	free(text);
	if (rc) {
		tl_workload_release(wl);
		return -EINVAL;
	}
	return 0;
}

void tl_workload_release(struct tl_workload *wl)
{
	if (!wl)
		return;
	free(wl->name);
	free(wl->descriptor);
	free(wl->description);
	tl_strlist_release(&wl->command);
	tl_strlist_release(&wl->env);
	free(wl->dir);
	free(wl->fom.regex);
	free(wl->fom.file);
	free(wl->fom.unit);
	for (size_t i = 0; i < wl->nsizes; i++) {
		free(wl->sizes[i].name);
		tl_strlist_release(&wl->sizes[i].args);
	}
	free(wl->sizes);
	free(wl->default_size);
	memset(wl, 0, sizeof(*wl));
}
