/*
 * The kernel's own tiering as run-level policies: `autonuma` (NUMA
 * balancing in memory-tiering mode, kernel.numa_balancing=2, with
 * demotion) and `damos` (DAMON-based schemes migrate_hot / migrate_cold
 * over the physical address space). tierlab sets the kernel up around the
 * workload, not a runtime inside it: checks before a plan runs (check),
 * each run's settings made through the journal (begin), DAMOS statistics
 * read before the kernel is put back (end), metrics added to the run's
 * record (record). Docs: docs/policies.md, "Kernel policies".
 */
#ifndef TL_KTIER_H
#define TL_KTIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ktier/journal.h"

struct tl_run_record;

/*
 * The kernel policies, then the memory-policy baselines (preferred,
 * interleave, weighted-interleave), whose mempolicy the runner sets on the
 * workload (lib/run) while this module sets up what they need of the
 * kernel: preferred's budget (the same huge-page binding), weighted
 * interleave's per-node weights (journaled like the kernel policies'
 * settings).
 */
enum tl_ktier_kind {
	TL_KTIER_NONE, TL_KTIER_AUTONUMA, TL_KTIER_DAMOS,
	TL_KTIER_PREFERRED, TL_KTIER_INTERLEAVE, TL_KTIER_WEIGHTED,
};

/* What one DAMOS scheme did (schemes/N/stats). */
struct tl_damos_stats {
	uint64_t nr_tried, sz_tried, nr_applied, sz_applied, qt_exceeds;
};

/* One run's kernel set-up. */
struct tl_ktier {
	enum tl_ktier_kind kind;
	struct tl_journal journal;
	int fast, slow;			/* the nodes: promotion and demotion targets */
	uint64_t budget;		/* bytes the fast node keeps free for the run */
	uint64_t reserved;		/* bytes of huge pages taken on the fast node to leave only that */
	uint64_t fast_free;		/* the fast node's free bytes once the reservation was made */
	bool have_stats;
	struct tl_damos_stats hot, cold;
	bool journaled;			/* the journal is held (a setting was or may be changed) */
	unsigned fast_weight, slow_weight; /* weighted-interleave: each fast / slow node's weight */
	bool managed;			/* a memory policy with scope managed: on the runtime's memory only */
	char weights_from[96];		/* where they came from: the spec, or the nodes' bandwidths */
	char fast_set[64], slow_set[64];	/* machine.fast, machine.slow as the spec gives them */
};

/*
 * The tiers' read bandwidths a machine profile measured (`machine: NAME`,
 * tierlab probe), from which weighted-interleave derives its weights when
 * the spec gives none; NULL, or 0 GB/s: not measured (then HMAT's).
 */
struct tl_ktier_bandwidth {
	double fast_gbs, slow_gbs;
	const char *profile;
};

/* Which kernel policy a canonical policy value names (TL_KTIER_NONE for the others). */
enum tl_ktier_kind tl_ktier_kind(const char *policy);

/*
 * Can this machine run `policy` now (root, kernel version and features,
 * memory tiers with `fast` above `slow`, DAMON free, a size budget that
 * fits)? 0, or -errno with the reason. Reads only: nothing is changed.
 */
int tl_ktier_check(const char *policy, const char *args, const char *budget, const char *fast,
		   const char *slow, const struct tl_ktier_bandwidth *bw, char *why, size_t whylen);

/*
 * Sets the kernel up for one run of `policy`; every change goes through
 * the journal first. On failure what was changed is put back. 0 or -errno
 * with the reason.
 */
int tl_ktier_begin(struct tl_ktier *k, const char *policy, const char *args, const char *budget,
		   const char *fast, const char *slow, const struct tl_ktier_bandwidth *bw, char *why, size_t whylen);

/* Reads what the kernel did (DAMOS stats), then puts every setting back. 0 or -errno with the reason. */
int tl_ktier_end(struct tl_ktier *k, char *why, size_t whylen);

/* The run's kernel-policy metrics (ktier.*) into its record. 0 or -ENOMEM. */
int tl_ktier_record(const struct tl_ktier *k, struct tl_run_record *r);

/*
 * At a tierlab start: puts back what a tierlab that died during a run left
 * changed (the journal at its default place). 1 restored, 0 nothing to do,
 * -errno with the reason.
 */
int tl_ktier_replay(char *why, size_t whylen);

/* Internal to lib/ktier: each policy's set-up and the budget's reservation. */
int tl_ktier_mempolicy_check(enum tl_ktier_kind kind, const char *policy, const char *args, const char *budget,
			     const char *fast, const char *slow, const struct tl_ktier_bandwidth *bw,
			     char *why, size_t whylen);
int tl_ktier_mempolicy_begin(struct tl_ktier *k, const char *args, const char *fast, const char *slow,
			     const struct tl_ktier_bandwidth *bw, char *why, size_t whylen);
/*
 * weighted-interleave's weights: the spec's, else the profile's measured
 * bandwidths, else the nodes' HMAT ones; 0 or -errno with the reason.
 */
int tl_ktier_weights(const char *args, const char *fast, const char *slow, const struct tl_ktier_bandwidth *bw,
		     unsigned *wf, unsigned *ws, char *from, size_t fromlen, char *why, size_t whylen);
bool tl_ktier_kernel_at_least(int major, int minor, char *rel, size_t len);
/* The one node a set names ("1"), or -1. */
int tl_ktier_one_node(const char *set);
int tl_ktier_autonuma_begin(struct tl_ktier *k, const char *args, char *why, size_t whylen);
int tl_ktier_damos_begin(struct tl_ktier *k, const char *args, char *why, size_t whylen);
int tl_ktier_damos_stats(struct tl_ktier *k);
int tl_ktier_reserve(struct tl_ktier *k, char *why, size_t whylen);
/* The value of `name` in policy arguments "a=1,b=2" into buf; false when absent. */
bool tl_ktier_arg(const char *args, const char *name, char *buf, size_t len);
/* A node's free bytes (libnuma's numa_node_size64: its meminfo's MemFree); 0 when unknown. */
uint64_t tl_ktier_node_free(int node);

#endif
