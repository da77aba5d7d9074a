/*
 * Tab-separated fields of a log line (util/fields.h).
 */
#include "util/fields.h"

#include <string.h>

int tl_split_tabs(const char *p, const char *end, struct tl_field *f, int max)
{
	int n = 0;

	while (n < max) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));

		f[n].s = p;
		f[n].n = (size_t)((tab ? tab : end) - p);
		n++;
		if (!tab)
			break;
		p = tab + 1;
	}
	return n;
}
