/*
 * Machine profiles: a probe saved under a name (table machine_profiles,
 * schema 2) so a spec can say `machine: NAME` and take its node sets from
 * what was measured. The stored form is the probe's JSON; the store reads
 * the node sets back with SQLite's JSON functions, so no second parser of
 * our own format exists.
 */
#include "probe/probe.h"

#include <errno.h>
#include <numa.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "util/error.h"
#include "store/query.h"
#include "util/nodeset.h"

int tl_probe_profile_save(struct tl_store *st, const char *name, const struct tl_probe *p)
{
	char *json = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	f = open_memstream(&json, &len);
	if (!f)
		return -ENOMEM;
	rc = tl_probe_print_json(p, f);
	if (fclose(f) || rc) {
		free(json);
		return -ENOMEM;
	}
	rc = tl_store_save_profile(st, name, json);
	free(json);
	return rc;
}

int tl_probe_profile_load(struct tl_store *st, const char *name, char **json)
{
	return tl_store_profile(st, name, json);
}

int tl_probe_profile_bandwidth(struct tl_store *st, const char *name, const char *set, double *gbs)
{
	struct bitmask *bm = tl_nodeset_parse(set);
	double sum = 0, one;
	int n = 0, rc = 0;

	*gbs = 0;
	if (!bm)
		return 0;
	for (int node = 0; !rc && node <= numa_max_node(); node++) {
		if (!numa_bitmask_isbitset(bm, (unsigned)node))
			continue;
		rc = tl_store_profile_read_gbs(st, name, node, &one);
		if (!rc && !(one > 0)) {
			n = 0;
			break;
		}
		sum += one;
		n++;
	}
	numa_bitmask_free(bm);
	if (!rc && n)
		*gbs = sum / n;
	return rc;
}

int tl_probe_profile_nodes(struct tl_store *st, const char *name, char **fast, char **slow)
{
	int rc = tl_store_profile_nodes(st, name, fast, slow);

	if (!rc && !*fast) {
		free(*slow);
		*slow = NULL;
		error("machine profile '%s' has no fast node set (no node with memory was probed)", name);
		rc = -EINVAL;
	}
	return rc;
}
