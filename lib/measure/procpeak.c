/*
 * Sampling a process tree's memory footprint from /proc (see procpeak.h).
 * Files are read with one read() into a stack buffer, without stdio or
 * allocation, because this runs every tick next to a workload being timed.
 */
#include "measure/procpeak.h"
#include "util/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "store/result.h"
#include "util/array.h"

/* Enough for a fork-and-wait driver and its ranks; a bigger tree is sampled in part. */
#define MAX_PROCS 64
/* smaps_rollup may take at most this share of the run's time. */
#define SMAPS_SHARE 0.01

struct footprint {
	uint64_t vmpte, vmrss, vmhwm, hugetlb, anon_huge;
};

void tl_procpeak_init(struct tl_procpeak *p)
{
	memset(p, 0, sizeof(*p));
}

/* Reads a small /proc file into buf (NUL-terminated); its length or -errno. */
static ssize_t slurp(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

/* The value of "Key:   123 kB" in bytes, 0 when absent. */
static uint64_t field_kb(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return strtoull(p + klen + 1, NULL, 10) * 1024;
	return 0;
}

/* Adds one process's status (and smaps_rollup when asked); -errno when it is gone. */
static int add_process(pid_t pid, bool smaps, struct footprint *fp)
{
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (slurp(path, buf, sizeof(buf)) <= 0)
		return -ENOENT;
	/* A zombie, or a kernel thread: no memory of its own. */
	if (!strstr(buf, "\nVmRSS:"))
		return -ENOENT;
	fp->vmpte += field_kb(buf, "VmPTE");
	fp->vmrss += field_kb(buf, "VmRSS");
	fp->vmhwm += field_kb(buf, "VmHWM");
	fp->hugetlb += field_kb(buf, "HugetlbPages");
	if (smaps) {
		snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
		if (slurp(path, buf, sizeof(buf)) > 0)
			fp->anon_huge += field_kb(buf, "AnonHugePages");
	}
	return 0;
}

/* Appends the children of every thread of pid to list (up to MAX_PROCS). */
static void add_children(pid_t pid, pid_t *list, size_t *n)
{
	char path[64], buf[4096];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && *n < MAX_PROCS) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children", (int)pid, de->d_name);
		if (slurp(path, buf, sizeof(buf)) <= 0)
			continue;
		for (char *p = buf, *end; *p && *n < MAX_PROCS; p = end) {
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			list[(*n)++] = (pid_t)c;
		}
	}
	closedir(d);
}

int tl_procpeak_sample(struct tl_procpeak *p, pid_t pid)
{
	pid_t procs[MAX_PROCS];
	struct footprint fp = { 0 };
	size_t n = 1, seen = 0;
	double t0 = tl_mono_s(), cost;
	bool smaps = !p->no_smaps && t0 >= p->smaps_next;

	procs[0] = pid;
	/* Breadth first: the list grows as each process's children are appended. */
	for (size_t i = 0; i < n; i++) {
		if (add_process(procs[i], smaps, &fp)) {
			if (i == 0)
				return -ENOENT;
			continue;
		}
		seen++;
		add_children(procs[i], procs, &n);
	}
	p->samples++;
	if (seen > p->procs)
		p->procs = (unsigned)seen;
#define PEAK(f) do { if (fp.f > p->f) p->f = fp.f; } while (0)
	PEAK(vmpte);
	PEAK(vmrss);
	PEAK(vmhwm);
	PEAK(hugetlb);
	if (smaps) {
		PEAK(anon_huge);
		p->smaps_samples++;
		cost = tl_mono_s() - t0;
		p->smaps_next = t0 + cost / SMAPS_SHARE;
	}
#undef PEAK
	return 0;
}

int tl_procpeak_metrics(const struct tl_procpeak *p, struct tl_metric **out, size_t *n)
{
	const struct {
		const char *name;
		uint64_t value;
		bool valid;
	} rows[] = {
		{ "proc.vmpte_peak", p->vmpte, true },
		{ "proc.vmrss_peak", p->vmrss, true },
		{ "proc.vmhwm_peak", p->vmhwm, true },
		{ "proc.hugetlb_peak", p->hugetlb, true },
		{ "proc.anonhugepages_peak", p->anon_huge, p->smaps_samples > 0 },
		{ "proc.samples", p->samples, true },
	};
	size_t nrows = ARRAY_SIZE(rows), k = 0;
	struct tl_metric *m;

	*out = NULL;
	*n = 0;
	if (!p->samples)
		return 0;
	m = calloc(nrows, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < nrows; i++) {
		bool count = !strcmp(rows[i].name, "proc.samples");

		if (!rows[i].valid)
			continue;
		m[k].name = strdup(rows[i].name);
		m[k].unit = count ? NULL : strdup("B");
		m[k].value = (double)rows[i].value;
		if (!m[k].name || (!count && !m[k].unit)) {
			tl_metrics_free(m, k + 1);
			return -ENOMEM;
		}
		k++;
	}
	*out = m;
	*n = k;
	return 0;
}

int tl_procpeak_record(const struct tl_procpeak *p, struct tl_run_record *r)
{
	struct tl_metric *m;
	size_t n;
	int rc;

	rc = tl_procpeak_metrics(p, &m, &n);
	for (size_t i = 0; !rc && i < n; i++)
		rc = tl_record_add_metric(r, m[i].name, m[i].value, m[i].unit);
	tl_metrics_free(m, n);
	return rc;
}
