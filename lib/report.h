/*
 * Reports: runs grouped into one row per configuration, compared with a
 * baseline, printed by one printer per format over the same model (as perf
 * does: text, markdown, CSV per RFC 4180, JSON with units).
 *
 * Statistics use only runs with status ok: mean, sample standard deviation
 * (n-1; 0 when n == 1), n. "% of baseline" is performance relative to the
 * baseline row of the same workload: mean/base when higher is better,
 * base/mean when lower is better, times 100.
 *
 * The baseline row of a configuration is the first row that matches the
 * baseline selector and agrees with it on every other axis both have.
 */
#ifndef TL_REPORT_H
#define TL_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "plan.h"
#include "store.h"

struct tl_report_row {
	char *config_key;
	char *values[TL_AXIS__COUNT];
	char *fom_unit;
	bool higher_is_better;
	size_t n_ok;
	size_t status_count[TL_STATUS__COUNT];
	double mean, sd;		/* of the figure of merit over ok runs; valid when n_ok > 0 */
	long baseline;			/* index of the baseline row, -1 when none */
	bool is_baseline;
	double pct_of_baseline;		/* valid when baseline >= 0 and both have n_ok > 0 */
	bool has_pct;
	size_t n_hit_rate, n_migrated;	/* how many ok runs carried them */
	double hit_rate;		/* mean over runs that carried it, 0..1 */
	double migrated_gib;		/* mean GiB migrated per run */
	double wall_mean;		/* seconds, over ok runs */
};

struct tl_report {
	char *experiment;
	struct tl_report_row *rows;
	size_t nrows;
	bool axis_varies[TL_AXIS__COUNT];	/* show a column for this axis */
	bool has_baseline;
	struct tl_selector baseline;
	char *baseline_text;		/* as given, for the header */
};

/*
 * Builds the model from stored runs. baseline NULL: no comparison. Returns
 * 0 or -EINVAL (with an error line) when the selector names an unknown axis.
 */
int tl_report_build(const char *experiment, const struct tl_run_row *runs, size_t n,
		    const struct tl_selector *baseline, struct tl_report *rep);
void tl_report_release(struct tl_report *rep);

enum tl_report_format { TL_FMT_TEXT, TL_FMT_MARKDOWN, TL_FMT_CSV, TL_FMT_JSON, TL_FMT__COUNT };
extern const char *const tl_report_format_names[TL_FMT__COUNT];

int tl_report_print(const struct tl_report *rep, enum tl_report_format fmt, FILE *out);

#endif
