/*
 * Finding the PMU behind the perf sampler (perf-pmu.h). AMD and Arm name
 * their sampling PMUs in sysfs, with the bit positions of each option in
 * format files, so those are read there, as perf does. Intel's events
 * differ by core generation, so they are encoded by libpfm4, which knows
 * which names this core has (pfm_get_os_event_encoding, as lib/counters.c
 * does). The sampler uses PEBS load latency, as `perf mem` does: loads
 * that took 128 cycles or more, each recorded with its data
 * address on every generation that has PEBS-LL (precise LLC-miss events
 * such as MEM_LOAD_RETIRED.L3_MISS carry one only from Haswell on, and
 * libpfm4 encodes them for older cores too, where every address would be
 * 0). 128 cycles is past an L3 hit on current cores: what is left are
 * loads served from memory, and L3 hits delayed by contention.
 */
#include "tiermem/perf-pmu.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPE_PERIOD (1ULL << 18)	/* operations between SPE samples: a few thousand records per second per busy CPU */

/* The load-latency event under its names, newest cores first. */
static const char *const pebs_events[] = {
	"MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=128",		/* Haswell and later */
	"MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=128",	/* Sandy Bridge, Ivy Bridge */
	"MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=128",	/* Nehalem, Westmere */
};

/* A sysfs file's first line, without its newline: its length, or -errno. */
static int read_line(char *buf, size_t len, const char *fmt, const char *a, const char *b, const char *c)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), fmt, a, b, c);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return (int)strlen(buf);
}

int tlrt_perf_sysctl(const char *name, long *value)
{
	char buf[32], *end;
	int n = read_line(buf, sizeof(buf), "%s%s%s", "/proc/sys/kernel/", name, "");

	if (n <= 0)
		return n < 0 ? n : -EINVAL;
	*value = strtol(buf, &end, 10);
	return *end ? -EINVAL : 0;
}

static int read_type(const char *devices, const char *dev, uint32_t *type)
{
	char buf[32], *end;
	unsigned long v;

	if (read_line(buf, sizeof(buf), "%s/%s/%s", devices, dev, "type") <= 0)
		return -ENOENT;
	v = strtoul(buf, &end, 10);
	if (*end || end == buf)
		return -EINVAL;
	*type = (uint32_t)v;
	return 0;
}

int tlrt_perf_pmu_format(struct tlrt_perf_pmu *p, const char *devices, const char *field, uint64_t value)
{
	char buf[128], *s, *end, *colon;
	uint64_t *word, bits = 0;
	unsigned vbit = 0;

	if (read_line(buf, sizeof(buf), "%s/%s/format/%s", devices, p->dev, field) < 0)
		return -ENOENT;
	if (!(colon = strchr(buf, ':')))
		return -EINVAL;
	*colon = '\0';
	if (!strcmp(buf, "config"))
		word = &p->config;
	else if (!strcmp(buf, "config1"))
		word = &p->config1;
	else if (!strcmp(buf, "config2"))
		word = &p->config2;
	else
		return -EINVAL;
	/* "lo" or "lo-hi" ranges, comma-separated; value's bits fill them in order */
	for (s = colon + 1;; s = end + 1) {
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (end == s)
			return -EINVAL;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s)
				return -EINVAL;
		}
		if (hi < lo || hi > 63)
			return -EINVAL;
		for (unsigned long b = lo; b <= hi; b++, vbit++)
			if (vbit < 64 && (value >> vbit & 1))
				bits |= 1ULL << b;
		if (*end != ',')
			break;
	}
	if (*end)
		return -EINVAL;
	*word |= bits;
	return 0;
}

static void pmu_init(struct tlrt_perf_pmu *p, enum tlrt_perf_source source, const char *dev)
{
	memset(p, 0, sizeof(*p));
	p->source = source;
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	p->exclude_kernel = 1;
}

/*
 * IBS op: every Nth dispatched op (cnt_ctl), or, on Zen 4 and later, every
 * Nth that missed the L3 (l3missonly). Without the software privilege
 * filter (swfilt, Linux 6.14) IBS refuses exclude_kernel: kernel-mode
 * samples are then read and flagged, and fall outside managed memory
 * unless a system call touched it.
 */
int tlrt_perf_pmu_ibs(struct tlrt_perf_pmu *p, const char *devices, char *why, size_t whylen)
{
	int l3, err;

	pmu_init(p, TLRT_PERF_IBS, "ibs_op");
	if ((err = read_type(devices, p->dev, &p->type))) {
		snprintf(why, whylen, "perf: no ibs_op PMU in %s", devices);
		return err;
	}
	tlrt_perf_pmu_format(p, devices, "cnt_ctl", 1);
	l3 = !tlrt_perf_pmu_format(p, devices, "l3missonly", 1);
	p->exclude_kernel = !tlrt_perf_pmu_format(p, devices, "swfilt", 1);
	snprintf(p->event, sizeof(p->event), "ibs_op%s", l3 ? " l3missonly" : "");
	return 0;
}

/* SPE: loads and stores (load_filter, store_filter), one op in SPE_PERIOD, jittered. */
int tlrt_perf_pmu_spe(struct tlrt_perf_pmu *p, const char *devices, char *why, size_t whylen)
{
	struct dirent *e;
	char name[64] = "", buf[32];
	DIR *d = opendir(devices);

	/* the first arm_spe_N in name order; an asymmetric machine may have one per core type */
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "arm_spe_", 8) && (!name[0] || strcmp(e->d_name, name) < 0))
			snprintf(name, sizeof(name), "%.63s", e->d_name);
	if (d)
		closedir(d);
	pmu_init(p, TLRT_PERF_SPE, name);
	if (!name[0] || read_type(devices, p->dev, &p->type)) {
		snprintf(why, whylen, "perf: no arm_spe PMU in %s", devices);
		return -ENOENT;
	}
	tlrt_perf_pmu_format(p, devices, "jitter", 1);
	tlrt_perf_pmu_format(p, devices, "load_filter", 1);
	tlrt_perf_pmu_format(p, devices, "store_filter", 1);
	p->aux = 1;
	p->period = SPE_PERIOD;
	if (read_line(buf, sizeof(buf), "%s/%s/%s", devices, p->dev, "caps/min_interval") > 0 &&
	    strtoull(buf, NULL, 10) > p->period)
		p->period = strtoull(buf, NULL, 10);
	snprintf(p->event, sizeof(p->event), "%s loads and stores", p->dev);
	return 0;
}

/* The sysfs directory of the PMU whose type is `type` ("cpu", or "cpu_core" on hybrid parts). */
static void dev_of_type(struct tlrt_perf_pmu *p, const char *devices)
{
	DIR *d = opendir(devices);
	struct dirent *e;
	uint32_t t;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && !read_type(devices, e->d_name, &t) && t == p->type) {
			snprintf(p->dev, sizeof(p->dev), "%.63s", e->d_name);
			break;
		}
	if (d)
		closedir(d);
}

/*
 * libpfm4 is opened only here, when the perf sampler looks for PEBS:
 * linked, its relocated event tables cost every process under the runtime
 * about 2 MiB of resident memory (more than glibc-simple's whole RSS),
 * whatever sampler it uses.
 */
struct pfm_calls {
	pfm_err_t (*initialize)(void);
	const char *(*strerror)(int);
	pfm_err_t (*encode)(const char *, int, pfm_os_t, void *);
};

static int pfm_open(struct pfm_calls *c, char *why, size_t whylen)
{
	void *dl = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);

	if (!dl) {
		snprintf(why, whylen, "perf: cannot load libpfm4: %s", dlerror());
		return -ENOENT;
	}
	*(void **)&c->initialize = dlsym(dl, "pfm_initialize");
	*(void **)&c->strerror = dlsym(dl, "pfm_strerror");
	*(void **)&c->encode = dlsym(dl, "pfm_get_os_event_encoding");
	if (!c->initialize || !c->strerror || !c->encode) {
		snprintf(why, whylen, "perf: libpfm.so.4 lacks pfm_initialize, pfm_strerror or pfm_get_os_event_encoding");
		dlclose(dl);
		return -ENOENT;
	}
	return 0;	/* kept open: libpfm4 keeps its tables for the process's life */
}

int tlrt_perf_pmu_pebs(struct tlrt_perf_pmu *p, const char *devices, char *why, size_t whylen)
{
	struct pfm_calls pfm;
	int rc;

	pmu_init(p, TLRT_PERF_PEBS, "");
	if ((rc = pfm_open(&pfm, why, whylen)))
		return rc;
	rc = pfm.initialize();
	if (rc != PFM_SUCCESS) {
		snprintf(why, whylen, "perf: libpfm4 could not initialise: %s", pfm.strerror(rc));
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(pebs_events) / sizeof(pebs_events[0]); i++) {
		struct perf_event_attr attr;
		pfm_perf_encode_arg_t arg;

		memset(&attr, 0, sizeof(attr));
		memset(&arg, 0, sizeof(arg));
		arg.attr = &attr;
		arg.size = sizeof(arg);
		if (pfm.encode(pebs_events[i], PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
			continue;
		p->type = attr.type;
		p->config = attr.config;
		p->config1 = attr.config1;
		p->config2 = attr.config2;
		p->precise = 2;
		snprintf(p->event, sizeof(p->event), "%s", pebs_events[i]);
		dev_of_type(p, devices);
		/* libpfm4 knows the core from CPUID; a VM may still give the kernel no PMU for it */
		if (!p->dev[0]) {
			snprintf(why, whylen, "perf: libpfm4 encodes %s, but the kernel has no PMU of its type %u",
				 pebs_events[i], (unsigned)p->type);
			return -ENOENT;
		}
		return 0;
	}
	snprintf(why, whylen, "perf: libpfm4 knows no PEBS load-latency event on this CPU");
	return -ENOENT;
}

void tlrt_perf_pmu_page_faults(struct tlrt_perf_pmu *p)
{
	pmu_init(p, TLRT_PERF_PAGE_FAULTS, "");
	p->type = PERF_TYPE_SOFTWARE;
	p->config = PERF_COUNT_SW_PAGE_FAULTS;
	p->period = 1;
	snprintf(p->event, sizeof(p->event), "page-faults (the test vehicle)");
}

int tlrt_perf_pmu_find(struct tlrt_perf_pmu *p, const char *devices, char *why, size_t whylen)
{
	char pebs[200] = "";

	if (!tlrt_perf_pmu_ibs(p, devices, why, whylen) || !tlrt_perf_pmu_spe(p, devices, why, whylen) ||
	    !tlrt_perf_pmu_pebs(p, devices, pebs, sizeof(pebs)))
		return 0;
	snprintf(why, whylen, "perf: no precise memory-access sampling on this CPU (no ibs_op or arm_spe PMU in %s; "
		 "PEBS: %s)", devices, strncmp(pebs, "perf: ", 6) ? pebs : pebs + 6);
	return -ENOENT;
}

int tlrt_perf_pmu_cpus(const struct tlrt_perf_pmu *p, const char *devices, int **cpus)
{
	char buf[4096];
	struct bitmask *set;
	int n = 0;

	if (!p->dev[0] || (read_line(buf, sizeof(buf), "%s/%s/%s", devices, p->dev, "cpus") <= 0 &&
			   read_line(buf, sizeof(buf), "%s/%s/%s", devices, p->dev, "cpumask") <= 0))
		if (read_line(buf, sizeof(buf), "%s%s%s", "/sys/devices/system/cpu/online", "", "") <= 0)
			return -ENOENT;
	if (!(set = numa_parse_cpustring_all(buf)))
		return -EINVAL;
	if (!(*cpus = malloc(sizeof(int) * (numa_bitmask_weight(set) + 1)))) {
		numa_bitmask_free(set);
		return -ENOMEM;
	}
	for (unsigned c = 0; c < set->size; c++)
		if (numa_bitmask_isbitset(set, c))
			(*cpus)[n++] = (int)c;
	numa_bitmask_free(set);
	if (!n) {
		free(*cpus);
		return -ENOENT;
	}
	return n;
}
