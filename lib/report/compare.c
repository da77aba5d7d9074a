/*
 * The comparison model and its printers (see compare.h). The test is
 * Welch's: it needs no equal variances, which repetitions of two
 * configurations on a shared machine seldom have; with n < 2 on a side, or
 * no spread on both, nothing can be said and the printers say so.
 */
#include "report/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/report-format.h"
#include "util/error.h"
#include "util/quote.h"

static bool agree(const struct tl_report_row *a, const struct tl_report_row *b, const bool ignore[TL_AXIS__COUNT])
{
	for (int ax = 0; ax < TL_AXIS__COUNT; ax++)
		if (!ignore[ax] && a->values[ax] && b->values[ax] && strcmp(a->values[ax], b->values[ax]))
			return false;
	return true;
}

/* "chunks=8 rate=10Hz", then what b has that a does not ("| window=16"). */
static char *pair_label(const struct tl_report_row *a, const struct tl_report_row *b, const bool ignore[TL_AXIS__COUNT])
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	const char *sep = "";

	if (!f)
		return NULL;
	for (int ax = 0; ax < TL_AXIS__COUNT; ax++)
		if (!ignore[ax] && a->values[ax]) {
			fprintf(f, "%s%s=%s", sep, tl_axes[ax].name, a->values[ax]);
			sep = " ";
		}
	for (int ax = 0; ax < TL_AXIS__COUNT; ax++)
		if (!ignore[ax] && !a->values[ax] && b->values[ax]) {
			fprintf(f, "%sB %s=%s", sep, tl_axes[ax].name, b->values[ax]);
			sep = " ";
		}
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

static struct tl_stats stats_of(const struct tl_report_row *r)
{
	return (struct tl_stats){ .n = r->n_fom, .mean = r->mean, .sd = r->sd };
}

int tl_compare_build(const struct tl_report *a, const struct tl_report *b, const bool ignore[TL_AXIS__COUNT],
		     const char *a_name, const char *b_name, struct tl_compare *c)
{
	memset(c, 0, sizeof(*c));
	if (!(c->a_name = strdup(a_name)) || !(c->b_name = strdup(b_name)))
		goto oom;
	for (size_t i = 0; i < a->nrows; i++) {
		for (size_t j = 0; j < b->nrows; j++) {
			const struct tl_report_row *ra = &a->rows[i], *rb = &b->rows[j];
			struct tl_compare_pair *p;
			struct tl_stats sa, sb;

			if (ra == rb || !ra->n_fom || !rb->n_fom || !agree(ra, rb, ignore))
				continue;
			if (!(p = realloc(c->pairs, (c->n + 1) * sizeof(*p))))
				goto oom;
			c->pairs = p;
			p = &c->pairs[c->n];
			memset(p, 0, sizeof(*p));
			p->a = ra;
			p->b = rb;
			if (!(p->label = pair_label(ra, rb, ignore)))
				goto oom;
			c->n++;
			p->has_ratio = ra->mean != 0 && isfinite(rb->mean / ra->mean);
			p->ratio = p->has_ratio ? rb->mean / ra->mean : NAN;
			sa = stats_of(ra);
			sb = stats_of(rb);
			p->tested = tl_welch_test(&sa, &sb, &p->welch);
			p->significant = p->tested && p->welch.p < 0.05;
		}
	}
	return 0;
oom:
	error("out of memory comparing");
	tl_compare_release(c);
	return -ENOMEM;
}

void tl_compare_release(struct tl_compare *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->pairs[i].label);
	free(c->pairs);
	free(c->a_name);
	free(c->b_name);
	memset(c, 0, sizeof(*c));
}

static void fom_text(char *buf, size_t len, const struct tl_report_row *r)
{
	char mean[64], sd[64];

	tl_fmt_sig(mean, sizeof(mean), r->mean, 4);
	tl_fmt_sig(sd, sizeof(sd), r->sd, 2);
	if (r->n_fom > 1)
		snprintf(buf, len, "%s ± %s (%zu)", mean, sd, r->n_fom);
	else
		snprintf(buf, len, "%s (%zu)", mean, r->n_fom);
}

static const char *verdict(const struct tl_compare_pair *p)
{
	return !p->tested ? "untested" : p->significant ? "yes" : "no";
}

static void print_text(const struct tl_compare *c, FILE *out)
{
	size_t wl = strlen("configuration"), wa = 1, wb = 1;
	char a[192], b[192], ratio[64], pv[64];

	fputs("A: ", out);
	tl_fput_visible(c->a_name, 0, out);
	fputs("\nB: ", out);
	tl_fput_visible(c->b_name, 0, out);
	fputs("\ntest: Welch's t-test (unequal variances, two-sided); significant when p < 0.05\n\n", out);
	for (size_t i = 0; i < c->n; i++) {
		wl = wl > tl_fmt_width(c->pairs[i].label) ? wl : tl_fmt_width(c->pairs[i].label);
		fom_text(a, sizeof(a), c->pairs[i].a);
		fom_text(b, sizeof(b), c->pairs[i].b);
		wa = wa > tl_fmt_width(a) ? wa : tl_fmt_width(a);
		wb = wb > tl_fmt_width(b) ? wb : tl_fmt_width(b);
	}
	fprintf(out, "%-*s  %*s  %*s  %7s  %8s  %s\n", (int)wl, "configuration", (int)wa, "A", (int)wb, "B", "B/A",
		"p", "significant");
	for (size_t i = 0; i < c->n; i++) {
		const struct tl_compare_pair *p = &c->pairs[i];
		char *label = tl_fmt_visible(p->label, false);

		fom_text(a, sizeof(a), p->a);
		fom_text(b, sizeof(b), p->b);
		tl_fmt_sig(ratio, sizeof(ratio), p->ratio, 4);
		if (p->tested)
			snprintf(pv, sizeof(pv), p->welch.p < 0.0001 ? "%.1e" : "%.4f", p->welch.p);
		else
			strcpy(pv, "-");
		/* "±" is two bytes and one column: pad by columns */
		fprintf(out, "%s%*s  %*s%s  %*s%s  %7s  %8s  %s\n", label ? label : "", (int)(wl - tl_fmt_width(p->label)), "",
			(int)(wa - tl_fmt_width(a)), "", a, (int)(wb - tl_fmt_width(b)), "", b, p->has_ratio ? ratio : "-",
			pv, verdict(p));
		free(label);
	}
	if (!c->n)
		fputs("(no configuration of A has a counterpart in B)\n", out);
	for (size_t i = 0; i < c->n; i++)
		if (!c->pairs[i].tested) {
			fputs("note: untested: a side has fewer than 2 successful runs, or neither has any spread\n", out);
			break;
		}
}

static void csv_field(FILE *out, const char *s, bool first)
{
	if (!first)
		fputc(',', out);
	tl_quote_csv(out, s);
}

static void csv_number(FILE *out, bool valid, double x)
{
	char b[64];

	tl_fmt_exact(b, sizeof(b), x);
	csv_field(out, valid && *b ? b : NULL, false);
}

static void print_csv(const struct tl_compare *c, FILE *out)
{
	fputs("a,b,configuration,a_config_key,b_config_key,a_mean,a_sd,a_n,b_mean,b_sd,b_n,fom_unit,ratio,"
	      "welch_t,welch_df,p,significant\r\n", out);
	for (size_t i = 0; i < c->n; i++) {
		const struct tl_compare_pair *p = &c->pairs[i];

		csv_field(out, c->a_name, true);
		csv_field(out, c->b_name, false);
		csv_field(out, p->label, false);
		csv_field(out, p->a->config_key, false);
		csv_field(out, p->b->config_key, false);
		csv_number(out, true, p->a->mean);
		csv_number(out, true, p->a->sd);
		fprintf(out, ",%zu", p->a->n_fom);
		csv_number(out, true, p->b->mean);
		csv_number(out, true, p->b->sd);
		fprintf(out, ",%zu", p->b->n_fom);
		csv_field(out, p->a->fom_unit, false);
		csv_number(out, p->has_ratio, p->ratio);
		csv_number(out, p->tested, p->welch.t);
		csv_number(out, p->tested, p->welch.df);
		csv_number(out, p->tested, p->welch.p);
		csv_field(out, p->tested ? (p->significant ? "true" : "false") : NULL, false);
		fputs("\r\n", out);
	}
}

static void json_number(FILE *out, bool valid, double x)
{
	char b[64];

	tl_fmt_exact(b, sizeof(b), x);
	fputs(valid && *b ? b : "null", out);
}

static void json_side(FILE *out, const struct tl_report_row *r)
{
	fputs("{\"config_key\": ", out);
	tl_json_string(out, r->config_key);
	fputs(", \"mean\": ", out);
	json_number(out, true, r->mean);
	fputs(", \"sd\": ", out);
	json_number(out, true, r->sd);
	fprintf(out, ", \"n\": %zu, \"unit\": ", r->n_fom);
	tl_json_string(out, r->fom_unit);
	fputc('}', out);
}

static void print_json(const struct tl_compare *c, FILE *out)
{
	fputs("{\n  \"a\": ", out);
	tl_json_string(out, c->a_name);
	fputs(",\n  \"b\": ", out);
	tl_json_string(out, c->b_name);
	fputs(",\n  \"test\": \"welch\",\n  \"pairs\": [", out);
	for (size_t i = 0; i < c->n; i++) {
		const struct tl_compare_pair *p = &c->pairs[i];

		fputs(i ? ",\n    {\"configuration\": " : "\n    {\"configuration\": ", out);
		tl_json_string(out, p->label);
		fputs(", \"a\": ", out);
		json_side(out, p->a);
		fputs(", \"b\": ", out);
		json_side(out, p->b);
		fputs(", \"ratio\": ", out);
		json_number(out, p->has_ratio, p->ratio);
		fputs(", \"welch_t\": ", out);
		json_number(out, p->tested, p->welch.t);
		fputs(", \"welch_df\": ", out);
		json_number(out, p->tested, p->welch.df);
		fputs(", \"p\": ", out);
		json_number(out, p->tested, p->welch.p);
		fprintf(out, ", \"significant\": %s}", !p->tested ? "null" : p->significant ? "true" : "false");
	}
	fputs(c->n ? "\n  ]\n}\n" : "]\n}\n", out);
}

int tl_compare_print(const struct tl_compare *c, enum tl_report_format fmt, FILE *out)
{
	switch (fmt) {
	case TL_FMT_TEXT:
		print_text(c, out);
		break;
	case TL_FMT_CSV:
		print_csv(c, out);
		break;
	case TL_FMT_JSON:
		print_json(c, out);
		break;
	default:
		error("compare prints text, csv or json, not %s", tl_report_format_names[fmt]);
		return -EINVAL;
	}
	return ferror(out) ? -EIO : 0;
}
