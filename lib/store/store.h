/*
 * The results store: one SQLite database (default results/tierlab.db),
 * and the one place that writes it. Reading is store/query.h.
 *
 * Schema: versioned with PRAGMA user_version and a list of migrations
 * applied in order inside transactions, so a database written by an older
 * tierlab opens and is upgraded; a newer one is refused. WAL journal,
 * foreign keys on, every statement with bound parameters. The tables are
 * documented in docs/schema.md; the rows come from the records of
 * store/result.h:
 *
 *   experiments, environment  an experiment and the environment it ran in
 *   runs, metrics, counters, process_stats, allocations, samples,
 *   migrations, environment   a run and everything measured about it
 *   machine_profiles          saved `tierlab probe --save NAME` results
 *
 * Each record is written in one transaction as soon as it is complete, so
 * killing tierlab loses nothing that finished, and a record that cannot
 * be written whole leaves no row behind. The same run key may be stored
 * more than once (a failed run re-run with --resume); queries take the
 * latest.
 *
 * Functions return 0 or a negative errno after printing one error() line
 * that names the database file.
 */
#ifndef TL_STORE_H
#define TL_STORE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/result.h"

#define TL_STORE_SCHEMA_VERSION 5

struct tl_store;

/* Opens or creates (with parent directories) for writing; migrates older schemas. */
int tl_store_open(const char *path, struct tl_store **out);
/*
 * Opens a database that must exist already, for reading (report, show,
 * list): -ENOENT with an error line if not, or if it holds no schema yet.
 * The file is opened read-only (also in a read-only directory) and never
 * created, migrated or changed; an older schema is read as it is.
 */
int tl_store_open_existing(const char *path, struct tl_store **out);
/*
 * From now on a write waits for another process's lock as long as it
 * takes, instead of failing after 5 s, saying so on stderr (once a
 * minute), until *stop becomes non-zero (a signal handler's flag): what
 * tierlab run uses so that a finished run is never dropped for a lock.
 */
void tl_store_wait_for_lock(struct tl_store *st, const volatile sig_atomic_t *stop);
/* Safe on NULL. */
void tl_store_close(struct tl_store *st);
const char *tl_store_path(const struct tl_store *st);
/* The database file's directory, absolute (NULL for ":memory:"): run outputs go there. */
const char *tl_store_dir(const struct tl_store *st);

/*
 * The experiment row and its environment rows, in one transaction. name is
 * required, and must pass tl_name_check (-EINVAL after an error line).
 */
int tl_store_add_experiment(struct tl_store *st, const struct tl_experiment_record *e, int64_t *id);

/*
 * The session of key (its id when stored already, else a new row), in
 * its own transaction: 0 and *id.
 */
int tl_store_add_session(struct tl_store *st, const struct tl_session_record *s, int64_t *id);

/*
 * The run row and every row of its record (metrics, counters, process
 * stats, allocations, samples, migrations, its environment), in one
 * transaction: all of them or none.
 */
int tl_store_add_run(struct tl_store *st, const struct tl_run_record *r, int64_t *run_id);

/*
 * One environment fact of an experiment (run_id 0) or of one run, in its
 * own transaction (a value found between runs, such as a measured
 * footprint); a key is stored once per scope, later values replace
 * earlier ones.
 */
int tl_store_set_env(struct tl_store *st, int64_t experiment_id, int64_t run_id, const char *key,
		     const char *value);

/*
 * Folding a shard (a database one Slurm array task wrote) into this one,
 * in one transaction (store-merge.c). The shard must be a tierlab
 * database of this schema version holding one experiment, the one want
 * names (name and spec hash; an empty name is filled from the first
 * shard, so a list of shards must agree), a name tl_name_check accepts,
 * and run directories that stay under the shard's (tl_relpath_check);
 * else -EPROTO with an error line and nothing is merged. Its runs go to the latest experiment of that
 * name and spec here (copied from the shard when there is none); a run
 * key whose latest row here is ok, or is this very row, is not added
 * again: merging twice stores each run once. The shard is only read.
 */
struct tl_merge_expect {
	char name[256];
	char spec_hash[96];
};
struct tl_merge_stats {
	size_t added;		/* runs copied in */
	size_t present;		/* runs already stored ok (or this same row) */
};
int tl_store_merge(struct tl_store *st, const char *shard, struct tl_merge_expect *want,
		   struct tl_merge_stats *stats);

/* Stores a machine profile (the probe's JSON) under name, replacing one of that name. */
int tl_store_save_profile(struct tl_store *st, const char *name, const char *json);

#endif
