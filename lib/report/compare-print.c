/*
 * The comparison's printers (text, CSV, JSON) over the model of compare.c:
 * what was paired on, the two figures, the ratio and its interval, the raw
 * and the adjusted p, and what the numbers cannot say by themselves (too
 * few runs for the test to have power, pairs left untested).
 */
#include "report/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/report-format.h"
#include "util/error.h"
#include "util/quote.h"

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

static void ci_text(char *buf, size_t len, const struct tl_compare_pair *p)
{
	char lo[32], hi[32];

	if (!p->has_ratio_ci) {
		snprintf(buf, len, "-");
		return;
	}
	tl_fmt_sig(lo, sizeof(lo), p->ratio_lo, 4);
	tl_fmt_sig(hi, sizeof(hi), p->ratio_hi, 4);
	snprintf(buf, len, "%s - %s", lo, hi);
}

static void p_text(char *buf, size_t len, bool valid, double p)
{
	if (!valid)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, p < 0.0001 ? "%.1e" : "%.4f", p);
}

/* "yes", "no" or "untested", then why it may be off: "no, n<3, sessions, busy host". */
static void verdict(const struct tl_compare_pair *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", !p->tested ? "untested" : p->significant ? "yes" : "no",
		 p->few_runs ? ", n<3" : "", p->other_sessions ? ", sessions" : "", p->busy ? ", busy host" : "");
}

/* "policy, window": the axes a pair may differ on. */
static void compared_axes(const struct tl_compare *c, FILE *out)
{
	const char *sep = "";

	for (int ax = 0; ax < TL_AXIS__COUNT; ax++)
		if (c->compared[ax]) {
			fprintf(out, "%s%s", sep, tl_axes[ax].name);
			sep = ", ";
		}
}

static bool any_compared(const struct tl_compare *c)
{
	for (int ax = 0; ax < TL_AXIS__COUNT; ax++)
		if (c->compared[ax])
			return true;
	return false;
}

static void print_header(const struct tl_compare *c, FILE *out)
{
	fputs("A: ", out);
	tl_fput_visible(c->a_name, 0, out);
	fputs("\nB: ", out);
	tl_fput_visible(c->b_name, 0, out);
	if (any_compared(c)) {
		fputs("\npairs: equal on every axis but ", out);
		compared_axes(c, out);
	} else {
		fputs("\npairs: equal on every axis (the same configuration in both)", out);
	}
	fputs("; of one workload, size and unit\n", out);
	fprintf(out, "test: Welch's t-test (unequal variances, two-sided); p (Holm): adjusted over the %zu tested "
		"%s by Holm-Bonferroni; significant when it is < 0.05\n", c->ntested, c->ntested == 1 ? "pair" : "pairs");
	fputs("B/A: the ratio of the means; 95% interval by the delta method on the log ratio\n\n", out);
}

enum { C_LABEL, C_A, C_B, C_RATIO, C_CI, C_P, C_HOLM, C_VERDICT, C__COUNT };

static void cells(const struct tl_compare_pair *p, char cell[C__COUNT][192])
{
	snprintf(cell[C_LABEL], 192, "%s", p->label);
	fom_text(cell[C_A], 192, p->a);
	fom_text(cell[C_B], 192, p->b);
	if (p->has_ratio)
		tl_fmt_sig(cell[C_RATIO], 192, p->ratio, 4);
	else
		snprintf(cell[C_RATIO], 192, "-");
	ci_text(cell[C_CI], 192, p);
	p_text(cell[C_P], 192, p->tested, p->welch.p);
	p_text(cell[C_HOLM], 192, p->tested, p->p_holm);
	verdict(p, cell[C_VERDICT], 192);
}

static void print_text(const struct tl_compare *c, FILE *out)
{
	static const char *const head[C__COUNT] = { "matched on", "A", "B", "B/A", "95% CI of B/A", "p", "p (Holm)",
						    "significant" };
	char cell[C__COUNT][192];
	size_t w[C__COUNT];
	bool few = false, untested = false, sessions = false, busy = false;

	print_header(c, out);
	for (int k = 0; k < C__COUNT; k++)
		w[k] = tl_fmt_width(head[k]);
	for (size_t i = 0; i < c->n; i++) {
		cells(&c->pairs[i], cell);
		for (int k = 0; k < C__COUNT; k++)
			w[k] = w[k] > tl_fmt_width(cell[k]) ? w[k] : tl_fmt_width(cell[k]);
		few |= c->pairs[i].few_runs;
		untested |= !c->pairs[i].tested;
		sessions |= c->pairs[i].other_sessions;
		busy |= c->pairs[i].busy;
	}
	for (size_t i = 0; i <= c->n; i++) {
		if (i)
			cells(&c->pairs[i - 1], cell);
		for (int k = 0; k < C__COUNT; k++) {
			const char *s = i ? cell[k] : head[k];
			/* "±" is two bytes and one column: pad by columns; the label and the verdict align left */
			size_t gap = w[k] - tl_fmt_width(s);
			bool left = k == C_LABEL || k == C_VERDICT;

			fprintf(out, "%s%*s", k ? "  " : "", left ? 0 : (int)gap, "");
			if (k == C_LABEL && i) {
				tl_fput_visible(s, 0, out);
			} else {
				fputs(s, out);
			}
			if (left && k + 1 < C__COUNT)
				fprintf(out, "%*s", (int)gap, "");
		}
		fputc('\n', out);
	}
	if (!c->n)
		fputs("(no configuration of A has a counterpart in B: equal on the other axes, of one workload, size "
		      "and unit)\n", out);
	if (c->n && (c->a_unpaired || c->b_unpaired))
		fprintf(out, "note: left out, no counterpart equal on the other axes: %zu %s of A, %zu of B\n",
			c->a_unpaired, c->a_unpaired == 1 ? "configuration" : "configurations", c->b_unpaired);
	if (few)
		fprintf(out, "note: n<3: a side has fewer than %d successful runs; Welch's test has almost no power "
			"there: \"no\" means too few runs to tell, not no difference\n", TL_STATS_FEW_RUNS);
	if (untested)
		fputs("note: untested: a side has fewer than 2 successful runs, or neither has any spread\n", out);
	if (sessions)
		fputs("note: sessions: A's and B's runs are not all of one session (taken at different times, the "
		      "host may have changed in between; --session ID compares within one)\n", out);
	if (busy)
		fputs("note: busy host: a run of A or B had a 1-minute load above the CPUs online (tierlab report "
		      "names them)\n", out);
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
	      "welch_t,welch_df,p,significant,ratio_ci95_low,ratio_ci95_high,p_holm,few_runs,same_session,"
	      "busy_host\r\n", out);
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
		csv_number(out, p->has_ratio_ci, p->ratio_lo);
		csv_number(out, p->has_ratio_ci, p->ratio_hi);
		csv_number(out, p->tested, p->p_holm);
		csv_field(out, p->few_runs ? "true" : "false", false);
		csv_field(out, p->other_sessions ? "false" : "true", false);
		csv_field(out, p->busy ? "true" : "false", false);
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

static void json_pair(FILE *out, const struct tl_compare_pair *p)
{
	fputs("{\"configuration\": ", out);
	tl_json_string(out, p->label);
	fputs(", \"a\": ", out);
	json_side(out, p->a);
	fputs(", \"b\": ", out);
	json_side(out, p->b);
	fputs(", \"ratio\": ", out);
	json_number(out, p->has_ratio, p->ratio);
	fputs(", \"ratio_ci95\": ", out);
	if (p->has_ratio_ci) {
		fputc('[', out);
		json_number(out, true, p->ratio_lo);
		fputs(", ", out);
		json_number(out, true, p->ratio_hi);
		fputc(']', out);
	} else {
		fputs("null", out);
	}
	fputs(", \"welch_t\": ", out);
	json_number(out, p->tested, p->welch.t);
	fputs(", \"welch_df\": ", out);
	json_number(out, p->tested, p->welch.df);
	fputs(", \"p\": ", out);
	json_number(out, p->tested, p->welch.p);
	fputs(", \"p_holm\": ", out);
	json_number(out, p->tested, p->p_holm);
	fprintf(out, ", \"significant\": %s, \"few_runs\": %s, \"same_session\": %s, \"busy_host\": %s}",
		!p->tested ? "null" : p->significant ? "true" : "false", p->few_runs ? "true" : "false",
		p->other_sessions ? "false" : "true", p->busy ? "true" : "false");
}

static void print_json(const struct tl_compare *c, FILE *out)
{
	const char *sep = "";

	fputs("{\n  \"a\": ", out);
	tl_json_string(out, c->a_name);
	fputs(",\n  \"b\": ", out);
	tl_json_string(out, c->b_name);
	fputs(",\n  \"compared\": [", out);
	for (int ax = 0; ax < TL_AXIS__COUNT; ax++)
		if (c->compared[ax]) {
			fprintf(out, "%s\"%s\"", sep, tl_axes[ax].name);
			sep = ", ";
		}
	fprintf(out, "],\n  \"test\": \"welch\",\n  \"adjustment\": \"holm\",\n  \"tested\": %zu,\n"
		"  \"ratio_interval\": \"delta method on the log ratio\",\n  \"pairs\": [", c->ntested);
	for (size_t i = 0; i < c->n; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_pair(out, &c->pairs[i]);
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
