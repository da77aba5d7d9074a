/*
 * The managed footprint of a configuration, measured. A percentage budget
 * with a chunk count fixes the chunk size only once the footprint is known
 * (chunk size = percentage x footprint / chunks), before the run starts.
 * So it is measured, not assumed: the workload runs once under the runtime
 * with policy all-slow and no sampling, and the runtime's peak of managed
 * bytes (per process) is the footprint. The result is kept in the store,
 * keyed by what determines it (command, size, env, threshold, allocator),
 * so each workload is calibrated once per database.
 */
#ifndef TL_FOOTPRINT_H
#define TL_FOOTPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "plan/plan.h"
#include "store/query.h"

/* Does this configuration need a footprint (a percentage budget and a chunk count)? */
bool tl_footprint_needed(const struct tl_config *c);

/*
 * The footprint in bytes: from the store, or by a calibration run whose
 * files go under <results_dir>/<experiment>/calibrate-<key>/. Returns 0, or
 * -EIO with the reason in err when the calibration failed.
 */
int tl_footprint_get(struct tl_store *st, int64_t experiment_id, const struct tl_plan *plan,
		     const struct tl_config *c, const char *results_dir, const char *spec_dir,
		     uint64_t *bytes, struct tl_error *err);

#endif
