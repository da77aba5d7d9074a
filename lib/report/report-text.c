/*
 * The report as an aligned table for a terminal: a title line, one line
 * per configuration, a "note:" for anything the numbers alone would hide
 * (what the cautions mean, simulated tiers, failed runs), then a
 * "warning:" for each configuration whose figures need one (spread, rate
 * short, few samples), each wrapped to the table's width (100 columns
 * unless --wide). Cells come from report-table.c; this file only
 * lays them out (two spaces between columns, numbers right-aligned).
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
	/* the lines under the table fit the terminal the table fits */
	size_t width = rep->show_wide ? 0 : TL_REPORT_TEXT_COLUMNS;
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
	/* the notes first: how to read the table (its cautions, simulated tiers) belongs right under it */
	ret = tl_report_put_notes(rep, false, "note: ", width, out);
	if (!ret && t.left_out) {
		char *note = tl_fmt_alloc("left out to fit %d columns: %s (--wide shows every column, --columns "
					  "chooses)", TL_REPORT_TEXT_COLUMNS, t.left_out);

		if (note)
			tl_fput_wrapped(out, "note: ", note, width);
		ret = note ? 0 : -ENOMEM;
		free(note);
	}
	ret = ret ?: tl_report_put_warnings(rep, false, "warning: ", width, out);
	ret = ret ?: ferror(out) ? -EIO : 0;
	tl_report_layout_release(title, &t);
	return ret;
}
