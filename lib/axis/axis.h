/*
 * The axes a run is configured along. One table (axis.c) gives each its
 * name (as written in specs, on the command line and as a store column),
 * its value kind, and which policies it applies to. Everything that needs
 * to know the axes (spec, plan, runner, store, report) walks that table.
 *
 * Values are kept as canonical strings (see units.h) so equal
 * configurations compare and hash equal whatever the user wrote.
 */
#ifndef TL_AXIS_H
#define TL_AXIS_H

#include <stdbool.h>

enum tl_axis {
	TL_AXIS_WORKLOAD,	/* workload name */
	TL_AXIS_SIZE,		/* workload size preset */
	TL_AXIS_THREADS,	/* threads for the workload */
	TL_AXIS_ALLOCATOR,	/* system, jemalloc, fat */
	TL_AXIS_POLICY,		/* none, all-fast, all-slow, static:F,F,..., lru, window, or a .so path */
	TL_AXIS_BUDGET,		/* fast-tier budget: size or percent */
	TL_AXIS_THRESHOLD,	/* smallest managed allocation */
	TL_AXIS_CHUNKS,		/* fast-tier chunks (budget / chunk size) */
	TL_AXIS_RATE,		/* sampling rate */
	TL_AXIS_WINDOW,		/* window policy length, in samples */
	TL_AXIS_SAMPLER,	/* fault, ... , none */
	TL_AXIS_LOG,		/* none, counters, log */
	TL_AXIS__COUNT
};

enum tl_axis_kind {
	TL_KIND_STRING,
	TL_KIND_INT,		/* positive integer */
	TL_KIND_SIZE,
	TL_KIND_RATE,
	TL_KIND_BUDGET,
	TL_KIND_POLICY,
};

struct tl_axis_info {
	const char *name;
	enum tl_axis_kind kind;
	/* Applies only when the run uses the tiering runtime with a dynamic policy (lru, window, plugins). */
	bool dynamic_only;
	/* Applies only to this policy (e.g. window -> "window"), or NULL. */
	const char *only_policy;
	/* Applies only when the run uses the tiering runtime (tl_policy_uses_runtime). */
	bool runtime_only;
	/* Canonical value when neither the matrix nor the spec sets it; NULL = unset. */
	const char *def;
	const char *help;
};

extern const struct tl_axis_info tl_axes[TL_AXIS__COUNT];

/* -1 when no axis has that name. */
int tl_axis_lookup(const char *name);

/*
 * Canonicalises a value written by a user for an axis into out (malloc'd).
 * Returns 0, or -EINVAL with a message in err->msg that says what is allowed
 * (without file/line: the caller prefixes it).
 */
struct tl_error;
/* The most fractions a static policy may list (one per large allocation; the runtime's limit). */
#define TL_STATIC_MAX_FRACTIONS 256
int tl_axis_canonical(enum tl_axis axis, const char *value, char **out, struct tl_error *err);

/* Policy helpers over canonical policy values. */
/*
 * none, all-fast and all-slow need no runtime: all-fast/all-slow bind the
 * whole process's memory to the fast/slow nodes (numactl --membind), the
 * clean baseline. static, lru, window and plugins (.so paths) run under
 * libtiermem, and all of them sample (a static run's hit rate is the share
 * of samples that land in the fast tier under a fixed placement); lru,
 * window and plugins are dynamic: they move chunks as samples arrive,
 * within a budget.
 */
bool tl_policy_uses_runtime(const char *policy);
bool tl_policy_is_dynamic(const char *policy);
const char *tl_policy_base(const char *policy, char *buf, unsigned len); /* "static:1,0" -> "static" */

/* Does axis apply to a run with this (canonical) policy? */
bool tl_axis_applies(enum tl_axis axis, const char *policy);

/* Known names, NULL-terminated, for did-you-mean and `tierlab list`. */
extern const char *const tl_policy_names[];
extern const char *const tl_allocator_names[];
extern const char *const tl_sampler_names[];
extern const char *const tl_log_names[];

/* The closest of `names` to `word` within a small edit distance, or NULL. */
const char *tl_did_you_mean(const char *word, const char *const *names);

#endif
