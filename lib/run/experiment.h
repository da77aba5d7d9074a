/*
 * The experiment a plan's runs are stored under (store/result.h): one
 * record per invocation of run or sweep, written before the first run.
 */
#ifndef TL_RUN_EXPERIMENT_H
#define TL_RUN_EXPERIMENT_H

#include <stdint.h>
#include "spec/spec.h"
#include "store/store.h"

/*
 * Stores the spec's experiment with the machine, its settings and the
 * inherited variables, and its id into *id; warns when the BLAS would run
 * far below the CPU. 0, or a negative errno after an error line.
 */
int tl_experiment_store(struct tl_store *st, const struct tl_spec *spec, int64_t *id);

#endif
