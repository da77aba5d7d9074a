/*
 * The report as an aligned table for a terminal: a title line, one line
 * per configuration, a "warning:" line for each configuration that
 * sampled short of its rate, then a "note:" line for anything the numbers
 * alone would hide. Cells come from report-format.c; this file only lays
 * them out (two spaces between columns, numbers right-aligned).
 */
#include "report/report-format.h"

#include <errno.h>
#include <stdlib.h>

static void pad(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

static void print_line(const struct tl_report_table *t, size_t row, FILE *out)
{
	for (size_t c = 0; c < t->ncols; c++) {
		const char *s = t->cells[row * t->ncols + c];
		size_t gap = t->width[c] - tl_fmt_width(s);

		if (c)
			fputs("  ", out);
		if (t->right[c])
			pad(out, gap);
		fputs(s, out);
		/* No trailing blanks after the last column. */
		if (!t->right[c] && c + 1 < t->ncols)
			pad(out, gap);
	}
	fputc('\n', out);
}

int tl_report_print_text(const struct tl_report *rep, FILE *out)
{
	struct tl_report_table t;
	char *title;
	int ret;

	if (tl_report_layout(rep, false, &title, &t))
		return -ENOMEM;
	fprintf(out, "%s\n", title);
	for (size_t row = 0; row < t.nrows; row++)
		print_line(&t, row, out);
	if (!rep->nrows)
		fputs("no runs\n", out);
	ret = tl_report_put_warnings(rep, false, "warning: ", out);
	ret = ret ?: tl_report_put_notes(rep, false, "note: ", out);
	ret = ret ?: ferror(out) ? -EIO : 0;
	tl_report_layout_release(title, &t);
	return ret;
}
