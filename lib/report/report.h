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
 * baseline selector, agrees with it on every other axis both have, and
 * measures the same thing (workload, size, unit and direction of the
 * figure of merit; measured or replayed); a row that matches the selector
 * is its own baseline (is_baseline, 100%).
 *
 * Rows are configurations in order of first appearance of their
 * config_key; a configuration's axis values, unit and direction come from
 * its first run, except that an axis its first run left NULL takes the
 * value of a later run that has one (one key is one configuration: static
 * runs stored before they took a rate have none). Failed, timed-out and
 * crashed runs are counted in status_count and left out of every
 * statistic; so are non-finite values. Beside mean and sd, a row has the
 * median, min, max and the 95% confidence interval of the mean (report/stats.h);
 * a coefficient of variation over 5% is a warning.
 *
 * Sampling: a run's achieved rate is its samples per second of runtime
 * activity (tl_run_achieved); a configuration's is the mean over its ok
 * runs, and it is short when more than 10% below the rate asked.
 */
#ifndef TL_REPORT_H
#define TL_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "plan/plan.h"
#include "report/stats.h"
#include "store/query.h"

/* Sampling achieved: samples and ticks per second over `seconds` of runtime activity. */
struct tl_sampling {
	double samples_hz, ticks_hz, seconds;
};

struct tl_report_row {
	char *config_key;
	char *values[TL_AXIS__COUNT];
	char *fom_unit;
	bool higher_is_better;
	size_t n_ok;
	size_t status_count[TL_STATUS__COUNT];
	size_t n_fom;			/* ok runs that carried a figure of merit */
	double mean, sd;		/* of the figure of merit over those runs; valid when n_fom > 0 */
	double median, min, max;	/* likewise */
	double ci95;			/* half width of the mean's 95% interval (Student's t); NaN when n_fom < 2 */
	bool spread_high;		/* sd / |mean| above TL_STATS_CV_WARN (5%): worth a warning */
	long baseline;			/* index of the baseline row, -1 when none */
	bool is_baseline;
	double pct_of_baseline;		/* valid when has_pct (baseline >= 0, both have n_fom > 0) */
	bool has_pct;
	size_t n_hit_rate, n_migrated;	/* how many ok runs carried them */
	double hit_rate;		/* mean over runs that carried it, 0..1 */
	/*
	 * tl_report_load_samples: how many samples the hit rate stands on, summed
	 * over those runs; valid when has_hit_samples (every one of them carried
	 * its count). Wilson's 95% interval is of the hits over those samples,
	 * pooled; few_samples when they are under TL_REPORT_MIN_SAMPLES.
	 */
	bool has_hit_samples;
	double hit_samples, hit_hits;
	double hit_lo, hit_hi;
	bool few_samples;
	double migrated_gib;		/* mean GiB migrated per run */
	size_t n_directions;		/* ok runs that carried migrated bytes by direction */
	double to_fast_gib, to_slow_gib;	/* their means: slow-to-fast, fast-to-slow */
	double wall_mean;		/* seconds, over ok runs */
	size_t n_achieved;		/* ok runs with an achieved sampling rate */
	struct tl_sampling achieved;	/* their means */
	bool rate_short;		/* achieved more than 10% below the rate asked (tl_rate_short) */
	bool simulated;			/* its runs were replayed by tierlab simulate, not measured */
	/*
	 * The host: ok runs that stored its load, and those of them taken on
	 * a busy host (tl_run_busy), with the highest 1-minute load among
	 * those and the CPUs it was measured against.
	 */
	size_t n_load, n_busy;
	double busy_load, busy_cpus;
	/* A replay's estimate with a tier model (sim.estimate, 1 = all-fast): the mean over the ok runs that carry it. */
	size_t n_estimate;
	double estimate;
	/*
	 * Sessions (tl_report_match_sessions): how many its runs come from,
	 * and the latest (0: stored without one). base_own: its % of
	 * baseline stands on the baseline's runs of its own sessions (base:
	 * their statistics, base_busy of them busy), not on the baseline
	 * row's, which a later session ran again; base_other_session: no
	 * baseline run is of its sessions, so the % compares runs of
	 * different sessions.
	 */
	size_t nsessions;
	int64_t *session_ids;		/* those sessions, oldest first (nsessions of them) */
	int64_t session;
	bool base_own, base_other_session;
	struct tl_stats base;
	size_t base_busy;
};

/* A session runs of the report came from (tl_report_match_sessions). */
struct tl_report_session {
	int64_t id;		/* 0: runs stored without a session */
	double started_at;
	size_t runs;
};

/*
 * One perf event of a row (report --counters): the mean of its value over
 * the row's ok runs that counted it, and how many ok runs could not (the
 * event unavailable on the machine, or its reading failed): such a run
 * has no value, never a 0.
 */
struct tl_report_counter {
	size_t n;		/* ok runs with a value */
	double mean;
	size_t n_missing;	/* ok runs where it was not counted */
	char *missing;		/* the first of those runs' status ("unavailable", "failed") */
};

/* A derived ratio of two counted events: scale x mean(num) / mean(den), for rows that have both. */
struct tl_report_ratio {
	const char *name;	/* "dTLB-load-misses per 1k instructions" */
	size_t num, den;	/* indexes into events */
	double scale;
};

struct tl_report {
	char *experiment;
	struct tl_report_row *rows;
	size_t nrows;
	bool axis_varies[TL_AXIS__COUNT];	/* show a column for this axis: >1 distinct value (NULL
						 * counts as one) across rows; workload always, rate
						 * whenever a row has an achieved rate */
	bool has_baseline;
	bool any_simulated;		/* some row is simulated: show where each row comes from */
	struct tl_selector baseline;
	char *baseline_text;		/* as given, for the header */
	char **extra_notes;		/* notes the caller knows of (tl_report_add_note) */
	size_t nextra;
	bool has_by;			/* rows are groups by these axes (tl_report_build_by), not configurations */
	struct tl_report_session *sessions;	/* the sessions of the runs, oldest first (tl_report_match_sessions) */
	size_t nsessions;
	char *session_filter;		/* "session 5", "sessions since 2024-05-01 10:00": what --session/--since kept, or NULL */
	bool by[TL_AXIS__COUNT];
	/* tl_report_load_counters: the events seen, in name order, and per row (nrows x nevents) */
	bool show_directions;		/* report --directions: text and markdown split GiB migrated */
	bool show_stats;		/* report --stats: text and markdown add median, min, max, 95% CI */
	bool show_wide;			/* report --wide: the text table keeps every column */
	char **columns;			/* report --columns: text and markdown show these (tl_report_choose_columns) */
	size_t ncolumns;
	bool has_counters;
	char **events;
	size_t nevents;
	struct tl_report_counter *counters;
	struct tl_report_ratio *ratios;	/* those of the known ratios whose two events were seen */
	size_t nratios;
};

/* The text table is made to fit a terminal this wide (report --wide: whatever it takes). */
#define TL_REPORT_TEXT_COLUMNS 100

/*
 * Why a row's figure, its % of baseline or its hit rate may be far off:
 * fewer than TL_STATS_FEW_RUNS runs behind the figure or its baseline's;
 * either's sd over TL_STATS_CV_WARN of its mean; a hit rate from fewer
 * than TL_REPORT_MIN_SAMPLES samples (known after tl_report_load_samples);
 * a baseline of another session only (tl_report_match_sessions); a run of
 * the row or of its baseline taken on a busy host (tl_run_busy).
 */
enum { TL_CAUTION_FEW_RUNS = 1, TL_CAUTION_NOISY = 2, TL_CAUTION_FEW_SAMPLES = 4, TL_CAUTION_OTHER_SESSION = 8,
       TL_CAUTION_BUSY = 16 };
unsigned tl_report_caution(const struct tl_report *rep, size_t i);

/*
 * report --columns: the columns of text and markdown, by name, in the
 * order given (axis names; fom, unit, pct, caution, hit, ..., see
 * tl_report_column_list). 0, -EINVAL with the names in err, -ENOMEM.
 */
int tl_report_choose_columns(struct tl_report *rep, const char *list, struct tl_error *err);
/* "source, achieved, fom, ...": the names of the columns that are not axes. */
const char *tl_report_column_list(void);

/* A hit rate from fewer samples than this gets a warning: a few samples more or less move it by points. */
#define TL_REPORT_MIN_SAMPLES 30

/*
 * An achieved rate below this share of the rate asked is short, once the
 * runtime was active for TL_RATE_MIN_PERIODS periods of it: over fewer, one
 * tick more or less (the last period is cut by the exit) is 10% or more.
 */
#define TL_RATE_SHORT 0.9
#define TL_RATE_MIN_PERIODS 10

/*
 * A run's achieved sampling: samples and ticks per second of runtime
 * activity, over the run's processes (rt.samples and rt.ticks over
 * rt.run_ns, so per process as the rate asked is). false when it has none
 * to show: no runtime counters (no runtime, log none), sampler none, or no
 * time active.
 */
bool tl_run_achieved(const struct tl_run_row *run, struct tl_sampling *out);

/* A run whose figure of merit goes into its row's statistics: ok, with a finite figure. */
bool tl_run_fom_counts(const struct tl_run_row *run);

/*
 * A run taken on a busy host: its 1-minute load average before or after
 * it above the CPUs online (more runnable work than CPUs: the run shared
 * them). *load: the higher of the two. false when it stored no load.
 */
bool tl_run_busy(const struct tl_run_row *run, double *load);

/*
 * When s->samples_hz is more than 10% below the rate asked (canonical
 * text, e.g. "1000Hz") over at least TL_RATE_MIN_PERIODS periods, says so
 * into buf and returns true: "rate 1000Hz achieved 488 Hz (49%): the
 * sampler could not keep up" when the ticks fell behind too, else why
 * samples are missing although the ticks kept up (buf may be NULL with
 * len 0). false (buf untouched) when not short, too short a run to tell,
 * or when asked is NULL or not a rate.
 */
bool tl_rate_short(const char *asked, const struct tl_sampling *s, char *buf, size_t len);

/*
 * One run's sampling for people, as the report words it: "rate 250Hz,
 * achieved 233 Hz (93%), ticks 240 Hz" into line, and tl_rate_short's
 * warning into warning ("" when not short). false (nothing written) when
 * the run has no achieved rate.
 */
bool tl_run_sampling_text(const struct tl_run_row *run, char *line, size_t len, char *warning,
			  size_t wlen);

/* The row a run went into, or -1 (a run the report was not built from). */
long tl_report_row_of(const struct tl_report *rep, const struct tl_run_row *run);

struct tl_store;
/*
 * report --counters: reads the counters of runs (those the report was
 * built from) from the store into rep: per row and event the mean over ok
 * runs that counted it, how many could not, and the known ratios
 * (dTLB-load-misses per 1k instructions, IPC, ...) whose events both
 * appear. Returns 0 or a negative errno after an error line.
 */
int tl_report_load_counters(struct tl_report *rep, struct tl_store *st, const struct tl_run_row *runs, size_t n);
/*
 * Reads how many samples each ok run's hit rate stands on (the runtime's
 * rt.samples_managed and rt.hits, or a replay's sim.samples_managed) from
 * the store into the rows of rep (built from runs): their sum, Wilson's
 * interval, few_samples. A row whose runs did not all store a count keeps
 * has_hit_samples false. Returns 0 or a negative errno after an error line.
 */
int tl_report_load_samples(struct tl_report *rep, struct tl_store *st, const struct tl_run_row *runs, size_t n);

/* Row i's ratio k: true and *v when both of its events were counted in that row. */
bool tl_report_ratio_value(const struct tl_report *rep, size_t i, size_t k, double *v);
/* Row i's event e as one word: "ok" (every ok run counted it), "partial", the missing status, or "" (never seen). */
const char *tl_report_counter_status(const struct tl_report *rep, size_t i, size_t e);

/* A note the rows cannot tell (e.g. the tiers were simulated); printed after the model's own. */
int tl_report_add_note(struct tl_report *rep, const char *text);

/*
 * Builds the model from stored runs (not kept: every string is copied).
 * baseline NULL: no comparison. Returns 0, -EINVAL (with an error line)
 * when the selector names no axis at all, or -ENOMEM; rep is then empty
 * (and safe to release).
 */
int tl_report_build(const char *experiment, const struct tl_run_row *runs, size_t n,
		    const struct tl_selector *baseline, struct tl_report *rep);
/*
 * The same with rows that are groups of runs by the axes in by[] (report
 * --by): runs whose values agree on those axes pool into one row, whatever
 * their other axes, but never across workloads, sizes, units or
 * directions (workload and size are added to by[]; a run in another unit
 * or direction makes a row of its own). The row holds only those axes'
 * values (the others NULL), and its config_key is "axis=value ..." of
 * them ("workload=hpcg size=tiny policy=lru"). by NULL: as
 * tl_report_build.
 */
int tl_report_build_by(const char *experiment, const struct tl_run_row *runs, size_t n,
		       const struct tl_selector *baseline, const bool *by, struct tl_report *rep);
void tl_report_release(struct tl_report *rep);

/*
 * Sessions, after tl_report_build over runs (the latest row of each run
 * key) and older (rows of those keys that later sessions replaced,
 * tl_store_query_replaced; may be empty): counts each row's sessions and
 * the report's, and bases a row's % of baseline on the baseline's runs
 * of the row's own sessions (the latest row of each key among them)
 * wherever the baseline row holds runs of other sessions; a row with no
 * baseline run of its sessions keeps the baseline row's and is marked
 * base_other_session. 0 or -ENOMEM.
 */
int tl_report_match_sessions(struct tl_report *rep, const struct tl_run_row *runs, size_t n,
			     const struct tl_run_row *older, size_t nolder);

/*
 * The report formats, X(ID, name): each prints with
 * tl_report_print_<name>() in report-<name>.c. A new format is its file
 * and one row here; the enum, the names, --format and its help follow.
 */
#define TL_REPORT_FORMATS(X) \
	X(TEXT, text)        \
	X(MARKDOWN, markdown) \
	X(CSV, csv)          \
	X(JSON, json)

enum tl_report_format {
#define TL_X(id, name) TL_FMT_##id,
	TL_REPORT_FORMATS(TL_X)
#undef TL_X
	TL_FMT__COUNT
};
/* NULL-terminated, for --format (cmd/parse-options.h's OPT_FORMAT). */
extern const char *const tl_report_format_names[TL_FMT__COUNT + 1];


/*
 * --session ID and --since TIME (either may be NULL) as a filter: TIME is
 * a date and time ("2024-05-01", "2024-05-01 14:00", "2024-05-01T14:00:30",
 * local time) or how long ago ("2h", "30m", "90s"). 0, or -EINVAL with the
 * reason in err; *text (malloc'd, NULL without either) says what was
 * chosen, for a report's header.
 */
int tl_session_filter_parse(const char *session, const char *since, struct tl_session_filter *f, char **text,
			    struct tl_error *err);
/*
 * tl_runs_load within a filter (NULL: every run), and the rows of other
 * sessions its run keys replaced (tl_store_query_replaced) into older;
 * -1 having said why when there is no run.
 */
int tl_runs_load_in(struct tl_store *st, const char *db, const char *experiment, const struct tl_session_filter *f,
		    struct tl_run_row **rows, size_t *n, struct tl_run_row **older, size_t *nolder);

/*
 * The experiment's runs (experiment NULL: the latest's), or -1 having said
 * on stderr that db holds none.
 */
int tl_runs_load(struct tl_store *st, const char *db, const char *experiment, struct tl_run_row **rows, size_t *n);
/*
 * The baseline selector: *baseline as given, else the experiment's stored
 * one (*stored, for the caller to free). sel stays empty without one; -1
 * having said why when it does not parse.
 */
int tl_baseline_load(struct tl_store *st, const char *experiment, const char **baseline, char **stored,
		     struct tl_selector *sel);

/*
 * --where: moves to the front of rows the runs that match where, those
 * that match baseline (NULL: none) and, with bounds, the all-fast and
 * all-slow runs (plot's lines); returns their count (the rest stay, for
 * the caller to free with the others).
 */
size_t tl_runs_where(struct tl_run_row *rows, size_t n, const struct tl_selector *where,
		     const struct tl_selector *baseline, bool bounds);

/* Returns 0, -EINVAL for an unknown format, -ENOMEM, or -EIO when writing to out failed. */
int tl_report_print(const struct tl_report *rep, enum tl_report_format fmt, FILE *out);

#endif
