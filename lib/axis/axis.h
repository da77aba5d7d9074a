/*
 * The axes a run is configured along, as one table generated from
 * TL_AXES (axes.h): each axis's name (as written in specs, on the command
 * line and as a store column), its value kind, which runs it applies to,
 * its default, the runtime variable that carries it, its bounds and help.
 * Everything that needs to know the axes (spec, plan, launch, store,
 * report, the runtime's options) walks that table.
 *
 * Values are kept as canonical strings (see units.h) so equal
 * configurations compare and hash equal whatever the user wrote.
 *
 * Also here: what the tierlab program knows of policies (which need the
 * runtime, which move chunks, which parameters they take: the built-in
 * policies say so themselves, lib/policies/), samplers and log modes.
 */
#ifndef TL_AXIS_H
#define TL_AXIS_H

#include <stdbool.h>
#include <stddef.h>
#include "axis/axes.h"

enum tl_axis {
#define TL_AXIS_ENUM(id, name, kind, applies, flags, def, var, alias, lo, hi, help) TL_AXIS_##id,
	TL_AXES(TL_AXIS_ENUM)
#undef TL_AXIS_ENUM
	TL_AXIS__COUNT
};

struct tl_axis_info {
	const char *name;
	enum tl_kind kind;
	enum tl_applies applies;
	unsigned flags;		/* TL_AXIS_FOOTPRINT */
	const char *def;	/* canonical value when neither the matrix nor the spec sets it; NULL = unset */
	const char *var;	/* the runtime's variable, NULL when not the runtime's */
	const char *alias;	/* its SHAMBLES_* name, or NULL */
	double lo, hi;		/* bounds of a number; 0 = none */
	const char *help;
};

extern const struct tl_axis_info tl_axes[TL_AXIS__COUNT];

/*
 * The axis's help for people: its help line, and for an axis whose values
 * are names, the names ("access sampler: fault, uffd-wp, ..."). Static text.
 */
const char *tl_axis_help(enum tl_axis axis);

/* -1 when no axis has that name. */
int tl_axis_lookup(const char *name);

/*
 * Canonicalises a value written by a user for an axis into out (malloc'd).
 * Returns 0, or -EINVAL with a message in err->msg that says what is allowed
 * (without file/line: the caller prefixes it).
 */
struct tl_error;
struct tlp_param;
int tl_axis_canonical(enum tl_axis axis, const char *value, char **out, struct tl_error *err);

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
enum tl_kernel_policy { TL_KERNEL_AUTONUMA, TL_KERNEL_DAMOS };
int tl_policy_kernel(const char *policy);	/* the enum, or -1 */
bool tl_policy_is_kernel(const char *policy);
/*
 * preferred, interleave, weighted-interleave: a memory policy set on the
 * whole process before exec (lib/run), no runtime; preferred is dynamic
 * (the budget applies: the fast tier's room), the interleaves are not.
 */
enum tl_mempolicy { TL_MEMPOL_PREFERRED, TL_MEMPOL_INTERLEAVE, TL_MEMPOL_WEIGHTED };
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
#define TL_AUTONUMA_ENUM(id, name, def, help) TL_AUTONUMA_##id,
#define TL_DAMOS_ENUM(id, name, def, help) TL_DAMOS_##id,
#define TL_WEIGHTED_ENUM(id, name, def, help) TL_WEIGHTED_##id,
enum tl_autonuma_param { TL_AUTONUMA_PARAMS(TL_AUTONUMA_ENUM) TL_AUTONUMA__COUNT };
enum tl_damos_param { TL_DAMOS_PARAMS(TL_DAMOS_ENUM) TL_DAMOS__COUNT };
enum tl_weighted_param { TL_WEIGHTED_PARAMS(TL_WEIGHTED_ENUM) TL_WEIGHTED__COUNT };
#undef TL_AUTONUMA_ENUM
#undef TL_DAMOS_ENUM
#undef TL_WEIGHTED_ENUM
/*
 * The part of canonical policy arguments (name=value,...) that a policy
 * takes, into *out (malloc'd; NULL when none is left). 0 or -ENOMEM.
 */
int tl_policy_args_for(const char *policy, const char *args, char **out);

/* Does axis apply to a run with this (canonical) policy? NULL is the default policy. */
bool tl_axis_applies(enum tl_axis axis, const char *policy);

/* An allocator's row of TL_ALLOCATORS (axes.h says what each field is), or NULL. */
struct tl_allocator_info {
	const char *name, *lib, *package, *hugetlb, *env;
};
const struct tl_allocator_info *tl_allocator_find(const char *name);

/* Known names, NULL-terminated, for did-you-mean and `tierlab list`. */
extern const char *const tl_policy_names[];
extern const char *const tl_allocator_names[];
extern const char *const tl_sampler_names[];
extern const char *const tl_log_names[];
/* The names a value of this kind must be one of (allocator, sampler, log, policy), else NULL. */
const char *const *tl_kind_names(enum tl_kind kind);

/* The closest of `names` to `word` within a small edit distance, or NULL. */
const char *tl_did_you_mean(const char *word, const char *const *names);

#endif
