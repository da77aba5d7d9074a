/*
 * Measurements around a run (see measure.h): started while the child is
 * corked, tick while it runs, finished after the reap.
 */
#include "measure/measure.h"
#include "store/result.h"

#include <stdio.h>
#include <string.h>
#include "util/array.h"

int tl_measure_started(struct tl_measure *m, pid_t pid)
{
	m->ran = true;
	tl_vmstat_release(&m->before);
	tl_vmstat_release(&m->after);
	m->vmstat_rc = tl_vmstat_snapshot(&m->before, NULL);
	tl_procpeak_init(&m->peak);
	return tl_counters_open(&m->counters, pid);
}

/*
 * Which allocator and runtime libraries the workload really has mapped,
 * read once while it runs: the record says what served it, not what was
 * asked for.
 */
static void check_maps(struct tl_measure *m, pid_t pid)
{
	static const char *const libs[] = { "libtiermem", "libfatalloc", "libjemalloc", "libtcmalloc",
					     "libmimalloc", NULL };
	bool seen[ARRAY_SIZE(libs)] = { 0 };
	char path[64], line[512];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		for (int i = 0; libs[i]; i++)
			seen[i] |= strstr(line, libs[i]) != NULL;
	fclose(f);
	m->mapped[0] = '\0';
	for (int i = 0; libs[i]; i++)
		if (seen[i])
			n += snprintf(m->mapped + n, sizeof(m->mapped) - n, "%s%s", n ? " " : "", libs[i]);
	m->maps_checked = true;
}

void tl_measure_tick(struct tl_measure *m, pid_t pid)
{
	if (!m->maps_checked)
		check_maps(m, pid);
	tl_procpeak_sample(&m->peak, pid);
}

void tl_measure_finished(struct tl_measure *m)
{
	tl_counters_read(&m->counters);
	if (!m->vmstat_rc)
		m->vmstat_rc = tl_vmstat_snapshot(&m->after, NULL);
}

int tl_measure_init(struct tl_measure *m, char *const *events, size_t nevents)
{
	memset(m, 0, sizeof(*m));
	tl_counters_init(&m->counters);
	return nevents ? tl_counters_add_list(&m->counters, (const char *const *)events, nevents) : 0;
}

void tl_measure_reset(struct tl_measure *m)
{
	m->ran = false;
	m->vmstat_rc = 0;
	m->maps_checked = false;
	m->mapped[0] = '\0';
}

int tl_measure_record(const struct tl_measure *m, struct tl_run_record *r)
{
	int rc;

	if (!m->ran)
		return 0;
	/* a record without the vmstat deltas every run has would be stored as whole: not stored (said when it failed) */
	if (m->vmstat_rc)
		return m->vmstat_rc;
	rc = tl_counters_record(&m->counters, r);
	/* a run that never started has no snapshots: nothing to add */
	if (!rc && m->before.n && m->after.n)
		rc = tl_vmstat_record(&m->before, &m->after, r);
	if (!rc)
		rc = tl_procpeak_record(&m->peak, r);
	if (!rc)
		rc = tl_env_put(&r->env, "allocator.mapped", m->maps_checked ? m->mapped :
				"unchecked (the run ended before the first tick)");
	return rc;
}

void tl_measure_release(struct tl_measure *m)
{
	tl_counters_release(&m->counters);
	tl_vmstat_release(&m->before);
	tl_vmstat_release(&m->after);
	memset(m, 0, sizeof(*m));
}
