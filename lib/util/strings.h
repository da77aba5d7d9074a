/*
 * Small string helpers every layer uses, the preloaded runtime included:
 * inline, allocating nothing, touching no errno.
 */
#ifndef TL_STRINGS_H
#define TL_STRINGS_H

#include <stdbool.h>
#include <string.h>

/* Does s end with suffix? */
static inline bool tl_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
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
