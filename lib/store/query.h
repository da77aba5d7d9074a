/*
 * Reading the store: the one module that queries it, for report, show,
 * list, resume and the footprint cache. It never writes (readers open the
 * database with tl_store_open_existing, whose connection refuses writes).
 *
 * A run key may be stored more than once (a failed run re-run); the row
 * with the highest id is the one that counts, and runs keep the order in
 * which their key first appeared, which is plan order. Functions return 0
 * or a negative errno after one error() line naming the database.
 */
#ifndef TL_QUERY_H
#define TL_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/store.h"

/* One run as queries hand it back, owned by the caller (tl_run_rows_free). */
struct tl_run_row {
	int64_t id;
	char *experiment;
	char *run_key, *config_key;
	int rep;
	char *values[TL_AXIS__COUNT];
	enum tl_run_status status;
	int exit_code, signal;
	bool has_fom;
	double fom;
	char *fom_unit;
	bool higher_is_better;
	double wall, user, sys;
	long maxrss_kb;
	double started_at, ended_at;
	char *error;
	char *out_dir;
	char *command;
	bool simulated;		/* replayed by tierlab simulate (schema 3), not measured */
	/* Tier columns: from metrics "hit_rate" (0..1) and "migrated_bytes"; has_* false when absent. */
	bool has_hit_rate, has_migrated;
	double hit_rate, migrated_bytes;
	/*
	 * The runtime's sampling, summed over the run's processes: metrics
	 * rt.samples, rt.ticks and rt.run_ns (ns the runtime was active);
	 * has_sampling false unless all three are stored.
	 */
	bool has_sampling;
	double samples, ticks, run_ns;
	/* Bytes migrated by direction, summed over processes (rt.bytes_slow_to_fast, rt.bytes_fast_to_slow). */
	bool has_directions;
	double to_fast_bytes, to_slow_bytes;
	/*
	 * The session that stored it (schema 5; in an older database its
	 * experiment row, one invocation each) and when that began; 0 for a
	 * row stored without one.
	 */
	int64_t session_id;
	double session_started;
	/* A replay's estimate with a tier model (metric sim.estimate, T0/T: 1 is as fast as all-fast). */
	bool has_estimate;
	double estimate;
	/*
	 * The host around the run (metrics host.load1_before, host.load1_after,
	 * host.cpus): the 1-minute load average before and after it and the
	 * CPUs online; has_load false unless all three are stored.
	 */
	bool has_load;
	double load_before, load_after, cpus;
	/*
	 * The runtime thread's time in drains (metric rt.drain_ns_total: the
	 * policy's decisions and the moves they made) and the moves made
	 * (rt.mig_slow_to_fast + rt.mig_fast_to_slow); has_drain false unless
	 * both are stored.
	 */
	bool has_drain;
	double drain_ns, moves;
};

/*
 * The latest row of every run key of the named experiment, in run order
 * (by first appearance). experiment NULL: the most recently created one.
 * Returns 0 with *n == 0 when there is none.
 */
int tl_store_query_runs(struct tl_store *st, const char *experiment, struct tl_run_row **rows,
			size_t *n);
void tl_run_rows_free(struct tl_run_row *rows, size_t n);

/*
 * Which sessions a reader takes runs from (report, compare, plot
 * --session, --since): the one session given (session > 0), those
 * started at or after since (> 0, seconds since the epoch), both, or
 * (zeroed) every session.
 */
struct tl_session_filter {
	int64_t session;
	double since;
};
/*
 * tl_store_query_runs over the runs the filter takes (NULL: all); with a
 * session and no experiment, the session's experiment.
 */
int tl_store_query_runs_in(struct tl_store *st, const char *experiment, const struct tl_session_filter *f,
			   struct tl_run_row **rows, size_t *n);
/*
 * The rows of run keys that a later session stored again: the latest row
 * of each key in each session, but for the key's latest (the one
 * tl_store_query_runs_in returns), in the order stored. A report reads a
 * row's % of baseline from the baseline runs of the row's own session
 * (report.h, tl_report_match_sessions).
 */
int tl_store_query_replaced(struct tl_store *st, const char *experiment, const struct tl_session_filter *f,
			    struct tl_run_row **rows, size_t *n);
/* The experiment session id stored runs of: 0 and *name (malloc'd); -ENOENT with an error line when none. */
int tl_store_session_experiment(struct tl_store *st, int64_t session, char **name);

/* One session as tl_store_sessions_each hands it (strings valid during the call, may be NULL). */
struct tl_session_row {
	int64_t id;
	double started_at;
	const char *key, *command, *host, *experiment;
	int64_t runs, runs_ok;	/* runs it stored of that experiment; with status ok */
};
/*
 * Calls fn for each session that stored runs (of experiment; NULL: of
 * any), latest first; stops at fn's first non-zero answer. Before schema
 * 5 each experiment row is a session, with no key or command.
 */
int tl_store_sessions_each(struct tl_store *st, const char *experiment,
			   int (*fn)(void *arg, const struct tl_session_row *s), void *arg);
void tl_run_row_release(struct tl_run_row *row);

/*
 * One run by numeric id, run key, or unique run-key prefix (latest row).
 * An all-digit argument is tried as an id first. -ENOENT when nothing
 * matches, -EINVAL when a prefix matches several keys; either with an
 * error line listing up to 5 candidates.
 */
int tl_store_get_run(struct tl_store *st, const char *which, struct tl_run_row *row);
/*
 * As tl_store_get_run, and "latest": the run stored last; with logged,
 * the last one recorded with `log: log` and run, not replayed (what a
 * timeline, a replay or a log export needs). -ENOENT with an error line
 * when there is none.
 */
int tl_store_get_run_or_latest(struct tl_store *st, const char *which, bool logged, struct tl_run_row *row);

/*
 * 1 when a run with this key is stored with status ok under an experiment
 * of this name (the latest row of the key counts, as in queries), else 0.
 * experiment NULL: the most recently created one.
 */
int tl_store_run_done(struct tl_store *st, const char *experiment, const char *run_key);

/* Experiment names, most recent first; the caller frees each name and the array. */
int tl_store_experiments(struct tl_store *st, char ***names, size_t *n);
/* The baseline stored with the most recent experiment of this name: 0 and *out (malloc'd, may be NULL). */
int tl_store_experiment_baseline(struct tl_store *st, const char *experiment, char **out);
/* The experiment (execution) a stored run belongs to. */
int tl_store_run_experiment(struct tl_store *st, int64_t run_id, int64_t *experiment_id);

/* A run's metrics, by name, for `tierlab show` (free with tl_metrics_free). */
int tl_store_run_metrics(struct tl_store *st, int64_t run_id, struct tl_metric **m, size_t *n);
/* Calls fn(arg, event, value-or-NULL, status, reason-or-NULL) for each counter of a run. */
int tl_store_counters_each(struct tl_store *st, int64_t run_id,
			   void (*fn)(void *arg, const char *event, const double *value,
				      const char *status, const char *reason), void *arg);

/* The environment rows of a scope (run_id 0: the experiment's), in the order stored, into env. */
int tl_store_env_load(struct tl_store *st, int64_t experiment_id, int64_t run_id, struct tl_env *env);
/* Calls fn(arg, key, value) for each environment row of a scope, in key order. */
int tl_store_env_each(struct tl_store *st, int64_t experiment_id, int64_t run_id,
		      void (*fn)(void *arg, const char *key, const char *value), void *arg);
/* The value of key in the most recent experiment of this name: 0 and *out (malloc'd, NULL if unset). */
int tl_store_experiment_env(struct tl_store *st, const char *experiment, const char *key,
			    char **out);
/* The most recent value of an experiment-scope key in any experiment: 0 and *out (NULL if none). */
int tl_store_env_latest(struct tl_store *st, const char *key, char **out);

/* A machine profile's stored JSON: 0 and *json (malloc'd); -ENOENT with an error line if none. */
int tl_store_profile(struct tl_store *st, const char *name, char **json);
/*
 * The node sets a profile recommends for `machine: NAME` (fast, and slow
 * or NULL), read from its JSON: 0 and both malloc'd; -ENOENT as above.
 */
int tl_store_profile_nodes(struct tl_store *st, const char *name, char **fast, char **slow);
/* A node's measured read bandwidth in a profile (GB/s): 0 and *gbs (0 when not measured); -ENOENT as above. */
int tl_store_profile_read_gbs(struct tl_store *st, const char *name, int node, double *gbs);

#endif
