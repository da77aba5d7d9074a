/*
 * The report as GitHub-flavoured markdown: a heading, a pipe table with
 * the same cells as the text table (numbers right-aligned through the
 * separator row, padded so the source reads as a table too), and the
 * notes and the warnings (spread, rate short, few samples) as a list.
 */
#include "report/report-format.h"

#include <errno.h>
#include <stdlib.h>

static void repeat(FILE *out, char ch, size_t n)
{
	while (n--)
		fputc(ch, out);
}

/* Three dashes and a colon in the separator, whatever the cells hold: some renderers want three. */
static size_t col_width(const struct tl_report_table *t, size_t c)
{
	return t->width[c] < 4 ? 4 : t->width[c];
}

static void print_row(const struct tl_report_table *t, size_t row, FILE *out)
{
	for (size_t c = 0; c < t->ncols; c++) {
		const char *s = t->cells[row * t->ncols + c];
		size_t gap = col_width(t, c) - tl_fmt_width(s);

		fputs(c ? " " : "| ", out);
		if (t->right[c])
			repeat(out, ' ', gap);
		fputs(s, out);
		if (!t->right[c])
			repeat(out, ' ', gap);
		fputs(" |", out);
	}
	fputc('\n', out);
}

static void print_separator(const struct tl_report_table *t, FILE *out)
{
	for (size_t c = 0; c < t->ncols; c++) {
		fputs(c ? " " : "| ", out);
		fputc(t->right[c] ? '-' : ':', out);
		repeat(out, '-', col_width(t, c) - 2);
		fputc(t->right[c] ? ':' : '-', out);
		fputs(" |", out);
	}
	fputc('\n', out);
}

int tl_report_print_markdown(const struct tl_report *rep, FILE *out)
{
	struct tl_report_table t;
	struct tl_report_notes notes;
	char *title;
	int ret;

	if (tl_report_layout(rep, true, &title, &t))
		return -ENOMEM;
	fprintf(out, "### %s\n\n", title);
	print_row(&t, 0, out);
	print_separator(&t, out);
	for (size_t row = 1; row < t.nrows; row++)
		print_row(&t, row, out);
	tl_report_notes(rep, &notes);
	if (notes.n || !rep->nrows || tl_report_has_warnings(rep))
		fputc('\n', out);
	if (!rep->nrows)
		fputs("- no runs\n", out);
	ret = tl_report_put_notes(rep, true, "- ", 0, out);
	ret = ret ?: tl_report_put_warnings(rep, true, "- warning: ", 0, out);
	ret = ret ?: ferror(out) ? -EIO : 0;
	tl_report_layout_release(title, &t);
	return ret;
}
