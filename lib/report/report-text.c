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
	struct tl_report_notes notes;
	char *title, *note;
	int ret = -ENOMEM;

	if (tl_report_title(rep, false, &title))
		return -ENOMEM;
	if (tl_report_table_build(rep, false, &t))
		goto free_title;
	fprintf(out, "%s\n", title);
	for (size_t row = 0; row < t.nrows; row++)
		print_line(&t, row, out);
	if (!rep->nrows)
		fputs("no runs\n", out);
	if (tl_report_put_warnings(rep, false, "warning: ", out))
		goto release_table;
	tl_report_notes(rep, &notes);
	for (size_t i = 0; i < notes.n; i++) {
		if (!(note = tl_fmt_visible(notes.text[i], false)))
			goto release_table;
		fprintf(out, "note: %s\n", note);
		free(note);
	}
	ret = ferror(out) ? -EIO : 0;
release_table:
	tl_report_table_release(&t);
free_title:
	free(title);
	return ret;
}
