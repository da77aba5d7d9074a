/*
 * Did-you-mean over a list of known names: the one a slip of the keyboard
 * away from what was written, for every "unknown ..." message.
 */
#include "axis/axis.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Optimal string alignment distance (Levenshtein plus adjacent swaps), ignoring case. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	size_t *d, best;

	if (n > 64 || m > 64)
		return (size_t)-1;
	d = calloc((n + 1) * (m + 1), sizeof(*d));
	if (!d)
		return (size_t)-1;
#define D(i, j) d[(i) * (m + 1) + (j)]
	for (size_t i = 0; i <= n; i++)
		D(i, 0) = i;
	for (size_t j = 0; j <= m; j++)
		D(0, j) = j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t v = D(i - 1, j) + 1;

			if (D(i, j - 1) + 1 < v)
				v = D(i, j - 1) + 1;
			if (D(i - 1, j - 1) + cost < v)
				v = D(i - 1, j - 1) + cost;
			if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
			    D(i - 2, j - 2) + 1 < v)
				v = D(i - 2, j - 2) + 1;
			D(i, j) = v;
		}
	}
	best = D(n, m);
#undef D
	free(d);
	return best;
}

const char *tl_did_you_mean(const char *word, const char *const *names)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;

	if (!word || !*word || !names)
		return NULL;
	for (size_t i = 0; names[i]; i++) {
		size_t d = edit_distance(word, names[i]);

		/*
		 * Close enough to be a slip, not a different word: "lur" -> "lru", not
		 * "x" -> "log"; two edits only in a longer word that starts the same,
		 * so "tcmalloc" is not taken for "jemalloc".
		 */
		if (d > 2 || 2 * d > strlen(names[i]) || 2 * d > strlen(word))
			continue;
		if (d == 2 && (strlen(names[i]) < 5 || tolower((unsigned char)word[0]) !=
							      tolower((unsigned char)names[i][0])))
			continue;
		if (d < best_d) {
			best = names[i];
			best_d = d;
		}
	}
	return best;
}
