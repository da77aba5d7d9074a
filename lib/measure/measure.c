/*
 * Measurements around a run (see measure.h): started while the child is
 * corked, tick while it runs, finished after the reap.
 */
#include "measure/measure.h"
#include "store/result.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "util/array.h"

void tl_measure_program(struct tl_measure *m, const char *program, char *const *envp)
{
	m->host_rc = m->host_rc ?: tl_env_put_program(&m->host, program);
	m->host_rc = m->host_rc ?: tl_env_put_variables(&m->host, envp);
}

int tl_measure_started(struct tl_measure *m, pid_t pid)
{
	m->ran = true;
	/* before the counters and the child: what else was running, and how fast the CPUs were clocked */
	tl_host_load_read(&m->load_before);
	m->host_rc = m->host_rc ?: tl_env_put_cpufreq(&m->host);
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
/*
 * The glibc allocators (glibc-thp, glibc-hugetlb) are glibc told by a
 * tunable: what the workload's process really got in its environment
 * (a wrapper script may have dropped it) is what says it was asked.
 */
static void glibc_tunable(struct tl_measure *m, pid_t pid)
{
	char path[64], env[65536];
	bool in = false;
	size_t n;
	FILE *f;

	m->glibc_hugetlb[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if (!(f = fopen(path, "r")))
		return;
	n = fread(env, 1, sizeof(env) - 1, f);
	fclose(f);
	env[n] = '\0';
	/*
	 * glibc before 2.38 parses the variable in place and leaves a NUL after
	 * each tunable, so the ones after the first read as entries of their
	 * own ("glibc.malloc.hugetlb=1") that follow it
	 */
	for (size_t i = 0; i < n; i += strlen(env + i) + 1) {
		const char *t = env + i;

		if (!strncmp(t, "GLIBC_TUNABLES=", 15))
			in = true;
		else if (strncmp(t, "glibc.", 6))
			in = false;
		/* the last setting wins, as glibc reads them in order */
		for (; in && (t = strstr(t, "glibc.malloc.hugetlb=")); t += 21)
			snprintf(m->glibc_hugetlb, sizeof(m->glibc_hugetlb), "%.*s", (int)strcspn(t + 21, ":"), t + 21);
	}
}

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
	while (fgets(line, sizeof(line), f)) {
		for (int i = 0; libs[i]; i++)
			seen[i] |= strstr(line, libs[i]) != NULL;
		m->hugetlb_mapped |= strstr(line, "/anon_hugepage") != NULL;
	}
	fclose(f);
	glibc_tunable(m, pid);
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
	tl_host_load_read(&m->load_after);
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
	tl_env_release(&m->host);
	m->host_rc = 0;
	m->ran = false;
	m->vmstat_rc = 0;
	m->maps_checked = false;
	m->mapped[0] = '\0';
	m->glibc_hugetlb[0] = '\0';
	m->hugetlb_mapped = false;
}

/* "0.52 0.61 0.70", or "unreadable" */
static void loadavg_text(const struct tl_host_load *l, char *buf, size_t len)
{
	if (isnan(l->load[0]))
		snprintf(buf, len, "unreadable");
	else
		snprintf(buf, len, "%.2f %.2f %.2f", l->load[0], l->load[1], l->load[2]);
}

static int record_host(const struct tl_measure *m, struct tl_run_record *r)
{
	char before[64], after[64];
	int rc = 0;

	/* numbers the report reads (a busy host) as metrics; unreadable ones are left out, never 0 */
	if (!isnan(m->load_before.load[0]))
		rc = tl_record_add_metric(r, "host.load1_before", m->load_before.load[0], NULL);
	if (!rc && !isnan(m->load_after.load[0]))
		rc = tl_record_add_metric(r, "host.load1_after", m->load_after.load[0], NULL);
	if (!rc && m->load_before.running >= 0)
		rc = tl_record_add_metric(r, "host.running_before", (double)m->load_before.running, NULL);
	if (!rc && m->load_after.running >= 0)
		rc = tl_record_add_metric(r, "host.running_after", (double)m->load_after.running, NULL);
	if (!rc && m->load_before.cpus > 0)
		rc = tl_record_add_metric(r, "host.cpus", (double)m->load_before.cpus, NULL);
	loadavg_text(&m->load_before, before, sizeof(before));
	loadavg_text(&m->load_after, after, sizeof(after));
	rc = rc ?: tl_env_put(&r->env, "host.loadavg_before", before);
	rc = rc ?: tl_env_put(&r->env, "host.loadavg_after", after);
	for (size_t i = 0; i < m->host.n && !rc; i++)
		rc = tl_env_put(&r->env, m->host.v[i].key, m->host.v[i].value);
	return rc;
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
	if (!rc && m->maps_checked && m->glibc_hugetlb[0])
		rc = tl_env_put(&r->env, "allocator.glibc_hugetlb", m->glibc_hugetlb);
	if (!rc && m->maps_checked && (m->glibc_hugetlb[0] || m->hugetlb_mapped))
		rc = tl_env_put(&r->env, "allocator.hugetlb_mapped", m->hugetlb_mapped ? "yes" : "no");
	return rc ?: m->host_rc ?: record_host(m, r);
}

void tl_measure_release(struct tl_measure *m)
{
	tl_env_release(&m->host);
	tl_counters_release(&m->counters);
	tl_vmstat_release(&m->before);
	tl_vmstat_release(&m->after);
	memset(m, 0, sizeof(*m));
}
