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
/* A count for people: exact below 10000, then "12.3k", "4.56M". */
void tl_fmt_count(char *buf, size_t len, double n);
/* The printf result, malloc'd; NULL when out of memory. */
char *tl_fmt_alloc(const char *f, ...) __attribute__((format(printf, 1, 2)));
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
	char *left_out;		/* text: the headers of the columns left out to fit, or NULL */
};
/*
 * The columns rep->columns names (report --columns), in that order; else
 * every column, and for text (not markdown) unless rep->show_wide, fewer
 * until the table fits TL_REPORT_TEXT_COLUMNS: first ok/fail/timeout/crash
 * when every run succeeded, then axes that only follow the policy (budget
 * 40% where set, unset elsewhere), wall s, achieved Hz, the status, GiB
 * migrated; never what names a row or its figures, nor what was asked for
 * (--stats, --directions, --counters). Those left out are in left_out.
 */
int tl_report_table_build(const struct tl_report *rep, bool markdown, struct tl_report_table *t);
void tl_report_table_release(struct tl_report_table *t);

/*
 * A row's caution bits (tl_report_caution) in words between sep: "n<3,
 * noisy, few samples, busy host, other session" (CSV: "n<3;noisy", no
 * quotes needed); "" for none.
 */
void tl_report_caution_text(unsigned caution, const char *sep, char *buf, size_t len);
/* The k-th caution word in the order they are written ("n<3", ...) and its bit; NULL past the last. */
const char *tl_report_caution_word(size_t k, unsigned *bit);

/*
 * text written at most width terminal columns a line, broken at spaces:
 * prefix before the first line, as many spaces before the others (width
 * 0: one line). A word longer than a line stays whole.
 */
void tl_fput_wrapped(FILE *out, const char *prefix, const char *text, size_t width);

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
/*
 * Every row's warning, made visible, one each: prefix, the text, a newline,
 * wrapped at width columns (tl_fput_wrapped; 0: not). 0 or -ENOMEM.
 */
int tl_report_put_warnings(const struct tl_report *rep, bool markdown, const char *prefix, size_t width, FILE *out);
bool tl_report_has_warnings(const struct tl_report *rep);
/* Every note (tl_report_notes), made visible, as tl_report_put_warnings puts them. 0 or -ENOMEM. */
int tl_report_put_notes(const struct tl_report *rep, bool markdown, const char *prefix, size_t width, FILE *out);

/* The title and the table of a text-like format; 0 or -ENOMEM (nothing to release then). */
int tl_report_layout(const struct tl_report *rep, bool markdown, char **title, struct tl_report_table *t);
void tl_report_layout_release(char *title, struct tl_report_table *t);

/*
 * What a reader must know that the table does not say (no baseline run
 * succeeded, configurations without a successful run, ...), one sentence
 * each, lowercase, no final period.
 */
#define TL_REPORT_MAX_NOTES 24
struct tl_report_notes {
	size_t n;
	char text[TL_REPORT_MAX_NOTES][512];
};
void tl_report_notes(const struct tl_report *rep, struct tl_report_notes *notes);

#endif
