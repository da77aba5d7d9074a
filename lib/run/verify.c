/*
 * A run that ended ok measured what it was meant to only if the tiering
 * runtime and the allocator it asked for did serve it; one that did not
 * is failed with the reason.
 */
#include "run/verify.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/*
 * The last line the runtime said on the run's stderr ("tiermem: ..."), for
 * a failure's reason: standing aside is the last thing it says (notes such
 * as "both node 0" may come before).
 */
static void runtime_said(const char *out_dir, char *buf, size_t len)
{
	char path[PATH_MAX + 16], line[320];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/stderr.txt", out_dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "tiermem: ", 9)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, ": %.300s", line);
		}
	}
	fclose(f);
}

/*
 * A run meant to be tiered must have been: the runtime leaves a counters
 * file when it starts, removes it when it stands aside (a bad variable, a
 * policy it could not load, a sampler it could not start) and counts the
 * allocations it managed; a program none of whose allocations reached the
 * threshold never even loaded the policy. Such a run measured something
 * else and must not pass as ok.
 */
static void check_runtime(const struct tl_config *c, const char *out_dir, const struct tl_ingest *ing,
			  struct tl_run_result *res)
{
	const char *policy = c->values[TL_AXIS_POLICY];
	const char *log = c->values[TL_AXIS_LOG];
	const char *threshold = c->values[TL_AXIS_THRESHOLD] ? c->values[TL_AXIS_THRESHOLD] : tl_axes[TL_AXIS_THRESHOLD].def;
	/* a memory policy of scope managed is the runtime's to apply: unmanaged, the run had none */
	bool managed = tl_policy_managed_scope(policy, c->values[TL_AXIS_POLICY_ARGS]);
	char said[360];

	if (res->status != TL_STATUS_OK || !policy || !(tl_policy_uses_runtime(policy) || managed) ||
	    (log && !strcmp(log, "none")) || (ing->runtime_seen && ing->allocs))
		return;
	runtime_said(out_dir, said, sizeof(said));
	res->status = TL_STATUS_FAILED;
	if (ing->runtime_seen)
		snprintf(res->error, sizeof(res->error), "the tiering runtime managed no allocation (none "
			 "reached the threshold %s), so the policy never ran%s", threshold, said);
	else
		snprintf(res->error, sizeof(res->error), "the tiering runtime did not manage this run (no "
			 "counters file: it stood aside, or no allocation reached the threshold %s)%s",
			 threshold, said);
}

/*
 * The allocator asked for must be the one that served: the FAT allocator
 * leaves a status file once it serves, and a preloaded library shows in
 * the workload's mappings (when the run lasted long enough to look).
 */
static void check_allocator(const struct tl_config *c, const struct tl_measure *meas,
			    const struct tl_ingest *ing, struct tl_run_result *res)
{
	const char *a = c->values[TL_AXIS_ALLOCATOR];
	const struct tl_allocator_info *al = tl_allocator_find(a);
	char lib[64];

	if (res->status != TL_STATUS_OK || !al)
		return;
	if (al->hugetlb) {
		/* glibc told by a tunable: the workload's own environment must carry it */
		if (!meas->maps_checked || !strcmp(meas->glibc_hugetlb, al->hugetlb))
			return;
		res->status = TL_STATUS_FAILED;
		snprintf(res->error, sizeof(res->error), "allocator '%s' did not serve this run (the workload's "
			 "GLIBC_TUNABLES has glibc.malloc.hugetlb=%s, not %s)", a,
			 meas->glibc_hugetlb[0] ? meas->glibc_hugetlb : "unset", al->hugetlb);
		return;
	}
	/* tierlab's own allocator (fat) writes what backs it once it serves */
	if (!al->lib || (!al->package && ing->allocator_backing))
		return;
	/* the maps name libraries without their version: "libjemalloc.so.2" is "libjemalloc" there */
	snprintf(lib, sizeof(lib), "%.*s", (int)strcspn(al->lib, "."), al->lib);
	if (!meas->maps_checked || strstr(meas->mapped, lib))
		return;
	res->status = TL_STATUS_FAILED;
	snprintf(res->error, sizeof(res->error), "allocator '%s' did not serve this run (%s.so was not "
		 "mapped in the workload; mapped: %s)", a, lib, meas->mapped[0] ? meas->mapped : "none");
}

void tl_verify_run(const struct tl_config *c, const char *out_dir, const struct tl_measure *meas,
		   const struct tl_ingest *ing, struct tl_run_result *res)
{
	check_runtime(c, out_dir, ing, res);
	check_allocator(c, meas, ing, res);
}
