/*
 * What a kernel policy needs of the machine, checked before a plan runs
 * and without changing anything: root, a kernel recent enough, the
 * features it was built with (told by the running kernel itself: its
 * /proc/sys and /sys files and its symbols, as no config file need be
 * installed), memory tiers that put the fast node above the slow one,
 * DAMON free of anyone else's kdamond, and a budget the fast node can
 * hold. Each refusal says which piece is missing.
 */
#include "ktier/ktier.h"
#include "axis/axis.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "util/units.h"

#define TIERS "/sys/devices/virtual/memory_tiering"
#define DAMON_ADMIN "/sys/kernel/mm/damon/admin/kdamonds"

/* Appends one missing piece to why ("; " between), so a refusal names them all; returns err. */
static int refuse(char *why, size_t whylen, int err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int refuse(char *why, size_t whylen, int err, const char *fmt, ...)
{
	size_t n = strnlen(why, whylen);
	va_list ap;

	if (n && n + 2 < whylen) {
		strcpy(why + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(why + n, whylen - n, fmt, ap);
	va_end(ap);
	return err;
}

enum tl_ktier_kind tl_ktier_kind(const char *policy)
{
	switch (tl_policy_kernel(policy)) {
	case TL_KERNEL_AUTONUMA:
		return TL_KTIER_AUTONUMA;
	case TL_KERNEL_DAMOS:
		return TL_KTIER_DAMOS;
	}
	switch (tl_policy_mempolicy(policy)) {
	case TL_MEMPOL_PREFERRED:
		return TL_KTIER_PREFERRED;
	case TL_MEMPOL_INTERLEAVE:
		return TL_KTIER_INTERLEAVE;
	case TL_MEMPOL_WEIGHTED:
		return TL_KTIER_WEIGHTED;
	}
	return TL_KTIER_NONE;
}

/* One node, as a kernel policy's promotion or demotion target; -1 otherwise. */
int tl_ktier_one_node(const char *set)
{
	char *end;
	long n;

	if (!set || !*set)
		return -1;
	n = strtol(set, &end, 10);
	return *end || n < 0 || n > 1023 ? -1 : (int)n;
}

/* The memory tier holding `node` (memory_tierN's N: lower is faster), or -1. */
static int tier_of(int node, char *all, size_t alllen)
{
	DIR *d = opendir(TIERS);
	struct dirent *e;
	int tier = -1;
	size_t n = 0;

	if (all && alllen)
		all[0] = '\0';
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[512], list[128];
		int t;

		if (sscanf(e->d_name, "memory_tier%d", &t) != 1)
			continue;
		snprintf(path, sizeof(path), TIERS "/%s/nodelist", e->d_name);
		if (tl_ktier_read(path, list, sizeof(list)))
			continue;
		if (all && n < alllen)
			n += (size_t)snprintf(all + n, alllen - n, "%s%s: nodes %s", n ? ", " : "", e->d_name, list);
		/* a node list is ranges: "0-1,3" */
		for (char *save = NULL, *r = strtok_r(list, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
			int lo = atoi(r), hi = strchr(r, '-') ? atoi(strchr(r, '-') + 1) : lo;

			if (node >= lo && node <= hi)
				tier = t;
		}
	}
	closedir(d);
	return tier;
}

/* Does the running kernel have a symbol starting with `prefix` (a feature built in)? */
static bool kernel_has_symbol(const char *prefix)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	bool found = false;
	size_t len = strlen(prefix);

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *name = strrchr(line, ' ');

		found = name && !strncmp(name + 1, prefix, len);
	}
	fclose(f);
	return found;
}

bool tl_ktier_kernel_at_least(int major, int minor, char *rel, size_t len)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u))
		return false;
	snprintf(rel, len, "%s", u.release);
	sscanf(u.release, "%d.%d", &ma, &mi);
	return ma > major || (ma == major && mi >= minor);
}

/* DAMON is free when nobody configured a kdamond: writing nr_kdamonds would discard theirs. */
static int check_damon(char *why, size_t whylen)
{
	char v[64], p[256];
	long n;

	if (access(DAMON_ADMIN "/nr_kdamonds", F_OK))
		return refuse(why, whylen, -ENOTSUP, "this kernel has no DAMON sysfs interface "
			      "(CONFIG_DAMON_SYSFS: no %s)", DAMON_ADMIN "/nr_kdamonds");
	if (!kernel_has_symbol("damon_pa_"))
		return refuse(why, whylen, -ENOTSUP, "this kernel's DAMON has no physical-address operations "
			      "(CONFIG_DAMON_PADDR), which migrate_hot and migrate_cold need");
	if (tl_ktier_read(DAMON_ADMIN "/nr_kdamonds", v, sizeof(v)))
		return refuse(why, whylen, -EACCES, "cannot read %s", DAMON_ADMIN "/nr_kdamonds");
	n = strtol(v, NULL, 10);
	for (long i = 0; i < n; i++) {
		char state[32] = "", pid[32] = "";

		snprintf(p, sizeof(p), DAMON_ADMIN "/%ld/state", i);
		tl_ktier_read(p, state, sizeof(state));
		snprintf(p, sizeof(p), DAMON_ADMIN "/%ld/pid", i);
		tl_ktier_read(p, pid, sizeof(pid));
		if (!strcmp(state, "on"))
			return refuse(why, whylen, -EBUSY, "DAMON is busy: kdamond %ld runs (pid %s) and is not "
				      "tierlab's; tierlab never stops or changes a kdamond it did not start", i, pid);
	}
	if (n)
		return refuse(why, whylen, -EBUSY, "DAMON is configured by someone else (nr_kdamonds is %ld, none "
			      "running); tierlab would have to rewrite nr_kdamonds, which discards their kdamonds", n);
	return 0;
}

int tl_ktier_check(const char *policy, const char *args, const char *budget, const char *fast,
		   const char *slow, const struct tl_ktier_bandwidth *bw, char *why, size_t whylen)
{
	enum tl_ktier_kind kind = tl_ktier_kind(policy);
	int f = tl_ktier_one_node(fast), s = tl_ktier_one_node(slow), tf, ts, rc = 0;
	char rel[128], tiers[512], v[160];
	uint64_t bytes = 0, free_bytes;

	(void)args;
	if (whylen)
		why[0] = '\0';
	if (kind == TL_KTIER_NONE)
		return 0;
	if (kind >= TL_KTIER_PREFERRED)
		return tl_ktier_mempolicy_check(kind, policy, args, budget, fast, slow, bw, why, whylen);
	if (geteuid())
		return refuse(why, whylen, -EPERM, "policy '%s' changes the kernel's settings and needs root", policy);
	if (kind == TL_KTIER_AUTONUMA && !tl_ktier_kernel_at_least(6, 1, rel, sizeof(rel)))
		rc = refuse(why, whylen, -ENOTSUP, "policy 'autonuma' needs Linux 6.1 or later (memory-tiering "
			    "NUMA balancing with a promotion rate limit); this is %s", rel);
	if (kind == TL_KTIER_DAMOS && !tl_ktier_kernel_at_least(6, 11, rel, sizeof(rel)))
		rc = refuse(why, whylen, -ENOTSUP, "policy 'damos' needs Linux 6.11 or later (DAMOS actions "
			    "migrate_hot and migrate_cold); this is %s", rel);
	if (access("/proc/sys/kernel/numa_balancing", F_OK) && kind == TL_KTIER_AUTONUMA)
		rc = refuse(why, whylen, -ENOTSUP, "this kernel has no NUMA balancing (CONFIG_NUMA_BALANCING: "
			    "no /proc/sys/kernel/numa_balancing)");
	if (access("/sys/kernel/mm/numa/demotion_enabled", F_OK))
		rc = refuse(why, whylen, -ENOTSUP, "this kernel cannot demote to a lower tier "
			    "(no /sys/kernel/mm/numa/demotion_enabled)");
	if (f < 0 || s < 0)
		return refuse(why, whylen, -EINVAL, "policy '%s' needs one fast node and one slow node "
			      "(machine: {fast: N, slow: M}); given fast '%s', slow '%s'", policy,
			      fast ? fast : "", slow ? slow : "");
	tf = tier_of(f, tiers, sizeof(tiers));
	ts = tier_of(s, NULL, 0);
	if (access(TIERS, F_OK))
		rc = refuse(why, whylen, -ENOTSUP, "this kernel has no memory tiers (no %s)", TIERS);
	else if (tf < 0 || ts < 0)
		rc = refuse(why, whylen, -ENODEV, "node %d is in no memory tier (%s)", tf < 0 ? f : s,
			    tiers[0] ? tiers : "none");
	else if (tf >= ts)
		rc = refuse(why, whylen, -ENOTSUP, "the kernel does not rank fast node %d above slow node %d "
			    "(%s): it would never promote to node %d nor demote to node %d", f, s, tiers, f, s);
	if (kind == TL_KTIER_DAMOS) {
		char damon[512] = "";
		int r = check_damon(damon, sizeof(damon));

		if (r)
			rc = refuse(why, whylen, r, "%s", damon);
	}
	if (!budget || strchr(budget, '%') || tl_parse_size(budget, &bytes) || !bytes)
		return refuse(why, whylen, -EINVAL, "policy '%s' needs a budget in bytes (budget: 24MiB; '%s' "
			      "given): it is what the fast node keeps free for the run", policy, budget ? budget : "none");
	free_bytes = tl_ktier_node_free(f);
	if (free_bytes < bytes)
		rc = refuse(why, whylen, -ENOMEM, "fast node %d has %llu MiB free, less than the budget %s",
			    f, (unsigned long long)(free_bytes >> 20), budget);
	snprintf(v, sizeof(v), "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages", f);
	if (access(v, W_OK))
		rc = refuse(why, whylen, -ENOTSUP, "cannot bind the budget: no 2 MiB huge pages on node %d (%s)",
			    f, v);
	return rc;
}
