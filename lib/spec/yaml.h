/*
 * A YAML toolkit over libyaml's document tree, for every reader of
 * tierlab's YAML files (specs, workload descriptors, tier models, probe
 * profiles): each node keeps its line and column, so the first problem is
 * reported as one "FILE:LINE:COL: field: message" line in a struct
 * tl_error. Nodes belong to the struct tl_yaml they came from and live
 * until tl_yaml_release(); the accessors that copy (tl_yaml_string,
 * tl_yaml_strlist) hand the caller copies it frees.
 */
#ifndef TL_SPEC_YAML_H
#define TL_SPEC_YAML_H

#include <search.h>
#include <stdbool.h>
#include <yaml.h>
#include "spec/spec.h"

/* A loaded YAML file and where its messages go. */
struct tl_yaml {
	const char *path;	/* as used in messages */
	yaml_document_t doc;
	bool loaded;
	struct tl_error *err;
};

/*
 * Parses text (one YAML document, lists and maps nested at most
 * TL_YAML_MAX_DEPTH deep). Returns 0 with y->doc loaded (its root may be
 * NULL for an empty file), or -EINVAL with libyaml's problem (or the place
 * the depth limit was passed) as the error line. Release with
 * tl_yaml_release() either way.
 */
#define TL_YAML_MAX_DEPTH 64
/* Aliases may repeat this many nodes beyond the file's own; more, or an alias inside its anchor, is refused. */
#define TL_YAML_MAX_REPEATED (1 << 20)
int tl_yaml_load(struct tl_yaml *y, const char *path, const char *text, struct tl_error *err);
void tl_yaml_release(struct tl_yaml *y);
yaml_node_t *tl_yaml_root(struct tl_yaml *y);
yaml_node_t *tl_yaml_node(struct tl_yaml *y, int index);

/* "PATH:LINE:COL: <fmt>" into y->err, at node `at` (1:1 when NULL); returns -EINVAL. */
int tl_yaml_error(struct tl_yaml *y, const yaml_node_t *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct tl_loc tl_yaml_loc(const yaml_node_t *n);
/* "a map", "a list", "a string" — for "expected X, got Y". */
const char *tl_yaml_kind(const yaml_node_t *n);
/* An empty value, ~ or null written plainly. */
bool tl_yaml_is_null(const yaml_node_t *n);
/* The scalar's text, or NULL when n is not a scalar. */
const char *tl_yaml_text(const yaml_node_t *n);

/* "field.key", or "key" when field is empty, into buf[TL_FIELD_MAX] (cut short if need be). */
#define TL_FIELD_MAX 192
const char *tl_yaml_field(char *buf, const char *field, const char *key);

/* Map walking: each pair's key and value nodes. */
#define tl_yaml_for_pairs(y, map, k, v)                                                     \
	for (yaml_node_pair_t *tl__p = (map)->data.mapping.pairs.start;                      \
	     tl__p < (map)->data.mapping.pairs.top &&                                        \
	     ((k) = tl_yaml_node((y), tl__p->key), (v) = tl_yaml_node((y), tl__p->value), 1); \
	     tl__p++)
#define tl_yaml_for_items(y, seq, i, item)                                                   \
	for (size_t i = 0;                                                                   \
	     (seq)->data.sequence.items.start + i < (seq)->data.sequence.items.top &&        \
	     ((item) = tl_yaml_node((y), (seq)->data.sequence.items.start[i]), 1);           \
	     i++)
size_t tl_yaml_count(const yaml_node_t *n);	/* items of a list, pairs of a map */

/*
 * Checks a map's keys: scalars, each in `known` (NULL-terminated), none
 * twice. Messages say "FIELD: unknown key 'x' (did you mean 'y'?)"; an
 * empty field means the top level.
 */
int tl_yaml_check_keys(struct tl_yaml *y, yaml_node_t *map, const char *field,
		       const char *const *known);
/* The value under key (NULL when absent); the key node into *key when non-NULL. */
yaml_node_t *tl_yaml_get(struct tl_yaml *y, yaml_node_t *map, const char *key, yaml_node_t **keynode);

/* Type checks with "FIELD: expected <what>, got <kind>" messages. */
int tl_yaml_expect_map(struct tl_yaml *y, yaml_node_t *n, const char *field, const char *what);
int tl_yaml_expect_list(struct tl_yaml *y, yaml_node_t *n, const char *field, const char *what);
/* A non-null scalar, copied. */
int tl_yaml_string(struct tl_yaml *y, yaml_node_t *n, const char *field, char **out);
/* A list of scalars, as written; nonempty: at least one. */
int tl_yaml_strlist(struct tl_yaml *y, yaml_node_t *n, const char *field, bool nonempty,
		    struct tl_strlist *out);
int tl_yaml_bool(struct tl_yaml *y, yaml_node_t *n, const char *field, bool *out);

/*
 * Reads a whole file of at most TL_SPEC_MAX_BYTES and no NUL byte, stopping
 * at the first NUL or past the limit (so /dev/zero ends at once);
 * "PATH: cannot read: <strerror>" on failure.
 */
int tl_spec_read_file(const char *path, char **text, struct tl_error *err);

/*
 * The names seen so far in one list or map, for "given twice" checks
 * whose time grows with the list, not with its square (a 16 MiB spec can
 * hold a million names): glibc's hsearch_r over copies of the names, each
 * with a position the caller chooses and may change.
 */
struct tl_seen {
	struct hsearch_data tab;
	char **keys;
	size_t *pos;
	size_t n, cap;
};
/* Room for cap names. 0 or -ENOMEM. */
int tl_seen_init(struct tl_seen *s, size_t cap);
/*
 * The position stored for the first len bytes of name: a name seen before
 * keeps its position (*fresh false), a new one gets `at` (*fresh true).
 * NULL when out of memory or past cap.
 */
size_t *tl_seen_add(struct tl_seen *s, const char *name, size_t len, size_t at, bool *fresh);
void tl_seen_release(struct tl_seen *s);

/* Appends a copy of s: 0 or -ENOMEM (the list unchanged). */
int tl_strlist_push(struct tl_strlist *l, const char *s);
/* Frees the strings and the array; the list is empty after. */
void tl_strlist_release(struct tl_strlist *l);

#endif
