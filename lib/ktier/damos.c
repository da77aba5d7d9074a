/*
 * The damos policy: one kdamond of DAMON's physical-address operations
 * over the fast and the slow node, with two schemes: migrate_hot moves
 * the slow node's regions accessed at least hot_min times an aggregation
 * to the fast node, migrate_cold moves the fast node's regions not
 * accessed more than cold_max times for cold_age aggregations to the slow
 * node. No filter keeps a scheme to its node: the kernel skips the folios
 * already on a scheme's target node (an address filter with matching N,
 * tried first, left every scheme applying nothing in the 6.12 guest). Both
 * may be limited by a quota (quota_mb per second). Linux 6.11 to 6.12 have
 * these actions for paddr only, so the schemes see the whole machine's
 * memory on those nodes, not only the workload's (docs/policies.md).
 *
 * tierlab only starts here where nr_kdamonds was 0 (checks.c), so its
 * kdamond is kdamonds/0; the journal says so before nr_kdamonds is
 * written and names the kdamond's pid once it runs.
 */
#include "ktier/ktier.h"
#include "ktier/settings.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "axis/axis.h"
#include "policies/tierlab-policy.h"

#define KDS TL_KS_KDAMONDS
#define CTX "/0/contexts/0"


/* A node's physical range from its memory blocks: [start, end). */
static int node_range(int node, unsigned long long *start, unsigned long long *end)
{
	char path[128], v[64];
	unsigned long long bs, lo = ~0ULL, hi = 0;
	struct dirent *e;
	DIR *d;

	if (tl_ktier_read("/sys/devices/system/memory/block_size_bytes", v, sizeof(v)))
		return -ENOENT;
	bs = strtoull(v, NULL, 16);
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", node);
	if (!(d = opendir(path)))
		return -ENOENT;
	while ((e = readdir(d))) {
		unsigned long long b;

		if (sscanf(e->d_name, "memory%llu", &b) != 1)
			continue;
		lo = b * bs < lo ? b * bs : lo;
		hi = (b + 1) * bs > hi ? (b + 1) * bs : hi;
	}
	closedir(d);
	if (!hi)
		return -ENOENT;
	*start = lo;
	*end = hi;
	return 0;
}

static int put(const char *rel, const char *value, char *why, size_t whylen)
{
	char path[512];
	int rc;

	snprintf(path, sizeof(path), KDS "%s", rel);
	if ((rc = tl_ktier_write(path, value)))
		snprintf(why, whylen, "cannot configure DAMON: '%s' into %s: %s", value, path, strerror(-rc));
	return rc;
}

static int putf(char *why, size_t whylen, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int putf(char *why, size_t whylen, const char *value, const char *fmt, ...)
{
	char rel[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	return put(rel, value, why, whylen);
}

/* Scheme s: action, target node, access pattern, quota. */
static int scheme(int s, const char *action, int target, const char *acc_min, const char *acc_max,
		  const char *age_min, char (*p)[32], char *why, size_t whylen)
{
	char num[32];
	unsigned long long quota = strtoull(p[TL_DAMOS_QUOTA_MB], NULL, 10) << 20;
	int rc;

	snprintf(num, sizeof(num), "%d", target);
	rc = putf(why, whylen, action, CTX "/schemes/%d/action", s);
	rc = rc ?: putf(why, whylen, num, CTX "/schemes/%d/target_nid", s);
	rc = rc ?: putf(why, whylen, "0", CTX "/schemes/%d/access_pattern/sz/min", s);
	rc = rc ?: putf(why, whylen, "18446744073709551615", CTX "/schemes/%d/access_pattern/sz/max", s);
	rc = rc ?: putf(why, whylen, acc_min, CTX "/schemes/%d/access_pattern/nr_accesses/min", s);
	rc = rc ?: putf(why, whylen, acc_max, CTX "/schemes/%d/access_pattern/nr_accesses/max", s);
	rc = rc ?: putf(why, whylen, age_min, CTX "/schemes/%d/access_pattern/age/min", s);
	rc = rc ?: putf(why, whylen, "4294967295", CTX "/schemes/%d/access_pattern/age/max", s);
	rc = rc ?: putf(why, whylen, p[TL_DAMOS_APPLY_US], CTX "/schemes/%d/apply_interval_us", s);
	if (quota) {
		snprintf(num, sizeof(num), "%llu", quota);
		rc = rc ?: putf(why, whylen, num, CTX "/schemes/%d/quotas/bytes", s);
		rc = rc ?: putf(why, whylen, "1000", CTX "/schemes/%d/quotas/reset_interval_ms", s);
	}
	rc = rc ?: putf(why, whylen, "none", CTX "/schemes/%d/watermarks/metric", s);
	return rc;
}

int tl_ktier_damos_begin(struct tl_ktier *k, const char *args, char *why, size_t whylen)
{
	const struct tlp_param *params = tl_policy_params("damos");
	char p[TL_DAMOS__COUNT][32], max[32], lo[32], hi[32], entry[256], pid[32];
	unsigned long long fs, fe, ss, se;
	int rc;

	for (int i = 0; i < TL_DAMOS__COUNT; i++)
		if (!tl_ktier_arg(args, params[i].name, p[i], sizeof(p[i])))
			snprintf(p[i], sizeof(p[i]), "%s", params[i].def);
	if (node_range(k->fast, &fs, &fe) || node_range(k->slow, &ss, &se)) {
		snprintf(why, whylen, "cannot tell the physical ranges of nodes %d and %d (their memory blocks)",
			 k->fast, k->slow);
		return -ENOENT;
	}
	/* the most accesses a region can show in an aggregation: one per sampling interval */
	snprintf(max, sizeof(max), "%llu", strtoull(p[TL_DAMOS_AGGR_US], NULL, 10) / (strtoull(p[TL_DAMOS_SAMPLE_US], NULL, 10) ?: 1));
	snprintf(lo, sizeof(lo), "%llu", fs < ss ? fs : ss);
	snprintf(hi, sizeof(hi), "%llu", fe > se ? fe : se);
	snprintf(entry, sizeof(entry), "D %s 0", KDS);
	if ((rc = tl_journal_note(&k->journal, entry, why, whylen)))
		return rc;
	rc = put("/nr_kdamonds", "1", why, whylen);
	rc = rc ?: put("/0/contexts/nr_contexts", "1", why, whylen);
	rc = rc ?: put(CTX "/operations", "paddr", why, whylen);
	rc = rc ?: put(CTX "/monitoring_attrs/intervals/sample_us", p[TL_DAMOS_SAMPLE_US], why, whylen);
	rc = rc ?: put(CTX "/monitoring_attrs/intervals/aggr_us", p[TL_DAMOS_AGGR_US], why, whylen);
	rc = rc ?: put(CTX "/targets/nr_targets", "1", why, whylen);
	rc = rc ?: put(CTX "/targets/0/regions/nr_regions", "1", why, whylen);
	rc = rc ?: put(CTX "/targets/0/regions/0/start", lo, why, whylen);
	rc = rc ?: put(CTX "/targets/0/regions/0/end", hi, why, whylen);
	rc = rc ?: put(CTX "/schemes/nr_schemes", "2", why, whylen);
	rc = rc ?: scheme(0, "migrate_hot", k->fast, p[TL_DAMOS_HOT_MIN], max, "0", p, why, whylen);
	rc = rc ?: scheme(1, "migrate_cold", k->slow, "0", p[TL_DAMOS_COLD_MAX], p[TL_DAMOS_COLD_AGE], p, why, whylen);
	if (rc)
		return rc;
	if ((rc = put("/0/state", "on", why, whylen)))
		return rc;
	if (!tl_ktier_read(KDS "/0/pid", pid, sizeof(pid))) {
		snprintf(entry, sizeof(entry), "D %s %s", KDS, pid);
		rc = tl_journal_note(&k->journal, entry, why, whylen);
	}
	return rc;
}

int tl_ktier_damos_stats(struct tl_ktier *k)
{
	static const char *const names[] = { "nr_tried", "sz_tried", "nr_applied", "sz_applied", "qt_exceeds" };
	char path[256], v[64];
	int rc;

	if ((rc = tl_ktier_write(KDS "/0/state", "update_schemes_stats")))
		return rc;
	for (int s = 0; s < 2; s++) {
		struct tl_damos_stats *st = s ? &k->cold : &k->hot;
		uint64_t *f[] = { &st->nr_tried, &st->sz_tried, &st->nr_applied, &st->sz_applied, &st->qt_exceeds };

		for (int i = 0; i < 5; i++) {
			snprintf(path, sizeof(path), KDS CTX "/schemes/%d/stats/%s", s, names[i]);
			if ((rc = tl_ktier_read(path, v, sizeof(v))))
				return rc;
			*f[i] = strtoull(v, NULL, 10);
		}
	}
	return 0;
}
