/*
 * Storing replays as runs marked simulated (runs.simulated, schema 3),
 * under an experiment of the spec's name, so report shows them beside
 * the measured runs of the same spec (docs/simulate.md). A simulated run
 * has no figure of merit and no output directory; its configuration key is
 * the measured one's with "-sim" appended (a row of its own in a report),
 * its run key adds a hash of the trace it came from (replays of several
 * recorded runs are the repetitions of one configuration).
 */
#ifndef TL_SIMULATE_SIM_STORE_H
#define TL_SIMULATE_SIM_STORE_H

#include "plan/plan.h"
#include "simulate/model.h"
#include "store/store.h"

/*
 * An experiment row for the replays of spec from `source` (a run key or a
 * trace file), with the environment `base` (the recording's, so a report
 * compares like with like; may be NULL) and simulate.trace. 0 or -errno.
 */
int tl_sim_store_experiment(struct tl_store *st, const struct tl_spec *spec, const char *source,
			    const struct tl_env *base, int64_t *id);

/*
 * One replayed configuration as a simulated run: the hit rate and migrated
 * bytes as the measured runs' metrics, the rest as sim.* metrics, the
 * estimate when model is not NULL (with pl, the configuration's unmanaged
 * memory; the trace t0_s seconds long), the replay's
 * time as its wall time (docs/schema.md: a simulated run's wall_s), in
 * the session of the tierlab simulate that replayed it. 0 or -errno.
 */
int tl_sim_store_run(struct tl_store *st, int64_t experiment_id, int64_t session, const struct tl_config *c,
		     const char *source, const char *command, const struct tl_sim_result *r, const struct tl_tier_model *model,
		     const struct tl_model_place *pl, double t0_s, double seconds);

/*
 * A trace file as a recorded run of its own, so `tierlab simulate RUN
 * SPEC` replays it and stores its simulated runs: an experiment `name`,
 * one run whose directory (under the database's results, imported/HASH)
 * holds the trace's logs, its configuration from the first process's P
 * record, the recorded hit rate and migrated bytes as metrics. Its run key
 * into key (TL_KEY_LEN + 8 bytes). 0 or -errno with why.
 */
int tl_sim_store_import(struct tl_store *st, const char *path, const char *name, int64_t session,
			const struct tl_trace *t,
			char *key, char *why, size_t whylen);

#endif
