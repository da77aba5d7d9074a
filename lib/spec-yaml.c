/*
 * The spec parser's view of YAML: libyaml's document tree (which keeps the
 * line and column of every node) and small typed accessors whose errors
 * name the file, the position, the field and what was expected. libyaml's
 * loader does not reject duplicate keys, so tl_yaml_check_keys does.
 */
#include "spec-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a reader error (bad UTF-8, a NUL) sits, from its byte offset. */
static void offset_to_mark(const char *text, size_t offset, size_t *line, size_t *col)
{
	*line = 0;
	*col = 0;
	for (size_t i = 0; i < offset && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 0;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			(*col)++;	/* characters, as libyaml's marks count them, not bytes */
		}
	}
}

static int parser_error(struct tl_yaml *y, const yaml_parser_t *p, const char *text)
{
	size_t line = p->problem_mark.line, col = p->problem_mark.column;
	const char *problem = p->problem ? p->problem : "cannot parse";

	if (p->error == YAML_MEMORY_ERROR)
		return tl_error_set(y->err, "%s: out of memory", y->path);
	if (p->error == YAML_READER_ERROR)
		offset_to_mark(text, p->problem_offset, &line, &col);
	if (p->context)
		return tl_error_set(y->err, "%s:%zu:%zu: invalid YAML: %s (%s at line %zu)", y->path, line + 1,
				    col + 1, problem, p->context, p->context_mark.line + 1);
	return tl_error_set(y->err, "%s:%zu:%zu: invalid YAML: %s", y->path, line + 1, col + 1, problem);
}

int tl_yaml_load(struct tl_yaml *y, const char *path, const char *text, struct tl_error *err)
{
	yaml_parser_t parser;
	yaml_document_t extra;
	int rc = 0;

	memset(y, 0, sizeof(*y));
	y->path = path;
	y->err = err;
	if (!yaml_parser_initialize(&parser))
		return tl_error_set(err, "%s: out of memory", path);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&parser, &y->doc)) {
		rc = parser_error(y, &parser, text);
		goto out;
	}
	y->loaded = true;
	/* A second document would be silently ignored: say so instead. */
	if (!yaml_parser_load(&parser, &extra)) {
		rc = parser_error(y, &parser, text);
		goto out;
	}
	if (yaml_document_get_root_node(&extra))
		rc = tl_yaml_error(y, yaml_document_get_root_node(&extra),
				   "a file holds one YAML document; this is a second one (after ---)");
	yaml_document_delete(&extra);
out:
	yaml_parser_delete(&parser);
	return rc;
}

void tl_yaml_release(struct tl_yaml *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
	y->loaded = false;
}

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

int tl_spec_read_file(const char *path, char **text, struct tl_error *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int saved;

	if (!f)
		return tl_error_set(err, "%s: cannot read: %s", path, strerror(errno));
	for (;;) {
		if (cap - len < 4096) {
			char *grown = realloc(buf, cap ? cap * 2 : 8192);

			if (!grown) {
				saved = ENOMEM;
				goto fail;
			}
			buf = grown;
			cap = cap ? cap * 2 : 8192;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		saved = errno ? errno : EIO;
		goto fail;
	}
	fclose(f);
	buf[len] = '\0';
	*text = buf;
	return 0;
fail:
	fclose(f);
	free(buf);
	return tl_error_set(err, "%s: cannot read: %s", path, strerror(saved));
}

int tl_strlist_push(struct tl_strlist *l, const char *s)
{
	char **v = realloc(l->v, sizeof(*v) * (l->n + 2));
	char *copy;

	if (!v)
		return -ENOMEM;
	l->v = v;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	l->v[l->n++] = copy;
	l->v[l->n] = NULL;
	return 0;
}

void tl_strlist_release(struct tl_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
