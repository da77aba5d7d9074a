/*
 * The report as CSV (RFC 4180) for spreadsheets and scripts: a header row,
 * CRLF line ends, every field through tl_quote_csv (quoted when it holds
 * a comma, quote, CR or LF; text a spreadsheet would take for a formula
 * after a '). Every axis has a column whether or not it varies, so
 * files from different experiments line up; numbers are raw (the shortest
 * text that reads back exactly) and a missing value is an empty field.
 * Units are in the column names, or in fom_unit. Columns are only ever
 * added at the end (rate_achieved_hz, rate_short, then fom_median, fom_min, fom_max,
 * fom_ci95, migrated_gib_slow_to_fast, migrated_gib_fast_to_slow, then
 * hit_samples, hit_rate_ci95_low, hit_rate_ci95_high, caution, then
 * sessions, busy_runs; and beside simulated rows, after simulated,
 * model_pct_of_all_fast), so scripts that read by position keep working.
 */
#include "report/report-format.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include "util/quote.h"

static void field(FILE *out, const char *s, bool first)
{
	if (!first)
		fputc(',', out);
	tl_quote_csv(out, s);
}

static void number(FILE *out, bool valid, double x)
{
	char b[64];

	tl_fmt_exact(b, sizeof(b), x);
	field(out, valid ? b : NULL, false);
}

static void count(FILE *out, size_t n)
{
	fprintf(out, ",%zu", n);
}

static void header(const struct tl_report *rep, FILE *out)
{
	field(out, "experiment", true);
	field(out, "config_key", false);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		field(out, tl_axes[a].name, false);
	fputs(",fom_mean,fom_sd,fom_n,fom_unit,higher_is_better,pct_of_baseline,is_baseline", out);
	for (int s = 0; s < TL_STATUS__COUNT; s++)
		fprintf(out, ",runs_%s", tl_status_names[s]);
	fputs(",hit_rate,migrated_gib,wall_s,rate_achieved_hz,rate_short,fom_median,fom_min,fom_max,fom_ci95,"
	      "migrated_gib_slow_to_fast,migrated_gib_fast_to_slow,hit_samples,hit_rate_ci95_low,hit_rate_ci95_high,"
	      "caution,sessions,busy_runs", out);
	/* --counters: per event its mean and status, then the ratios */
	for (size_t e = 0; rep->has_counters && e < rep->nevents; e++) {
		char name[300];

		snprintf(name, sizeof(name), "counter:%s", rep->events[e]);
		field(out, name, false);
		snprintf(name, sizeof(name), "counter:%s:status", rep->events[e]);
		field(out, name, false);
	}
	for (size_t k = 0; rep->has_counters && k < rep->nratios; k++)
		field(out, rep->ratios[k].name, false);
	/* only beside simulated rows: the columns of a report of measured runs stay as they were */
	fputs(rep->any_simulated ? ",simulated,model_pct_of_all_fast\r\n" : "\r\n", out);
}

static void row(const struct tl_report *rep, size_t i, FILE *out)
{
	const struct tl_report_row *r = &rep->rows[i];
	char caution[96], sessions[256] = "";
	size_t used = 0;
	double v;

	field(out, rep->experiment, true);
	field(out, r->config_key, false);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		field(out, r->values[a], false);
	number(out, r->n_fom > 0, r->mean);
	number(out, r->n_fom > 0, r->sd);
	count(out, r->n_fom);
	field(out, r->fom_unit, false);
	field(out, r->higher_is_better ? "true" : "false", false);
	number(out, r->has_pct, r->pct_of_baseline);
	field(out, r->is_baseline ? "true" : "false", false);
	for (int s = 0; s < TL_STATUS__COUNT; s++)
		count(out, r->status_count[s]);
	number(out, r->n_hit_rate > 0, r->hit_rate);
	number(out, r->n_migrated > 0, r->migrated_gib);
	/* a replay's time is not a run's wall time */
	number(out, r->n_ok > 0 && !r->simulated, r->wall_mean);
	number(out, r->n_achieved > 0, r->achieved.samples_hz);
	field(out, !r->n_achieved ? NULL : r->rate_short ? "true" : "false", false);
	number(out, r->n_fom > 0, r->median);
	number(out, r->n_fom > 0, r->min);
	number(out, r->n_fom > 0, r->max);
	number(out, r->n_fom > 1, r->ci95);
	number(out, r->n_directions > 0, r->to_fast_gib);
	number(out, r->n_directions > 0, r->to_slow_gib);
	number(out, r->has_hit_samples, r->hit_samples);
	number(out, r->has_hit_samples && isfinite(r->hit_lo), r->hit_lo);
	number(out, r->has_hit_samples && isfinite(r->hit_hi), r->hit_hi);
	tl_report_caution_text(tl_report_caution(rep, i), ";", caution, sizeof(caution));
	field(out, caution[0] ? caution : NULL, false);
	/* runs stored without a session have none to name */
	for (size_t k = 0; k < r->nsessions && used < sizeof(sessions); k++)
		if (r->session_ids[k])
			used += (size_t)snprintf(sessions + used, sizeof(sessions) - used, "%s%lld", used ? ";" : "",
						 (long long)r->session_ids[k]);
	field(out, sessions[0] ? sessions : NULL, false);
	count(out, r->n_busy);
	for (size_t e = 0; rep->has_counters && e < rep->nevents; e++) {
		const struct tl_report_counter *c = &rep->counters[i * rep->nevents + e];

		number(out, c->n > 0, c->mean);
		field(out, tl_report_counter_status(rep, i, e), false);
	}
	for (size_t k = 0; rep->has_counters && k < rep->nratios; k++) {
		/* apart: an argument list may read v before the call that sets it */
		bool valid = tl_report_ratio_value(rep, i, k, &v);

		number(out, valid, v);
	}
	if (rep->any_simulated) {
		field(out, r->simulated ? "true" : "false", false);
		number(out, r->n_estimate > 0, 100 * r->estimate);
	}
	fputs("\r\n", out);
}

int tl_report_print_csv(const struct tl_report *rep, FILE *out)
{
	header(rep, out);
	for (size_t i = 0; i < rep->nrows; i++)
		row(rep, i, out);
	return ferror(out) ? -EIO : 0;
}
