/*
 * The results store: one SQLite database (default results/tierlab.db).
 *
 * Schema: versioned with PRAGMA user_version and a list of migrations
 * applied in order inside transactions, so a database written by an older
 * tierlab opens and is upgraded; a newer one is refused. WAL journal,
 * foreign keys on, every statement with bound parameters.
 *
 *   experiments  one row per execution of a spec (spec text and hash, host,
 *                kernel, tierlab version, time)
 *   runs         one row per finished run: configuration columns (one per
 *                axis, named as in axis.h), status, figure of merit, rusage
 *   metrics      (run, name, value, unit): anything numeric about a run
 *   counters, process_stats, allocations, samples, migrations: filled by
 *                the counter and runtime parts (see docs/schema.md)
 *   machine_profiles  saved `tierlab probe --save NAME` results (schema 2)
 *
 * Each run is written in one transaction as soon as it ends, so killing
 * tierlab loses nothing that finished. The same run key may be stored more
 * than once (a failed run re-run with --resume); queries take the latest.
 *
 * Functions return 0 or a negative errno after printing one error() line
 * that names the database file.
 */
#ifndef TL_STORE_H
#define TL_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "axis/axis.h"
#include "store/result.h"

#define TL_STORE_SCHEMA_VERSION 2

struct tl_store;

/* Opens or creates (with parent directories); migrates older schemas. */
int tl_store_open(const char *path, struct tl_store **out);
/* Opens a database that must exist already (for report, show): -ENOENT with an error line if not. */
int tl_store_open_existing(const char *path, struct tl_store **out);
/* Safe on NULL. */
void tl_store_close(struct tl_store *st);
const char *tl_store_path(const struct tl_store *st);
/* For the parts that add their own tables and queries. */
struct sqlite3 *tl_store_db(struct tl_store *st);

struct tl_experiment_record {
	const char *name, *description;
	const char *spec_path, *spec_text, *spec_hash;
	const char *host, *kernel, *tierlab_version;
	const char *baseline;	/* the spec's baseline selector as "axis=value,...", or NULL */
	double created_at;	/* seconds since the epoch; 0 = now */
};
/* name is required; other NULL fields are stored as NULL. */
int tl_store_add_experiment(struct tl_store *st, const struct tl_experiment_record *e, int64_t *id);

struct tl_metric {
	const char *name;
	double value;
	const char *unit;	/* may be NULL */
};

struct tl_run_record {
	int64_t experiment_id;
	const char *run_key, *config_key;
	int rep;
	const char *values[TL_AXIS__COUNT];	/* NULL = does not apply */
	const char *command;			/* argv, shell-quoted, for display */
	const char *out_dir;
	const struct tl_run_result *result;
	bool has_fom;
	double fom;
	const char *fom_unit;
	bool higher_is_better;
	const struct tl_metric *metrics;
	size_t nmetrics;
};
/* Writes the run and its metrics in one transaction. */
int tl_store_add_run(struct tl_store *st, const struct tl_run_record *r, int64_t *run_id);

/*
 * 1 when a run with this key is stored with status ok under an experiment
 * of this name (the latest row of the key counts, as in queries), else 0.
 * experiment NULL: the most recently created one.
 */
int tl_store_run_done(struct tl_store *st, const char *experiment, const char *run_key);

/* What queries hand back: one run, owned by the caller (tl_run_rows_free). */
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
};

/*
 * The latest row of every run key of the named experiment, in run order
 * (by first appearance). experiment NULL: the most recently created one.
 * Returns 0 with *n == 0 when there is none.
 */
int tl_store_query_runs(struct tl_store *st, const char *experiment, struct tl_run_row **rows,
			size_t *n);
void tl_run_rows_free(struct tl_run_row *rows, size_t n);

/* The baseline stored with the most recent experiment of this name: 0 and *out (malloc'd, may be NULL). */
int tl_store_experiment_baseline(struct tl_store *st, const char *experiment, char **out);

/*
 * The environment record (key, value) of an experiment (run_id 0) or of
 * one run; a key is stored once per scope, later values replace earlier.
 */
int tl_store_set_env(struct tl_store *st, int64_t experiment_id, int64_t run_id, const char *key,
		     const char *value);
/* The value of key in the most recent experiment of this name: 0 and *out (malloc'd, NULL if unset). */
int tl_store_experiment_env(struct tl_store *st, const char *experiment, const char *key,
			    char **out);

/* The most recent value of an experiment-scope key in any experiment: 0 and *out (NULL if none). */
int tl_store_env_latest(struct tl_store *st, const char *key, char **out);
/* The experiment (execution) a stored run belongs to. */
int tl_store_run_experiment(struct tl_store *st, int64_t run_id, int64_t *experiment_id);
/*
 * Calls fn(arg, key, value) for each environment row of a scope (run_id 0:
 * the experiment's), in key order.
 */
int tl_store_env_each(struct tl_store *st, int64_t experiment_id, int64_t run_id,
		      void (*fn)(void *arg, const char *key, const char *value), void *arg);
/* Calls fn(arg, event, value-or-NULL, status, reason-or-NULL) for each counter of a run. */
int tl_store_counters_each(struct tl_store *st, int64_t run_id,
			   void (*fn)(void *arg, const char *event, const double *value,
				      const char *status, const char *reason), void *arg);

/* Experiment names, most recent first; the caller frees each name and the array. */
int tl_store_experiments(struct tl_store *st, char ***names, size_t *n);

/*
 * One run by numeric id, run key, or unique run-key prefix (latest row).
 * An all-digit argument is tried as an id first. -ENOENT when nothing
 * matches, -EINVAL when a prefix matches several keys; either with an
 * error line listing up to 5 candidates.
 */
int tl_store_get_run(struct tl_store *st, const char *which, struct tl_run_row *row);
/* Its metrics, for `tierlab show`. */
int tl_store_run_metrics(struct tl_store *st, int64_t run_id, struct tl_metric **m, size_t *n);
void tl_metrics_free(struct tl_metric *m, size_t n);
void tl_run_row_release(struct tl_run_row *row);

#endif
