/*
 * The runtime's log lines, read back by ingest and by the simulator's
 * trace loader: tab-separated fields, split in place.
 */
#ifndef TL_FIELDS_H
#define TL_FIELDS_H

#include <stddef.h>

/* One tab-separated field of a line: not NUL-terminated. */
struct tl_field {
	const char *s;
	size_t n;
};

/* Splits the line [p, end) at tabs into at most max fields; returns how many (at least 1). */
int tl_split_tabs(const char *p, const char *end, struct tl_field *f, int max);

#endif
