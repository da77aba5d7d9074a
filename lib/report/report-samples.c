/*
 * How many samples stand behind a row's hit rate: 0.625 from 9 samples is
 * not 0.625 from 9000, and a reader cannot tell them apart from the rate
 * alone. The counts are the runtime's own (rt.samples_managed, the
 * denominator of its hit rate, and rt.hits), or a replay's; the interval
 * is Wilson's over the row's samples pooled, as the hit rate of a run is
 * pooled over its processes.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/stats.h"
#include "store/query.h"

struct counts {
	bool has_samples, has_hits;
	double samples, hits;
};

static void find_counts(const struct tl_metric *m, size_t k, struct counts *c)
{
	for (size_t j = 0; j < k; j++) {
		if (!isfinite(m[j].value) || m[j].value < 0)
			continue;
		if (!strcmp(m[j].name, "rt.samples_managed") || !strcmp(m[j].name, "sim.samples_managed")) {
			c->has_samples = true;
			c->samples = m[j].value;
		} else if (!strcmp(m[j].name, "rt.hits")) {
			c->has_hits = true;
			c->hits = m[j].value;
		}
	}
}

int tl_report_load_samples(struct tl_report *rep, struct tl_store *st, const struct tl_run_row *runs, size_t n)
{
	size_t *counted = calloc(rep->nrows + 1, sizeof(*counted));
	int rc = 0;

	if (!counted)
		return -ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct tl_run_row *run = &runs[i];
		struct counts c = { 0 };
		struct tl_metric *m = NULL;
		size_t k = 0;
		long row;

		/* the runs whose hit rate the row's mean is over (report.c's group_runs) */
		if (run->status != TL_STATUS_OK || !run->has_hit_rate || !isfinite(run->hit_rate) ||
		    (row = tl_report_row_of(rep, run)) < 0)
			continue;
		if ((rc = tl_store_run_metrics(st, run->id, &m, &k)))
			break;
		find_counts(m, k, &c);
		tl_metrics_free(m, k);
		if (!c.has_samples)
			continue;
		counted[row]++;
		rep->rows[row].hit_samples += c.samples;
		/* a replay stores no hits: its rate times its samples, which is what it divided */
		rep->rows[row].hit_hits += c.has_hits ? c.hits : round(run->hit_rate * c.samples);
	}
	for (size_t g = 0; g < rep->nrows && !rc; g++) {
		struct tl_report_row *r = &rep->rows[g];

		r->has_hit_samples = r->n_hit_rate && counted[g] == r->n_hit_rate;
		if (!r->has_hit_samples)
			continue;
		if (!tl_wilson95(r->hit_hits, r->hit_samples, &r->hit_lo, &r->hit_hi))
			r->hit_lo = r->hit_hi = NAN;
		r->few_samples = r->hit_samples < TL_REPORT_MIN_SAMPLES;
	}
	free(counted);
	return rc;
}
