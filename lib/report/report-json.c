/*
 * The report as one JSON object, for scripts and plots: the experiment,
 * the baseline selector, one object per configuration with its figure of
 * merit (mean, sd, median, min, max, the 95% interval's half width,
 * n, unit, direction), % of baseline, status counts,
 * tier numbers and the achieved sampling rate, then the warnings (rates
 * short of what was asked) and the notes. Always valid JSON: strings
 * escaped here (invalid UTF-8 becomes U+FFFD), and a value that is
 * missing or not finite is null, never NaN.
 */
#include "report/report-format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static void string(FILE *out, const char *s)
{
	tl_json_string(out, s);
}

static void number(FILE *out, bool valid, double x)
{
	char b[64];

	tl_fmt_exact(b, sizeof(b), x);
	fputs(valid && *b ? b : "null", out);
}

static const char *boolean(bool b)
{
	return b ? "true" : "false";
}

static void config(FILE *out, char *const values[TL_AXIS__COUNT])
{
	const char *sep = "";

	fputc('{', out);
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		if (!values[a])
			continue;
		fprintf(out, "%s\"%s\": ", sep, tl_axes[a].name);
		string(out, values[a]);
		sep = ", ";
	}
	fputc('}', out);
}

/* --counters: "counters": {event: {mean, n, missing, status}}, "ratios": {name: value} */
static void counters(const struct tl_report *rep, size_t i, FILE *out)
{
	double v;

	fputs(",\n      \"counters\": {", out);
	for (size_t e = 0; e < rep->nevents; e++) {
		const struct tl_report_counter *c = &rep->counters[i * rep->nevents + e];

		fputs(e ? ", " : "", out);
		string(out, rep->events[e]);
		fputs(": {\"mean\": ", out);
		number(out, c->n > 0, c->mean);
		fprintf(out, ", \"n\": %zu, \"missing\": %zu, \"status\": ", c->n, c->n_missing);
		string(out, tl_report_counter_status(rep, i, e));
		fputc('}', out);
	}
	fputs("},\n      \"ratios\": {", out);
	for (size_t k = 0; k < rep->nratios; k++) {
		bool ok = tl_report_ratio_value(rep, i, k, &v);

		fputs(k ? ", " : "", out);
		string(out, rep->ratios[k].name);
		fputs(": ", out);
		number(out, ok, v);
	}
	fputc('}', out);
}

/* "caution": ["n<3", "noisy", "few samples"], the words of the table's column */
static void caution_list(FILE *out, unsigned c)
{
	const char *sep = "", *word;
	unsigned bit;

	fputs(",\n      \"caution\": [", out);
	for (size_t k = 0; (word = tl_report_caution_word(k, &bit)); k++)
		if (c & bit) {
			fprintf(out, "%s\"%s\"", sep, word);
			sep = ", ";
		}
	fputc(']', out);
}

/* "sessions": [3, 5]: the sessions whose runs the row holds (report.h), oldest first */
static void session_list(const struct tl_report_row *r, FILE *out)
{
	const char *sep = "";

	fputs(",\n      \"sessions\": [", out);
	/* runs stored without a session have none to name */
	for (size_t k = 0; k < r->nsessions; k++)
		if (r->session_ids[k]) {
			fprintf(out, "%s%lld", sep, (long long)r->session_ids[k]);
			sep = ", ";
		}
	fputc(']', out);
}

static void row(const struct tl_report *rep, size_t i, FILE *out)
{
	const struct tl_report_row *r = &rep->rows[i];

	fputs("    {\n      \"config_key\": ", out);
	string(out, r->config_key);
	fputs(",\n      \"config\": ", out);
	config(out, r->values);
	fputs(",\n      \"fom\": {\"mean\": ", out);
	number(out, r->n_fom > 0, r->mean);
	fputs(", \"sd\": ", out);
	number(out, r->n_fom > 0, r->sd);
	fputs(", \"median\": ", out);
	number(out, r->n_fom > 0, r->median);
	fputs(", \"min\": ", out);
	number(out, r->n_fom > 0, r->min);
	fputs(", \"max\": ", out);
	number(out, r->n_fom > 0, r->max);
	fputs(", \"ci95\": ", out);
	number(out, r->n_fom > 1, r->ci95);
	fprintf(out, ", \"n\": %zu, \"unit\": ", r->n_fom);
	string(out, r->fom_unit);
	fprintf(out, ", \"higher_is_better\": %s},\n", boolean(r->higher_is_better));
	fputs("      \"pct_of_baseline\": ", out);
	number(out, r->has_pct, r->pct_of_baseline);
	fprintf(out, ",\n      \"is_baseline\": %s,\n      \"status\": {", boolean(r->is_baseline));
	for (int s = 0; s < TL_STATUS__COUNT; s++)
		fprintf(out, "%s\"%s\": %zu", s ? ", " : "", tl_status_names[s], r->status_count[s]);
	fputs("},\n      \"hit_rate\": ", out);
	number(out, r->n_hit_rate > 0, r->hit_rate);
	fputs(",\n      \"hit_samples\": ", out);
	number(out, r->has_hit_samples, r->hit_samples);
	fputs(",\n      \"hit_rate_ci95\": ", out);
	if (r->has_hit_samples && isfinite(r->hit_lo) && isfinite(r->hit_hi)) {
		fputc('[', out);
		number(out, true, r->hit_lo);
		fputs(", ", out);
		number(out, true, r->hit_hi);
		fputc(']', out);
	} else {
		fputs("null", out);
	}
	fputs(",\n      \"migrated_gib\": ", out);
	number(out, r->n_migrated > 0, r->migrated_gib);
	fputs(",\n      \"migrated_gib_slow_to_fast\": ", out);
	number(out, r->n_directions > 0, r->to_fast_gib);
	fputs(",\n      \"migrated_gib_fast_to_slow\": ", out);
	number(out, r->n_directions > 0, r->to_slow_gib);
	fputs(",\n      \"wall_s\": ", out);
	number(out, r->n_ok > 0 && !r->simulated, r->wall_mean);
	fputs(",\n      \"rate_achieved_hz\": ", out);
	number(out, r->n_achieved > 0, r->achieved.samples_hz);
	fprintf(out, ",\n      \"rate_short\": %s", !r->n_achieved ? "null" : boolean(r->rate_short));
	caution_list(out, tl_report_caution(rep, i));
	session_list(r, out);
	fprintf(out, ",\n      \"busy_runs\": %zu", r->n_busy);
	if (rep->has_counters)
		counters(rep, i, out);
	if (r->simulated) {
		fputs(",\n      \"simulated\": true,\n      \"model_pct_of_all_fast\": ", out);
		number(out, r->n_estimate > 0, 100 * r->estimate);
	}
	fputs("\n    }", out);
}

/* The warnings as a list of strings; -ENOMEM when one could not be made. */
static int warnings(const struct tl_report *rep, FILE *out)
{
	size_t n = 0;

	fputs(",\n  \"warnings\": [", out);
	for (size_t i = 0; i < rep->nrows; i++) {
		char *w;

		if (tl_report_warning(rep, i, &w))
			return -ENOMEM;
		if (!w)
			continue;
		fputs(n++ ? ",\n    " : "\n    ", out);
		string(out, w);
		free(w);
	}
	fputs(n ? "\n  ]" : "]", out);
	return 0;
}

int tl_report_print_json(const struct tl_report *rep, FILE *out)
{
	struct tl_report_notes notes;

	fputs("{\n  \"experiment\": ", out);
	string(out, rep->experiment);
	fputs(",\n  \"baseline\": ", out);
	if (rep->has_baseline)
		config(out, rep->baseline.values);
	else
		fputs("null", out);
	fputs(",\n  \"rows\": [", out);
	for (size_t i = 0; i < rep->nrows; i++) {
		fputs(i ? ",\n" : "\n", out);
		row(rep, i, out);
	}
	fputs(rep->nrows ? "\n  ]" : "]", out);
	if (warnings(rep, out))
		return -ENOMEM;
	fputs(",\n  \"notes\": [", out);
	tl_report_notes(rep, &notes);
	for (size_t i = 0; i < notes.n; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		string(out, notes.text[i]);
	}
	fputs(notes.n ? "\n  ]\n}\n" : "]\n}\n", out);
	return ferror(out) ? -EIO : 0;
}
