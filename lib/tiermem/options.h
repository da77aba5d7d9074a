/*
 * The runtime's variables: one table (options.c) of TIERLAB_* names, their
 * SHAMBLES_* aliases, kinds, defaults and help, read from an environment
 * array without allocating (the runtime parses them from inside malloc).
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

#include "util/units.h"

/*
 * X(id, name, alias, kind, default, help). The enum, the name table and
 * the documentation (docs/runtime.md) follow this order.
 */
#define TLRT_OPTIONS(X) \
	X(POLICY,      "TIERLAB_POLICY",      "SHAMBLES_PLUGIN",               TLRT_KIND_STRING,    NULL,       "policy name (all-fast, lru, ...) or path of a policy .so") \
	X(FAST_NODES,  "TIERLAB_FAST_NODES",  "SHAMBLES_FAST_NODEMASK",        TLRT_KIND_NODES,     NULL,       "fast tier NUMA nodes (numactl syntax; the alias is an integer bitmask)") \
	X(SLOW_NODES,  "TIERLAB_SLOW_NODES",  "SHAMBLES_SLOW_NODEMASK",        TLRT_KIND_NODES,     NULL,       "slow tier NUMA nodes (numactl syntax; the alias is an integer bitmask)") \
	X(THRESHOLD,   "TIERLAB_THRESHOLD",   "SHAMBLES_SIZE_THRESHOLD",       TLRT_KIND_SIZE,      "1MiB",     "allocations of at least this size are managed") \
	X(FAST_MEM,    "TIERLAB_FAST_MEM",    "SHAMBLES_FAST_MEM_SIZE",        TLRT_KIND_BUDGET,    NULL,       "fast tier budget: a size or a percentage of the managed footprint") \
	X(CHUNKS,      "TIERLAB_CHUNKS",      "SHAMBLES_FAST_MEM_CHUNKS",      TLRT_KIND_UINT,      NULL,       "fast tier budget in chunks") \
	X(CHUNK_SIZE,  "TIERLAB_CHUNK_SIZE",  "SHAMBLES_CHUNK_SIZE",           TLRT_KIND_SIZE,      "2MiB",     "chunk size, the unit of placement and migration") \
	X(FOOTPRINT,   "TIERLAB_FOOTPRINT",   NULL,                            TLRT_KIND_SIZE,      NULL,       "managed footprint a percentage budget refers to (else the budget follows the live footprint)") \
	X(RATE,        "TIERLAB_RATE",        NULL,                            TLRT_KIND_RATE,      "10Hz",     "sampling rate (0 = no sampling)") \
	X(WINDOW,      "TIERLAB_WINDOW",      "SHAMBLES_WINDOW_SIZE",          TLRT_KIND_UINT,      "16",       "window of samples for window-like policies") \
	X(FRACTIONS,   "TIERLAB_FRACTIONS",   "SHAMBLES_ALLOC_FAST_FRACTIONS", TLRT_KIND_FRACTIONS, NULL,       "fast fraction per allocation, allocation order (static policy)") \
	X(SAMPLER,     "TIERLAB_SAMPLER",     NULL,                            TLRT_KIND_SAMPLER,   "fault",    "access sampler: fault, uffd-wp, perf, damon, none") \
	X(LOG,         "TIERLAB_LOG",         NULL,                            TLRT_KIND_LOG,       "counters", "recording: none, counters, log") \
	X(OUT,         "TIERLAB_OUT",         NULL,                            TLRT_KIND_STRING,    NULL,       "directory of the counters and log files (default: the working directory)") \
	X(STRICT,      "TIERLAB_STRICT",      NULL,                            TLRT_KIND_BOOL,      "0",        "exit with status 2 on a bad value instead of standing aside") \
	X(POLICY_ARGS, "TIERLAB_POLICY_ARGS", NULL,                            TLRT_KIND_STRING,    NULL,       "free-form arguments for the policy plugin") \
	X(THP,         "TIERLAB_THP",         NULL,                            TLRT_KIND_BOOL,      NULL,       "1: madvise(MADV_HUGEPAGE) on managed memory, 0: MADV_NOHUGEPAGE (unset: the system's THP setting, as without the runtime)") \
	X(VERBOSE,     "TIERLAB_VERBOSE",     NULL,                            TLRT_KIND_BOOL,      "0",        "say what the runtime decided on stderr")

enum tlrt_kind {
	TLRT_KIND_STRING, TLRT_KIND_NODES, TLRT_KIND_SIZE, TLRT_KIND_BUDGET, TLRT_KIND_UINT,
	TLRT_KIND_RATE, TLRT_KIND_FRACTIONS, TLRT_KIND_SAMPLER, TLRT_KIND_LOG, TLRT_KIND_BOOL,
};

enum tlrt_opt {
#define TLRT_OPT_ENUM(id, name, alias, kind, def, help) TLRT_OPT_##id,
	TLRT_OPTIONS(TLRT_OPT_ENUM)
#undef TLRT_OPT_ENUM
	TLRT_OPT__COUNT
};

struct tlrt_option_desc {
	const char *name, *alias;
	enum tlrt_kind kind;
	const char *def, *help;
};
extern const struct tlrt_option_desc tlrt_option_table[TLRT_OPT__COUNT];

/* Must match tlrt_sampler_names / tlrt_log_names in options.c. */
enum tlrt_sampler {
	TLRT_SAMPLER_FAULT, TLRT_SAMPLER_UFFD_WP, TLRT_SAMPLER_PERF, TLRT_SAMPLER_DAMON, TLRT_SAMPLER_NONE,
	TLRT_SAMPLER__COUNT
};
enum tlrt_log { TLRT_LOG_NONE, TLRT_LOG_COUNTERS, TLRT_LOG_LOG, TLRT_LOG__COUNT };
extern const char *const tlrt_sampler_names[TLRT_SAMPLER__COUNT];
extern const char *const tlrt_log_names[TLRT_LOG__COUNT];

#define TLRT_MAX_FRACTIONS 256
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
	char policy_args[512];
	int have_policy_args;

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
