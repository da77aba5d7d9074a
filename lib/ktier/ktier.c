/*
 * One run under a kernel policy: take the journal, bind the budget, set
 * the policy's settings, and afterwards read what the kernel did and put
 * everything back (see ktier.h). The budget is bound the same way for
 * both policies: huge pages reserved on the fast node leave it with the
 * budget free above its promotion watermark (docs/policies.md says why
 * this and not a cgroup or a DAMOS quota).
 */
#include "ktier/ktier.h"
#include "ktier/settings.h"

#include <errno.h>
#include <inttypes.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "axis/axis.h"
#include "store/result.h"
#include "util/units.h"

#define HUGE_PAGE (2ULL << 20)

bool tl_ktier_arg(const char *args, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);

	for (const char *p = args; p && *p;) {
		size_t span = strcspn(p, ",");

		if (!strncmp(p, name, n) && p[n] == '=') {
			snprintf(buf, len, "%.*s", (int)(span - n - 1), p + n + 1);
			return true;
		}
		p += span + (p[span] == ',');
	}
	return false;
}

uint64_t tl_ktier_node_free(int node)
{
	long long free_bytes = 0;

	return numa_node_size64(node, &free_bytes) < 0 || free_bytes < 0 ? 0 : (uint64_t)free_bytes;
}

/*
 * The node's promotion watermark in bytes, summed over its zones: the
 * free memory the kernel keeps (kswapd demotes to get back to it, NUMA
 * balancing promotes only above it); "high" on kernels without "promo".
 */
static uint64_t node_watermark(int node)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	char line[256];
	unsigned long long v, high = 0, promo = 0;
	int in = 0, n;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone", &n) == 1)
			in = n == node;
		else if (in && sscanf(line, " high %llu", &v) == 1)
			high += v;
		else if (in && sscanf(line, " promo %llu", &v) == 1)
			promo += v;
	}
	fclose(f);
	return (uint64_t)(promo > high ? promo : high) * 4096;
}

static int read_count(const char *path, unsigned long long *n, char *why, size_t whylen)
{
	char v[64];
	int rc = tl_ktier_read(path, v, sizeof(v));

	if (rc)
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(-rc));
	*n = strtoull(v, NULL, 10);
	return rc;
}

/*
 * Leaves the fast node the budget free above its watermark, with huge
 * pages. First it takes all the huge pages the node can give, demotion on:
 * the kernel reclaims or demotes whatever else is movable there (page
 * cache, other programs' pages) to find them, so that no page that was
 * there before can later be pushed down to make room beyond the budget;
 * then it gives back what the budget needs.
 */
int tl_ktier_reserve(struct tl_ktier *k, char *why, size_t whylen)
{
	const char *demotion = TL_KS_DEMOTION;
	char path[160], v[64], found[16];
	uint64_t keep = k->budget + node_watermark(k->fast), free_now;
	unsigned long long have, got, want;
	int rc;

	snprintf(path, sizeof(path), TL_KS_HUGEPAGES, k->fast);
	if ((rc = read_count(path, &have, why, whylen)) || (rc = tl_ktier_read(demotion, found, sizeof(found))))
		return rc ? rc : -EIO;
	rc = tl_journal_set(&k->journal, demotion, "true", why, whylen);
	snprintf(v, sizeof(v), "%llu", have + (tl_ktier_node_free(k->fast) + k->budget) / HUGE_PAGE + 1024);
	/* the kernel gives what it can find: EINTR or ENOMEM here only mean fewer */
	rc = rc ?: tl_journal_set(&k->journal, path, v, why, whylen) == -EINTR ? -EINTR : 0;
	rc = rc ?: read_count(path, &got, why, whylen);
	/* demotion as found, for a policy that does not turn it on itself */
	rc = rc ?: tl_ktier_write(demotion, found);
	/*
	 * Give back until the budget is free; a few rounds, as what the
	 * squeeze pushed out (a program's own code, say) comes back meanwhile
	 */
	want = got;
	for (int round = 0; round < 8 && !rc && want > have; round++) {
		unsigned long long short_by;

		free_now = tl_ktier_node_free(k->fast);
		if (free_now >= keep)
			break;
		short_by = (keep - free_now + HUGE_PAGE - 1) / HUGE_PAGE;
		want -= short_by < want - have ? short_by : want - have;
		snprintf(v, sizeof(v), "%llu", want);
		rc = tl_ktier_write(path, v);
	}
	if (rc) {
		snprintf(why, whylen, "cannot set the fast node's huge pages (%s): %s", path, strerror(-rc));
		return rc;
	}
	if (!read_count(path, &got, why, whylen))
		k->reserved = (got - have) * HUGE_PAGE;
	k->fast_free = tl_ktier_node_free(k->fast);
	return 0;
}

int tl_ktier_begin(struct tl_ktier *k, const char *policy, const char *args, const char *budget,
		   const char *fast, const char *slow, const struct tl_ktier_bandwidth *bw, char *why, size_t whylen)
{
	char jpath[4096];
	int rc;

	memset(k, 0, sizeof(*k));
	k->journal.fd = -1;
	k->kind = tl_ktier_kind(policy);
	if (k->kind == TL_KTIER_NONE)
		return 0;
	if ((rc = tl_ktier_check(policy, args, budget, fast, slow, bw, why, whylen)))
		goto none;
	k->managed = tl_policy_managed_scope(policy, args);
	snprintf(k->fast_set, sizeof(k->fast_set), "%s", fast ? fast : "");
	snprintf(k->slow_set, sizeof(k->slow_set), "%s", slow ? slow : "");
	if (k->kind >= TL_KTIER_PREFERRED) {
		/* a share of the footprint comes here in bytes (execute.c resolves it) */
		if (budget && tl_parse_size(budget, &k->budget)) {
			rc = -EINVAL;
			snprintf(why, whylen, "budget '%s' is not in bytes", budget);
			goto none;
		}
		if ((rc = tl_ktier_mempolicy_begin(k, args, fast, slow, bw, why, whylen)))
			goto none;
		return 0;
	}
	k->fast = atoi(fast);
	k->slow = atoi(slow);
	tl_parse_size(budget, &k->budget);
	if ((rc = tl_journal_begin(&k->journal, tl_journal_default_path(jpath, sizeof(jpath)), why, whylen)))
		goto none;
	k->journaled = true;
	rc = tl_ktier_reserve(k, why, whylen);
	if (!rc && k->kind == TL_KTIER_AUTONUMA)
		rc = tl_ktier_autonuma_begin(k, args, why, whylen);
	if (!rc && k->kind == TL_KTIER_DAMOS)
		rc = tl_ktier_damos_begin(k, args, why, whylen);
	if (rc) {
		char ignored[256];

		tl_journal_end(&k->journal, ignored, sizeof(ignored));
		goto none;
	}
	return 0;
none:
	k->kind = TL_KTIER_NONE;
	return rc;
}

int tl_ktier_end(struct tl_ktier *k, char *why, size_t whylen)
{
	if (k->kind == TL_KTIER_NONE || !k->journaled)
		return 0;
	if (k->kind == TL_KTIER_DAMOS)
		k->have_stats = !tl_ktier_damos_stats(k);
	k->journaled = false;
	return tl_journal_end(&k->journal, why, whylen);
}

int tl_ktier_replay(char *why, size_t whylen)
{
	char jpath[4096];

	return tl_journal_replay(tl_journal_default_path(jpath, sizeof(jpath)), why, whylen);
}

/* A metric the record already has (the vmstat deltas), or -1. */
static double metric_of(const struct tl_run_record *r, const char *name)
{
	for (size_t i = 0; i < r->metrics.n; i++)
		if (!strcmp(r->metrics.v[i].name, name))
			return r->metrics.v[i].value;
	return -1;
}

/*
 * A memory-policy baseline's record: the mempolicy the workload ran
 * under, its nodes and weights (the environment of the run, as numactl's
 * arguments would be), and preferred's budget binding when it had one.
 */
static int record_mempolicy(const struct tl_ktier *k, struct tl_run_record *r)
{
	static const char *const modes[] = {
		[TL_KTIER_PREFERRED] = "MPOL_PREFERRED_MANY",
		[TL_KTIER_INTERLEAVE] = "MPOL_INTERLEAVE",
		[TL_KTIER_WEIGHTED] = "MPOL_WEIGHTED_INTERLEAVE",
	};
	char nodes[160], w[64];
	int rc;

	if (k->kind == TL_KTIER_PREFERRED)
		snprintf(nodes, sizeof(nodes), "%s", k->fast_set);
	else
		snprintf(nodes, sizeof(nodes), "%s,%s", k->fast_set, k->slow_set);
	rc = tl_env_put(&r->env, "mempolicy.mode", modes[k->kind]);
	rc = rc ?: tl_env_put(&r->env, "mempolicy.nodes", nodes);
	/* process: set_mempolicy before exec, as numactl; managed: mbind by the runtime on its memory only */
	rc = rc ?: tl_env_put(&r->env, "mempolicy.scope", k->managed ? TL_SCOPE_MANAGED : TL_SCOPE_PROCESS);
	if (k->kind == TL_KTIER_WEIGHTED) {
		snprintf(w, sizeof(w), "fast %u, slow %u", k->fast_weight, k->slow_weight);
		rc = rc ?: tl_env_put(&r->env, "mempolicy.weights", w);
		rc = rc ?: tl_env_put(&r->env, "mempolicy.weights_from", k->weights_from);
	}
	if (k->kind == TL_KTIER_PREFERRED && k->budget) {
		rc = rc ?: tl_record_add_metric(r, "ktier.budget_bytes", (double)k->budget, "bytes");
		rc = rc ?: tl_record_add_metric(r, "ktier.reserved_bytes", (double)k->reserved, "bytes");
		rc = rc ?: tl_record_add_metric(r, "ktier.fast_free_bytes", (double)k->fast_free, "bytes");
	}
	return rc;
}

int tl_ktier_record(const struct tl_ktier *k, struct tl_run_record *r)
{
	static const char *const which[] = { "hot", "cold" };
	double pages = metric_of(r, "vmstat.pgmigrate_success");
	int rc = 0;

	if (k->kind == TL_KTIER_NONE)
		return 0;
	if (k->kind >= TL_KTIER_PREFERRED)
		return record_mempolicy(k, r);
	rc = tl_record_add_metric(r, "ktier.budget_bytes", (double)k->budget, "bytes");
	rc = rc ?: tl_record_add_metric(r, "ktier.reserved_bytes", (double)k->reserved, "bytes");
	rc = rc ?: tl_record_add_metric(r, "ktier.fast_free_bytes", (double)k->fast_free, "bytes");
	/*
	 * What the kernel moved, as the runtime's migrated_bytes: base pages
	 * migrated machine-wide during the run (a quiet machine makes it the
	 * run's own)
	 */
	if (pages >= 0)
		rc = rc ?: tl_record_add_metric(r, "migrated_bytes", pages * 4096, "bytes");
	for (int s = 0; k->have_stats && s < 2; s++) {
		const struct tl_damos_stats *st = s ? &k->cold : &k->hot;
		char name[64];

#define STAT(field, unit) \
		snprintf(name, sizeof(name), "damos.%s." #field, which[s]); \
		rc = rc ?: tl_record_add_metric(r, name, (double)st->field, unit);
		STAT(nr_tried, "regions")
		STAT(sz_tried, "bytes")
		STAT(nr_applied, "regions")
		STAT(sz_applied, "bytes")
		STAT(qt_exceeds, "events")
#undef STAT
	}
	return rc;
}
