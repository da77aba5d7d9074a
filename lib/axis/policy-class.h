/*
 * What the tierlab program knows of policies, over canonical policy
 * values (axis.h): the classes that decide how a run is set up and which
 * axes it takes, and the parameters of the policies that are not
 * libtiermem's (the built-ins declare their own, lib/policies/).
 */
#ifndef TL_POLICY_CLASS_H
#define TL_POLICY_CLASS_H

#include <stdbool.h>
#include "axis/axes.h"

struct tlp_param;

/*
 * Policy classes over canonical policy values. none, all-fast and all-slow
 * need no runtime: all-fast/all-slow bind the whole process's memory to
 * the fast/slow nodes (numactl --membind), the clean baseline. Every other
 * policy runs under libtiermem, and all of them sample (a static run's hit
 * rate is the share of samples that land in the fast tier under a fixed
 * placement). A policy is dynamic (it moves chunks as samples arrive,
 * within a budget) when it says so (TLP_DYNAMIC); a plugin given by path
 * is taken for dynamic.
 */
bool tl_policy_uses_runtime(const char *policy);
/*
 * The binding policies: the whole program's memory on one tier by
 * mbind-like binding, or left unbound (none); no runtime. The enum, or -1
 * for any other policy. tl_policy_bounds(): all-fast or all-slow, the
 * bounds every other configuration sits between.
 */
enum tl_binding { TL_BINDS_NOTHING, TL_BINDS_FAST, TL_BINDS_SLOW };
int tl_policy_binding(const char *policy);
bool tl_policy_bounds(const char *policy);
/* autonuma, damos: the kernel tiers, tierlab sets it up around the run (lib/ktier); dynamic, no runtime. */
#define TL_KERNEL_ENUM(id, name, help) TL_KERNEL_##id,
enum tl_kernel_policy { TL_KERNEL_POLICIES(TL_KERNEL_ENUM) TL_KERNEL__COUNT };
#undef TL_KERNEL_ENUM
int tl_policy_kernel(const char *policy);	/* the enum, or -1 */
bool tl_policy_is_kernel(const char *policy);
/*
 * preferred, interleave, weighted-interleave: a memory policy set on the
 * whole process before exec (lib/run), no runtime (with scope=managed the
 * runtime, no placement policy, puts it on its memory); preferred is dynamic
 * (the budget applies: the fast tier's room), the interleaves are not.
 */
#define TL_MEMPOL_ENUM(id, name, help) TL_MEMPOL_##id,
enum tl_mempolicy { TL_MEM_POLICIES(TL_MEMPOL_ENUM) TL_MEMPOL__COUNT };
#undef TL_MEMPOL_PARAM_ENUM
int tl_policy_mempolicy(const char *policy);	/* the enum, or -1 */
bool tl_policy_is_mempolicy(const char *policy);
bool tl_policy_is_dynamic(const char *policy);
const char *tl_policy_base(const char *policy, char *buf, unsigned len); /* "static:1,0" -> "static" */
/*
 * Does the policy take the parameter `param`? A built-in says which it
 * takes; a plugin given by path takes whatever it is given (param NULL:
 * does it take any at all).
 */
bool tl_policy_takes(const char *policy, const char *param);
/* The parameters a built-in or kernel policy declares (NULL-name ended), or NULL. */
const struct tlp_param *tl_policy_params(const char *policy);
/*
 * The kernel policies' and the memory policies' parameters, X(id, name,
 * def, help): tl_policy_params() hands them out in this order, so
 * lib/ktier indexes them by the enums below. A knob of autonuma left out
 * keeps the machine's value; damos's defaults are DAMON's own intervals
 * and a scheme pair that acts on any access and 1 s of idleness;
 * weighted-interleave's weights, per tier (each node of a tier gets its
 * tier's), are both given or neither, and then they are the ratio of the
 * tiers' read bandwidths (lib/ktier/weights.c says from where).
 */
#define TL_AUTONUMA_PARAMS(X) \
	X(RATE_LIMIT,    "rate_limit",    "the machine's", "promotion rate limit, MB/s (numa_balancing_promote_rate_limit_MBps)") \
	X(SCAN_DELAY,    "scan_delay",    "the machine's", "ms before a task's first scan (debugfs sched/numa_balancing)") \
	X(SCAN_PERIOD,   "scan_period",   "the machine's", "ms between scans, min and max (debugfs sched/numa_balancing)") \
	X(HOT_THRESHOLD, "hot_threshold", "the machine's", "ms within which a second fault makes a page hot (debugfs)")
#define TL_DAMOS_PARAMS(X) \
	X(SAMPLE_US, "sample_us", "5000",   "DAMON sampling interval, us") \
	X(AGGR_US,   "aggr_us",   "100000", "DAMON aggregation interval, us") \
	X(HOT_MIN,   "hot_min",   "10",     "migrate_hot: fewest accesses per aggregation of a hot region (of aggr_us / sample_us, 20)") \
	X(COLD_MAX,  "cold_max",  "2",      "migrate_cold: most accesses per aggregation of a cold region") \
	X(COLD_AGE,  "cold_age",  "10",     "migrate_cold: aggregations a region must have stayed cold") \
	X(QUOTA_MB,  "quota_mb",  "0",      "MiB each scheme may move per second (0: no quota)") \
	X(APPLY_US,  "apply_us",  "0",      "schemes' apply interval, us (0: every aggregation)")
#define TL_WEIGHTED_PARAMS(X) \
	X(FAST_WEIGHT, "fast_weight", "from bandwidth", "pages in a row on each fast node, 1-255 (weighted_interleave/nodeN)") \
	X(SLOW_WEIGHT, "slow_weight", "from bandwidth", "pages in a row on each slow node, 1-255")
/*
 * What all three memory policies take: where the policy applies. process:
 * the whole process, set before exec (as numactl does); managed: only the
 * memory the runtime manages (allocations of the threshold and more), set
 * by libtiermem with mbind on its arena, the rest of the program under the
 * default policy. Taken after the policy's own parameters.
 */
#define TL_MEMPOL_PARAMS(X) \
	X(SCOPE, "scope", "process", "process: the whole process, as numactl; managed: the runtime's managed memory only (mbind)")
#define TL_SCOPE_PROCESS "process"
#define TL_SCOPE_MANAGED "managed"
/*
 * A memory policy's scope in canonical policy arguments: true when args
 * say scope=managed (false for any other policy, or scope=process).
 */
bool tl_policy_managed_scope(const char *policy, const char *args);
/* Is value a scope (process, managed)? */
bool tl_policy_scope_valid(const char *value);
#define TL_AUTONUMA_ENUM(id, name, def, help) TL_AUTONUMA_##id,
#define TL_DAMOS_ENUM(id, name, def, help) TL_DAMOS_##id,
#define TL_WEIGHTED_ENUM(id, name, def, help) TL_WEIGHTED_##id,
#define TL_MEMPOL_PARAM_ENUM(id, name, def, help) TL_MEMPOL_##id,
enum tl_autonuma_param { TL_AUTONUMA_PARAMS(TL_AUTONUMA_ENUM) TL_AUTONUMA__COUNT };
enum tl_damos_param { TL_DAMOS_PARAMS(TL_DAMOS_ENUM) TL_DAMOS__COUNT };
enum tl_weighted_param { TL_WEIGHTED_PARAMS(TL_WEIGHTED_ENUM) TL_WEIGHTED__COUNT };
/* indexes of preferred's and interleave's parameters (weighted-interleave's come after its weights) */
enum tl_mempol_param { TL_MEMPOL_PARAMS(TL_MEMPOL_PARAM_ENUM) TL_MEMPOL_PARAMS__COUNT };
#undef TL_AUTONUMA_ENUM
#undef TL_DAMOS_ENUM
#undef TL_WEIGHTED_ENUM
#undef TL_MEMPOL_PARAM_ENUM
/*
 * The part of canonical policy arguments (name=value,...) that a policy
 * takes, into *out (malloc'd; NULL when none is left). 0 or -ENOMEM.
 */
int tl_policy_args_for(const char *policy, const char *args, char **out);


#endif
