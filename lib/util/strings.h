/*
 * Small string helpers every layer uses, inline. The preloaded runtime uses
 * the ones that allocate nothing (all but tl_strdup_or_null).
 */
#ifndef TL_STRINGS_H
#define TL_STRINGS_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Does s end with suffix? */
static inline bool tl_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* A copy of s (NULL stays NULL); sets *oom when the copy failed, so many copies check once. */
static inline char *tl_strdup_or_null(const char *s, bool *oom)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

/*
 * Blanks are spaces and tabs: what every reader of a value (an axis, a
 * size, --where, --events, a runtime variable) skips around it.
 */
static inline bool tl_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline const char *tl_skip_blanks(const char *s)
{
	while (tl_is_blank(*s))
		s++;
	return s;
}

/* Narrows s[0, *n) to its text without the blanks around it: returns the new start, *n its length. */
static inline const char *tl_trim_span(const char *s, size_t *n)
{
	while (*n && tl_is_blank(*s))
		s++, (*n)--;
	while (*n && tl_is_blank(s[*n - 1]))
		(*n)--;
	return s;
}

/* s without the blanks around it, in place (a NUL after its text): where its text starts. */
static inline char *tl_trim(char *s)
{
	size_t n = strlen(s);
	char *t = (char *)tl_trim_span(s, &n);

	t[n] = '\0';
	return t;
}

/* A copy of s[0, n) without the blanks around it, malloc'd; NULL when out of memory. */
static inline char *tl_strndup_trimmed(const char *s, size_t n)
{
	s = tl_trim_span(s, &n);
	return strndup(s, n);
}

/* The value of NAME in an environment array ("NAME=value" strings, NULL-terminated), or NULL. */
static inline const char *tl_env_lookup(char *const *envp, const char *name)
{
	size_t len;

	if (!envp || !name)
		return NULL;
	len = strlen(name);
	for (; *envp; envp++)
		if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

#endif
