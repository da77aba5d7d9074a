/*
 * The YAML tree's nodes read with a purpose: typed accessors whose errors
 * name the file, the position, the field and what was expected. libyaml's
 * loader does not reject duplicate keys, so tl_yaml_check_keys does.
 */
#include "spec/yaml.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

yaml_node_t *tl_yaml_root(struct tl_yaml *y)
{
	return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;
}

yaml_node_t *tl_yaml_node(struct tl_yaml *y, int index)
{
	return yaml_document_get_node(&y->doc, index);
}

struct tl_loc tl_yaml_loc(const yaml_node_t *n)
{
	struct tl_loc loc = { 0, 0 };

	if (n) {
		loc.line = (int)n->start_mark.line + 1;
		loc.col = (int)n->start_mark.column + 1;
	}
	return loc;
}

int tl_yaml_error(struct tl_yaml *y, const yaml_node_t *at, const char *fmt, ...)
{
	struct tl_loc loc = tl_yaml_loc(at);
	char msg[sizeof(y->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tl_error_set(y->err, "%s:%d:%d: %s", y->path, at ? loc.line : 1, at ? loc.col : 1, msg);
}

bool tl_yaml_is_null(const yaml_node_t *n)
{
	const char *v;

	if (!n || n->type != YAML_SCALAR_NODE)
		return false;
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL");
}

const char *tl_yaml_kind(const yaml_node_t *n)
{
	if (!n)
		return "nothing";
	switch (n->type) {
	case YAML_MAPPING_NODE:
		return "a map";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_SCALAR_NODE:
		return tl_yaml_is_null(n) ? "an empty value" : "a single value";
	default:
		return "nothing";
	}
}

const char *tl_yaml_text(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

size_t tl_yaml_count(const yaml_node_t *n)
{
	if (n && n->type == YAML_SEQUENCE_NODE)
		return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (n && n->type == YAML_MAPPING_NODE)
		return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	return 0;
}

const char *tl_yaml_field(char *buf, const char *field, const char *key)
{
	int n = snprintf(buf, TL_FIELD_MAX, "%s%s%s", field && *field ? field : "",
			 field && *field && *key != '[' ? "." : "", key);

	if (n >= TL_FIELD_MAX)
		memcpy(buf + TL_FIELD_MAX - 4, "...", 4);
	return buf;
}

/* "field: " or "" at the top level. */
static const char *prefix(const char *field, char *buf, size_t len)
{
	if (!field || !*field)
		return "";
	snprintf(buf, len, "%s: ", field);
	return buf;
}

int tl_yaml_check_keys(struct tl_yaml *y, yaml_node_t *map, const char *field,
		       const char *const *known)
{
	char buf[TL_FIELD_MAX + 2];
	const char *pre = prefix(field, buf, sizeof(buf));
	yaml_node_t *k, *v;

	tl_yaml_for_pairs(y, map, k, v) {
		const char *key = tl_yaml_text(k);
		const char *dym;
		bool found = false;

		(void)v;
		if (!key || tl_yaml_is_null(k))
			return tl_yaml_error(y, k, "%skeys must be plain names, not %s", pre, tl_yaml_kind(k));
		for (size_t i = 0; known[i] && !found; i++)
			found = !strcmp(key, known[i]);
		if (!found) {
			char list[512];
			size_t n = 0;

			dym = tl_did_you_mean(key, known);
			if (dym)
				return tl_yaml_error(y, k, "%sunknown key '%s' (did you mean '%s'?)", pre, key, dym);
			list[0] = '\0';
			for (size_t i = 0; known[i] && n < sizeof(list); i++)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", known[i]);
			return tl_yaml_error(y, k, "%sunknown key '%s' (known: %s)", pre, key, list);
		}
		/* libyaml keeps both copies of a repeated key; the first would win unseen */
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < tl__p; q++) {
			yaml_node_t *earlier = tl_yaml_node(y, q->key);

			if (tl_yaml_text(earlier) && !strcmp(tl_yaml_text(earlier), key))
				return tl_yaml_error(y, k, "%s'%s' is given twice (first at line %d)", pre, key,
						     tl_yaml_loc(earlier).line);
		}
	}
	return 0;
}

yaml_node_t *tl_yaml_get(struct tl_yaml *y, yaml_node_t *map, const char *key, yaml_node_t **keynode)
{
	yaml_node_t *k, *v;

	if (keynode)
		*keynode = NULL;
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	tl_yaml_for_pairs(y, map, k, v) {
		if (tl_yaml_text(k) && !strcmp(tl_yaml_text(k), key)) {
			if (keynode)
				*keynode = k;
			return v;
		}
	}
	return NULL;
}

int tl_yaml_expect_map(struct tl_yaml *y, yaml_node_t *n, const char *field, const char *what)
{
	if (n && n->type == YAML_MAPPING_NODE)
		return 0;
	return tl_yaml_error(y, n, "%s: expected %s, got %s", field, what ? what : "a map", tl_yaml_kind(n));
}

int tl_yaml_expect_list(struct tl_yaml *y, yaml_node_t *n, const char *field, const char *what)
{
	if (n && n->type == YAML_SEQUENCE_NODE)
		return 0;
	return tl_yaml_error(y, n, "%s: expected %s, got %s", field, what ? what : "a list",
			     tl_yaml_kind(n));
}

static int scalar_of(struct tl_yaml *y, yaml_node_t *n, const char *field, const char **out)
{
	if (!n || n->type != YAML_SCALAR_NODE || tl_yaml_is_null(n))
		return tl_yaml_error(y, n, "%s: expected a value, got %s", field, tl_yaml_kind(n));
	/* "\0" in a quoted string would cut the value short without a word */
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return tl_yaml_error(y, n, "%s: a NUL character is not allowed", field);
	*out = (const char *)n->data.scalar.value;
	return 0;
}

int tl_yaml_string(struct tl_yaml *y, yaml_node_t *n, const char *field, char **out)
{
	const char *s;
	char *copy;

	if (scalar_of(y, n, field, &s))
		return -EINVAL;
	copy = strdup(s);
	if (!copy)
		return tl_error_set(y->err, "out of memory");
	free(*out);
	*out = copy;
	return 0;
}

int tl_yaml_strlist(struct tl_yaml *y, yaml_node_t *n, const char *field, bool nonempty,
		    struct tl_strlist *out)
{
	yaml_node_t *item;
	char f[TL_FIELD_MAX];

	if (tl_yaml_expect_list(y, n, field, nonempty ? "a non-empty list" : "a list"))
		return -EINVAL;
	if (nonempty && !tl_yaml_count(n))
		return tl_yaml_error(y, n, "%s: expected a non-empty list, got []", field);
	tl_yaml_for_items(y, n, i, item) {
		const char *s;

		char idx[32];

		snprintf(idx, sizeof(idx), "[%zu]", i);
		tl_yaml_field(f, field, idx);
		if (scalar_of(y, item, f, &s))
			return -EINVAL;
		if (tl_strlist_push(out, s))
			return tl_error_set(y->err, "out of memory");
	}
	return 0;
}

int tl_yaml_bool(struct tl_yaml *y, yaml_node_t *n, const char *field, bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "YES", NULL };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No", "NO", NULL };
	const char *s = tl_yaml_text(n);

	for (int i = 0; s && yes[i]; i++) {
		if (!strcmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	if (s && !tl_yaml_is_null(n))
		return tl_yaml_error(y, n, "%s: expected true or false, got '%s'", field, s);
	return tl_yaml_error(y, n, "%s: expected true or false, got %s", field, tl_yaml_kind(n));
}
