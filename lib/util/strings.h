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
