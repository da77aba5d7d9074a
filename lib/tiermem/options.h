/*
 * The runtime's variables: one table (options.c) of TIERLAB_* names, their
 * SHAMBLES_* aliases, kinds, defaults, bounds and help, generated with the
 * axis table (axis/axes.h), read from an environment array without
 * allocating (the runtime parses them from inside malloc).
 *
 * tlrt_options_parse() fills a struct tlrt_options and resolves the fast
 * budget (any two of budget / chunks / chunk size). Node sets are kept as
 * text (or a SHAMBLES integer mask) and turned into kernel node masks only
 * by tlrt_options_nodes(), which uses libnuma and therefore allocates: the
 * core calls it at the first managed allocation, never earlier.
 */
#ifndef TLRT_OPTIONS_H
#define TLRT_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "axis/axes.h"
#include "util/units.h"

#define TLRT_CACHE_FLOOR_MIB 32	/* a percentage bound of TIERLAB_CACHE is at least this */

/*
 * The runtime's variables, one row each in the form of the axis table
 * (axis/axes.h): X(id, axis, kind, applies, flags, def, var, alias, lo,
 * hi, help). The axes the runtime reads come first, from TL_RUNTIME_AXES:
 * the tierlab program passes them, and their defaults and bounds are the
 * axes' own. Then the variables that are the runtime's alone (no axis).
 * The enum, the table and docs/runtime.md follow this order.
 */
#define TLRT_OWN_OPTIONS(X) \
	X(FAST_NODES, NULL, NODES,     ALL, 0, NULL,   "TIERLAB_FAST_NODES", "SHAMBLES_FAST_NODEMASK", 0, 0, \
	  "fast tier NUMA nodes (numactl syntax; the alias is an integer bitmask)") \
	X(SLOW_NODES, NULL, NODES,     ALL, 0, NULL,   "TIERLAB_SLOW_NODES", "SHAMBLES_SLOW_NODEMASK", 0, 0, \
	  "slow tier NUMA nodes (numactl syntax; the alias is an integer bitmask)") \
	X(CHUNK_SIZE, NULL, SIZE,      ALL, 0, TLP_STR(TL_UNIT_MIB) "MiB", "TIERLAB_CHUNK_SIZE", "SHAMBLES_CHUNK_SIZE", 1, 0, \
	  "chunk size, the unit of placement and migration") \
	X(FOOTPRINT,  NULL, SIZE,      ALL, 0, NULL,   "TIERLAB_FOOTPRINT", NULL, 1, 0, \
	  "managed footprint a percentage budget refers to (else the budget follows the live footprint)") \
	X(FRACTIONS,  NULL, FRACTIONS, ALL, 0, NULL,   "TIERLAB_FRACTIONS", "SHAMBLES_ALLOC_FAST_FRACTIONS", 0, 0, \
	  "fast fraction per allocation, allocation order (static policy)") \
	X(OUT,        NULL, STRING,    ALL, 0, NULL,   "TIERLAB_OUT", NULL, 0, 0, \
	  "directory of the counters and log files (default: the working directory)") \
	X(STRICT,     NULL, BOOL,      ALL, 0, "0",    "TIERLAB_STRICT", NULL, 0, 0, \
	  "exit with status 2 on a bad value instead of standing aside") \
	X(THP,        NULL, BOOL,      ALL, 0, NULL,   "TIERLAB_THP", NULL, 0, 0, \
	  "1: madvise(MADV_HUGEPAGE) on managed memory, 0: MADV_NOHUGEPAGE (unset: the system's THP setting, as without the runtime)") \
	X(VERBOSE,    NULL, BOOL,      ALL, 0, "0",    "TIERLAB_VERBOSE", NULL, 0, 0, \
	  "say what the runtime decided on stderr") \
	X(CACHE,      NULL, BUDGET,    ALL, 0, "100%", "TIERLAB_CACHE", NULL, 0, 0, \
	  "freed managed memory kept for reuse: a size, or a percentage of the peak managed bytes (at least " \
	  TLP_STR(TLRT_CACHE_FLOOR_MIB) " MiB); 0 = none") \
	X(MEMPOLICY,  NULL, STRING,    ALL, 0, NULL,   "TIERLAB_MEMPOLICY", NULL, 0, 0, \
	  "preferred, interleave or weighted-interleave: that memory policy on managed memory only, no placement policy, no sampler")

#define TLRT_OPTIONS(X) TL_RUNTIME_AXES(X) TLRT_OWN_OPTIONS(X)

enum tlrt_opt {
#define TLRT_OPT_ENUM(id, axis, kind, applies, flags, def, var, alias, lo, hi, help) TLRT_OPT_##id,
	TLRT_OPTIONS(TLRT_OPT_ENUM)
#undef TLRT_OPT_ENUM
	TLRT_OPT__COUNT
};

struct tlrt_option_desc {
	const char *name, *alias;	/* TIERLAB_*, SHAMBLES_* (or NULL) */
	enum tl_kind kind;
	const char *def;		/* NULL: unset */
	double lo, hi;			/* bounds of a number; 0 = none */
	const char *help;
};
extern const struct tlrt_option_desc tlrt_option_table[TLRT_OPT__COUNT];

/* The samplers and log modes by index, from TL_SAMPLERS and TL_LOGS; names in options.c. */
enum tlrt_sampler {
#define TLRT_SAMPLER_ENUM(id, name, ops, help) TLRT_SAMPLER_##id,
	TL_SAMPLERS(TLRT_SAMPLER_ENUM)
#undef TLRT_SAMPLER_ENUM
	TLRT_SAMPLER__COUNT
};
enum tlrt_log {
#define TLRT_LOG_ENUM(id, name) TLRT_LOG_##id,
	TL_LOGS(TLRT_LOG_ENUM)
#undef TLRT_LOG_ENUM
	TLRT_LOG__COUNT
};
extern const char *const tlrt_sampler_names[TLRT_SAMPLER__COUNT];
extern const char *const tlrt_log_names[TLRT_LOG__COUNT];

/* TIERLAB_MEMPOLICY's values, TL_MEM_POLICIES's names (axes.h); NONE: unset. */
enum tlrt_mempolicy {
	TLRT_MEMPOLICY_NONE,
#define TLRT_MEMPOLICY_ENUM(id, name, help) TLRT_MEMPOLICY_##id,
	TL_MEM_POLICIES(TLRT_MEMPOLICY_ENUM)
#undef TLRT_MEMPOLICY_ENUM
	TLRT_MEMPOLICY__COUNT
};
extern const char *const tlrt_mempolicy_names[TLRT_MEMPOLICY__COUNT];

#define TLRT_MAX_FRACTIONS TL_STATIC_MAX_FRACTIONS
#define TLRT_PAGE 4096ULL

/* A node set as given: numactl text, or a SHAMBLES integer mask. */
struct tlrt_nodes_opt {
	int set;
	int is_mask;
	uint64_t mask;
	char text[128];
	const char *var;		/* the variable it came from */
};

struct tlrt_options {
	char policy[512];
	struct tlrt_nodes_opt fast, slow;
	uint64_t threshold;
	double rate_hz;
	uint32_t window;
	double fractions[TLRT_MAX_FRACTIONS];
	uint32_t nfractions;
	enum tlrt_sampler sampler;
	enum tlrt_log log;
	char out[512];			/* "" = the working directory */
	int strict, verbose;
	int thp;			/* 1 huge pages, 0 none, -1 unset: the system's setting */
	uint64_t cache_bytes;		/* the cache of freed regions holds at most this, */
	double cache_fraction;		/* or, when > 0, this fraction of managed_bytes_peak */
	char policy_args[512];
	int have_policy_args;
	enum tlrt_mempolicy mempolicy;	/* TIERLAB_MEMPOLICY: on managed memory instead of a placement policy */

	/* The budget, resolved. */
	uint64_t chunk_size;		/* bytes, a multiple of TLRT_PAGE */
	uint32_t budget_chunks;		/* TLP_UNLIMITED when no budget */
	double dynamic_fraction;	/* > 0: budget = floor(f * managed chunks), recomputed */
};

/*
 * Reads the variables from envp (NULL-terminated "NAME=value" strings).
 * Returns 0 when the runtime should manage memory, 1 when no policy is set
 * (stand aside silently), -EINVAL on a bad value with a one-line reason
 * ("TIERLAB_RATE='fast': not a rate (e.g. 10Hz, 1kHz)") in why. Does not
 * allocate; errno is left as it was.
 */
int tlrt_options_parse(struct tlrt_options *o, char *const *envp, char *why, size_t whylen);

/* The value of one variable in envp, TIERLAB_* before its alias; NULL if unset. */
const char *tlrt_options_get(char *const *envp, enum tlrt_opt id, const char **var);

/*
 * The node set as a kernel node mask of `words` unsigned longs. Uses
 * libnuma (allocates). 0, or -EINVAL with a reason in why (the set is
 * empty, unparseable or names nodes this machine does not have).
 */
int tlrt_options_nodes(const struct tlrt_nodes_opt *n, unsigned long *mask, size_t words,
		       char *why, size_t whylen);

#endif
