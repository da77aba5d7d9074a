/*
 * Private to the report printers (report-*.c): the pieces every format
 * shares, so a number or a note reads the same in text, markdown, CSV and
 * JSON. Not part of the library's contract; cmd/ uses report.h only.
 */
#ifndef TL_REPORT_FORMAT_H
#define TL_REPORT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "report/report.h"
#include "util/visible.h"

/* One printer per format (TL_REPORT_FORMATS); each returns 0 or -EIO when writing failed. */
#define TL_X(id, name) int tl_report_print_##name(const struct tl_report *rep, FILE *out);
TL_REPORT_FORMATS(TL_X)
#undef TL_X

/*
 * x with `sig` significant digits for people: fixed notation (trailing
 * zeros kept, they carry the precision) unless the magnitude needs an
 * exponent. "-" when x is not finite.
 */
void tl_fmt_sig(char *buf, size_t len, double x, int sig);
/* x in the shortest text that reads back as the same double; "" when not finite. */
void tl_fmt_exact(char *buf, size_t len, double x);

/*
 * s made safe for one table cell on a terminal or in markdown (as
 * util/visible.h does, and in markdown '|' as "\|"). NULL becomes "-".
 * Returns malloc'd text or NULL when out of memory.
 */
char *tl_fmt_visible(const char *s, bool markdown);
/*
 * s as a JSON string: quotes, backslashes and control characters escaped,
 * invalid UTF-8 as U+FFFD; NULL as null.
 */
void tl_json_string(FILE *out, const char *s);

/* Terminal columns taken by s: one per code point (no wide-character tables). */
size_t tl_fmt_width(const char *s);

/*
 * The table text and markdown share: header row first, then one row per
 * report row, every cell already formatted and made visible.
 */
struct tl_report_table {
	size_t ncols, nrows;	/* nrows counts the header */
	char **cells;		/* nrows x ncols, row-major */
	bool *right;		/* per column: numbers align right */
	size_t *width;		/* per column: widest cell, in terminal columns */
};
int tl_report_table_build(const struct tl_report *rep, bool markdown, struct tl_report_table *t);
void tl_report_table_release(struct tl_report_table *t);

/*
 * "experiment NAME — baseline policy=all-fast" (or "— no baseline"), made
 * visible as tl_fmt_visible does. Returns 0 or -ENOMEM.
 */
int tl_report_title(const struct tl_report *rep, bool markdown, char **out);

/*
 * Row i's warning, when its achieved sampling rate is short:
 * "workload=hpcg policy=lru chunks=8: rate 1000Hz achieved 488 Hz (49%):
 * the sampler could not keep up" (the axes the table shows, then
 * tl_rate_short's words), raw text (make it visible to print it).
 * Returns 0 with *out malloc'd, or NULL when the row has none; -ENOMEM.
 */
int tl_report_warning(const struct tl_report *rep, size_t i, char **out);
/* Every row's warning, made visible, one line each: prefix, the text, a newline. 0 or -ENOMEM. */
int tl_report_put_warnings(const struct tl_report *rep, bool markdown, const char *prefix, FILE *out);
bool tl_report_has_warnings(const struct tl_report *rep);
/* Every note (tl_report_notes), made visible, one line each: prefix, the text, a newline. 0 or -ENOMEM. */
int tl_report_put_notes(const struct tl_report *rep, bool markdown, const char *prefix, FILE *out);

/* The title and the table of a text-like format; 0 or -ENOMEM (nothing to release then). */
int tl_report_layout(const struct tl_report *rep, bool markdown, char **title, struct tl_report_table *t);
void tl_report_layout_release(char *title, struct tl_report_table *t);

/*
 * What a reader must know that the table does not say (no baseline run
 * succeeded, configurations without a successful run, ...), one sentence
 * each, lowercase, no final period.
 */
#define TL_REPORT_MAX_NOTES 16
struct tl_report_notes {
	size_t n;
	char text[TL_REPORT_MAX_NOTES][320];
};
void tl_report_notes(const struct tl_report *rep, struct tl_report_notes *notes);

#endif
