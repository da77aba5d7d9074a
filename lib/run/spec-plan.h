/*
 * A spec file to its plan, the one way `tierlab run`, `sweep` and
 * `simulate` take it, so that the same spec and command line give the
 * same configurations and keys in all three.
 */
#ifndef TL_RUN_SPEC_PLAN_H
#define TL_RUN_SPEC_PLAN_H

#include "plan/plan.h"
#include "spec/spec.h"

/*
 * Loads the spec at path into *spec, then, in this order: each non-NULL
 * axis_lists[a] ("v1,v2,...", axis_lists NULL for none) replaces the
 * spec's matrix axis a; events (--events: "cycles,{a,b}", NULL for none)
 * replaces its events; a `machine: NAME` spec takes its node sets and
 * their measured bandwidth from the profile NAME saved in the database db
 * (`tierlab probe --save NAME`), where the spec does not set them; and
 * the plan is built into *plan. Returns 0, or a negative errno after one
 * error line (the spec's FILE:LINE:COL where it has one). The caller
 * releases *spec and *plan either way.
 */
int tl_spec_plan(const char *path, const char *const *axis_lists, const char *events, const char *db,
		 struct tl_spec *spec, struct tl_plan *plan);

#endif
