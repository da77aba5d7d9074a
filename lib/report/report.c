/*
 * The report model: stored runs grouped into one row per configuration,
 * their statistics, and each row's baseline. Everything a printer shows is
 * decided here, so the four formats cannot disagree on a number; the
 * printers (report-*.c) only lay it out.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"
#include "util/strings.h"
#include "report/report-format.h"
#include "util/units.h"
#include "util/array.h"
#include "report/stats.h"

const char *const tl_report_format_names[TL_FMT__COUNT + 1] = {
#define TL_X(id, name) [TL_FMT_##id] = #name,
	TL_REPORT_FORMATS(TL_X)
#undef TL_X
};

static int (*const printers[])(const struct tl_report *, FILE *) = {
#define TL_X(id, name) [TL_FMT_##id] = tl_report_print_##name,
	TL_REPORT_FORMATS(TL_X)
#undef TL_X
};
_Static_assert(ARRAY_SIZE(printers) == TL_FMT__COUNT, "one printer per format");

/*
 * Running sums for one row; the squares are taken in a second pass around
 * the mean. A figure of merit is the workload's own number: two near
 * DBL_MAX would overflow their sum, so they are summed scaled by the power
 * of two of the largest magnitude (fom_exp), which is exact, and the
 * result scaled back.
 */
struct acc {
	double fom_max, fom_sum, fom_sq, hit_sum, mig_sum, wall_sum, to_fast_sum, to_slow_sum, estimate_sum;
	int fom_exp;
	struct tl_sampling sampled;	/* sums */
	size_t n_wall;
};

static bool same_value(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/*
 * Figures of two runs can stand in one mean, or one be a percentage of the
 * other, only when they measure the same thing: the same workload at the
 * same size, in the same unit, better in the same direction, and both
 * measured (or both replayed). --by pools every other axis, never these.
 */
static bool comparable(const char *const va[TL_AXIS__COUNT], const char *unit_a, bool hib_a, bool sim_a,
		       const char *const vb[TL_AXIS__COUNT], const char *unit_b, bool hib_b, bool sim_b)
{
	return same_value(va[TL_AXIS_WORKLOAD], vb[TL_AXIS_WORKLOAD]) && same_value(va[TL_AXIS_SIZE], vb[TL_AXIS_SIZE]) &&
	       same_value(unit_a, unit_b) && hib_a == hib_b && sim_a == sim_b;
}

/*
 * The key already holds the workload and size; a unit left NULL (a run
 * stored without one) is unknown, not different.
 */
static bool run_fits_row(const struct tl_report_row *r, const struct tl_run_row *run)
{
	return (!r->fom_unit || !run->fom_unit || !strcmp(r->fom_unit, run->fom_unit)) &&
	       r->higher_is_better == run->higher_is_better && r->simulated == run->simulated;
}

/*
 * Index of the row holding the run's key (and, see comparable(), what it
 * measures), or nrows; a linear scan keeps first-appearance order for free.
 */
static size_t find_row(const struct tl_report *rep, const char *key, const struct tl_run_row *run)
{
	size_t i;

	for (i = 0; i < rep->nrows; i++)
		if (!strcmp(rep->rows[i].config_key, key) && run_fits_row(&rep->rows[i], run))
			break;
	return i;
}

/*
 * The row a run goes in: its configuration, or with --by the values of
 * those axes ("workload=hpcg size=small policy=lru chunks=-"; by[] always
 * holds workload and size, see tl_report_build_by).
 */
static const char *group_key(const struct tl_report *rep, const struct tl_run_row *run, char *buf, size_t len)
{
	size_t used = 0;

	if (!rep->has_by)
		return run->config_key ? run->config_key : "";
	buf[0] = '\0';
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		if (rep->by[a] && used < len)
			used += snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", tl_axes[a].name,
					 run->values[a] ? run->values[a] : "-");
	return buf;
}

static int add_row(struct tl_report *rep, const struct tl_run_row *run, const char *key)
{
	struct tl_report_row *r = &rep->rows[rep->nrows];
	bool oom = false;

	memset(r, 0, sizeof(*r));
	r->baseline = -1;
	r->config_key = tl_strdup_or_null(key, &oom);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		r->values[a] = !rep->has_by || rep->by[a] ? tl_strdup_or_null(run->values[a], &oom) : NULL;
	r->fom_unit = tl_strdup_or_null(run->fom_unit, &oom);
	r->higher_is_better = run->higher_is_better;
	r->simulated = run->simulated;
	rep->any_simulated |= run->simulated;
	rep->nrows++;	/* counted even when a copy failed, so release frees what was copied */
	return oom ? -ENOMEM : 0;
}

/* What a configuration's first run left NULL and this one has (stored before the axis applied). */
static int fill_values(const struct tl_report *rep, struct tl_report_row *r, const struct tl_run_row *run)
{
	bool oom = false;

	if (rep->has_by)
		return 0;	/* a group's values are its key's, NULL included */
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		if (!r->values[a])
			r->values[a] = tl_strdup_or_null(run->values[a], &oom);
	return oom ? -ENOMEM : 0;
}

bool tl_run_achieved(const struct tl_run_row *run, struct tl_sampling *out)
{
	const char *sampler = run->values[TL_AXIS_SAMPLER];
	double s = run->run_ns / 1e9;

	/* none ticks and never samples: a 0 Hz there is no shortfall */
	if (!run->has_sampling || !(s > 0) || (sampler && !strcmp(sampler, "none")))
		return false;
	out->samples_hz = run->samples / s;
	out->ticks_hz = run->ticks / s;
	out->seconds = s;
	return isfinite(out->samples_hz) && isfinite(out->ticks_hz);
}

bool tl_rate_short(const char *asked, const struct tl_sampling *s, char *buf, size_t len)
{
	char got[64], ticks[64];
	double hz;

	if (!asked || tl_parse_rate(asked, &hz) || !(hz > 0) || hz * s->seconds < TL_RATE_MIN_PERIODS ||
	    !(s->samples_hz < TL_RATE_SHORT * hz))
		return false;
	tl_fmt_sig(got, sizeof(got), s->samples_hz, 3);
	if (s->ticks_hz < TL_RATE_SHORT * hz) {
		snprintf(buf, len, "rate %s achieved %s Hz (%.0f%%): the sampler could not keep up", asked, got,
			 100 * s->samples_hz / hz);
	} else {
		/* the runtime ticked on time; the sampler found nothing to take after some ticks */
		tl_fmt_sig(ticks, sizeof(ticks), s->ticks_hz, 3);
		snprintf(buf, len, "rate %s achieved %s Hz (%.0f%%): ticks kept up (%s Hz) but %.0f%% of "
			 "them took no sample", asked, got, 100 * s->samples_hz / hz, ticks,
			 100 * (1 - s->samples_hz / s->ticks_hz));
	}
	return true;
}

bool tl_run_sampling_text(const struct tl_run_row *run, char *line, size_t len, char *warning,
			  size_t wlen)
{
	const char *rate = run->values[TL_AXIS_RATE];
	char got[64], ticks[64], pct[32] = "";
	struct tl_sampling s;
	double asked;

	if (!tl_run_achieved(run, &s))
		return false;
	tl_fmt_sig(got, sizeof(got), s.samples_hz, 3);
	tl_fmt_sig(ticks, sizeof(ticks), s.ticks_hz, 3);
	if (rate && !tl_parse_rate(rate, &asked) && asked > 0)
		snprintf(pct, sizeof(pct), " (%.0f%%)", 100 * s.samples_hz / asked);
	snprintf(line, len, "rate %s, achieved %s Hz%s, ticks %s Hz", rate ? rate : "-", got, pct, ticks);
	if (wlen && !tl_rate_short(rate, &s, warning, wlen))
		warning[0] = '\0';
	return true;
}

bool tl_run_busy(const struct tl_run_row *run, double *load)
{
	double l = fmax(run->load_before, run->load_after);

	if (!run->has_load || !(run->cpus > 0) || !isfinite(l))
		return false;
	if (load)
		*load = l;
	return l > run->cpus;
}

static void count_busy(struct tl_report_row *r, const struct tl_run_row *run)
{
	double load;

	r->n_load += run->has_load;
	if (!tl_run_busy(run, &load))
		return;
	r->n_busy++;
	if (load > r->busy_load) {
		r->busy_load = load;
		r->busy_cpus = run->cpus;
	}
}

bool tl_run_fom_counts(const struct tl_run_row *run)
{
	return run->status == TL_STATUS_OK && run->has_fom && isfinite(run->fom);
}

/* First pass: counts, sums, the largest figure of merit; returns the row of every run in group[]. */
static int group_runs(struct tl_report *rep, const struct tl_run_row *runs, size_t n,
		      size_t *group, struct acc *acc)
{
	for (size_t i = 0; i < n; i++) {
		const struct tl_run_row *run = &runs[i];
		char buf[1024];
		const char *key = group_key(rep, run, buf, sizeof(buf));
		size_t g = find_row(rep, key, run);
		struct tl_report_row *r;
		struct tl_sampling sampled;
		int ret;

		if (g == rep->nrows && (ret = add_row(rep, run, key)))
			return ret;
		group[i] = g;
		r = &rep->rows[g];
		if ((ret = fill_values(rep, r, run)))
			return ret;
		/* An out-of-range status is a damaged store, not a success. */
		r->status_count[(unsigned)run->status < TL_STATUS__COUNT ? run->status
									: TL_STATUS_FAILED]++;
		if (run->status != TL_STATUS_OK)
			continue;
		r->n_ok++;
		if (!r->fom_unit && run->fom_unit && !(r->fom_unit = strdup(run->fom_unit)))
			return -ENOMEM;
		if (tl_run_fom_counts(run)) {
			r->n_fom++;
			acc[g].fom_max = fmax(acc[g].fom_max, fabs(run->fom));
		}
		if (run->has_hit_rate && isfinite(run->hit_rate)) {
			r->n_hit_rate++;
			acc[g].hit_sum += run->hit_rate;
		}
		if (run->has_migrated && isfinite(run->migrated_bytes)) {
			r->n_migrated++;
			acc[g].mig_sum += run->migrated_bytes / (1024.0 * 1024.0 * 1024.0);
		}
		if (run->has_directions && isfinite(run->to_fast_bytes) && isfinite(run->to_slow_bytes)) {
			r->n_directions++;
			acc[g].to_fast_sum += run->to_fast_bytes / (1024.0 * 1024.0 * 1024.0);
			acc[g].to_slow_sum += run->to_slow_bytes / (1024.0 * 1024.0 * 1024.0);
		}
		/* a replay's time is how long the replay took, not a run's wall time */
		if (isfinite(run->wall) && !run->simulated) {
			acc[g].n_wall++;
			acc[g].wall_sum += run->wall;
		}
		if (run->has_estimate && isfinite(run->estimate)) {
			r->n_estimate++;
			acc[g].estimate_sum += run->estimate;
		}
		count_busy(r, run);
		if (tl_run_achieved(run, &sampled)) {
			r->n_achieved++;
			acc[g].sampled.samples_hz += sampled.samples_hz;
			acc[g].sampled.ticks_hz += sampled.ticks_hz;
			acc[g].sampled.seconds += sampled.seconds;
		}
	}
	return 0;
}

/*
 * Second pass: the mean of the figures of merit (scaled, see struct acc);
 * third: the sample standard deviation around it, which is steadier than
 * a sum of squares.
 */
static void finish_stats(struct tl_report *rep, const struct tl_run_row *runs, size_t n,
			 const size_t *group, struct acc *acc)
{
	for (size_t g = 0; g < rep->nrows; g++)
		frexp(acc[g].fom_max, &acc[g].fom_exp);
	for (size_t i = 0; i < n; i++)
		if (tl_run_fom_counts(&runs[i]))
			acc[group[i]].fom_sum += ldexp(runs[i].fom, -acc[group[i]].fom_exp);
	for (size_t g = 0; g < rep->nrows; g++) {
		struct tl_report_row *r = &rep->rows[g];

		if (r->n_fom)
			r->mean = ldexp(acc[g].fom_sum / r->n_fom, acc[g].fom_exp);
		if (r->n_hit_rate)
			r->hit_rate = acc[g].hit_sum / r->n_hit_rate;
		if (r->n_migrated)
			r->migrated_gib = acc[g].mig_sum / r->n_migrated;
		if (acc[g].n_wall)
			r->wall_mean = acc[g].wall_sum / acc[g].n_wall;
		if (r->n_estimate)
			r->estimate = acc[g].estimate_sum / r->n_estimate;
		if (r->n_directions) {
			r->to_fast_gib = acc[g].to_fast_sum / r->n_directions;
			r->to_slow_gib = acc[g].to_slow_sum / r->n_directions;
		}
		if (r->n_achieved) {
			r->achieved.samples_hz = acc[g].sampled.samples_hz / r->n_achieved;
			r->achieved.ticks_hz = acc[g].sampled.ticks_hz / r->n_achieved;
			r->achieved.seconds = acc[g].sampled.seconds / r->n_achieved;
			r->rate_short = tl_rate_short(r->values[TL_AXIS_RATE], &r->achieved, NULL, 0);
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct acc *a = &acc[group[i]];
		double d;

		if (!tl_run_fom_counts(&runs[i]))
			continue;
		/* both scaled: the difference stays within [-2, 2] */
		d = ldexp(runs[i].fom, -a->fom_exp) - a->fom_sum / rep->rows[group[i]].n_fom;
		a->fom_sq += d * d;
	}
	for (size_t g = 0; g < rep->nrows; g++) {
		struct tl_report_row *r = &rep->rows[g];

		r->sd = r->n_fom > 1 ? ldexp(sqrt(acc[g].fom_sq / (r->n_fom - 1)), acc[g].fom_exp) : 0;
	}
}

/*
 * Median, min, max and the 95% interval: the figures of merit of each row
 * gathered in one array (rows' runs side by side, counting sort by group)
 * and summarised. The mean and sd stay finish_stats's, which are exact near
 * DBL_MAX; the interval is built on that sd.
 */
static int finish_spread(struct tl_report *rep, const struct tl_run_row *runs, size_t n,
			 const size_t *group)
{
	size_t *start = calloc(rep->nrows + 1, sizeof(*start)), *fill = NULL;
	double *v = malloc((n + 1) * sizeof(*v));
	int ret = -ENOMEM;

	if (!start || !v || !(fill = calloc(rep->nrows + 1, sizeof(*fill))))
		goto out;
	for (size_t g = 0; g < rep->nrows; g++)
		start[g + 1] = start[g] + rep->rows[g].n_fom;
	for (size_t i = 0; i < n; i++)
		if (tl_run_fom_counts(&runs[i]))
			v[start[group[i]] + fill[group[i]]++] = runs[i].fom;
	for (size_t g = 0; g < rep->nrows; g++) {
		struct tl_report_row *r = &rep->rows[g];
		struct tl_stats s;

		r->ci95 = NAN;
		if (!r->n_fom)
			continue;
		if ((ret = tl_stats_summary(v + start[g], r->n_fom, &s)))
			goto out;
		r->median = s.median;
		r->min = s.min;
		r->max = s.max;
		if (r->n_fom > 1)
			r->ci95 = tl_t_quantile(0.975, r->n_fom - 1) * r->sd / sqrt(r->n_fom);
		r->spread_high = r->n_fom > 1 && r->sd > TL_STATS_CV_WARN * fabs(r->mean);
	}
	ret = 0;
out:
	free(fill);
	free(v);
	free(start);
	return ret;
}

static void find_varying(struct tl_report *rep)
{
	if (rep->has_by) {
		/* the columns are the axes asked for, whether or not they vary */
		memcpy(rep->axis_varies, rep->by, sizeof(rep->axis_varies));
		return;
	}
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		for (size_t i = 1; i < rep->nrows && !rep->axis_varies[a]; i++)
			if (!same_value(rep->rows[0].values[a], rep->rows[i].values[a]))
				rep->axis_varies[a] = true;
	}
	/* A reader needs to know what ran even when it is one thing, and the rate asked beside the one achieved. */
	rep->axis_varies[TL_AXIS_WORKLOAD] = true;
	for (size_t i = 0; i < rep->nrows; i++)
		rep->axis_varies[TL_AXIS_RATE] |= rep->rows[i].n_achieved > 0;
}

/* Do a and b agree on every axis the selector leaves open and both have? */
static bool agree_outside(const struct tl_selector *sel, const struct tl_report_row *a,
			  const struct tl_report_row *b)
{
	for (int ax = 0; ax < TL_AXIS__COUNT; ax++) {
		if (sel->values[ax] || !a->values[ax] || !b->values[ax])
			continue;
		if (strcmp(a->values[ax], b->values[ax]))
			return false;
	}
	return true;
}

static bool pct_of(const struct tl_report_row *r, const struct tl_report_row *base, double *pct)
{
	double num, den;

	if (!r->n_fom || !base->n_fom)
		return false;
	num = r->higher_is_better ? r->mean : base->mean;
	den = r->higher_is_better ? base->mean : r->mean;
	if (den == 0)
		return false;
	if (num == den)
		*pct = 100;	/* the baseline against itself: exactly (100 * x / x need not be) */
	else if (!isfinite(*pct = 100 * num / den))
		*pct = 100 * (num / den);	/* 100 * num overflowed */
	return isfinite(*pct);
}

static bool rows_comparable(const struct tl_report_row *a, const struct tl_report_row *b)
{
	return comparable((const char *const *)a->values, a->fom_unit, a->higher_is_better, a->simulated,
			  (const char *const *)b->values, b->fom_unit, b->higher_is_better, b->simulated);
}

static void find_baselines(struct tl_report *rep)
{
	const struct tl_selector *sel = &rep->baseline;

	for (size_t i = 0; i < rep->nrows; i++)
		rep->rows[i].is_baseline = tl_selector_matches(sel, rep->rows[i].values);
	for (size_t i = 0; i < rep->nrows; i++) {
		struct tl_report_row *r = &rep->rows[i];

		if (r->is_baseline) {
			r->baseline = i;
		} else {
			/* even a selector that names the workload never makes hpcg the baseline of memaccess */
			for (size_t j = 0; j < rep->nrows; j++) {
				if (rep->rows[j].is_baseline && rows_comparable(r, &rep->rows[j]) &&
				    agree_outside(sel, r, &rep->rows[j])) {
					r->baseline = j;
					break;
				}
			}
		}
		if (r->baseline >= 0)
			r->has_pct = pct_of(r, &rep->rows[r->baseline], &r->pct_of_baseline);
	}
}

/* "policy=all-fast,chunks=8": the form tl_selector_parse reads back. */
static int selector_text(const struct tl_selector *sel, char **out)
{
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	const char *sep = "";

	if (!f)
		return -ENOMEM;
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		if (!sel->values[a])
			continue;
		fprintf(f, "%s%s=%s", sep, tl_axes[a].name, sel->values[a]);
		sep = ",";
	}
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int copy_selector(struct tl_report *rep, const struct tl_selector *sel)
{
	bool oom = false, any = false;

	rep->baseline.loc = sel->loc;
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		rep->baseline.values[a] = tl_strdup_or_null(sel->values[a], &oom);
		any |= sel->values[a] != NULL;
	}
	if (oom)
		return -ENOMEM;
	if (!any) {
		error("baseline selector names no axis");
		return -EINVAL;
	}
	rep->has_baseline = true;
	return selector_text(&rep->baseline, &rep->baseline_text);
}

int tl_report_build(const char *experiment, const struct tl_run_row *runs, size_t n,
		    const struct tl_selector *baseline, struct tl_report *rep)
{
	return tl_report_build_by(experiment, runs, n, baseline, NULL, rep);
}

int tl_report_build_by(const char *experiment, const struct tl_run_row *runs, size_t n,
		       const struct tl_selector *baseline, const bool *by, struct tl_report *rep)
{
	size_t *group = NULL;
	struct acc *acc = NULL;
	int ret = -ENOMEM;

	memset(rep, 0, sizeof(*rep));
	if (by) {
		rep->has_by = true;
		memcpy(rep->by, by, sizeof(rep->by));
		/* groups never cross what makes figures incomparable: these lead every group key */
		rep->by[TL_AXIS_WORKLOAD] = rep->by[TL_AXIS_SIZE] = true;
	}
	if (!(rep->experiment = strdup(experiment ? experiment : "")))
		goto fail;
	if (baseline && (ret = copy_selector(rep, baseline)))
		goto fail;
	ret = -ENOMEM;
	/* calloc(0) may return NULL; one spare element keeps n == 0 an ordinary case. */
	rep->rows = calloc(n + 1, sizeof(*rep->rows));
	group = calloc(n + 1, sizeof(*group));
	acc = calloc(n + 1, sizeof(*acc));
	if (!rep->rows || !group || !acc)
		goto fail;
	if ((ret = group_runs(rep, runs, n, group, acc)))
		goto fail;
	finish_stats(rep, runs, n, group, acc);
	if ((ret = finish_spread(rep, runs, n, group)))
		goto fail;
	find_varying(rep);
	if (rep->has_baseline)
		find_baselines(rep);
	free(acc);
	free(group);
	return 0;
fail:
	if (ret == -ENOMEM)
		error("out of memory building the report");
	free(acc);
	free(group);
	tl_report_release(rep);
	return ret;
}

void tl_report_release(struct tl_report *rep)
{
	for (size_t i = 0; i < rep->nrows; i++) {
		struct tl_report_row *r = &rep->rows[i];

		free(r->config_key);
		for (int a = 0; a < TL_AXIS__COUNT; a++)
			free(r->values[a]);
		free(r->fom_unit);
		free(r->session_ids);
	}
	free(rep->rows);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		free(rep->baseline.values[a]);
	free(rep->baseline_text);
	free(rep->experiment);
	free(rep->sessions);
	free(rep->session_filter);
	for (size_t i = 0; i < rep->nextra; i++)
		free(rep->extra_notes[i]);
	free(rep->extra_notes);
	for (size_t i = 0; rep->counters && i < rep->nrows * rep->nevents; i++)
		free(rep->counters[i].missing);
	free(rep->counters);
	for (size_t e = 0; e < rep->nevents; e++)
		free(rep->events[e]);
	free(rep->events);
	free(rep->ratios);
	for (size_t k = 0; k < rep->ncolumns; k++)
		free(rep->columns[k]);
	free(rep->columns);
	memset(rep, 0, sizeof(*rep));
}

unsigned tl_report_caution(const struct tl_report *rep, size_t i)
{
	const struct tl_report_row *r = &rep->rows[i];
	const struct tl_report_row *base = r->has_pct && !r->is_baseline ? &rep->rows[r->baseline] : NULL;
	/* the baseline's figures the % stands on: its own session's runs, or the baseline row's */
	size_t base_n = base ? (r->base_own ? r->base.n : base->n_fom) : 0;
	bool base_noisy = base && (r->base_own ? r->base.n > 1 && r->base.sd > TL_STATS_CV_WARN * fabs(r->base.mean)
					       : base->spread_high);
	bool base_busy = base && (r->base_own ? r->base_busy > 0 : base->n_busy > 0);
	unsigned c = 0;

	/* a % of baseline is as shaky as the shakier of its two figures */
	if ((r->n_fom && r->n_fom < TL_STATS_FEW_RUNS) || (base && base_n < TL_STATS_FEW_RUNS))
		c |= TL_CAUTION_FEW_RUNS;
	if (r->spread_high || base_noisy)
		c |= TL_CAUTION_NOISY;
	if (r->has_hit_samples && r->few_samples)
		c |= TL_CAUTION_FEW_SAMPLES;
	if (base && r->base_other_session)
		c |= TL_CAUTION_OTHER_SESSION;
	if (r->n_busy || base_busy)
		c |= TL_CAUTION_BUSY;
	return c;
}

long tl_report_row_of(const struct tl_report *rep, const struct tl_run_row *run)
{
	char buf[1024];
	size_t g = find_row(rep, group_key(rep, run, buf, sizeof(buf)), run);

	return g < rep->nrows ? (long)g : -1;
}

int tl_report_add_note(struct tl_report *rep, const char *text)
{
	char **v = realloc(rep->extra_notes, sizeof(*v) * (rep->nextra + 1));

	if (!v)
		return -ENOMEM;
	rep->extra_notes = v;
	if (!(v[rep->nextra] = strdup(text)))
		return -ENOMEM;
	rep->nextra++;
	return 0;
}

int tl_report_print(const struct tl_report *rep, enum tl_report_format fmt, FILE *out)
{
	if ((unsigned)fmt >= TL_FMT__COUNT) {
		error("unknown report format %d", (int)fmt);
		return -EINVAL;
	}
	return printers[fmt](rep, out);
}
