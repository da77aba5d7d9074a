/*
 * The streaming CSV and JSON writers of export.h. Numbers are written in
 * the shortest text that reads back exactly, as the report's CSV and JSON
 * do.
 */
#include "report/export.h"

#include <errno.h>
#include <inttypes.h>
#include "report/report-format.h"
#include "util/quote.h"

void tl_export_begin(struct tl_export *x, FILE *out, bool json, const char *const *names, size_t n)
{
	x->out = out;
	x->json = json;
	x->rows = 0;
	if (json) {
		fputc('[', out);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		tl_quote_csv(out, names[i]);
	}
	fputs("\r\n", out);
}

void tl_export_row(struct tl_export *x, const struct tl_value *v, size_t n)
{
	char b[64];

	if (x->json)
		fputs(x->rows ? ",\n  {" : "\n  {", x->out);
	for (size_t i = 0; i < n; i++) {
		if (x->json) {
			fputs(i ? ", " : "", x->out);
			tl_json_string(x->out, v[i].name);
			fputs(": ", x->out);
		} else if (i) {
			fputc(',', x->out);
		}
		switch (v[i].type) {
		case TL_VALUE_INT:
			fprintf(x->out, "%" PRId64, v[i].i);
			break;
		case TL_VALUE_REAL:
			tl_fmt_exact(b, sizeof(b), v[i].d);
			fputs(*b ? b : x->json ? "null" : "", x->out);
			break;
		case TL_VALUE_TEXT:
			if (x->json)
				tl_json_string(x->out, v[i].s);
			else
				tl_quote_csv(x->out, v[i].s);
			break;
		default:
			if (x->json)
				fputs("null", x->out);
		}
	}
	fputs(x->json ? "}" : "\r\n", x->out);
	x->rows++;
}

int tl_export_end(struct tl_export *x)
{
	if (x->json)
		fputs(x->rows ? "\n]\n" : "]\n", x->out);
	return ferror(x->out) ? -EIO : 0;
}
