/*
 * Where a chunk goes: placed at allocation, or moved between the tiers.
 * One list for the runtime's log (M records), the store's migrations
 * table (its CHECK, a schema of the past, names the same four), the
 * replay's counts and the plots. Header only: the runtime includes it too.
 *
 * X(ID, name)
 */
#ifndef TL_UTIL_DIRECTION_H
#define TL_UTIL_DIRECTION_H

#include <stddef.h>
#include <string.h>

#define TL_DIRECTIONS(X) \
	X(INITIAL_FAST, "initial-fast") \
	X(INITIAL_SLOW, "initial-slow") \
	X(SLOW_TO_FAST, "slow-to-fast") \
	X(FAST_TO_SLOW, "fast-to-slow")

enum tl_direction {
#define TL_DIRECTION_ENUM(id, name) TL_DIR_##id,
	TL_DIRECTIONS(TL_DIRECTION_ENUM)
#undef TL_DIRECTION_ENUM
	TL_DIR__COUNT
};

/* Its name, or "?" for a value outside the list. */
static inline const char *tl_direction_name(int d)
{
	switch (d) {
#define TL_DIRECTION_CASE(id, name) case TL_DIR_##id: return name;
	TL_DIRECTIONS(TL_DIRECTION_CASE)
#undef TL_DIRECTION_CASE
	default:
		return "?";
	}
}

/* The direction named by the n bytes at s, or -1. */
static inline int tl_direction_parse(const char *s, size_t n)
{
	for (int d = 0; d < TL_DIR__COUNT; d++)
		if (strlen(tl_direction_name(d)) == n && !memcmp(tl_direction_name(d), s, n))
			return d;
	return -1;
}

#endif
