/*
 * /proc/vmstat snapshots and their deltas (see vmstat.h). The families are
 * chosen by prefix, not by a fixed list of names, because each kernel
 * release adds some (pgpromote_candidate_nrl, pgdemote_proactive, ...) and
 * a result should carry whatever the kernel it ran on could tell.
 */
#include "measure/vmstat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"
#include "store/result.h"
#include "util/array.h"

static const char *const families[] = { "pgmigrate_", "numa_", "pgpromote_", "pgdemote_", "thp_" };

/*
 * Counters of those families that count something other than base pages:
 * every thp_* counts huge pages or operations on them, hint faults are
 * faults, and numa_huge_pte_updates counts PMDs.
 */
static const char *const event_prefixes[] = { "thp_", "numa_hint_faults", "numa_huge_pte_updates" };

int tl_vmstat_wanted(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		if (!strncmp(name, families[i], strlen(families[i])))
			return 1;
	return 0;
}

const char *tl_vmstat_unit(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(event_prefixes); i++)
		if (!strncmp(name, event_prefixes[i], strlen(event_prefixes[i])))
			return "events";
	return "pages";
}

void tl_vmstat_release(struct tl_vmstat *snap)
{
	free(snap->v);
	snap->v = NULL;
	snap->n = 0;
}

int tl_vmstat_snapshot(struct tl_vmstat *snap, const char *path)
{
	struct tl_vmstat_value *v = NULL, *grown;
	size_t n = 0, cap = 0;
	char name[128];
	uint64_t value;
	FILE *f;
	int rc = 0;

	if (!path)
		path = "/proc/vmstat";
	f = fopen(path, "r");
	if (!f) {
		rc = -errno;
		error("cannot read '%s': %s", path, strerror(-rc));
		return rc;
	}
	while (fscanf(f, "%127s %" SCNu64, name, &value) == 2) {
		if (!tl_vmstat_wanted(name) || strlen(name) >= sizeof(v->name))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				rc = -ENOMEM;
				goto close_file;
			}
			v = grown;
		}
		memcpy(v[n].name, name, strlen(name) + 1);
		v[n].value = value;
		n++;
	}
	if (ferror(f)) {
		rc = -EIO;
		error("cannot read '%s': %s", path, strerror(errno));
	}
close_file:
	fclose(f);
	if (rc) {
		free(v);
		return rc;
	}
	tl_vmstat_release(snap);
	snap->v = v;
	snap->n = n;
	return 0;
}

int tl_vmstat_get(const struct tl_vmstat *snap, const char *name, uint64_t *value)
{
	for (size_t i = 0; i < snap->n; i++)
		if (!strcmp(snap->v[i].name, name)) {
			*value = snap->v[i].value;
			return 0;
		}
	return -ENOENT;
}

int tl_vmstat_metrics(const struct tl_vmstat *before, const struct tl_vmstat *after,
		      struct tl_metric **out, size_t *n)
{
	struct tl_metric *m;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	m = calloc(after->n ? after->n : 1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < after->n; i++) {
		const struct tl_vmstat_value *a = &after->v[i];
		uint64_t b;
		char *name, *unit;

		/* A counter the kernel grew between the snapshots has no start value. */
		if (tl_vmstat_get(before, a->name, &b))
			continue;
		if (asprintf(&name, "vmstat.%s", a->name) < 0)
			goto oom;
		unit = strdup(tl_vmstat_unit(a->name));
		if (!unit) {
			free(name);
			goto oom;
		}
		m[k].name = name;
		m[k].unit = unit;
		/* Signed: these counters only grow, but a wrong pair of snapshots must not show 1.8e19. */
		m[k].value = (double)(int64_t)(a->value - b);
		k++;
	}
	*out = m;
	*n = k;
	return 0;
oom:
	tl_metrics_free(m, k);
	return -ENOMEM;
}

int tl_vmstat_record(const struct tl_vmstat *before, const struct tl_vmstat *after, struct tl_run_record *r)
{
	struct tl_metric *m;
	size_t n;
	int rc;

	rc = tl_vmstat_metrics(before, after, &m, &n);
	for (size_t i = 0; !rc && i < n; i++)
		rc = tl_record_add_metric(r, m[i].name, m[i].value, m[i].unit);
	tl_metrics_free(m, n);
	return rc;
}
