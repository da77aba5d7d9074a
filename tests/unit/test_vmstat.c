/*
 * Kernel counters of a run: which /proc/vmstat names are kept and with
 * which unit, deltas over fixture files (counters that appear or go
 * backwards), a real child that faults in transparent huge pages and the
 * thp_* deltas it leaves (when THP is not "never" here), and the process
 * peaks: VmPTE and VmRSS growing while a child touches 512 MiB, a
 * grandchild's memory counted, AnonHugePages seen, a process that is gone,
 * and the metrics rows in the store.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "measure/procpeak.h"
#include "store/query.h"
#include "measure/vmstat.h"

#define MiB (1024UL * 1024)

/* ---- a child that touches memory when told, and waits until told to exit ---- */

struct toucher {
	pid_t pid;
	int go;		/* write 'g' to start touching; close to let it exit */
	int ready;	/* reads 'r' once the memory is touched */
};

static void touch(size_t bytes, int advice)
{
	/* 2 MiB more, to align the region so every 2 MiB of it can be a huge page. */
	char *raw = mmap(NULL, bytes + 2 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;

	if (raw == MAP_FAILED)
		_exit(3);
	p = (char *)(((uintptr_t)raw + 2 * MiB - 1) & ~(uintptr_t)(2 * MiB - 1));
	madvise(p, bytes, advice);
	for (size_t off = 0; off < bytes; off += 4096)
		p[off] = 1;
}

/* The body of the child (or, with grandchild, of the grandchild it forks). */
static void toucher_body(int go, int ready, size_t bytes, int advice)
{
	char c;

	if (read(go, &c, 1) != 1)
		_exit(2);
	touch(bytes, advice);
	if (write(ready, "r", 1) != 1)
		_exit(2);
	/* Hold the memory until the parent closes the pipe. */
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

static struct toucher spawn_toucher(size_t bytes, int advice, bool grandchild)
{
	struct toucher t;
	int go[2], ready[2];

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	t.pid = fork();
	assert_true(t.pid >= 0);
	if (t.pid == 0) {
		close(go[1]);
		close(ready[0]);
		if (grandchild) {
			pid_t gc = fork();
			int st;

			if (gc == 0)
				toucher_body(go[0], ready[1], bytes, advice);
			close(go[0]);
			close(ready[1]);
			_exit(gc < 0 || waitpid(gc, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st));
		}
		toucher_body(go[0], ready[1], bytes, advice);
	}
	close(go[0]);
	close(ready[1]);
	t.go = go[1];
	t.ready = ready[0];
	return t;
}

static void toucher_start(struct toucher *t)
{
	char c;

	assert_int_equal(write(t->go, "g", 1), 1);
	assert_int_equal(read(t->ready, &c, 1), 1);
}

static void toucher_finish(struct toucher *t)
{
	int st;

	close(t->go);
	close(t->ready);
	assert_int_equal(waitpid(t->pid, &st, 0), t->pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- fixtures ---- */

static char *write_file(const char *text)
{
	char *path = strdup("/tmp/tl-vmstat-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static const struct tl_metric *find_metric(const struct tl_metric *m, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}

/* ---- vmstat ---- */

static void test_families_and_units(void **state)
{
	static const struct {
		const char *name;
		int wanted;
		const char *unit;
	} cases[] = {
		{ "pgmigrate_success", 1, "pages" },
		{ "pgmigrate_fail", 1, "pages" },
		{ "numa_hit", 1, "pages" },
		{ "numa_pages_migrated", 1, "pages" },
		{ "numa_pte_updates", 1, "pages" },
		{ "numa_huge_pte_updates", 1, "events" },
		{ "numa_hint_faults", 1, "events" },
		{ "numa_hint_faults_local", 1, "events" },
		{ "pgpromote_success", 1, "pages" },
		{ "pgdemote_kswapd", 1, "pages" },
		{ "thp_fault_alloc", 1, "events" },
		{ "thp_migration_success", 1, "events" },
		{ "pgfault", 0, NULL },
		{ "nr_free_pages", 0, NULL },
		{ "pgmigrat", 0, NULL },
		{ "compact_migrate_scanned", 0, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(tl_vmstat_wanted(cases[i].name), cases[i].wanted);
		if (cases[i].unit)
			assert_string_equal(tl_vmstat_unit(cases[i].name), cases[i].unit);
	}
}

static void test_delta_from_files(void **state)
{
	char *before = write_file("nr_free_pages 100\npgmigrate_success 10\nnuma_hit 1000\n"
				  "thp_fault_alloc 5\npgfault 7\nnuma_miss 9\n");
	char *after = write_file("nr_free_pages 50\npgmigrate_success 25\nnuma_hit 1000\n"
				 "thp_fault_alloc 8\npgfault 70\nnuma_miss 4\npgdemote_kswapd 3\n");
	struct tl_vmstat a = { 0 }, b = { 0 };
	struct tl_metric *m;
	size_t n;
	uint64_t v;

	(void)state;
	assert_int_equal(tl_vmstat_snapshot(&b, before), 0);
	assert_int_equal(tl_vmstat_snapshot(&a, after), 0);
	/* Only the families: nr_free_pages and pgfault are left out. */
	assert_int_equal(b.n, 4);
	assert_int_equal(a.n, 5);
	assert_int_equal(tl_vmstat_get(&a, "pgmigrate_success", &v), 0);
	assert_int_equal(v, 25);
	assert_int_equal(tl_vmstat_get(&a, "pgfault", &v), -ENOENT);

	assert_int_equal(tl_vmstat_metrics(&b, &a, &m, &n), 0);
	/* pgdemote_kswapd appeared between the snapshots: no delta for it. */
	assert_int_equal(n, 4);
	assert_null(find_metric(m, n, "vmstat.pgdemote_kswapd"));
	assert_true(find_metric(m, n, "vmstat.pgmigrate_success")->value == 15);
	assert_string_equal(find_metric(m, n, "vmstat.pgmigrate_success")->unit, "pages");
	assert_true(find_metric(m, n, "vmstat.numa_hit")->value == 0);
	assert_true(find_metric(m, n, "vmstat.thp_fault_alloc")->value == 3);
	assert_string_equal(find_metric(m, n, "vmstat.thp_fault_alloc")->unit, "events");
	assert_true(find_metric(m, n, "vmstat.numa_miss")->value == -5);
	tl_metrics_free(m, n);

	/* A snapshot replaces what it held. */
	assert_int_equal(tl_vmstat_snapshot(&a, before), 0);
	assert_int_equal(a.n, 4);
	tl_vmstat_release(&a);
	tl_vmstat_release(&b);
	assert_null(a.v);
	unlink(before);
	unlink(after);
	free(before);
	free(after);

	assert_int_equal(tl_vmstat_snapshot(&a, "/nonexistent/vmstat"), -ENOENT);
	assert_int_equal(a.n, 0);
}

/* The bracketed word of /sys/kernel/mm/transparent_hugepage/enabled, or "" when absent. */
static void thp_mode(char *buf, size_t len)
{
	char line[256] = "", *l, *r;
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && (l = strchr(line, '[')) && (r = strchr(l, ']')))
		snprintf(buf, len, "%.*s", (int)(r - l - 1), l + 1);
	fclose(f);
}

static void test_thp_child(void **state)
{
	struct tl_vmstat before = { 0 }, after = { 0 };
	struct tl_procpeak pp;
	const struct tl_metric *alloc, *fallback;
	struct tl_metric *m;
	struct toucher t;
	char mode[32];
	size_t n;

	(void)state;
	thp_mode(mode, sizeof(mode));
	assert_int_equal(tl_vmstat_snapshot(&before, NULL), 0);
	/* Every kernel tierlab supports has NUMA and THP counters. */
	assert_true(before.n > 0);
	tl_procpeak_init(&pp);
	t = spawn_toucher(64 * MiB, MADV_HUGEPAGE, false);
	toucher_start(&t);
	assert_int_equal(tl_procpeak_sample(&pp, t.pid), 0);
	toucher_finish(&t);
	assert_int_equal(tl_vmstat_snapshot(&after, NULL), 0);
	assert_int_equal(tl_vmstat_metrics(&before, &after, &m, &n), 0);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(strncmp(m[i].name, "vmstat.", 7), 0);
		assert_true(tl_vmstat_wanted(m[i].name + 7));
	}
	alloc = find_metric(m, n, "vmstat.thp_fault_alloc");
	fallback = find_metric(m, n, "vmstat.thp_fault_fallback");
	if (!strcmp(mode, "never") || !*mode || !alloc) {
		print_message("skipping the THP assertions: THP is '%s' here\n", *mode ? mode : "absent");
	} else {
		/* 32 aligned 2 MiB blocks, each a huge page fault (or a fallback when memory is fragmented). */
		assert_non_null(fallback);
		if (alloc->value + fallback->value < 32)
			fail_msg("thp_fault_alloc +%.0f, thp_fault_fallback +%.0f for 32 huge page faults",
				 alloc->value, fallback->value);
		assert_true(alloc->value >= 1);
		assert_true(pp.smaps_samples == 1);
		if (pp.anon_huge < 2 * MiB)
			fail_msg("AnonHugePages peak %llu B with %.0f huge pages faulted in",
				 (unsigned long long)pp.anon_huge, alloc->value);
	}
	tl_metrics_free(m, n);
	tl_vmstat_release(&before);
	tl_vmstat_release(&after);
}

/* ---- process peaks ---- */

static void test_vmpte_grows(void **state)
{
	struct tl_procpeak pp;
	struct toucher t;
	uint64_t pte0, rss0;

	(void)state;
	tl_procpeak_init(&pp);
	t = spawn_toucher(512 * MiB, MADV_NOHUGEPAGE, false);
	assert_int_equal(tl_procpeak_sample(&pp, t.pid), 0);
	pte0 = pp.vmpte;
	rss0 = pp.vmrss;
	assert_int_equal(pp.samples, 1);
	assert_true(rss0 > 0);
	toucher_start(&t);
	assert_int_equal(tl_procpeak_sample(&pp, t.pid), 0);
	toucher_finish(&t);
	assert_int_equal(pp.samples, 2);
	/* 512 MiB of 4 KiB pages: 131072 PTEs of 8 bytes, 1 MiB of page tables. */
	if (pp.vmpte < pte0 + MiB)
		fail_msg("VmPTE peak %llu B, at start %llu B: expected 1 MiB more",
			 (unsigned long long)pp.vmpte, (unsigned long long)pte0);
	assert_true(pp.vmrss >= 512 * MiB);
	assert_true(pp.vmhwm >= pp.vmrss);
	assert_int_equal(pp.hugetlb, 0);
	assert_int_equal(pp.procs, 1);
	/* smaps_rollup is read at the first sample, whatever its cost. */
	assert_true(pp.smaps_samples >= 1);
}

static void test_children_counted(void **state)
{
	struct tl_procpeak pp;
	struct toucher t;

	(void)state;
	tl_procpeak_init(&pp);
	pp.no_smaps = true;
	t = spawn_toucher(128 * MiB, MADV_NOHUGEPAGE, true);
	toucher_start(&t);
	assert_int_equal(tl_procpeak_sample(&pp, t.pid), 0);
	toucher_finish(&t);
	assert_int_equal(pp.procs, 2);
	if (pp.vmrss < 128 * MiB)
		fail_msg("VmRSS peak %llu B: the grandchild's 128 MiB were not counted",
			 (unsigned long long)pp.vmrss);
	assert_int_equal(pp.smaps_samples, 0);
}

static void test_gone_and_metrics(void **state)
{
	struct tl_procpeak pp;
	struct tl_metric *m;
	size_t n;
	pid_t pid;
	int st;

	(void)state;
	tl_procpeak_init(&pp);
	pid = fork();
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(tl_procpeak_sample(&pp, pid), -ENOENT);
	assert_int_equal(pp.samples, 0);
	/* No sample, no metrics: never a zero peak. */
	assert_int_equal(tl_procpeak_metrics(&pp, &m, &n), 0);
	assert_int_equal(n, 0);
	assert_null(m);

	assert_int_equal(tl_procpeak_sample(&pp, getpid()), 0);
	assert_int_equal(tl_procpeak_metrics(&pp, &m, &n), 0);
	assert_int_equal(n, 6);
	assert_true(find_metric(m, n, "proc.vmrss_peak")->value == (double)pp.vmrss);
	assert_string_equal(find_metric(m, n, "proc.vmpte_peak")->unit, "B");
	assert_non_null(find_metric(m, n, "proc.hugetlb_peak"));
	assert_non_null(find_metric(m, n, "proc.anonhugepages_peak"));
	assert_null(find_metric(m, n, "proc.samples")->unit);
	tl_metrics_free(m, n);
}

static void test_store(void **state)
{
	char dir[] = "/tmp/tl-vmstat-XXXXXX", path[PATH_MAX];
	struct tl_experiment_record e = { .name = "vmstat" };
	struct tl_run_result res = { .status = TL_STATUS_OK };
	struct tl_run_record r = { .run_key = "k-r1", .config_key = "k", .rep = 1, .result = &res };
	struct tl_vmstat before = { 0 }, after = { 0 };
	struct tl_procpeak pp;
	struct tl_store *st;
	struct tl_metric *m;
	int64_t exp, run;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	assert_int_equal(tl_store_open(path, &st), 0);
	assert_int_equal(tl_store_add_experiment(st, &e, &exp), 0);
	r.experiment_id = exp;

	assert_int_equal(tl_vmstat_snapshot(&before, NULL), 0);
	tl_procpeak_init(&pp);
	assert_int_equal(tl_procpeak_sample(&pp, getpid()), 0);
	assert_int_equal(tl_vmstat_snapshot(&after, NULL), 0);
	assert_int_equal(tl_vmstat_record(&before, &after, &r), 0);
	assert_int_equal(tl_procpeak_record(&pp, &r), 0);
	assert_int_equal(tl_store_add_run(st, &r, &run), 0);
	tl_record_release(&r);

	assert_int_equal(tl_store_run_metrics(st, run, &m, &n), 0);
	assert_int_equal(n, after.n + 6);
	assert_non_null(find_metric(m, n, "vmstat.numa_hit"));
	assert_string_equal(find_metric(m, n, "vmstat.numa_hit")->unit, "pages");
	assert_true(find_metric(m, n, "proc.vmrss_peak")->value == (double)pp.vmrss);
	tl_metrics_free(m, n);

	tl_vmstat_release(&before);
	tl_vmstat_release(&after);
	tl_store_close(st);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families_and_units),
		cmocka_unit_test(test_delta_from_files),
		cmocka_unit_test(test_thp_child),
		cmocka_unit_test(test_vmpte_grows),
		cmocka_unit_test(test_children_counted),
		cmocka_unit_test(test_gone_and_metrics),
		cmocka_unit_test(test_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
