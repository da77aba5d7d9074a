/*
 * Names kept while reading: the set of those seen (for "given twice"
 * checks in time that grows with the list) and lists of strings.
 */
#include "spec/yaml.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int tl_seen_init(struct tl_seen *s, size_t cap)
{
	memset(s, 0, sizeof(*s));
	s->keys = calloc(cap + 1, sizeof(*s->keys));
	s->pos = calloc(cap + 1, sizeof(*s->pos));
	/* hsearch_r slows down as its table fills: twice the room */
	if (!s->keys || !s->pos || !hcreate_r(2 * cap + 8, &s->tab)) {
		free(s->keys);
		free(s->pos);
		memset(s, 0, sizeof(*s));
		return -ENOMEM;
	}
	s->cap = cap;
	return 0;
}

size_t *tl_seen_add(struct tl_seen *s, const char *name, size_t len, size_t at, bool *fresh)
{
	ENTRY want, *found;
	char *key;

	if (s->n == s->cap || !(key = strndup(name, len)))
		return NULL;
	want.key = key;
	want.data = &s->pos[s->n];
	if (!hsearch_r(want, ENTER, &found, &s->tab)) {
		free(key);
		return NULL;
	}
	*fresh = found->key == key;
	if (!*fresh) {
		free(key);
		return found->data;
	}
	s->keys[s->n] = key;
	s->pos[s->n] = at;
	return &s->pos[s->n++];
}

void tl_seen_release(struct tl_seen *s)
{
	if (s->keys)
		hdestroy_r(&s->tab);
	for (size_t i = 0; i < s->n; i++)
		free(s->keys[i]);
	free(s->keys);
	free(s->pos);
	memset(s, 0, sizeof(*s));
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
