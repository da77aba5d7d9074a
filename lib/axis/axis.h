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
 * What the tierlab program knows of policies (which need the runtime,
 * which move chunks, which parameters they take) is policy-class.h.
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
int tl_axis_canonical(enum tl_axis axis, const char *value, char **out, struct tl_error *err);

#include "axis/policy-class.h"

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
