/*
 * Rows out as they come: a CSV (RFC 4180) or JSON writer for tables of
 * typed values, one row at a time, nothing kept (what `tierlab export`
 * streams samples and migrations through, however many there are).
 * CSV: a header line, CRLF line ends, NULL an empty field, text through
 * tl_quote_csv (a formula-like cell after a '), numbers as numbers. JSON: one
 * array of objects, NULL null, text escaped (invalid UTF-8 as U+FFFD).
 */
#ifndef TL_EXPORT_H
#define TL_EXPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "store/log.h"

struct tl_export {
	FILE *out;
	bool json;
	size_t rows;
};

/* Starts the output: the CSV header (names[0..n)) or the JSON array's opening. */
void tl_export_begin(struct tl_export *x, FILE *out, bool json, const char *const *names, size_t n);
/* One row; v[i].name names each JSON field. */
void tl_export_row(struct tl_export *x, const struct tl_value *v, size_t n);
/* Closes the JSON array. 0, or -EIO when writing failed. */
int tl_export_end(struct tl_export *x);

#endif
