/*
 * Machine profiles: a probe saved under a name (table machine_profiles,
 * schema 2) so a spec can say `machine: NAME` and take its node sets from
 * what was measured. The stored form is the probe's JSON; the store reads
 * the node sets back with SQLite's JSON functions, so no second parser of
 * our own format exists; run/spec-plan.c takes them for `machine: NAME`.
 */
#include "probe/probe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "store/query.h"

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
