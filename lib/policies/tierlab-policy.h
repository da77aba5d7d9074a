/*
 * The tierlab policy interface (ABI 1): decision logic only.
 *
 * A policy sees allocations (as ranges of chunk ids) and samples (a chunk
 * id) and answers with decisions "chunk C to tier T". It never moves
 * memory, calls mbind or reads the clock: the live runtime (libtiermem)
 * and the offline replay apply the same decisions to real or simulated
 * memory. The core applies decisions in order and never lets the fast tier
 * exceed its budget: a promotion that would is refused and counted, so a
 * policy frees room (demotes) before it promotes.
 *
 * A plugin is a shared object exporting
 *     const struct tlp_policy *tierlab_policy(void);
 * loaded by name (TIERLAB_POLICY=lru -> <libdir>/policy-lru.so) or by path.
 * The loader checks `size` and `abi_version` before using anything else;
 * optional entry points may be NULL. Every struct the core hands over
 * starts with its own size, so later versions can grow them.
 *
 * Threading: the core calls a policy from one thread at a time (under its
 * lock). Work per call is O(1) for on_sample (amortised), O(chunks of the
 * allocation) for on_alloc/on_free. Policies allocate memory only through
 * params->alloc/free (the runtime interposes malloc; a policy calling it
 * from inside the allocator would recurse).
 */
#ifndef TIERLAB_POLICY_H
#define TIERLAB_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TLP_ABI_VERSION 1

enum tlp_tier { TLP_SLOW = 0, TLP_FAST = 1 };

#define TLP_UNLIMITED UINT32_MAX

struct tlp_params {
	uint32_t size;			/* sizeof(struct tlp_params) of the caller */
	uint32_t max_chunks;		/* chunk ids are in [0, max_chunks) */
	uint32_t budget_chunks;		/* fast-tier capacity in chunks (may change: on_budget) */
	uint32_t window;		/* samples, for window-like policies */
	uint64_t chunk_size;		/* bytes */
	const double *fractions;	/* static: fast fraction per allocation, allocation order */
	uint32_t nfractions;
	const char *args;		/* TIERLAB_POLICY_ARGS, free-form for plugins; may be NULL */
	void *(*alloc)(size_t bytes);	/* zeroed memory; NULL on failure */
	void (*free)(void *p, size_t bytes);
};

/* A managed allocation: chunks first_chunk .. first_chunk + nchunks - 1. */
struct tlp_alloc {
	uint32_t size;			/* sizeof(struct tlp_alloc) */
	uint32_t seq;			/* allocation order among managed allocations, from 0 */
	uint32_t first_chunk;
	uint32_t nchunks;
	uint64_t bytes;
};

struct tlp_move {
	uint32_t chunk;
	uint32_t tier;			/* enum tlp_tier */
};

/* Decisions a call appends to; the core sizes v (see tlp_decide). */
struct tlp_decisions {
	struct tlp_move *v;
	uint32_t n, cap;
};

/*
 * Appends "chunk to tier". Returns 0, or -1 when the array is full (a
 * policy bug: on_alloc gets room for one decision per chunk of the
 * allocation, on_sample for TLP_SAMPLE_DECISIONS, on_budget for the larger
 * of TLP_SAMPLE_DECISIONS and the change in budget).
 */
#define TLP_SAMPLE_DECISIONS 8
static inline int tlp_decide(struct tlp_decisions *d, uint32_t chunk, enum tlp_tier tier)
{
	if (d->n >= d->cap)
		return -1;
	d->v[d->n].chunk = chunk;
	d->v[d->n].tier = (uint32_t)tier;
	d->n++;
	return 0;
}

struct tlp_policy {
	uint32_t size;			/* sizeof(struct tlp_policy) the plugin was built with */
	uint32_t abi_version;		/* TLP_ABI_VERSION */
	const char *name;
	/* State for one process; NULL on failure (bad args: say why on stderr, one line). */
	void *(*init)(const struct tlp_params *p);
	/* Initial placement: a decision for every chunk of a new allocation (unset chunks go slow). */
	void (*on_alloc)(void *st, const struct tlp_alloc *a, struct tlp_decisions *out);
	/* The allocation's chunks are gone (the core already released their fast-tier room). */
	void (*on_free)(void *st, const struct tlp_alloc *a);
	/* One access sample in chunk `chunk` (a managed chunk). */
	void (*on_sample)(void *st, uint32_t chunk, struct tlp_decisions *out);
	/* Optional: the budget changed (e.g. a percentage of a growing footprint). */
	void (*on_budget)(void *st, uint32_t budget_chunks, struct tlp_decisions *out);
	void (*fini)(void *st);
	/*
	 * What tierlab plans by (a plugin built before these has a smaller
	 * size: it is taken for dynamic, with no declared parameter).
	 */
	uint32_t flags;			/* TLP_DYNAMIC */
	const struct tlp_param *params;	/* what it reads from params->args, ended by a NULL name; may be NULL */
};

/*
 * The policy moves chunks as samples come: a budget and a chunk count
 * apply to it. Without it (all-fast, static) the placement is fixed.
 */
#define TLP_DYNAMIC 0x1

/* Does a policy built against an older header have `field`? (its size ends before it) */
#define TLP_HAS(pol, field) ((pol)->size >= offsetof(struct tlp_policy, field) + sizeof((pol)->field))

/*
 * A parameter a policy takes from TIERLAB_POLICY_ARGS (params->args,
 * "name=value,name=value"): tierlab checks a spec's policy_args against
 * the names and hands each policy only the ones it takes; the policy
 * reads its values with tlp_arg() in init.
 */
struct tlp_param {
	const char *name;
	const char *def;		/* the value when the arguments do not set it, as text */
	const char *help;
};

/*
 * The value of `name` in args, copied into buf (cut to len - 1 bytes);
 * NULL when args (which may be NULL) do not set it. Allocates nothing.
 */
static inline const char *tlp_arg(const char *args, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);

	for (const char *p = args; p && *p && len;) {
		const char *end = strchr(p, ',');

		if (!end)
			end = p + strlen(p);
		if ((size_t)(end - p) > n && !strncmp(p, name, n) && p[n] == '=') {
			size_t v = (size_t)(end - p) - n - 1;

			if (v >= len)
				v = len - 1;
			memcpy(buf, p + n + 1, v);
			buf[v] = '\0';
			return buf;
		}
		p = *end ? end + 1 : end;
	}
	return NULL;
}

/* The first name in args that is none of params, copied into buf; NULL when there is none. */
static inline const char *tlp_args_unknown(const char *args, const struct tlp_param *params, char *buf,
					   size_t len)
{
	for (const char *p = args; p && *p && len;) {
		size_t n = strcspn(p, "=,");
		int known = 0;

		for (const struct tlp_param *q = params; q && q->name && !known; q++)
			known = strlen(q->name) == n && !strncmp(q->name, p, n);
		if (!known) {
			if (n >= len)
				n = len - 1;
			memcpy(buf, p, n);
			buf[n] = '\0';
			return buf;
		}
		p += strcspn(p, ",");
		if (*p)
			p++;
	}
	return NULL;
}

typedef const struct tlp_policy *(*tlp_entry_fn)(void);
#define TLP_ENTRY_NAME "tierlab_policy"

#endif
