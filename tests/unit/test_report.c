/*
 * Reports: the model's arithmetic (mean, sample sd, what is left out),
 * grouping, varying axes, baseline matching, and every printer compared
 * byte for byte with tests/golden/report/expected.*. Run with
 * TIERLAB_UPDATE_GOLDEN=1 to rewrite the golden files after a deliberate
 * change (then read the diff).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "report/report.h"
#include "report/report-format.h"

#define NOFOM NAN

/* This cmocka has no assert_double_equal. */
#define assert_near(got, want, eps) near(got, want, eps, #got, __FILE__, __LINE__)
static void near(double got, double want, double eps, const char *what, const char *file, int line)
{
	if (!(fabs(got - want) <= eps)) {
		print_error("%s = %.17g, expected %.17g (within %g)\n", what, got, want, eps);
		_fail(file, line);
	}
}
#define GIB (1024.0 * 1024.0 * 1024.0)

/* A run as the store hands it back; strings point at literals (the report copies them). */
static struct tl_run_row run(const char *key, const char *workload, const char *policy,
			     enum tl_run_status status, double fom)
{
	struct tl_run_row r;

	memset(&r, 0, sizeof(r));
	r.experiment = (char *)"exp";
	r.config_key = (char *)key;
	r.run_key = (char *)key;
	r.values[TL_AXIS_WORKLOAD] = (char *)workload;
	r.values[TL_AXIS_POLICY] = (char *)policy;
	r.status = status;
	r.has_fom = !isnan(fom);
	r.fom = fom;
	r.fom_unit = (char *)"GF/s";
	r.higher_is_better = true;
	r.wall = 10;
	return r;
}

static void set_axis(struct tl_run_row *r, enum tl_axis a, const char *v)
{
	r->values[a] = (char *)v;
}

static struct tl_selector selector(enum tl_axis a, const char *v)
{
	struct tl_selector s;

	memset(&s, 0, sizeof(s));
	s.values[a] = (char *)v;
	return s;
}

static const struct tl_report_row *row_of(const struct tl_report *rep, const char *key)
{
	for (size_t i = 0; i < rep->nrows; i++)
		if (!strcmp(rep->rows[i].config_key, key))
			return &rep->rows[i];
	fail_msg("no row '%s'", key);
	return NULL;
}

static void test_stats_known_values(void **state)
{
	struct tl_run_row runs[] = {
		run("a", "w", "lru", TL_STATUS_OK, 1),
		run("a", "w", "lru", TL_STATUS_FAILED, 1000),	/* a fom from a failed run must not count */
		run("a", "w", "lru", TL_STATUS_OK, 2),
		run("a", "w", "lru", TL_STATUS_TIMEOUT, NOFOM),
		run("a", "w", "lru", TL_STATUS_OK, 3),
		run("a", "w", "lru", TL_STATUS_CRASHED, 500),
		run("one", "w", "all-fast", TL_STATUS_OK, 5),
		run("none", "w", "all-slow", TL_STATUS_FAILED, 7),
		run("none", "w", "all-slow", TL_STATUS_FAILED, NOFOM),
		run("eight", "w", "window", TL_STATUS_OK, 2),
	};
	static const double eight[] = { 4, 4, 4, 5, 5, 7, 9 };
	struct tl_run_row all[sizeof(runs) / sizeof(runs[0]) + 7];
	struct tl_report rep;
	const struct tl_report_row *r;
	size_t n = 0;

	(void)state;
	memcpy(all, runs, sizeof(runs));
	n = sizeof(runs) / sizeof(runs[0]);
	for (size_t i = 0; i < 7; i++)
		all[n++] = run("eight", "w", "window", TL_STATUS_OK, eight[i]);
	assert_int_equal(tl_report_build("exp", all, n, NULL, &rep), 0);
	assert_int_equal(rep.nrows, 4);

	r = row_of(&rep, "a");
	assert_int_equal(r->n_ok, 3);
	assert_int_equal(r->n_fom, 3);
	assert_int_equal(r->status_count[TL_STATUS_OK], 3);
	assert_int_equal(r->status_count[TL_STATUS_FAILED], 1);
	assert_int_equal(r->status_count[TL_STATUS_TIMEOUT], 1);
	assert_int_equal(r->status_count[TL_STATUS_CRASHED], 1);
	assert_near(r->mean, 2.0, 1e-12);
	assert_near(r->sd, 1.0, 1e-12);

	r = row_of(&rep, "one");
	assert_int_equal(r->n_fom, 1);
	assert_near(r->mean, 5.0, 1e-12);
	assert_near(r->sd, 0.0, 0);

	r = row_of(&rep, "none");
	assert_int_equal(r->n_ok, 0);
	assert_int_equal(r->n_fom, 0);
	assert_int_equal(r->status_count[TL_STATUS_FAILED], 2);
	assert_false(r->has_pct);

	/* 2,4,4,4,5,5,7,9: mean 5, squared deviations sum to 32, sample sd sqrt(32/7). */
	r = row_of(&rep, "eight");
	assert_int_equal(r->n_fom, 8);
	assert_near(r->mean, 5.0, 1e-12);
	assert_near(r->sd, sqrt(32.0 / 7.0), 1e-12);
	/* by hand: median (4+5)/2, t(0.975, 7) = 2.364624252 from the table; sd/mean 43% is a warning */
	assert_near(r->median, 4.5, 0);
	assert_near(r->min, 2, 0);
	assert_near(r->max, 9, 0);
	assert_near(r->ci95, 2.364624252 * sqrt(32.0 / 7.0) / sqrt(8), 1e-8);
	assert_true(r->spread_high);

	/* 1, 2, 3: median 2, t(0.975, 2) = 4.302652730, sd 1 */
	r = row_of(&rep, "a");
	assert_near(r->median, 2, 0);
	assert_near(r->ci95, 4.302652730 / sqrt(3), 1e-8);
	assert_true(r->spread_high);
	/* one run: no interval, no spread to warn of */
	r = row_of(&rep, "one");
	assert_true(isnan(r->ci95));
	assert_false(r->spread_high);
	tl_report_release(&rep);
}

/* --by pools every run whose values on the chosen axes agree, whatever the others; by hand */
static void test_by_groups(void **state)
{
	struct tl_run_row runs[] = {
		run("l2", "w", "lru", TL_STATUS_OK, 1),
		run("l2", "w", "lru", TL_STATUS_OK, 2),
		run("l8", "w", "lru", TL_STATUS_OK, 6),
		run("l8", "w", "lru", TL_STATUS_FAILED, 100),
		run("w8", "w", "window", TL_STATUS_OK, 3),
		run("f", "w", "all-fast", TL_STATUS_OK, 10),
	};
	bool by[TL_AXIS__COUNT] = { false };
	struct tl_selector base = selector(TL_AXIS_POLICY, "all-fast");
	struct tl_report rep;
	const struct tl_report_row *r;

	(void)state;
	set_axis(&runs[0], TL_AXIS_CHUNKS, "2");
	set_axis(&runs[1], TL_AXIS_CHUNKS, "2");
	set_axis(&runs[2], TL_AXIS_CHUNKS, "8");
	set_axis(&runs[3], TL_AXIS_CHUNKS, "8");
	set_axis(&runs[4], TL_AXIS_CHUNKS, "8");
	runs[0].has_hit_rate = runs[1].has_hit_rate = runs[2].has_hit_rate = true;
	runs[0].hit_rate = 0.5;
	runs[1].hit_rate = 0.7;
	runs[2].hit_rate = 0.9;
	by[TL_AXIS_POLICY] = true;
	assert_int_equal(tl_report_build_by("exp", runs, 6, &base, by, &rep), 0);
	assert_int_equal(rep.nrows, 3);
	r = row_of(&rep, "workload=w size=- policy=lru");
	/* 1, 2, 6 pooled over chunks 2 and 8 (the failed 100 counted, left out): mean 3, sd sqrt(13/2)... */
	assert_int_equal(r->n_fom, 3);
	assert_int_equal(r->status_count[TL_STATUS_FAILED], 1);
	assert_near(r->mean, 3, 1e-12);
	assert_near(r->sd, sqrt(((1 - 3.0) * (1 - 3.0) + (2 - 3.0) * (2 - 3.0) + (6 - 3.0) * (6 - 3.0)) / 2), 1e-12);
	assert_near(r->median, 2, 0);
	assert_near(r->hit_rate, 0.7, 1e-12);
	assert_null(r->values[TL_AXIS_CHUNKS]);	/* pooled: no one value */
	assert_string_equal(r->values[TL_AXIS_POLICY], "lru");
	assert_near(r->pct_of_baseline, 30, 1e-9);
	assert_true(rep.axis_varies[TL_AXIS_POLICY]);
	assert_false(rep.axis_varies[TL_AXIS_CHUNKS]);
	assert_true(rep.axis_varies[TL_AXIS_WORKLOAD]);	/* always a leading key */
	tl_report_release(&rep);

	/* by chunks: lru 2 alone, lru 8 with window 8, all-fast under "-" */
	memset(by, 0, sizeof(by));
	by[TL_AXIS_CHUNKS] = true;
	assert_int_equal(tl_report_build_by("exp", runs, 6, NULL, by, &rep), 0);
	assert_int_equal(rep.nrows, 3);
	assert_near(row_of(&rep, "workload=w size=- chunks=8")->mean, 4.5, 1e-12);
	assert_int_equal(row_of(&rep, "workload=w size=- chunks=-")->n_fom, 1);
	tl_report_release(&rep);
}

/*
 * --by never pools figures that cannot stand in one mean: another workload
 * or size, another unit or direction; the baseline of a group is the one of
 * its own workload, size and unit, even when the selector names a workload.
 */
static void test_by_never_crosses_workloads(void **state)
{
	struct tl_run_row runs[] = {
		run("mf", "memaccess", "all-fast", TL_STATUS_OK, 200),
		run("ml", "memaccess", "lru", TL_STATUS_OK, 250),
		run("hf", "hpcg", "all-fast", TL_STATUS_OK, 2),
		run("hl", "hpcg", "lru", TL_STATUS_OK, 1.5),
		run("hl", "hpcg", "lru", TL_STATUS_OK, 1.7),
		run("hb", "hpcg", "lru", TL_STATUS_OK, 3),	/* the same workload, size and policy, in another unit */
		run("hs", "hpcg", "lru", TL_STATUS_OK, 1),	/* another size */
	};
	bool by[TL_AXIS__COUNT] = { false };
	struct tl_selector base = selector(TL_AXIS_POLICY, "all-fast");
	struct tl_report rep;
	const struct tl_report_row *r;

	(void)state;
	for (int i = 0; i < 2; i++) {
		runs[i].fom_unit = (char *)"ns/access";
		runs[i].higher_is_better = false;
		set_axis(&runs[i], TL_AXIS_SIZE, "small");
	}
	for (int i = 2; i < 6; i++)
		set_axis(&runs[i], TL_AXIS_SIZE, "tiny");
	set_axis(&runs[6], TL_AXIS_SIZE, "large");
	runs[5].fom_unit = (char *)"s";
	runs[5].higher_is_better = false;
	by[TL_AXIS_POLICY] = true;
	assert_int_equal(tl_report_build_by("exp", runs, 7, &base, by, &rep), 0);
	assert_int_equal(rep.nrows, 6);
	r = row_of(&rep, "workload=memaccess size=small policy=lru");
	assert_int_equal(r->n_fom, 1);
	assert_near(r->mean, 250, 0);
	assert_string_equal(r->fom_unit, "ns/access");
	assert_string_equal(rep.rows[r->baseline].config_key, "workload=memaccess size=small policy=all-fast");
	assert_near(r->pct_of_baseline, 80, 1e-9);
	/* hpcg tiny lru in GF/s: 1.5 and 1.7, not the 3 s nor the large run */
	for (size_t i = 0; i < rep.nrows; i++)
		if (!strcmp(rep.rows[i].config_key, "workload=hpcg size=tiny policy=lru") &&
		    !strcmp(rep.rows[i].fom_unit, "GF/s"))
			r = &rep.rows[i];
	assert_int_equal(r->n_fom, 2);
	assert_near(r->mean, 1.6, 1e-12);
	assert_near(r->pct_of_baseline, 80, 1e-9);
	assert_string_equal(rep.rows[r->baseline].config_key, "workload=hpcg size=tiny policy=all-fast");
	/* the row in seconds has no baseline measured in seconds; the large one none of its size */
	for (size_t i = 0; i < rep.nrows; i++)
		if (!strcmp(rep.rows[i].fom_unit, "s") || !strcmp(rep.rows[i].values[TL_AXIS_SIZE], "large"))
			assert_false(rep.rows[i].has_pct);
	assert_true(rep.axis_varies[TL_AXIS_WORKLOAD] && rep.axis_varies[TL_AXIS_SIZE]);
	tl_report_release(&rep);

	/* a selector naming hpcg's baseline gives memaccess none at all */
	base.values[TL_AXIS_WORKLOAD] = (char *)"hpcg";
	memset(by, 0, sizeof(by));
	by[TL_AXIS_POLICY] = true;
	assert_int_equal(tl_report_build_by("exp", runs, 7, &base, by, &rep), 0);
	assert_false(row_of(&rep, "workload=memaccess size=small policy=lru")->has_pct);
	tl_report_release(&rep);
	/* and per configuration alike */
	assert_int_equal(tl_report_build("exp", runs, 7, &base, &rep), 0);
	assert_false(row_of(&rep, "ml")->has_pct);
	assert_true(row_of(&rep, "hl")->has_pct);
	tl_report_release(&rep);
}

/* sd over 5% of the mean is a warning naming the configuration, and only then. */
static void test_spread_warning(void **state)
{
	struct tl_run_row runs[] = {
		run("steady", "w", "lru", TL_STATUS_OK, 100),
		run("steady", "w", "lru", TL_STATUS_OK, 104),	/* sd 2.83: 2.8% */
		run("noisy", "w", "window", TL_STATUS_OK, 100),
		run("noisy", "w", "window", TL_STATUS_OK, 110),	/* sd 7.07: 6.7% */
	};
	struct tl_report rep;
	char *w;

	(void)state;
	assert_int_equal(tl_report_build("exp", runs, 4, NULL, &rep), 0);
	assert_false(row_of(&rep, "steady")->spread_high);
	assert_true(row_of(&rep, "noisy")->spread_high);
	assert_true(tl_report_has_warnings(&rep));
	assert_int_equal(tl_report_warning(&rep, 0, &w), 0);
	assert_null(w);
	assert_int_equal(tl_report_warning(&rep, 1, &w), 0);
	assert_non_null(w);
	assert_string_equal(w, "workload=w policy=window: sd 7.1 is 6.7% of the mean 105 over 2 runs (more than 5%)");
	free(w);
	tl_report_release(&rep);
}

/* Large values with a small spread: a sum-of-squares formula loses every digit here. */
static void test_stats_stable(void **state)
{
	struct tl_run_row runs[] = {
		run("a", "w", "lru", TL_STATUS_OK, 1e9 + 4),
		run("a", "w", "lru", TL_STATUS_OK, 1e9 + 7),
		run("a", "w", "lru", TL_STATUS_OK, 1e9 + 13),
		run("a", "w", "lru", TL_STATUS_OK, 1e9 + 16),
	};
	struct tl_report rep;

	(void)state;
	assert_int_equal(tl_report_build("exp", runs, 4, NULL, &rep), 0);
	assert_near(rep.rows[0].mean, 1e9 + 10, 1e-6);
	assert_near(rep.rows[0].sd, sqrt(30.0), 1e-6);
	tl_report_release(&rep);
}

/*
 * Figures of merit near DBL_MAX: their mean and spread are finite (a plain
 * sum overflowed and the report printed "- ± -"); the baseline row is
 * exactly 100% of itself (100 * x / x is 100.00000000000001 for 95.32).
 */
static void test_stats_extremes(void **state)
{
	struct tl_run_row runs[] = {
		run("big", "w", "lru", TL_STATUS_OK, 1.7e308),
		run("big", "w", "lru", TL_STATUS_OK, 1.7e308),
		run("wide", "w", "window", TL_STATUS_OK, 1e308),
		run("wide", "w", "window", TL_STATUS_OK, -1e308),
		run("base", "w", "all-fast", TL_STATUS_OK, 95.32),
		run("base", "w", "all-fast", TL_STATUS_OK, 95.32),
	};
	struct tl_selector base = selector(TL_AXIS_POLICY, "all-fast");
	struct tl_report rep;
	const struct tl_report_row *r;
	char csv[4096] = "";
	FILE *f;

	(void)state;
	assert_int_equal(tl_report_build("exp", runs, 6, &base, &rep), 0);
	r = row_of(&rep, "big");
	assert_true(r->mean == 1.7e308);
	assert_true(r->sd == 0);
	r = row_of(&rep, "wide");
	assert_true(r->mean == 0);
	assert_near(r->sd, sqrt(2) * 1e308, 1e294);
	r = row_of(&rep, "base");
	assert_true(r->is_baseline && r->has_pct);
	assert_true(r->pct_of_baseline == 100);
	f = fmemopen(csv, sizeof(csv) - 1, "w");
	assert_non_null(f);
	assert_int_equal(tl_report_print(&rep, TL_FMT_CSV, f), 0);
	fclose(f);
	assert_non_null(strstr(csv, ",1.7e+308,0,2,"));
	assert_non_null(strstr(csv, ",95.32,0,2,GF/s,true,100,true,"));
	tl_report_release(&rep);
}

static void test_stats_tier_columns(void **state)
{
	struct tl_run_row runs[] = {
		run("a", "w", "lru", TL_STATUS_OK, 1),
		run("a", "w", "lru", TL_STATUS_OK, 1),
		run("a", "w", "lru", TL_STATUS_OK, NOFOM),
		run("a", "w", "lru", TL_STATUS_FAILED, NOFOM),
		run("b", "w", "all-fast", TL_STATUS_OK, 1),
	};
	struct tl_report rep;
	const struct tl_report_row *r;

	(void)state;
	runs[0].has_hit_rate = true, runs[0].hit_rate = 0.5;
	runs[1].has_hit_rate = true, runs[1].hit_rate = 0.7;
	runs[3].has_hit_rate = true, runs[3].hit_rate = 0.0;	/* failed: ignored */
	runs[0].has_migrated = true, runs[0].migrated_bytes = 1 * GIB;
	runs[2].has_migrated = true, runs[2].migrated_bytes = 3 * GIB;
	runs[0].wall = 10, runs[1].wall = 20, runs[2].wall = 30, runs[3].wall = 1000;
	assert_int_equal(tl_report_build("exp", runs, 5, NULL, &rep), 0);

	r = row_of(&rep, "a");
	assert_int_equal(r->n_ok, 3);
	assert_int_equal(r->n_fom, 2);	/* an ok run may carry no figure of merit */
	assert_int_equal(r->n_hit_rate, 2);
	assert_near(r->hit_rate, 0.6, 1e-12);
	assert_int_equal(r->n_migrated, 2);
	assert_near(r->migrated_gib, 2.0, 1e-12);
	assert_near(r->wall_mean, 20.0, 1e-12);

	r = row_of(&rep, "b");
	assert_int_equal(r->n_hit_rate, 0);
	assert_int_equal(r->n_migrated, 0);
	tl_report_release(&rep);
}

/* samples and ticks over `seconds` of runtime activity, as ingest stores them */
static void sampled(struct tl_run_row *r, const char *rate, double samples, double ticks, double seconds)
{
	r->values[TL_AXIS_RATE] = (char *)rate;
	r->has_sampling = true;
	r->samples = samples;
	r->ticks = ticks;
	r->run_ns = seconds * 1e9;
}

static void test_achieved_rate(void **state)
{
	struct tl_run_row runs[] = {
		run("ok", "w", "lru", TL_STATUS_OK, 1),
		run("ok", "w", "lru", TL_STATUS_OK, 1),
		run("edge", "w", "lru", TL_STATUS_OK, 1),
		run("short", "w", "lru", TL_STATUS_OK, 1),
		run("none", "w", "static:1", TL_STATUS_OK, 1),
		run("still", "w", "lru", TL_STATUS_OK, 1),
		run("nort", "w", "all-fast", TL_STATUS_OK, 1),
		run("old", "w", "static:1", TL_STATUS_OK, 1),
		run("old", "w", "static:1", TL_STATUS_OK, 1),
		run("brief", "w", "lru", TL_STATUS_OK, 1),
	};
	struct tl_report rep;
	const struct tl_report_row *r;
	struct tl_sampling got;
	char *w;

	(void)state;
	sampled(&runs[0], "1000Hz", 9500, 9900, 10);	/* 950 Hz */
	sampled(&runs[1], "1000Hz", 4650, 4950, 5);	/* 930 Hz: mean 940 */
	sampled(&runs[2], "1000Hz", 900, 1000, 1);	/* exactly 10% short: not more than 10% */
	sampled(&runs[3], "1000Hz", 488, 500, 1);
	sampled(&runs[4], "100Hz", 0, 100, 1);		/* sampler none ticks and takes nothing */
	set_axis(&runs[4], TL_AXIS_SAMPLER, "none");
	sampled(&runs[5], "100Hz", 5, 0, 0);		/* no time active: no rate */
	/* a static run stored before it took a rate, then one stored after: one configuration */
	sampled(&runs[7], NULL, 10, 10, 1);
	sampled(&runs[8], "10Hz", 2, 2, 1);
	/* 0.9 s at 10Hz: nine periods, too few to tell a tick lost at exit from a shortfall */
	sampled(&runs[9], "10Hz", 7, 7, 0.9);
	assert_int_equal(tl_report_build("exp", runs, 10, NULL, &rep), 0);

	r = row_of(&rep, "ok");
	assert_int_equal(r->n_achieved, 2);
	assert_near(r->achieved.samples_hz, 940, 1e-9);
	assert_near(r->achieved.ticks_hz, 990, 1e-9);
	assert_near(r->achieved.seconds, 7.5, 1e-9);
	assert_false(r->rate_short);
	assert_false(row_of(&rep, "edge")->rate_short);
	r = row_of(&rep, "short");
	assert_true(r->rate_short);
	assert_near(r->achieved.samples_hz, 488, 1e-9);
	r = row_of(&rep, "none");
	assert_int_equal(r->n_achieved, 0);
	assert_false(r->rate_short);
	assert_int_equal(row_of(&rep, "still")->n_achieved, 0);
	assert_int_equal(row_of(&rep, "nort")->n_achieved, 0);
	r = row_of(&rep, "old");
	assert_string_equal(r->values[TL_AXIS_RATE], "10Hz");
	assert_int_equal(r->n_achieved, 2);
	assert_near(r->achieved.samples_hz, 6, 1e-9);
	assert_true(r->rate_short);	/* 6 Hz of 10Hz over ten periods (1 s) */
	r = row_of(&rep, "brief");
	assert_int_equal(r->n_achieved, 1);
	assert_near(r->achieved.samples_hz, 7 / 0.9, 1e-9);
	assert_false(r->rate_short);
	assert_true(rep.axis_varies[TL_AXIS_RATE]);

	/* one warning per short configuration, naming it; none for the others */
	for (size_t i = 0; i < rep.nrows; i++) {
		assert_int_equal(tl_report_warning(&rep, i, &w), 0);
		assert_int_equal(w != NULL, rep.rows[i].rate_short);
		if (!strcmp(rep.rows[i].config_key, "short"))
			assert_string_equal(w, "workload=w policy=lru: rate 1000Hz achieved 488 Hz (49%): "
					       "the sampler could not keep up");
		free(w);
	}
	tl_report_release(&rep);

	assert_true(tl_run_achieved(&runs[3], &got));
	assert_near(got.samples_hz, 488, 1e-9);
	assert_near(got.ticks_hz, 500, 1e-9);
	assert_near(got.seconds, 1, 1e-12);
	assert_false(tl_run_achieved(&runs[4], &got));
	assert_false(tl_run_achieved(&runs[6], &got));
}

static void test_rate_short_words(void **state)
{
	char buf[256] = "untouched";

	(void)state;
	assert_false(tl_rate_short("1000Hz", &(struct tl_sampling){ 900, 1000, 1 }, buf, sizeof(buf)));
	assert_false(tl_rate_short(NULL, &(struct tl_sampling){ 1, 1, 1 }, buf, sizeof(buf)));
	assert_false(tl_rate_short("fast", &(struct tl_sampling){ 1, 1, 1 }, buf, sizeof(buf)));
	/* nothing in 9 ms at 1kHz: fewer than ten periods, nothing to judge by */
	assert_false(tl_rate_short("1000Hz", &(struct tl_sampling){ 0, 0, 0.009 }, buf, sizeof(buf)));
	assert_string_equal(buf, "untouched");
	assert_true(tl_rate_short("1000Hz", &(struct tl_sampling){ 0, 0, 0.010 }, NULL, 0));
	assert_true(tl_rate_short("1000Hz", &(struct tl_sampling){ 899.9, 1000, 1 }, NULL, 0));
	/* the ticks fell behind too: the runtime could not tick that fast */
	assert_true(tl_rate_short("1000Hz", &(struct tl_sampling){ 488, 490, 1 }, buf, sizeof(buf)));
	assert_string_equal(buf, "rate 1000Hz achieved 488 Hz (49%): the sampler could not keep up");
	/* the ticks kept time: the sampler found nothing to take after most of them */
	assert_true(tl_rate_short("10Hz", &(struct tl_sampling){ 2.5, 9.95, 4 }, buf, sizeof(buf)));
	assert_string_equal(buf, "rate 10Hz achieved 2.50 Hz (25%): ticks kept up (9.95 Hz) but 75% of them "
				 "took no sample");
}

static void test_grouping_order(void **state)
{
	struct tl_run_row runs[] = {
		run("k2", "w", "lru", TL_STATUS_OK, 1),
		run("k1", "w", "all-fast", TL_STATUS_OK, 1),
		run("k2", "w", "lru", TL_STATUS_OK, 1),
		run("k3", "w", "window", TL_STATUS_OK, 1),
		run("k1", "w", "all-fast", TL_STATUS_OK, 1),
	};
	struct tl_report rep;

	(void)state;
	assert_int_equal(tl_report_build("exp", runs, 5, NULL, &rep), 0);
	assert_int_equal(rep.nrows, 3);
	assert_string_equal(rep.rows[0].config_key, "k2");
	assert_string_equal(rep.rows[1].config_key, "k1");
	assert_string_equal(rep.rows[2].config_key, "k3");
	assert_int_equal(rep.rows[0].n_ok, 2);
	assert_int_equal(rep.rows[2].n_ok, 1);
	assert_false(rep.has_baseline);
	for (size_t i = 0; i < rep.nrows; i++) {
		assert_int_equal(rep.rows[i].baseline, -1);
		assert_false(rep.rows[i].is_baseline);
		assert_false(rep.rows[i].has_pct);
	}
	tl_report_release(&rep);

	assert_int_equal(tl_report_build("exp", NULL, 0, NULL, &rep), 0);
	assert_int_equal(rep.nrows, 0);
	assert_string_equal(rep.experiment, "exp");
	tl_report_release(&rep);
}

static void test_varying_axes(void **state)
{
	struct tl_run_row runs[] = {
		run("a", "w", "all-fast", TL_STATUS_OK, 1),
		run("b", "w", "lru", TL_STATUS_OK, 1),
		run("c", "w", "lru", TL_STATUS_OK, 1),
	};
	struct tl_report rep;

	(void)state;
	/* size: the same everywhere; chunks: NULL on the baseline, one value elsewhere (varies);
	 * rate: one value on every row; window: NULL everywhere. */
	for (int i = 0; i < 3; i++) {
		set_axis(&runs[i], TL_AXIS_SIZE, "small");
		set_axis(&runs[i], TL_AXIS_RATE, "10Hz");
	}
	set_axis(&runs[1], TL_AXIS_CHUNKS, "8");
	set_axis(&runs[2], TL_AXIS_CHUNKS, "8");
	assert_int_equal(tl_report_build("exp", runs, 3, NULL, &rep), 0);
	assert_true(rep.axis_varies[TL_AXIS_WORKLOAD]);	/* always shown, though it does not vary */
	assert_true(rep.axis_varies[TL_AXIS_POLICY]);
	assert_true(rep.axis_varies[TL_AXIS_CHUNKS]);
	assert_false(rep.axis_varies[TL_AXIS_SIZE]);
	assert_false(rep.axis_varies[TL_AXIS_RATE]);
	assert_false(rep.axis_varies[TL_AXIS_WINDOW]);
	assert_false(rep.axis_varies[TL_AXIS_THREADS]);
	tl_report_release(&rep);
}

static void test_baseline_per_workload_and_size(void **state)
{
	struct tl_run_row runs[] = {
		/* The lru row comes before its baseline: the baseline is looked up over all rows. */
		run("hs-lru", "hpcg", "lru", TL_STATUS_OK, 1.5),
		run("hs-fast", "hpcg", "all-fast", TL_STATUS_OK, 2.0),
		run("hl-fast", "hpcg", "all-fast", TL_STATUS_OK, 4.0),
		run("hl-lru", "hpcg", "lru", TL_STATUS_OK, 3.0),
		run("d-fast", "dgemm", "all-fast", TL_STATUS_OK, 50),
		run("d-lru", "dgemm", "lru", TL_STATUS_OK, 49),
		run("d-win", "dgemm", "window", TL_STATUS_OK, 45),
	};
	struct tl_selector sel = selector(TL_AXIS_POLICY, "all-fast");
	struct tl_report rep;
	const struct tl_report_row *r;

	(void)state;
	set_axis(&runs[0], TL_AXIS_SIZE, "small");
	set_axis(&runs[1], TL_AXIS_SIZE, "small");
	set_axis(&runs[2], TL_AXIS_SIZE, "large");
	set_axis(&runs[3], TL_AXIS_SIZE, "large");
	/* dgemm has no size axis at all; the dynamic rows carry chunks the baseline lacks. */
	set_axis(&runs[5], TL_AXIS_CHUNKS, "8");
	set_axis(&runs[6], TL_AXIS_CHUNKS, "8");
	set_axis(&runs[6], TL_AXIS_WINDOW, "16");
	assert_int_equal(tl_report_build("exp", runs, 7, &sel, &rep), 0);
	assert_true(rep.has_baseline);
	assert_string_equal(rep.baseline_text, "policy=all-fast");

	r = row_of(&rep, "hs-lru");
	assert_false(r->is_baseline);
	assert_string_equal(rep.rows[r->baseline].config_key, "hs-fast");
	assert_true(r->has_pct);
	assert_near(r->pct_of_baseline, 75.0, 1e-9);

	r = row_of(&rep, "hl-lru");
	assert_string_equal(rep.rows[r->baseline].config_key, "hl-fast");
	assert_near(r->pct_of_baseline, 75.0, 1e-9);

	r = row_of(&rep, "hs-fast");
	assert_true(r->is_baseline);
	assert_string_equal(rep.rows[r->baseline].config_key, "hs-fast");
	assert_near(r->pct_of_baseline, 100.0, 1e-9);
	assert_true(row_of(&rep, "hl-fast")->is_baseline);

	r = row_of(&rep, "d-lru");
	assert_string_equal(rep.rows[r->baseline].config_key, "d-fast");
	assert_near(r->pct_of_baseline, 98.0, 1e-9);
	r = row_of(&rep, "d-win");
	assert_near(r->pct_of_baseline, 90.0, 1e-9);
	tl_report_release(&rep);
}

static void test_baseline_lower_is_better(void **state)
{
	struct tl_run_row runs[] = {
		run("fast", "lat", "all-fast", TL_STATUS_OK, 10),
		run("slow", "lat", "all-slow", TL_STATUS_OK, 12.5),
		run("better", "lat", "lru", TL_STATUS_OK, 8),
	};
	struct tl_selector sel = selector(TL_AXIS_POLICY, "all-fast");
	struct tl_report rep;

	(void)state;
	for (int i = 0; i < 3; i++) {
		runs[i].higher_is_better = false;
		runs[i].fom_unit = (char *)"s";
	}
	assert_int_equal(tl_report_build("exp", runs, 3, &sel, &rep), 0);
	assert_near(row_of(&rep, "fast")->pct_of_baseline, 100.0, 1e-9);
	/* Slower takes longer: 100 * base / mean. */
	assert_near(row_of(&rep, "slow")->pct_of_baseline, 80.0, 1e-9);
	assert_near(row_of(&rep, "better")->pct_of_baseline, 125.0, 1e-9);
	tl_report_release(&rep);
}

static void test_baseline_missing(void **state)
{
	struct tl_run_row runs[] = {
		run("a-fast", "a", "all-fast", TL_STATUS_OK, 2),
		run("a-lru", "a", "lru", TL_STATUS_OK, 1),
		run("b-lru", "b", "lru", TL_STATUS_OK, 1),		/* b has no all-fast row */
		run("c-fast", "c", "all-fast", TL_STATUS_FAILED, NOFOM),
		run("c-lru", "c", "lru", TL_STATUS_OK, 1),		/* c's baseline never succeeded */
		run("d-fast", "d", "all-fast", TL_STATUS_OK, 0),	/* a zero baseline: no ratio */
		run("d-lru", "d", "lru", TL_STATUS_OK, 1),
	};
	struct tl_selector sel = selector(TL_AXIS_POLICY, "all-fast");
	struct tl_selector nomatch = selector(TL_AXIS_POLICY, "static");
	struct tl_selector empty;
	struct tl_report rep;
	const struct tl_report_row *r;

	(void)state;
	assert_int_equal(tl_report_build("exp", runs, 7, &sel, &rep), 0);
	assert_true(row_of(&rep, "a-lru")->has_pct);
	r = row_of(&rep, "b-lru");
	assert_int_equal(r->baseline, -1);
	assert_false(r->has_pct);
	r = row_of(&rep, "c-lru");
	assert_string_equal(rep.rows[r->baseline].config_key, "c-fast");
	assert_false(r->has_pct);
	r = row_of(&rep, "c-fast");
	assert_true(r->is_baseline);
	assert_false(r->has_pct);
	assert_false(row_of(&rep, "d-lru")->has_pct);
	tl_report_release(&rep);

	assert_int_equal(tl_report_build("exp", runs, 7, &nomatch, &rep), 0);
	assert_true(rep.has_baseline);
	for (size_t i = 0; i < rep.nrows; i++) {
		assert_int_equal(rep.rows[i].baseline, -1);
		assert_false(rep.rows[i].has_pct);
	}
	tl_report_release(&rep);

	memset(&empty, 0, sizeof(empty));
	assert_int_equal(tl_report_build("exp", runs, 7, &empty, &rep), -EINVAL);
	assert_int_equal(rep.nrows, 0);
	tl_report_release(&rep);
}

/* Prints one format into memory; the caller frees the text. */
static char *print(const struct tl_report *rep, enum tl_report_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(tl_report_print(rep, fmt, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_notes(void **state)
{
	struct tl_run_row runs[] = {
		run("fast", "w", "all-fast", TL_STATUS_FAILED, NOFOM),
		run("lru", "w", "lru", TL_STATUS_OK, 1),
		run("win", "w", "window", TL_STATUS_TIMEOUT, NOFOM),
		run("win", "w", "window", TL_STATUS_CRASHED, NOFOM),
	};
	struct tl_selector sel = selector(TL_AXIS_POLICY, "all-fast");
	struct tl_selector nomatch = selector(TL_AXIS_POLICY, "all-slow");
	struct tl_report rep;
	char *text;

	(void)state;
	assert_int_equal(tl_report_build("exp", runs, 4, &sel, &rep), 0);
	text = print(&rep, TL_FMT_TEXT);
	assert_non_null(strstr(text, "experiment exp — baseline policy=all-fast\n"));
	assert_non_null(strstr(text, "\nnote: no baseline run succeeded\n"));
	assert_non_null(strstr(text, "\nnote: 2 configurations have no successful run\n"));
	assert_non_null(strstr(text, "\nnote: 3 runs failed, timed out or crashed"));
	free(text);
	tl_report_release(&rep);

	assert_int_equal(tl_report_build("exp", runs, 4, &nomatch, &rep), 0);
	text = print(&rep, TL_FMT_TEXT);
	assert_non_null(strstr(text, "note: no configuration matches the baseline policy=all-slow\n"));
	free(text);
	tl_report_release(&rep);

	/* three runs that agree: nothing to note, nothing to be cautious about */
	runs[0] = runs[2] = runs[3] = runs[1];
	assert_int_equal(tl_report_build("exp", runs, 4, NULL, &rep), 0);
	text = print(&rep, TL_FMT_TEXT);
	assert_non_null(strstr(text, "experiment exp — no baseline\n"));
	assert_null(strstr(text, "note:"));
	assert_null(strstr(text, "caution"));
	assert_null(strstr(text, "% base"));
	free(text);
	tl_report_release(&rep);
}

static void test_fmt_numbers(void **state)
{
	static const struct { double x; int sig; const char *want; } sig[] = {
		{ 1.91234, 4, "1.912" }, { 9.9996, 4, "10.00" }, { 12345.6, 4, "12346" },
		{ 0.0123456, 2, "0.012" }, { 0, 4, "0" }, { -2.5, 2, "-2.5" },
		{ 1.5, 4, "1.500" }, { 1e20, 3, "1e+20" }, { 1.234e-7, 3, "1.23e-07" },
		{ INFINITY, 4, "-" },
	};
	static const double exact[] = { 0.1, 1.0 / 3, 2277.25, 1e-300, 6.02214076e23, -0.0 };
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(sig) / sizeof(sig[0]); i++) {
		tl_fmt_sig(buf, sizeof(buf), sig[i].x, sig[i].sig);
		assert_string_equal(buf, sig[i].want);
	}
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		tl_fmt_exact(buf, sizeof(buf), exact[i]);
		assert_true(strtod(buf, NULL) == exact[i]);
		assert_true(strlen(buf) <= 24);
	}
	tl_fmt_exact(buf, sizeof(buf), 0.1);
	assert_string_equal(buf, "0.1");
	tl_fmt_exact(buf, sizeof(buf), NAN);
	assert_string_equal(buf, "");
}

static void test_fmt_strings(void **state)
{
	char *s;

	(void)state;
	assert_int_equal(tl_utf8_len("a"), 1);
	assert_int_equal(tl_utf8_len("\xc2\xb5"), 2);		/* µ */
	assert_int_equal(tl_utf8_len("\xe2\x80\x94"), 3);	/* — */
	assert_int_equal(tl_utf8_len("\xf0\x9f\x98\x80"), 4);
	assert_int_equal(tl_utf8_len("\xff"), 0);
	assert_int_equal(tl_utf8_len("\x80"), 0);
	assert_int_equal(tl_utf8_len("\xc0\xaf"), 0);		/* overlong '/' */
	assert_int_equal(tl_utf8_len("\xed\xa0\x80"), 0);	/* a surrogate */
	assert_int_equal(tl_utf8_len("\xe2\x80"), 0);		/* cut short by the NUL */

	s = tl_fmt_visible("a|b\n\x1b[2J\xff\xc2\xb5", false);
	assert_string_equal(s, "a|b\\n\\x1b[2J\\xff\xc2\xb5");
	assert_int_equal(tl_fmt_width(s), 17);
	free(s);
	s = tl_fmt_visible("a|b", true);
	assert_string_equal(s, "a\\|b");
	free(s);
	s = tl_fmt_visible(NULL, false);
	assert_string_equal(s, "-");
	free(s);
}

/* JSON keeps UTF-8, escapes what it must, and never lets invalid bytes through. */
static void test_json_escaping(void **state)
{
	struct tl_run_row runs[] = { run("k\"\\", "w\x01\t\xff\xc2\xb5", "lru", TL_STATUS_OK, 1) };
	struct tl_report rep;
	char *json, *csv;

	(void)state;
	runs[0].fom = INFINITY;	/* inf: a figure of merit no JSON reader accepts */
	assert_int_equal(tl_report_build("e\nx", runs, 1, NULL, &rep), 0);
	json = print(&rep, TL_FMT_JSON);
	assert_non_null(strstr(json, "\"experiment\": \"e\\nx\""));
	assert_non_null(strstr(json, "\"config_key\": \"k\\\"\\\\\""));
	assert_non_null(strstr(json, "\"workload\": \"w\\u0001\\t\\ufffd\xc2\xb5\""));
	assert_non_null(strstr(json, "\"mean\": null"));
	assert_null(strstr(json, "inf"));
	assert_null(strstr(json, "nan"));
	csv = print(&rep, TL_FMT_CSV);
	assert_non_null(strstr(csv, "\r\n\"e\nx\",\"k\"\"\\\","));
	free(csv);
	free(json);
	tl_report_release(&rep);
}

static void test_print_errors(void **state)
{
	struct tl_run_row runs[] = { run("k", "w", "lru", TL_STATUS_OK, 1) };
	struct tl_report rep;
	FILE *full;

	(void)state;
	assert_int_equal(tl_report_build("exp", runs, 1, NULL, &rep), 0);
	assert_int_equal(tl_report_print(&rep, TL_FMT__COUNT, stdout), -EINVAL);
	full = fopen("/dev/full", "w");
	if (full) {
		for (int f = 0; f < TL_FMT__COUNT; f++) {
			setvbuf(full, NULL, _IONBF, 0);
			assert_int_equal(tl_report_print(&rep, f, full), -EIO);
			clearerr(full);
		}
		fclose(full);
	}
	tl_report_release(&rep);
}

/*
 * The golden fixture: an HPCG-like experiment with awkward names. Failures,
 * timeouts and crashes mixed in; a workload with no baseline; a
 * lower-is-better workload in another unit (so a unit column appears).
 */
static const char *const AWKWARD = "dgemm, \"big\"\nv2";
static const char *const LATENCY = "tlb-\xc2\xb5" "bench|x";

/* samples and ticks: the runtime's counts over `wall` seconds of activity; NAN = no runtime counters. */
struct fixture_run {
	const char *key, *workload, *policy, *chunks, *rate, *window;
	enum tl_run_status status;
	double fom, hit_rate, migrated_gib, wall, samples, ticks;
};

static const struct fixture_run fixture[] = {
	{ "c01", "hpcg", "all-fast", NULL, NULL, NULL, TL_STATUS_OK, 1.95, NAN, NAN, 61.2, NAN, NAN },
	{ "c01", "hpcg", "all-fast", NULL, NULL, NULL, TL_STATUS_OK, 1.90, NAN, NAN, 62.0, NAN, NAN },
	{ "c01", "hpcg", "all-fast", NULL, NULL, NULL, TL_STATUS_OK, 2.00, NAN, NAN, 60.1, NAN, NAN },
	{ "c02", "hpcg", "all-slow", NULL, NULL, NULL, TL_STATUS_OK, 1.21, NAN, NAN, 95.5, NAN, NAN },
	{ "c02", "hpcg", "all-slow", NULL, NULL, NULL, TL_STATUS_OK, 1.25, NAN, NAN, 93.0, NAN, NAN },
	{ "c03", "hpcg", "static:1,0", NULL, "10Hz", NULL, TL_STATUS_OK, 1.80, 0.8125, 0.75, 66.0, 650, 660 },
	{ "c04", "hpcg", "lru", "8", "10Hz", NULL, TL_STATUS_OK, 1.83, 0.91, 12.5, 65.0, 640, 650 },
	/* a failed run's sampling counts no more than its figure of merit */
	{ "c04", "hpcg", "lru", "8", "10Hz", NULL, TL_STATUS_FAILED, NAN, NAN, NAN, 3.0, 1, 30 },
	{ "c04", "hpcg", "lru", "8", "10Hz", NULL, TL_STATUS_OK, 1.79, 0.89, 13.25, 66.5, 660, 665 },
	{ "c05", "hpcg", "lru", "64", "100Hz", NULL, TL_STATUS_TIMEOUT, NAN, NAN, NAN, 600, NAN, NAN },
	{ "c05", "hpcg", "lru", "64", "100Hz", NULL, TL_STATUS_TIMEOUT, NAN, NAN, NAN, 600, NAN, NAN },
	/* short although the ticks kept time: most ticks found no access to take */
	{ "c06", "hpcg", "window", "8", "10Hz", "16", TL_STATUS_OK, 1.8612, 0.935, 4.0, 64.25, 257, 640 },
	{ "c07", NULL, "all-fast", NULL, NULL, NULL, TL_STATUS_OK, 52.5, NAN, NAN, 8.5, NAN, NAN },
	{ "c07", NULL, "all-fast", NULL, NULL, NULL, TL_STATUS_OK, 53.1, NAN, NAN, 8.4, NAN, NAN },
	{ "c08", NULL, "lru", "8", "10Hz", NULL, TL_STATUS_CRASHED, NAN, NAN, NAN, 1.5, NAN, NAN },
	/* short, and so were the ticks: the sampler could not keep up */
	{ "c08", NULL, "lru", "8", "10Hz", NULL, TL_STATUS_OK, 51.9, 0.99, 0.125, 8.6, 43, 43 },
	{ "c09", "malloc", "lru", "8", "10Hz", NULL, TL_STATUS_OK, 412.0, NAN, NAN, 2.0, NAN, NAN },
	{ "c10", NULL, "all-fast", NULL, NULL, NULL, TL_STATUS_OK, 8.25, NAN, NAN, 4.0, NAN, NAN },
	{ "c10", NULL, "all-fast", NULL, NULL, NULL, TL_STATUS_OK, 8.75, NAN, NAN, 4.0, NAN, NAN },
	{ "c11", NULL, "lru", "8", "10Hz", NULL, TL_STATUS_OK, 9.5, 0.5, 1536.0, 4.5, 45, 45 },
};
#define NFIXTURE (sizeof(fixture) / sizeof(fixture[0]))

static void build_fixture(struct tl_report *rep)
{
	struct tl_run_row runs[NFIXTURE];
	struct tl_selector sel = selector(TL_AXIS_POLICY, "all-fast");

	for (size_t i = 0; i < NFIXTURE; i++) {
		const struct fixture_run *f = &fixture[i];
		const char *wl = f->workload;

		/* NULL in the table stands for the two awkward names, by key. */
		if (!wl)
			wl = strcmp(f->key, "c10") >= 0 ? LATENCY : AWKWARD;
		runs[i] = run(f->key, wl, f->policy, f->status, f->fom);
		set_axis(&runs[i], TL_AXIS_SIZE, "small");
		set_axis(&runs[i], TL_AXIS_CHUNKS, f->chunks);
		set_axis(&runs[i], TL_AXIS_RATE, f->rate);
		set_axis(&runs[i], TL_AXIS_WINDOW, f->window);
		runs[i].has_hit_rate = !isnan(f->hit_rate);
		runs[i].hit_rate = f->hit_rate;
		runs[i].has_migrated = !isnan(f->migrated_gib);
		runs[i].migrated_bytes = f->migrated_gib * GIB;
		runs[i].wall = f->wall;
		runs[i].has_sampling = !isnan(f->samples);
		runs[i].samples = f->samples;
		runs[i].ticks = f->ticks;
		runs[i].run_ns = f->wall * 1e9;
		if (wl == LATENCY) {
			runs[i].fom_unit = (char *)"ns";
			runs[i].higher_is_better = false;
		}
	}
	assert_int_equal(tl_report_build("hpcg-40pct", runs, NFIXTURE, &sel, rep), 0);
}

static char *golden_path(const char *name)
{
	char exe[PATH_MAX], *slash, *path = NULL;
	ssize_t n;

	/* From the source tree (tests/run.sh runs there), else relative to build/tests/. */
	if (!access("tests/golden/report", F_OK)) {
		assert_true(asprintf(&path, "tests/golden/report/%s", name) > 0);
		return path;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = 0;
	slash = strrchr(exe, '/');
	*slash = 0;
	assert_true(asprintf(&path, "%s/../../tests/golden/report/%s", exe, name) > 0);
	return path;
}

static char *read_file(const char *path, size_t *len)
{
	char *buf = NULL;
	FILE *f = fopen(path, "rb");
	long size;

	if (!f)
		fail_msg("cannot read golden file '%s' (TIERLAB_UPDATE_GOLDEN=1 writes it)", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	rewind(f);
	buf = malloc(size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, size, f), (size_t)size);
	buf[size] = 0;
	fclose(f);
	*len = size;
	return buf;
}

static void check_golden(enum tl_report_format fmt, const char *name)
{
	struct tl_report rep;
	char *got, *want, *path = golden_path(name);
	const char *update = getenv("TIERLAB_UPDATE_GOLDEN");
	size_t want_len, got_len, i;

	build_fixture(&rep);
	got = print(&rep, fmt);
	got_len = strlen(got);
	if (update && !strcmp(update, "1")) {
		FILE *f = fopen(path, "wb");

		assert_non_null(f);
		assert_int_equal(fwrite(got, 1, got_len, f), got_len);
		assert_int_equal(fclose(f), 0);
		fprintf(stderr, "wrote %s\n", path);
	}
	want = read_file(path, &want_len);
	for (i = 0; i < got_len && i < want_len && got[i] == want[i]; i++)
		;
	if (i != got_len || i != want_len)
		fail_msg("%s differs from the golden file at byte %zu; got:\n%s", path, i, got);
	free(want);
	free(got);
	free(path);
	tl_report_release(&rep);
}

static void test_golden_text(void **state)
{
	(void)state;
	check_golden(TL_FMT_TEXT, "expected.txt");
}

static void test_golden_markdown(void **state)
{
	(void)state;
	check_golden(TL_FMT_MARKDOWN, "expected.md");
}

static void test_golden_csv(void **state)
{
	(void)state;
	check_golden(TL_FMT_CSV, "expected.csv");
}

static void test_golden_json(void **state)
{
	(void)state;
	check_golden(TL_FMT_JSON, "expected.json");
}

/* The fixture's own numbers, so a golden file cannot quietly bless a wrong one. */
static void test_fixture_numbers(void **state)
{
	struct tl_report rep;
	const struct tl_report_row *r;

	(void)state;
	build_fixture(&rep);
	assert_int_equal(rep.nrows, 11);
	r = row_of(&rep, "c04");
	assert_near(r->mean, 1.81, 1e-12);
	assert_near(r->pct_of_baseline, 100 * 1.81 / 1.95, 1e-9);
	assert_near(r->migrated_gib, 12.875, 1e-12);
	assert_int_equal(row_of(&rep, "c08")->baseline, 6);	/* c07, the awkward workload's all-fast */
	assert_int_equal(row_of(&rep, "c09")->baseline, -1);
	assert_near(row_of(&rep, "c11")->pct_of_baseline, 100 * 8.5 / 9.5, 1e-9);
	assert_false(row_of(&rep, "c05")->has_pct);
	/* the achieved rate: mean over ok runs (c04's failed run left out), short when below 9 Hz */
	assert_int_equal(row_of(&rep, "c04")->n_achieved, 2);
	assert_near(row_of(&rep, "c04")->achieved.samples_hz, (640 / 65.0 + 660 / 66.5) / 2, 1e-9);
	assert_false(row_of(&rep, "c04")->rate_short);
	assert_true(row_of(&rep, "c06")->rate_short);
	assert_true(row_of(&rep, "c08")->rate_short);
	assert_int_equal(row_of(&rep, "c01")->n_achieved, 0);
	assert_true(rep.axis_varies[TL_AXIS_WINDOW]);
	assert_false(rep.axis_varies[TL_AXIS_SIZE]);
	tl_report_release(&rep);
}

/*
 * Sessions (report-session.c): lru of session 1 stands on the all-fast
 * runs of session 1, which session 2 replaced (4 then, 2 now): 50%
 * against session 2's, 100% against its own; window of session 3 has no
 * baseline run of its session and keeps the shown one, marked. A busy
 * run (a 1-minute load above the CPUs) marks its row, and the rows whose
 * % stands on it.
 */
static struct tl_run_row in_session(struct tl_run_row r, int64_t id, int64_t session, const char *key)
{
	r.id = id;
	r.session_id = session;
	r.session_started = 1000.0 * (double)session;
	r.run_key = (char *)key;
	return r;
}

static void test_sessions(void **state)
{
	struct tl_run_row runs[] = {
		in_session(run("fast", "w", "all-fast", TL_STATUS_OK, 2), 7, 2, "fast-r1"),
		in_session(run("fast", "w", "all-fast", TL_STATUS_OK, 2), 8, 2, "fast-r2"),
		in_session(run("lru", "w", "lru", TL_STATUS_OK, 4), 3, 1, "lru-r1"),
		in_session(run("lru", "w", "lru", TL_STATUS_OK, 4), 4, 1, "lru-r2"),
		in_session(run("win", "w", "window", TL_STATUS_OK, 1), 9, 3, "win-r1"),
	};
	struct tl_run_row older[] = {
		in_session(run("fast", "w", "all-fast", TL_STATUS_OK, 4), 1, 1, "fast-r1"),
		in_session(run("fast", "w", "all-fast", TL_STATUS_OK, 4), 2, 1, "fast-r2"),
	};
	struct tl_selector base = selector(TL_AXIS_POLICY, "all-fast");
	struct tl_report rep;
	const struct tl_report_row *r;

	(void)state;
	assert_int_equal(tl_report_build("exp", runs, 5, &base, &rep), 0);
	assert_near(row_of(&rep, "lru")->pct_of_baseline, 200, 1e-12);	/* against the row shown */
	assert_int_equal(tl_report_match_sessions(&rep, runs, 5, older, 2), 0);
	assert_int_equal(rep.nsessions, 3);
	assert_int_equal(rep.sessions[0].id, 1);
	r = row_of(&rep, "lru");
	assert_true(r->base_own && !r->base_other_session);
	assert_int_equal(r->base.n, 2);
	assert_near(r->base.mean, 4, 1e-12);
	assert_near(r->pct_of_baseline, 100, 1e-12);
	assert_true(r->nsessions == 1 && r->session == 1 && r->session_ids[0] == 1);
	r = row_of(&rep, "win");
	assert_true(!r->base_own && r->base_other_session);
	assert_near(r->pct_of_baseline, 50, 1e-12);
	assert_true(tl_report_caution(&rep, (size_t)(r - rep.rows)) & TL_CAUTION_OTHER_SESSION);
	assert_false(tl_report_caution(&rep, (size_t)(row_of(&rep, "lru") - rep.rows)) & TL_CAUTION_OTHER_SESSION);
	tl_report_release(&rep);

	/* session 1's baseline was busy: lru (on it) is marked, window (on session 2's) is not */
	older[0].has_load = true;
	older[0].load_before = 3;
	older[0].load_after = 1;
	older[0].cpus = 2;
	assert_int_equal(tl_report_build("exp", runs, 5, &base, &rep), 0);
	assert_int_equal(tl_report_match_sessions(&rep, runs, 5, older, 2), 0);
	assert_int_equal(row_of(&rep, "lru")->base_busy, 1);
	assert_true(tl_report_caution(&rep, (size_t)(row_of(&rep, "lru") - rep.rows)) & TL_CAUTION_BUSY);
	assert_false(tl_report_caution(&rep, (size_t)(row_of(&rep, "win") - rep.rows)) & TL_CAUTION_BUSY);
	assert_int_equal(row_of(&rep, "fast")->n_busy, 0);
	tl_report_release(&rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_known_values),
		cmocka_unit_test(test_spread_warning),
		cmocka_unit_test(test_by_groups),
		cmocka_unit_test(test_by_never_crosses_workloads),
		cmocka_unit_test(test_stats_stable),
		cmocka_unit_test(test_stats_extremes),
		cmocka_unit_test(test_stats_tier_columns),
		cmocka_unit_test(test_achieved_rate),
		cmocka_unit_test(test_rate_short_words),
		cmocka_unit_test(test_grouping_order),
		cmocka_unit_test(test_varying_axes),
		cmocka_unit_test(test_baseline_per_workload_and_size),
		cmocka_unit_test(test_baseline_lower_is_better),
		cmocka_unit_test(test_baseline_missing),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_fmt_numbers),
		cmocka_unit_test(test_fmt_strings),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_print_errors),
		cmocka_unit_test(test_fixture_numbers),
		cmocka_unit_test(test_golden_text),
		cmocka_unit_test(test_golden_markdown),
		cmocka_unit_test(test_golden_csv),
		cmocka_unit_test(test_golden_json),
		cmocka_unit_test(test_sessions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
