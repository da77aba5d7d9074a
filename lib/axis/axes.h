/*
 * The facts both sides of the process boundary share, each written once:
 * the axes a run is configured along, the samplers and the log modes.
 * Macros only, so the preloaded runtime (lib/tiermem) includes this file
 * as the tierlab program does.
 *
 * Generated from TL_AXES: enum tl_axis and the axis table (axis.h), the
 * spec's keys (spec/), the planner's axes and the canonical text of run
 * keys (plan/), the columns of table runs (store/), the variables a run
 * is given (run/launch.c) and the runtime's option table
 * (tiermem/options.h). Adding an axis is one row here; its column is added
 * to a database when tierlab opens it.
 *
 * X(id, name, kind, applies, flags, def, var, alias, lo, hi, help)
 *   id       TL_AXIS_<id>
 *   name     spec key, --<name> of sweep, store column, "name=value" in keys
 *   kind     enum tl_kind: what a value is and how it is written canonically
 *   applies  enum tl_applies: which runs take the axis (the others drop it)
 *   flags    TL_AXIS_FOOTPRINT: it changes what the runtime manages
 *   def      the canonical value when nothing sets it, NULL = unset
 *   var      the runtime's variable (TIERLAB_*), NULL = not the runtime's
 *   alias    the SHAMBLES_* name of that variable, NULL = none
 *   lo, hi   bounds of a number (for INT and RATE), 0 = none
 *   help     one line
 *
 * Order is part of the key format (plan/plan-key.c) and of the store:
 * append new axes at the end of TL_RUNTIME_AXES.
 */
#ifndef TL_AXES_H
#define TL_AXES_H

#include "policies/param-bounds.h"
#include "util/units.h"

/*
 * The runtime's unit, 2 MiB (a huge page on x86-64): its regions start and
 * end on one, the log's sample offsets count in them, and a chunk is one
 * unless a run says otherwise (TIERLAB_CHUNK_SIZE's default).
 */
#define TL_UNIT_MIB 2
#define TL_UNIT_SHIFT 21
#define TL_UNIT (1UL << TL_UNIT_SHIFT)
_Static_assert(TL_UNIT == (unsigned long)TL_UNIT_MIB << 20, "TL_UNIT_MIB and TL_UNIT_SHIFT disagree");

enum tl_kind {
	TL_KIND_NAME,		/* letters, digits and . _ + - (a workload, a size preset) */
	TL_KIND_INT,		/* a whole number within the bounds */
	TL_KIND_SIZE,		/* bytes, with a unit (units.h) */
	TL_KIND_RATE,		/* Hz, within the bounds */
	TL_KIND_BUDGET,		/* a size or a percentage of the footprint */
	TL_KIND_POLICY,		/* a policy name, static:F,..., or a plugin path ending in .so */
	TL_KIND_ALLOCATOR,	/* a name of TL_ALLOCATORS */
	TL_KIND_SAMPLER,	/* a name of TL_SAMPLERS */
	TL_KIND_LOG,		/* a name of TL_LOGS */
	TL_KIND_ARGS,		/* a policy's parameters: name=value,... */
	/* kinds of the runtime's own variables only */
	TL_KIND_STRING, TL_KIND_NODES, TL_KIND_FRACTIONS, TL_KIND_BOOL,
};

enum tl_applies {
	TL_APPLIES_ALL,		/* every run */
	TL_APPLIES_RUNTIME,	/* runs under the tiering runtime: every policy but none, all-fast, all-slow */
	TL_APPLIES_DYNAMIC,	/* runs of a policy that moves chunks as samples come (it says so) */
	TL_APPLIES_PARAM,	/* runs of a built-in policy that takes a parameter of the axis's name */
	TL_APPLIES_ARGS,	/* runs of a policy that takes parameters (one that says so, or a plugin) */
};

#define TL_AXIS_FOOTPRINT 0x1

/* What the workload's process is: tierlab gives it its program, threads and allocator. */
#define TL_PROCESS_AXES(X) \
	X(WORKLOAD,  "workload",  NAME,      ALL,     0,                 NULL,     NULL, NULL, 0, 0, \
	  "workload name (default: the spec's first)") \
	X(SIZE,      "size",      NAME,      ALL,     0,                 NULL,     NULL, NULL, 0, 0, \
	  "workload size preset (default: the workload's default_size)") \
	X(THREADS,   "threads",   INT,       ALL,     TL_AXIS_FOOTPRINT, NULL,     NULL, NULL, 1, 1e9, \
	  "threads for the workload (OMP_NUM_THREADS)") \
	X(ALLOCATOR, "allocator", ALLOCATOR, ALL,     TL_AXIS_FOOTPRINT, "system", NULL, NULL, 0, 0, \
	  "allocator")

/* What the tiering runtime does in it: each is one of its variables. */
#define TL_RUNTIME_AXES(X) \
	X(POLICY,      "policy",      POLICY,  ALL,     0,                 "none",     "TIERLAB_POLICY", \
	  "SHAMBLES_PLUGIN", 0, 0, "placement policy") \
	X(BUDGET,      "budget",      BUDGET,  DYNAMIC, 0,                 NULL,       "TIERLAB_FAST_MEM", \
	  "SHAMBLES_FAST_MEM_SIZE", 0, 0, "fast-tier budget: a size (4GiB) or a share of the footprint (40%)") \
	X(THRESHOLD,   "threshold",   SIZE,    RUNTIME, TL_AXIS_FOOTPRINT, "1MiB",     "TIERLAB_THRESHOLD", \
	  "SHAMBLES_SIZE_THRESHOLD", 1, 0, "smallest allocation the runtime manages") \
	X(CHUNKS,      "chunks",      INT,     DYNAMIC, 0,                 NULL,       "TIERLAB_CHUNKS", \
	  "SHAMBLES_FAST_MEM_CHUNKS", 1, 1e9, "fast-tier chunks (budget / chunk size)") \
	X(RATE,        "rate",        RATE,    RUNTIME, 0,                 "10Hz",     "TIERLAB_RATE", \
	  NULL, TL_RATE_MIN_HZ, TL_RATE_MAX_HZ, "sampling rate (10Hz, 1kHz)") \
	X(WINDOW,      "window",      INT,     PARAM,   0, TLP_STR(TLP_WINDOW_DEFAULT), "TIERLAB_WINDOW", \
	  "SHAMBLES_WINDOW_SIZE", 1, TLP_WINDOW_MAX, "window policy length, in samples (" TLP_WINDOW_COST ")") \
	X(SAMPLER,     "sampler",     SAMPLER, RUNTIME, 0,                 "fault",    "TIERLAB_SAMPLER", \
	  NULL, 0, 0, "access sampler") \
	X(LOG,         "log",         LOG,     RUNTIME, 0,                 "counters", "TIERLAB_LOG", \
	  NULL, 0, 0, "runtime logging") \
	X(POLICY_ARGS, "policy_args", ARGS,    ARGS,    0,                 NULL,       "TIERLAB_POLICY_ARGS", \
	  NULL, 0, 0, "the policy's parameters, name=value,... (tierlab list policies)")

#define TL_AXES(X) TL_PROCESS_AXES(X) TL_RUNTIME_AXES(X)

/*
 * The samplers of the runtime: X(id, name, ops, help), ops being the
 * struct rt_sampler_ops a lib/tiermem/sampler-<name>.c defines (one not
 * built in is refused by name at run time). Adding a sampler is that file
 * and one row here.
 */
#define TL_SAMPLERS(X) \
	X(FAULT,   "fault",   rt_sampler_fault,   "the first access anywhere in managed memory after each tick") \
	X(UFFD_WP, "uffd-wp", rt_sampler_uffd_wp, "one page written since the last tick") \
	X(PERF,    "perf",    rt_sampler_perf,    "the PMU's precise memory-access samples") \
	X(DAMON,   "damon",   rt_sampler_damon,   "DAMON's access frequencies of the program's regions") \
	X(NONE,    "none",    rt_sampler_none,    "takes no sample")

/*
 * The kernel's own tiering, which tierlab sets up around the workload
 * instead of running the runtime in it (lib/ktier): X(id, name, help).
 * Their parameters are declared in policy-class.h (tl_policy_params).
 */
#define TL_KERNEL_POLICIES(X) \
	X(AUTONUMA, "autonuma", "NUMA balancing in memory-tiering mode (numa_balancing=2) with demotion") \
	X(DAMOS,    "damos",    "DAMON schemes migrate_hot to the fast node, migrate_cold to the slow node")

/*
 * The memory-policy baselines: what `numactl --preferred-many`,
 * `--interleave` and `--weighted-interleave` do, set by tierlab on the
 * workload's process before exec (whole process, inherited by its
 * children), with no runtime in it; or, with policy_args scope=managed,
 * by the runtime on the memory it manages only (TIERLAB_MEMPOLICY):
 * X(id, name, help). Their parameters
 * are declared in policy-class.h; lib/ktier sets up what they need of the kernel
 * (the budget's huge pages, the interleave weights).
 */
#define TL_MEM_POLICIES(X) \
	X(PREFERRED,  "preferred",  "MPOL_PREFERRED_MANY on the fast nodes: fast first, slow once the fast tier is full") \
	X(INTERLEAVE, "interleave", "MPOL_INTERLEAVE over the fast and slow nodes, page by page") \
	X(WEIGHTED,   "weighted-interleave", "MPOL_WEIGHTED_INTERLEAVE over fast and slow, in the ratio of per-node weights (Linux 6.9)")

/* What the runtime records: X(id, name). */
#define TL_LOGS(X) \
	X(NONE,     "none") \
	X(COUNTERS, "counters") \
	X(LOG,      "log")

/*
 * The allocators a run may be given: X(id, name, lib, package, hugetlb, env)
 *   lib      the library preloaded into the workload, NULL = none
 *   package  the distribution's package that installs lib, NULL = tierlab
 *            builds it (its lib directory)
 *   hugetlb  glibc.malloc.hugetlb's value in GLIBC_TUNABLES, NULL = none:
 *            1 madvises glibc's heap and mmap'd chunks for THP, 2 puts
 *            mmap'd chunks on hugetlb pages
 *   env      one more variable the allocator reads, "NAME=value", NULL = none
 * (MIMALLOC_LARGE_OS_PAGES: 2 MiB pages for mimalloc's segments, hugetlb
 * when free, else THP).
 */
#define TL_ALLOCATORS(X) \
	X(SYSTEM,         "system",         NULL,               NULL,             NULL, NULL) \
	X(JEMALLOC,       "jemalloc",       "libjemalloc.so.2", "libjemalloc2",   NULL, NULL) \
	X(FAT,            "fat",            "libfatalloc.so",   NULL,             NULL, NULL) \
	X(GLIBC_THP,      "glibc-thp",      NULL,               NULL,             "1",  NULL) \
	X(GLIBC_HUGETLB,  "glibc-hugetlb",  NULL,               NULL,             "2",  NULL) \
	X(MIMALLOC,       "mimalloc",       "libmimalloc.so.2", "libmimalloc2.0", NULL, NULL) \
	X(MIMALLOC_LARGE, "mimalloc-large", "libmimalloc.so.2", "libmimalloc2.0", NULL, "MIMALLOC_LARGE_OS_PAGES=1")

/* The most fractions a static policy may list: one per large allocation. */
#define TL_STATIC_MAX_FRACTIONS 256

#endif
