/*
 * tierlab probe: what this machine's memory tiers are, measured rather
 * than assumed (the SHAMBLES paper found DDR beats HBM for latency-bound
 * Himeno L while HBM wins bandwidth-bound work).
 *
 * One result model, struct tl_probe, filled in steps:
 *   tl_probe_topology()   nodes, CPUs, memory, distances (libnuma), memory
 *                         tiers and HMAT access attributes (sysfs), THP and
 *                         hugetlb state
 *   tl_probe_counters()   which of a standard list of events can be counted
 *   tl_probe_measure()    per-node latency (dependent pointer chase) and
 *                         bandwidth (streaming read, copy) from one CPU node
 *   tl_probe_recommend()  the fastest node set for latency-bound and for
 *                         bandwidth-bound work, and the fast/slow pair a
 *                         spec's `machine: NAME` takes
 * then printed as text or JSON (same facts in both) and optionally saved
 * into the store's machine_profiles table.
 *
 * Functions return 0 or a negative errno after one error() line.
 * Strings in the model are owned by it; tl_probe_release frees them.
 */
#ifndef TL_PROBE_H
#define TL_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct tl_store;

/* HMAT access attributes of a node as seen from its nearest initiator (access0); 0 = absent. */
struct tl_probe_hmat {
	bool present;
	unsigned read_latency_ns, write_latency_ns;
	unsigned read_bandwidth_mbs, write_bandwidth_mbs;	/* MB/s, as the kernel reports */
	char *initiators;	/* "0" - nodes listed under access0/initiators, or NULL */
};

struct tl_probe_node {
	int id;
	char *cpus;		/* cpulist ("0-1"), "" for a CPU-less node */
	int ncpus;
	uint64_t mem_total, mem_free;	/* bytes (numa_node_size64) */
	int tier;		/* memory tier id (memory_tierN), -1 unknown */
	struct tl_probe_hmat hmat;
	/* Measured from the chosen CPU node; measured false when skipped. */
	bool measured;
	double latency_ns;	/* per dependent load */
	double read_gbs, copy_gbs;	/* GB/s (1e9 bytes); copy counts bytes read + written */
	char *skip_reason;	/* why not measured, or NULL */
};

struct tl_probe_tier {
	int id;
	char *nodes;		/* nodelist as in sysfs ("0", "1-2") */
};

/* Must match tl_probe_event_names[]. */
enum { TL_PROBE_NEVENTS = 6 };
extern const char *const tl_probe_event_names[TL_PROBE_NEVENTS];

struct tl_probe_event {
	const char *name;
	bool ok;
	char *reason;		/* why unavailable, NULL when ok */
};

struct tl_probe_hugetlb {
	uint64_t page_size;	/* bytes */
	long nr, free;
};

struct tl_probe {
	/* Inputs. */
	const char *sysfs;	/* root of sysfs ("/sys"); tests point it at a fake tree */
	int cpu_node;		/* node whose CPUs measure */
	uint64_t size;		/* buffer per measurement */
	bool quick;		/* fewer passes */

	size_t nnodes;
	struct tl_probe_node *nodes;
	int *distance;		/* nnodes x nnodes, row-major, in node order */
	size_t ntiers;
	struct tl_probe_tier *tiers;
	struct tl_probe_event events[TL_PROBE_NEVENTS];
	bool events_probed;
	char *thp_enabled, *thp_defrag;	/* selected value ("madvise"), NULL when absent */
	size_t nhugetlb;
	struct tl_probe_hugetlb *hugetlb;

	/* Recommendations (tl_probe_recommend): node lists, NULL when unknown. */
	char *latency_nodes, *bandwidth_nodes;
	char *basis;		/* "measured", "hmat" or "distance": what they rest on */
	char *fast, *slow;	/* for `machine: NAME`: bandwidth-fastest set, largest other set */
	char *note;		/* a sentence when latency and bandwidth disagree, else NULL */

	/* Measured move throughput (tl_probe_migration), slow -> fast; moved false with move_skip. */
	bool moved;
	int move_from, move_to;
	double move_gbs, move_cost_us;	/* GB/s per byte moved; fixed us per move call */
	char *move_skip;
};

/* Zeroes p and sets the defaults (sysfs "/sys", cpu node 0, 256 MiB). */
void tl_probe_init(struct tl_probe *p);
void tl_probe_release(struct tl_probe *p);

/* Nodes with memory or CPUs, distances, tiers, HMAT, THP, hugetlb. -ENOSYS without NUMA support. */
int tl_probe_topology(struct tl_probe *p);

/* Tries to open each standard event on this process (ok / unavailable with reason). */
int tl_probe_counters(struct tl_probe *p);

/*
 * Measures every node with memory from p->cpu_node's CPUs (the calling
 * thread is bound there and unbound again). A node whose buffer cannot be
 * bound or allocated is marked with a skip_reason; that is not an error.
 * -EINVAL when cpu_node has no CPUs.
 */
int tl_probe_measure(struct tl_probe *p);

/*
 * One node: ns per dependent load over `size` bytes bound to mem_node and
 * touched first, chased `loads` times in a random single cycle of cache
 * lines; and streaming read / copy GB/s over the same size. The caller
 * binds the thread. -ENOMEM, or -EIO when the pages did not land on the node.
 */
int tl_probe_latency(int mem_node, uint64_t size, uint64_t loads, double *ns);
int tl_probe_bandwidth(int mem_node, uint64_t size, int passes, double *read_gbs, double *copy_gbs);

/*
 * Move throughput between the recommended tiers (after tl_probe_recommend):
 * 2 MiB and 4 KiB mbind(MPOL_MF_MOVE) calls from the slow tier's first node
 * to the fast tier's, fitted to a fixed cost per call and GB/s. With one
 * tier, or when the moves fail, move_skip says why (not an error).
 * tl_probe_move: the measurement itself, between two nodes.
 */
int tl_probe_migration(struct tl_probe *p);
int tl_probe_move(int from, int to, uint64_t size, double *gbs, double *cost_us);

/* Fills the recommendation fields from what is known (measured > HMAT > distances). */
int tl_probe_recommend(struct tl_probe *p);
/* Frees the recommendation fields (tl_probe_recommend fills them afresh). */
void tl_probe_recommend_clear(struct tl_probe *p);

int tl_probe_print_text(const struct tl_probe *p, FILE *out);
int tl_probe_print_json(const struct tl_probe *p, FILE *out);

/*
 * Stores the JSON of p as profile `name` (replacing one of that name), in
 * the store's machine_profiles table.
 */
int tl_probe_profile_save(struct tl_store *st, const char *name, const struct tl_probe *p);
/* The stored JSON of a profile: 0 and *json (malloc'd); -ENOENT with an error line if none. */
int tl_probe_profile_load(struct tl_store *st, const char *name, char **json);

#endif
