/*
 * What a plan needs of this machine, checked before anything runs or the
 * database is touched: the node sets its policies need, given and present;
 * the kernel policies' own requirements.
 */
#include "run/execute.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ktier/ktier.h"
#include "util/error.h"
#include "util/nodeset.h"

/*
 * A node set the planned runs need: set in the spec, and present here.
 * The message points at the node set, or at the policy that needs it.
 */
static int check_nodes(const struct tl_spec *spec, const char *field, const char *text,
		       const struct tl_loc *at, const char *policy)
{
	const struct tl_loc *policy_at = spec->matrix[TL_AXIS_POLICY].values.n ?
		&spec->matrix[TL_AXIS_POLICY].loc : &spec->defaults_loc[TL_AXIS_POLICY];
	struct tl_error err;
	char present[128];

	if (text && tl_nodeset_check(text) == 0)
		return 0;
	if (!text) {
		tl_spec_error(spec, policy_at, &err, "policy '%s' needs %s, which the spec does not set "
			      "(machine: {fast: NODES, slow: NODES})", policy, field);
	} else {
		tl_nodeset_present(present, sizeof(present));
		tl_spec_error(spec, at, &err, "%s '%s' names nodes this machine does not have (present: %s)",
			      field, text, present);
	}
	return error("%s", err.msg);
}

int tl_execute_check(const struct tl_plan *plan, const bool *selected)
{
	const struct tl_spec *spec = plan->spec;
	const struct tl_machine *m = &spec->machine;
	const char *need_fast = NULL, *need_slow = NULL;
	const struct tl_ktier_bandwidth bw = { m->fast_gbs, m->slow_gbs, m->profile };
	int rc = 0;

	for (size_t i = 0; i < plan->nruns; i++) {
		const char *policy = plan->runs[i].config->values[TL_AXIS_POLICY];

		if (!selected[i] || !policy)
			continue;
		if (!need_fast && (tl_policy_binding(policy) == TL_BINDS_FAST || tl_policy_uses_runtime(policy) ||
				   tl_policy_is_mempolicy(policy)))
			need_fast = policy;
		if (!need_slow && (tl_policy_binding(policy) == TL_BINDS_SLOW || tl_policy_uses_runtime(policy) ||
				   (tl_policy_is_mempolicy(policy) && tl_policy_mempolicy(policy) != TL_MEMPOL_PREFERRED)))
			need_slow = policy;
	}
	if (need_fast && check_nodes(spec, "machine.fast", m->fast, &m->fast_loc, need_fast))
		rc = -EINVAL;
	if (need_slow && check_nodes(spec, "machine.slow", m->slow, &m->slow_loc, need_slow))
		rc = -EINVAL;
	if (m->cpus && check_nodes(spec, "machine.cpus", m->cpus, &m->cpus_loc, NULL))
		rc = -EINVAL;
	for (size_t i = 0; i < plan->nruns && !rc; i++) {
		const struct tl_config *c = plan->runs[i].config;
		char why[512];

		if (selected[i] && tl_ktier_kind(c->values[TL_AXIS_POLICY]) != TL_KTIER_NONE &&
		    tl_ktier_check(c->values[TL_AXIS_POLICY], c->values[TL_AXIS_POLICY_ARGS], c->values[TL_AXIS_BUDGET],
				   m->fast, m->slow, &bw, why, sizeof(why)))
			rc = error("policy '%s' cannot run here: %s", c->values[TL_AXIS_POLICY], why);
	}
	if (getenv("LD_PRELOAD") && *getenv("LD_PRELOAD"))
		warning("LD_PRELOAD is set ('%s'): every run inherits it, after tierlab's own libraries",
			getenv("LD_PRELOAD"));
	if (!rc && (need_fast || need_slow) && m->fast && m->slow && !strcmp(m->fast, m->slow))
		warning("machine.fast and machine.slow are both '%s': the tiers are simulated "
			"(placement and migration calls are made and counted, nothing moves)", m->fast);
	return rc;
}