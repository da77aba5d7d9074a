/*
 * The records tierlab stores: an experiment (one execution of a spec) and
 * each of its runs, with everything measured about them. The parts that
 * measure a run (lib/measure/, the runner) fill a struct tl_run_record;
 * lib/store/ alone turns it into rows, all of them in one transaction
 * (store.h). One struct per table row kind, named after its table in
 * docs/schema.md.
 *
 * Ownership: the identity fields of a record (keys, axis values, command,
 * result, fom unit) are the caller's and only borrowed. The measured lists
 * belong to the record: tl_record_add_*() copy what they are given, and
 * tl_record_release() frees them (and nothing borrowed). A zeroed record
 * is an empty one. Every add returns 0 or -ENOMEM.
 */
#ifndef TL_RESULT_H
#define TL_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/direction.h"
#include "axis/axis.h"

enum tl_run_status {
	TL_STATUS_OK,		/* exit 0 and a figure of merit (when one was asked for) */
	TL_STATUS_FAILED,	/* non-zero exit, could not start, or no figure of merit */
	TL_STATUS_TIMEOUT,
	TL_STATUS_CRASHED,	/* killed by a signal it did not get from us */
	TL_STATUS__COUNT
};
extern const char *const tl_status_names[TL_STATUS__COUNT];	/* "ok", "failed", "timeout", "crashed" */

/* How the process ended, as the runner saw it. */
struct tl_run_result {
	enum tl_run_status status;
	int exit_code;			/* -1 when it did not exit */
	int signal;			/* terminating signal, 0 when none */
	double wall, user, sys;		/* seconds */
	long maxrss_kb;
	double started_at, ended_at;	/* seconds since the epoch */
	char error[512];		/* why, when status != ok: "exit status 3", "killed by SIGSEGV", ... */
};

/* metrics: anything numeric about a run. A NaN value is stored as NULL. */
struct tl_metric {
	const char *name;
	double value;
	const char *unit;	/* may be NULL */
};

/*
 * environment: facts a result depends on, as key/value text, in the order
 * set (an experiment's, or one run's). A value may be NULL.
 */
struct tl_env_entry {
	char *key, *value;
};

struct tl_env {
	struct tl_env_entry *v;
	size_t n;
};

/* Sets key (replacing its value, else appending); value may be NULL. 0 or -ENOMEM. */
int tl_env_put(struct tl_env *env, const char *key, const char *value);
/* The value of key, NULL when unset (or set to NULL). */
const char *tl_env_get(const struct tl_env *env, const char *key);
/* Frees everything; safe on a zeroed record. */
void tl_env_release(struct tl_env *env);

/* counters: one perf event of a run; the has_* fields say which columns are not NULL. */
struct tl_counter_row {
	char *event;
	char *encoding;		/* NULL when libpfm4 could not encode the event */
	const char *status;	/* "ok", "unavailable" or "failed" (static text) */
	char *reason;		/* why not ok, else NULL */
	bool has_value, has_times, has_multiplex;
	double value;
	uint64_t enabled_ns, running_ns;
	double multiplex_pct;
};

/* process_stats: one runtime counter of one process. */
struct tl_proc_stat {
	int pid;
	const char *name;	/* static text (the runtime's counter names) */
	uint64_t value;
};

/* allocations: one managed allocation from the runtime's log. */
struct tl_alloc_row {
	int pid;
	int64_t seq, t_ns;
	uint64_t addr;
	int64_t size;
	char *callsite;		/* "module+0xoff", or NULL */
	bool freed;		/* the log has its free, at freed_ns (CLOCK_MONOTONIC ns) */
	int64_t freed_ns;
};

/* samples: one sample from the runtime's log. */
struct tl_sample_row {
	int pid;
	int64_t t_ns;
	uint64_t addr, pc;	/* pc 0: the sampler sees none (stored NULL) */
	int64_t tid;		/* 0: unknown (stored NULL) */
	int hit;		/* 1 in the fast tier, 0 not, -1 outside managed memory (stored NULL) */
};


/* migrations: one chunk migration from the runtime's log. */
struct tl_migration_row {
	int pid;
	int64_t t_ns;
	uint64_t addr;
	int64_t bytes;
	enum tl_direction direction;
	int ok;			/* 0 or 1 */
};

/* An execution of a spec, with the environment it ran in (experiment scope). */
struct tl_experiment_record {
	const char *name, *description;
	const char *spec_path, *spec_text, *spec_hash;
	const char *host, *kernel, *tierlab_version;
	const char *baseline;	/* the spec's baseline selector as "axis=value,...", or NULL */
	double created_at;	/* seconds since the epoch; 0 = now */
	const struct tl_env *env;	/* may be NULL */
};

/*
 * A session: one invocation of run, sweep or simulate, the runs it
 * stores compared with the baseline stored beside them. The key names it
 * in every database its runs reach (a Slurm array's shards and the one
 * they are merged into); a key stored already is that session again.
 */
struct tl_session_record {
	const char *key;		/* required */
	double started_at;		/* seconds since the epoch; 0 = now */
	const char *command;		/* the tierlab command line, for people; may be NULL */
	const char *host;		/* may be NULL */
};

/* A growable list of one row kind, owned by its record. */
#define TL_ROWS(type) struct { type *v; size_t n, cap; }

struct tl_run_record {
	/* Which run and how it ended: borrowed from the caller. */
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
	bool simulated;				/* replayed by tierlab simulate, not measured */
	int64_t session_id;			/* tl_store_add_session's id; 0: none (stored NULL) */

	/* What was measured: owned by the record. */
	TL_ROWS(struct tl_metric) metrics;
	TL_ROWS(struct tl_counter_row) counters;
	TL_ROWS(struct tl_proc_stat) proc_stats;
	TL_ROWS(struct tl_alloc_row) allocations;
	TL_ROWS(struct tl_sample_row) samples;
	TL_ROWS(struct tl_migration_row) migrations;
	struct tl_env env;			/* the run's own environment rows */
};

int tl_record_add_metric(struct tl_run_record *r, const char *name, double value, const char *unit);
/* Copies the row and its strings. */
int tl_record_add_counter(struct tl_run_record *r, const struct tl_counter_row *row);
int tl_record_add_proc_stat(struct tl_run_record *r, int pid, const char *name, uint64_t value);
/* Copies the row and its callsite. */
int tl_record_add_alloc(struct tl_run_record *r, const struct tl_alloc_row *row);
int tl_record_add_sample(struct tl_run_record *r, const struct tl_sample_row *row);
int tl_record_add_migration(struct tl_run_record *r, const struct tl_migration_row *row);
/* Frees the measured lists (not the borrowed fields) and empties them. */
void tl_record_release(struct tl_run_record *r);

/* Frees what the store's queries hand back (tl_store_run_metrics). */
void tl_metrics_free(struct tl_metric *m, size_t n);

#endif
