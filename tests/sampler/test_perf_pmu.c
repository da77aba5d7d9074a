/*
 * Choosing the perf sampler's PMU (lib/tiermem/perf-pmu.c) without one:
 * IBS and SPE from sysfs trees written here (types, format files with
 * single bits, ranges and split ranges, caps, CPU lists), Intel load
 * latency from libpfm4 told to act as given cores (LIBPFM_FORCE_PMU, in a
 * child process: libpfm4 initialises once), the order of the search, and
 * the reason given on this machine when nothing is found.
 */
#include "tiermem/perf-pmu.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[PATH_MAX];

/* Writes root/dir/rel (making its directories) with text and a newline, as sysfs files end. */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", root, dir, rel);
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\n", text);
	fclose(f);
}

static int remove_root(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	if (!root[0])
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	root[0] = '\0';
	return system(cmd) ? -1 : 0;
}

static int fresh_root(void **state)
{
	if (remove_root(state))
		return -1;
	snprintf(root, sizeof(root), "/tmp/tierlab-perf-pmu.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static void ibs_zen4(void **state)
{
	struct tlrt_perf_pmu p;
	char why[256] = "";

	(void)state;
	put("ibs_op", "type", "11");
	put("ibs_op", "format/cnt_ctl", "config:19");
	put("ibs_op", "format/l3missonly", "config:16");
	assert_int_equal(tlrt_perf_pmu_ibs(&p, root, why, sizeof(why)), 0);
	assert_int_equal(p.source, TLRT_PERF_IBS);
	assert_int_equal(p.type, 11);
	assert_int_equal(p.config, 1ULL << 19 | 1ULL << 16);
	assert_int_equal(p.config2, 0);
	assert_string_equal(p.event, "ibs_op l3missonly");
	assert_string_equal(p.dev, "ibs_op");
	/* no swfilt: IBS refuses exclude_kernel */
	assert_int_equal(p.exclude_kernel, 0);
	assert_int_equal(p.period, 0);
	assert_int_equal(p.aux, 0);
}

static void ibs_zen2_with_swfilt(void **state)
{
	struct tlrt_perf_pmu p;
	char why[256] = "";

	(void)state;
	put("ibs_op", "type", "12");
	put("ibs_op", "format/cnt_ctl", "config:19");
	put("ibs_op", "format/swfilt", "config2:0");
	assert_int_equal(tlrt_perf_pmu_ibs(&p, root, why, sizeof(why)), 0);
	assert_int_equal(p.config, 1ULL << 19);
	assert_int_equal(p.config2, 1);
	assert_string_equal(p.event, "ibs_op");
	assert_int_equal(p.exclude_kernel, 1);
}

static void spe(void **state)
{
	struct tlrt_perf_pmu p;
	char why[256] = "";
	int *cpus = NULL;

	(void)state;
	put("arm_spe_1", "type", "9");
	put("arm_spe_0", "type", "8");
	put("arm_spe_0", "format/ts_enable", "config:0");
	put("arm_spe_0", "format/jitter", "config:16");
	put("arm_spe_0", "format/load_filter", "config:33");
	put("arm_spe_0", "format/store_filter", "config:34");
	put("arm_spe_0", "caps/min_interval", "1048576");
	put("arm_spe_0", "cpumask", "1");
	assert_int_equal(tlrt_perf_pmu_spe(&p, root, why, sizeof(why)), 0);
	assert_int_equal(p.source, TLRT_PERF_SPE);
	assert_string_equal(p.dev, "arm_spe_0");
	assert_int_equal(p.type, 8);
	assert_int_equal(p.config, 1ULL << 16 | 1ULL << 33 | 1ULL << 34);
	assert_int_equal(p.aux, 1);
	assert_int_equal(p.exclude_kernel, 1);
	/* the PMU's minimum interval wins over a shorter period of ours */
	assert_int_equal(p.period, 1048576);
	assert_int_equal(tlrt_perf_pmu_cpus(&p, root, &cpus), 1);
	assert_int_equal(cpus[0], 1);
	free(cpus);
}

static void format_fields(void **state)
{
	struct tlrt_perf_pmu p = { .dev = "cpu" };

	(void)state;
	put("cpu", "format/event", "config:0-7,32-35");
	put("cpu", "format/ldlat", "config1:0-15");
	put("cpu", "format/bad1", "config:x");
	put("cpu", "format/bad2", "param:3");
	put("cpu", "format/bad3", "config:7-3");
	put("cpu", "format/bad4", "config:3;");
	/* the value's bits fill the ranges in order: 0x1ff puts bit 8 at config bit 32 */
	assert_int_equal(tlrt_perf_pmu_format(&p, root, "event", 0x1ff), 0);
	assert_int_equal(p.config, 0xffULL | 1ULL << 32);
	assert_int_equal(tlrt_perf_pmu_format(&p, root, "ldlat", 128), 0);
	assert_int_equal(p.config1, 128);
	assert_int_equal(tlrt_perf_pmu_format(&p, root, "missing", 1), -ENOENT);
	assert_int_equal(tlrt_perf_pmu_format(&p, root, "bad1", 1), -EINVAL);
	assert_int_equal(tlrt_perf_pmu_format(&p, root, "bad2", 1), -EINVAL);
	assert_int_equal(tlrt_perf_pmu_format(&p, root, "bad3", 1), -EINVAL);
	assert_int_equal(tlrt_perf_pmu_format(&p, root, "bad4", 1), -EINVAL);
	assert_int_equal(p.config, 0xffULL | 1ULL << 32);
}

/* IBS before SPE before PEBS; with neither in the tree, find goes on to libpfm4. */
static void search_order(void **state)
{
	struct tlrt_perf_pmu p;
	char why[256] = "";

	(void)state;
	put("arm_spe_0", "type", "8");
	assert_int_equal(tlrt_perf_pmu_find(&p, root, why, sizeof(why)), 0);
	assert_int_equal(p.source, TLRT_PERF_SPE);
	put("ibs_op", "type", "11");
	assert_int_equal(tlrt_perf_pmu_find(&p, root, why, sizeof(why)), 0);
	assert_int_equal(p.source, TLRT_PERF_IBS);
}

/* Intel through libpfm4 acting as core `pmu` with a sysfs tree of its own: 0 when as expected, else a line number. */
static int pebs_as(const char *pmu, const char *want_event, uint64_t want_config)
{
	struct tlrt_perf_pmu p;
	char why[256] = "";

	pfm_terminate();
	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	if (tlrt_perf_pmu_pebs(&p, root, why, sizeof(why)))
		return __LINE__;
	if (p.source != TLRT_PERF_PEBS || p.type != PERF_TYPE_RAW || p.config != want_config ||
	    p.config1 != 128 || p.precise != 2 || !p.exclude_kernel || p.period || strcmp(p.event, want_event))
		return __LINE__;
	/* the sysfs directory of that PMU type: its CPUs come from there */
	if (strcmp(p.dev, "cpu"))
		return __LINE__;
	return 0;
}

static void pebs_by_libpfm4(void **state)
{
	static const struct {
		const char *pmu, *event;
		uint64_t config;
	} cores[] = {
		{ "spr", "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=128", 0x1cd },
		{ "skl", "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=128", 0x1cd },
		{ "ivb", "MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=128", 0x1cd },
		{ "wsm", "MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=128", 0x100b },
	};

	(void)state;
	put("cpu", "type", "4");
	put("software", "type", "1");
	for (size_t i = 0; i < sizeof(cores) / sizeof(cores[0]); i++) {
		pid_t pid = fork();
		int st;

		assert_true(pid >= 0);
		if (!pid)
			_exit(pebs_as(cores[i].pmu, cores[i].event, cores[i].config) & 0xff);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			fail_msg("libpfm4 as '%s': failed at line %d of this file", cores[i].pmu, WEXITSTATUS(st));
	}
}

/* This machine: the reason names everything looked for (it has none of them, unless tested elsewhere). */
static void nothing_found_here(void **state)
{
	struct tlrt_perf_pmu p;
	char why[256] = "", pebs[256] = "";

	(void)state;
	assert_int_equal(tlrt_perf_pmu_pebs(&p, root, pebs, sizeof(pebs)), -ENOENT);
	/* libpfm4 knows this CPU's event or not (from CPUID); either way root has no PMU for it */
	if (strcmp(pebs, "perf: libpfm4 knows no PEBS load-latency event on this CPU"))
		assert_non_null(strstr(pebs, ", but the kernel has no PMU of its type "));
	assert_int_equal(tlrt_perf_pmu_find(&p, root, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "perf: no precise memory-access sampling on this CPU (no ibs_op or arm_spe PMU in "));
	assert_non_null(strstr(why, root));
	assert_non_null(strstr(why, pebs + 6));
	assert_int_equal(tlrt_perf_pmu_ibs(&p, root, why, sizeof(why)), -ENOENT);
	assert_int_equal(tlrt_perf_pmu_spe(&p, root, why, sizeof(why)), -ENOENT);
}

static void software_and_online_cpus(void **state)
{
	struct tlrt_perf_pmu p;
	int *cpus = NULL, n;

	(void)state;
	tlrt_perf_pmu_page_faults(&p);
	assert_int_equal(p.source, TLRT_PERF_PAGE_FAULTS);
	assert_int_equal(p.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(p.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(p.period, 1);
	assert_string_equal(p.dev, "");
	n = tlrt_perf_pmu_cpus(&p, root, &cpus);
	assert_int_equal(n, sysconf(_SC_NPROCESSORS_ONLN));
	for (int i = 1; i < n; i++)
		assert_true(cpus[i] > cpus[i - 1]);
	free(cpus);
}

static void sysctl(void **state)
{
	long v = -1;

	(void)state;
	assert_int_equal(tlrt_perf_sysctl("perf_event_paranoid", &v), 0);
	assert_true(v >= -1 && v <= 4);
	assert_true(tlrt_perf_sysctl("no_such_setting", &v) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(ibs_zen4, fresh_root),
		cmocka_unit_test_setup(ibs_zen2_with_swfilt, fresh_root),
		cmocka_unit_test_setup(spe, fresh_root),
		cmocka_unit_test_setup(format_fields, fresh_root),
		cmocka_unit_test_setup(search_order, fresh_root),
		cmocka_unit_test_setup(pebs_by_libpfm4, fresh_root),
		cmocka_unit_test_setup(nothing_found_here, fresh_root),
		cmocka_unit_test_setup(software_and_online_cpus, fresh_root),
		cmocka_unit_test(sysctl),
	};
	return cmocka_run_group_tests(tests, NULL, remove_root);
}
