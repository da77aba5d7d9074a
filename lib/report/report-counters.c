/*
 * report --counters: the perf events a spec counted, per row, from the
 * store's counters table. An event a run could not count (unavailable on
 * the machine, or failed) adds to the row's missing count and never to
 * its mean: 0 would be a measurement. Derived ratios are of the row's
 * means (as perf stat divides totals), for the known pairs that appear.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "store/query.h"
#include "util/array.h"
#include "util/error.h"

/* The ratios worth a column when both events were counted; names as generic perf events spell them. */
static const struct tl_report_ratio known_ratios[] = {
	{ "dTLB-load-misses per 1k instructions", 0, 0, 1000 },
	{ "iTLB-load-misses per 1k instructions", 0, 0, 1000 },
	{ "cache-misses per 1k instructions", 0, 0, 1000 },
	{ "LLC-load-misses per 1k instructions", 0, 0, 1000 },
	{ "instructions per cycle", 0, 0, 1 },
	{ "dTLB-load-misses per dTLB-load (%)", 0, 0, 100 },
};
/* numerator and denominator of each, in the order above */
static const char *const ratio_events[][2] = {
	{ "dTLB-load-misses", "instructions" },
	{ "iTLB-load-misses", "instructions" },
	{ "cache-misses", "instructions" },
	{ "LLC-load-misses", "instructions" },
	{ "instructions", "cycles" },
	{ "dTLB-load-misses", "dTLB-loads" },
};
_Static_assert(ARRAY_SIZE(known_ratios) == ARRAY_SIZE(ratio_events), "one pair of events per ratio");

struct load {
	struct tl_report *rep;
	long row;
	int err;
};

static long event_index(const struct tl_report *rep, const char *event)
{
	for (size_t e = 0; e < rep->nevents; e++)
		if (!strcmp(rep->events[e], event))
			return (long)e;
	return -1;
}

static void collect_event(void *arg, const char *event, const double *value, const char *status, const char *reason)
{
	struct load *l = arg;
	struct tl_report *rep = l->rep;
	char **v;

	(void)value, (void)status, (void)reason;
	if (l->err || !event || event_index(rep, event) >= 0)
		return;
	if (!(v = realloc(rep->events, (rep->nevents + 1) * sizeof(*v))) || !(v[rep->nevents] = strdup(event))) {
		if (v)
			rep->events = v;
		l->err = -ENOMEM;
		return;
	}
	rep->events = v;
	rep->nevents++;
}

static void add_value(void *arg, const char *event, const double *value, const char *status, const char *reason)
{
	struct load *l = arg;
	long e = event ? event_index(l->rep, event) : -1;
	struct tl_report_counter *c;

	(void)reason;
	if (l->err || e < 0)
		return;
	c = &l->rep->counters[(size_t)l->row * l->rep->nevents + (size_t)e];
	if (value && isfinite(*value) && status && !strcmp(status, "ok")) {
		c->n++;
		c->mean += *value;	/* a sum until the end */
	} else {
		c->n_missing++;
		if (!c->missing && !(c->missing = strdup(status ? status : "unknown")))
			l->err = -ENOMEM;
	}
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tl_report_load_counters(struct tl_report *rep, struct tl_store *st, const struct tl_run_row *runs, size_t n)
{
	struct load l = { .rep = rep };
	int rc = 0;

	rep->has_counters = true;
	for (size_t i = 0; i < n && !rc && !l.err; i++)
		if (runs[i].status == TL_STATUS_OK)
			rc = tl_store_counters_each(st, runs[i].id, collect_event, &l);
	if (rc || l.err)
		goto out;
	qsort(rep->events, rep->nevents, sizeof(*rep->events), cmp_name);
	if (!(rep->counters = calloc(rep->nrows * rep->nevents + 1, sizeof(*rep->counters))) ||
	    !(rep->ratios = calloc(ARRAY_SIZE(known_ratios), sizeof(*rep->ratios)))) {
		l.err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n && !rc && !l.err; i++) {
		if (runs[i].status != TL_STATUS_OK || (l.row = tl_report_row_of(rep, &runs[i])) < 0)
			continue;
		rc = tl_store_counters_each(st, runs[i].id, add_value, &l);
	}
	for (size_t k = 0; k < rep->nrows * rep->nevents; k++)
		if (rep->counters[k].n)
			rep->counters[k].mean /= (double)rep->counters[k].n;
	for (size_t k = 0; k < ARRAY_SIZE(known_ratios); k++) {
		long num = event_index(rep, ratio_events[k][0]), den = event_index(rep, ratio_events[k][1]);

		if (num < 0 || den < 0)
			continue;
		rep->ratios[rep->nratios] = known_ratios[k];
		rep->ratios[rep->nratios].num = (size_t)num;
		rep->ratios[rep->nratios].den = (size_t)den;
		rep->nratios++;
	}
out:
	if (l.err)
		error("out of memory reading counters");
	return rc ? rc : l.err;
}

bool tl_report_ratio_value(const struct tl_report *rep, size_t i, size_t k, double *v)
{
	const struct tl_report_ratio *r = &rep->ratios[k];
	const struct tl_report_counter *num = &rep->counters[i * rep->nevents + r->num];
	const struct tl_report_counter *den = &rep->counters[i * rep->nevents + r->den];

	if (!num->n || !den->n || den->mean == 0)
		return false;
	*v = r->scale * num->mean / den->mean;
	return isfinite(*v);
}

const char *tl_report_counter_status(const struct tl_report *rep, size_t i, size_t e)
{
	const struct tl_report_counter *c = &rep->counters[i * rep->nevents + e];

	if (c->n)
		return c->n_missing ? "partial" : "ok";
	return c->n_missing ? c->missing : "";
}
