/*
 * What the memory-policy baselines need of the kernel, around a run whose
 * mempolicy the runner sets on the workload before exec (lib/run):
 *
 *  - preferred with a budget in bytes: the fast node keeps only the budget
 *    free, with the huge-page reservation the kernel policies use
 *    (ktier.c), so MPOL_PREFERRED_MANY spills to the slow nodes once the
 *    workload has the budget there. Without a budget the fast tier's free
 *    memory is the budget, as under `numactl --preferred-many`.
 *  - interleave: nothing (a process mempolicy alone).
 *  - weighted-interleave: each node's weight written to
 *    /sys/kernel/mm/mempolicy/weighted_interleave/nodeN through the
 *    journal (the weights are the machine's, not the process's: Linux
 *    6.9 to 6.18 have no per-process weights), auto mode (6.16) turned off
 *    first and back on last.
 */
#include "ktier/ktier.h"
#include "ktier/settings.h"

#include <errno.h>
#include <numa.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/nodeset.h"
#include "util/units.h"

static int say(char *why, size_t whylen, int err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int say(char *why, size_t whylen, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return err;
}

/* A budget in bytes on the fast node: what tl_ktier_reserve needs. */
static int check_budget(const char *budget, const char *fast, char *why, size_t whylen)
{
	char path[160];
	uint64_t bytes = 0;
	int f = tl_ktier_one_node(fast);


	if (tl_parse_size(budget, &bytes) || !bytes)
		return say(why, whylen, -EINVAL, "policy 'preferred': budget '%s' is not a size", budget);
	if (geteuid())
		return say(why, whylen, -EPERM, "policy 'preferred' with a budget reserves huge pages on the fast "
			   "node and needs root (without a budget the fast node's free memory is the budget)");
	if (f < 0)
		return say(why, whylen, -EINVAL, "policy 'preferred' with a budget needs one fast node "
			   "(machine: {fast: N}); given '%s'", fast ? fast : "");
	if (access(TL_KS_DEMOTION, F_OK))
		return say(why, whylen, -ENOTSUP, "cannot bind the budget: no %s", TL_KS_DEMOTION);
	snprintf(path, sizeof(path), TL_KS_HUGEPAGES, f);
	if (access(path, W_OK))
		return say(why, whylen, -ENOTSUP, "cannot bind the budget: no 2 MiB huge pages on node %d (%s)", f, path);
	if (tl_ktier_node_free(f) < bytes)
		return say(why, whylen, -ENOMEM, "fast node %d has %llu MiB free, less than the budget %s", f,
			   (unsigned long long)(tl_ktier_node_free(f) >> 20), budget);
	return 0;
}

/* Calls fn for each node of fast, then of slow (a node in both: once, as fast); stops at an error. */
static int each_node(const char *fast, const char *slow, int (*fn)(int node, bool is_fast, void *arg), void *arg)
{
	struct bitmask *f = tl_nodeset_parse(fast), *s = tl_nodeset_parse(slow);
	int rc = f && s ? 0 : -EINVAL;

	for (int node = 0; !rc && node <= numa_max_node(); node++) {
		if (numa_bitmask_isbitset(f, (unsigned)node))
			rc = fn(node, true, arg);
		else if (numa_bitmask_isbitset(s, (unsigned)node))
			rc = fn(node, false, arg);
	}
	if (f)
		numa_bitmask_free(f);
	if (s)
		numa_bitmask_free(s);
	return rc;
}

static int weight_file_missing(int node, bool is_fast, void *arg)
{
	char path[160];

	(void)is_fast;
	snprintf(path, sizeof(path), TL_KS_WEIGHT, node);
	if (access(path, W_OK)) {
		*(int *)arg = node;
		return -ENOENT;
	}
	return 0;
}

static const char *const autos[] = { TL_KS_WEIGHTS_AUTO, TL_KS_WEIGHTS_AUTO2 };

/* Is 6.16's auto mode on (the weights the kernel's, from HMAT)? */
static bool auto_on(void)
{
	char v[16];

	for (size_t i = 0; i < sizeof(autos) / sizeof(autos[0]); i++)
		if (!tl_ktier_read(autos[i], v, sizeof(v)) && !strcmp(v, "true"))
			return true;
	return false;
}

static int check_weighted(const char *args, const char *fast, const char *slow, const struct tl_ktier_bandwidth *bw,
			  char *why, size_t whylen)
{
	char rel[128], from[96];
	unsigned wf, ws;
	int node = -1;

	if (!tl_ktier_kernel_at_least(6, 9, rel, sizeof(rel)))
		return say(why, whylen, -ENOTSUP, "policy 'weighted-interleave' needs Linux 6.9 or later "
			   "(MPOL_WEIGHTED_INTERLEAVE); this is %s", rel);
	if (access(TL_KS_WEIGHTS, F_OK))
		return say(why, whylen, -ENOTSUP, "policy 'weighted-interleave' needs the kernel's interleave "
			   "weights, and this kernel has none (no %s)", TL_KS_WEIGHTS);
	if (geteuid())
		return say(why, whylen, -EPERM, "policy 'weighted-interleave' sets the machine's interleave "
			   "weights (%s) and needs root", TL_KS_WEIGHTS);
	if (!fast || !slow)
		return say(why, whylen, -EINVAL, "policy 'weighted-interleave' needs machine.fast and machine.slow");
	if (each_node(fast, slow, weight_file_missing, &node))
		return node < 0 ? say(why, whylen, -EINVAL, "machine.fast '%s' or machine.slow '%s' is not a "
				      "node set of this machine", fast, slow) :
			say(why, whylen, -ENOENT, "node %d has no interleave weight (no " TL_KS_WEIGHT "): a node "
			    "without memory", node, node);
	/*
	 * Writing a weight turns 6.16's auto mode off, and the kernel turns it
	 * back on only from HMAT bandwidths (ENODEV without them): there the
	 * journal could not put back what it found
	 */
	if (auto_on() && tl_ktier_weights(NULL, fast, slow, NULL, &wf, &ws, from, sizeof(from), why, whylen))
		return say(why, whylen, -ENOTSUP, "policy 'weighted-interleave' would turn the kernel's automatic "
			   "interleave weights off for good: auto mode (%s) is on, and the kernel turns it back on only "
			   "from the nodes' HMAT bandwidths, which this machine does not publish", TL_KS_WEIGHTS);
	return tl_ktier_weights(args, fast, slow, bw, &wf, &ws, from, sizeof(from), why, whylen);
}

int tl_ktier_mempolicy_check(enum tl_ktier_kind kind, const char *policy, const char *args, const char *budget,
			     const char *fast, const char *slow, const struct tl_ktier_bandwidth *bw,
			     char *why, size_t whylen)
{
	(void)policy;
	if (kind == TL_KTIER_WEIGHTED)
		return check_weighted(args, fast, slow, bw, why, whylen);
	if (kind != TL_KTIER_PREFERRED || !budget)
		return 0;
	/* one node for both tiers: the reservation would leave the whole machine the budget, and nowhere to spill */
	if (!slow || (fast && !strcmp(fast, slow)))
		return say(why, whylen, -EINVAL, "policy 'preferred' with a budget needs a slow node apart from the "
			   "fast one (machine.fast '%s', machine.slow '%s'): the budget is bound by filling the rest of "
			   "the fast node, which would leave the whole machine the budget", fast ? fast : "",
			   slow ? slow : "");
	/* a share of the footprint becomes bytes only at the run (the footprint is measured then) */
	return strchr(budget, '%') ? 0 : check_budget(budget, fast, why, whylen);
}

struct set_weights {
	struct tl_ktier *k;
	char *why;
	size_t whylen;
};

static int set_weight(int node, bool is_fast, void *arg)
{
	struct set_weights *sw = arg;
	char path[160], v[16];

	snprintf(path, sizeof(path), TL_KS_WEIGHT, node);
	snprintf(v, sizeof(v), "%u", is_fast ? sw->k->fast_weight : sw->k->slow_weight);
	return tl_journal_set(&sw->k->journal, path, v, sw->why, sw->whylen);
}

static int begin_weighted(struct tl_ktier *k, const char *args, const char *fast, const char *slow,
			  const struct tl_ktier_bandwidth *bw, char *why, size_t whylen)
{
	struct set_weights sw = { k, why, whylen };
	char v[16];
	int rc;

	rc = tl_ktier_weights(args, fast, slow, bw, &k->fast_weight, &k->slow_weight, k->weights_from,
			      sizeof(k->weights_from), why, whylen);
	/* auto mode would recompute the weights from HMAT behind tierlab's back: off first, on again last */
	for (size_t i = 0; !rc && i < sizeof(autos) / sizeof(autos[0]); i++)
		if (!tl_ktier_read(autos[i], v, sizeof(v)) && !strcmp(v, "true"))
			rc = tl_journal_set(&k->journal, autos[i], "false", why, whylen);
	return rc ?: each_node(fast, slow, set_weight, &sw);
}

int tl_ktier_mempolicy_begin(struct tl_ktier *k, const char *args, const char *fast, const char *slow,
			     const struct tl_ktier_bandwidth *bw, char *why, size_t whylen)
{
	char jpath[4096], ignored[256];
	int rc;

	if (k->kind == TL_KTIER_INTERLEAVE || (k->kind == TL_KTIER_PREFERRED && !k->budget))
		return 0;
	if ((rc = tl_journal_begin(&k->journal, tl_journal_default_path(jpath, sizeof(jpath)), why, whylen)))
		return rc;
	k->journaled = true;
	if (k->kind == TL_KTIER_PREFERRED) {
		k->fast = tl_ktier_one_node(fast);
		rc = tl_ktier_reserve(k, why, whylen);
	} else {
		rc = begin_weighted(k, args, fast, slow, bw, why, whylen);
	}
	if (rc) {
		tl_journal_end(&k->journal, ignored, sizeof(ignored));
		k->journaled = false;
	}
	return rc;
}
