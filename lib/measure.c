/*
 * Measurements around a run (see measure.h): the runner calls started
 * while the child is corked, tick while it runs, finished after the reap.
 */
#include "measure.h"

#include <string.h>

static int started(pid_t pid, void *arg)
{
	struct tl_measure *m = arg;

	m->ran = true;
	tl_vmstat_release(&m->before);
	tl_vmstat_release(&m->after);
	tl_vmstat_snapshot(&m->before, NULL);
	tl_procpeak_init(&m->peak);
	return tl_counters_open(&m->counters, pid);
}

static void tick(pid_t pid, void *arg)
{
	struct tl_measure *m = arg;

	tl_procpeak_sample(&m->peak, pid);
}

static void finished(pid_t pid, void *arg)
{
	struct tl_measure *m = arg;

	(void)pid;
	tl_counters_read(&m->counters);
	tl_vmstat_snapshot(&m->after, NULL);
}

int tl_measure_init(struct tl_measure *m, char *const *events, size_t nevents)
{
	memset(m, 0, sizeof(*m));
	tl_counters_init(&m->counters);
	m->hooks.started = started;
	m->hooks.tick = tick;
	m->hooks.finished = finished;
	m->hooks.arg = m;
	m->hooks.tick_ms = 100;
	return nevents ? tl_counters_add_list(&m->counters, (const char *const *)events, nevents) : 0;
}

void tl_measure_reset(struct tl_measure *m)
{
	m->ran = false;
}

int tl_measure_store(struct tl_measure *m, struct tl_store *st, int64_t run_id)
{
	int rc;

	if (!m->ran)
		return 0;
	rc = tl_counters_store(st, run_id, &m->counters);

	/* a run that never started has no snapshots: nothing to write */
	if (!rc && m->before.n && m->after.n)
		rc = tl_vmstat_store(st, run_id, &m->before, &m->after);
	if (!rc)
		rc = tl_procpeak_store(st, run_id, &m->peak);
	return rc;
}

void tl_measure_release(struct tl_measure *m)
{
	tl_counters_release(&m->counters);
	tl_vmstat_release(&m->before);
	tl_vmstat_release(&m->after);
	memset(m, 0, sizeof(*m));
}
