/*
 * Whether a run that ended ok was served as its configuration asked:
 * under the tiering runtime (a policy that needs it), by the allocator
 * named. A run that was not measured something else, and must not pass.
 */
#ifndef TL_RUN_VERIFY_H
#define TL_RUN_VERIFY_H

#include "measure/ingest.h"
#include "measure/measure.h"
#include "plan/plan.h"
#include "store/result.h"

/*
 * Turns an ok res into failed, with the reason in res->error, when the
 * runtime or the allocator did not serve the run; the runtime's last word
 * on the run's stderr (out_dir/stderr.txt) goes with the reason. A run
 * not ok is left as it is.
 */
void tl_verify_run(const struct tl_config *c, const char *out_dir, const struct tl_measure *meas,
		   const struct tl_ingest *ing, struct tl_run_result *res);

#endif
