/*
 * Counter sets: libpfm4 encodings of perf's generic and software names,
 * the event-list syntax with groups, counting a real child that is forked
 * corked and exec'ed the way the runner does it (this binary itself, run
 * as "--touch N": it touches N pages, so page-faults >= N), inheritance to
 * the child's own children, hardware events that this machine cannot count
 * recorded with a reason while the software ones still count, a bogus
 * event recorded as not found with one warning, the reasons and fixes per
 * errno, the rows written to the store, and the runner hooks wiring.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <perfmon/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "measure/counters.h"
#include "run/runner.h"
#include "store/store-internal.h"

#define PAGES 4096

static char self[PATH_MAX];

/* ---- the child: this binary with --touch N or --fork-touch N ---- */

static int touch_pages(long n)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	/* One fault per page, whatever the THP mode says. */
	madvise(p, (size_t)(n * pg), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * pg] = (char)i;
	return 0;
}

static int child_main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (!strcmp(argv[1], "--touch"))
		return touch_pages(n);
	if (!strcmp(argv[1], "--fork-touch")) {
		/* The faults happen in a grandchild: only inherit=1 sees them. */
		pid_t pid = fork();
		int st;

		if (pid == 0)
			_exit(touch_pages(n));
		return pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st);
	}
	return 2;
}

/* Forks `self argv...` corked on a pipe, as the runner does; *cork is the write end. */
static pid_t spawn_corked(const char *mode, long n, int *cork)
{
	char arg[32];
	int p[2];
	pid_t pid;

	snprintf(arg, sizeof(arg), "%ld", n);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(126);
		execl(self, self, mode, arg, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	*cork = p[1];
	return pid;
}

/* Opens the set on a corked child running `mode n`, lets it run, reaps it, reads. */
static void count_child(struct tl_counter_set *set, const char *mode, long n)
{
	int cork, st;
	pid_t pid = spawn_corked(mode, n, &cork);

	assert_int_equal(tl_counters_open(set, pid), 0);
	assert_int_equal(write(cork, "g", 1), 1);
	close(cork);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(tl_counters_read(set), 0);
}

static const struct tl_counter *get(const struct tl_counter_set *set, const char *event)
{
	const struct tl_counter *c = tl_counters_find(set, event);

	if (!c)
		fail_msg("event '%s' not in the set", event);
	return c;
}

static bool machine_has_cpu_pmu(void)
{
	struct stat sb;

	return !stat("/sys/bus/event_source/devices/cpu", &sb) ||
	       !stat("/sys/bus/event_source/devices/cpu_core", &sb);
}

/* ---- stderr capture, to count warnings ---- */

struct capture {
	int saved;
	FILE *f;
};

static void capture_start(struct capture *c)
{
	fflush(stderr);
	c->f = tmpfile();
	assert_non_null(c->f);
	c->saved = dup(2);
	dup2(fileno(c->f), 2);
}

/* Stops capturing; returns what was written (malloc'd). */
static char *capture_end(struct capture *c)
{
	long len;
	char *buf;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	len = ftell(c->f);
	buf = calloc(1, (size_t)len + 1);
	assert_non_null(buf);
	rewind(c->f);
	assert_int_equal(fread(buf, 1, (size_t)len, c->f), (size_t)len);
	fclose(c->f);
	return buf;
}

static int count_lines(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* ---- encoding ---- */

static void expect_encoding(const struct tl_counter_set *set, const char *event, unsigned type,
			    unsigned long long config)
{
	const struct tl_counter *c = get(set, event);
	char want[64];

	snprintf(want, sizeof(want), "type=%u config=0x%llx ", type, config);
	if (!c->encoding || strncmp(c->encoding, want, strlen(want)))
		fail_msg("'%s' encoded as '%s', expected it to start with '%s'", event,
			 c->encoding ? c->encoding : "(null)", want);
	assert_int_equal(c->status, TL_COUNTER_NOT_RUN);
	assert_null(c->reason);
}

static void test_encode_generic(void **state)
{
	struct tl_counter_set set;

	(void)state;
	tl_counters_init(&set);
	assert_int_equal(tl_counters_add(&set, "cycles"), 0);
	assert_int_equal(tl_counters_add(&set, "instructions"), 0);
	assert_int_equal(tl_counters_add(&set, "dTLB-load-misses"), 0);
	assert_int_equal(set.n, 3);
	expect_encoding(&set, "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	expect_encoding(&set, "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	expect_encoding(&set, "dTLB-load-misses", PERF_TYPE_HW_CACHE,
			PERF_COUNT_HW_CACHE_DTLB | PERF_COUNT_HW_CACHE_OP_READ << 8 |
				PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	/* The encoding keeps libpfm4's fully qualified name too. */
	assert_non_null(strstr(get(&set, "cycles")->encoding, "PERF_COUNT_HW_CPU_CYCLES"));
	tl_counters_release(&set);
	assert_int_equal(set.n, 0);
	assert_null(set.v);
}

static void test_encode_software(void **state)
{
	static const struct {
		const char *name;
		unsigned long long config;
	} cases[] = {
		{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
		{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
		/* libpfm4's own names and the perf:: prefix mean the same events. */
		{ "perf::PERF_COUNT_SW_CPU_CLOCK", PERF_COUNT_SW_CPU_CLOCK },
		{ "perf::faults", PERF_COUNT_SW_PAGE_FAULTS },
	};
	struct tl_counter_set set;

	(void)state;
	tl_counters_init(&set);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(tl_counters_add(&set, cases[i].name), 0);
		expect_encoding(&set, cases[i].name, PERF_TYPE_SOFTWARE, cases[i].config);
		assert_int_equal(get(&set, cases[i].name)->group, -1);
	}
	tl_counters_release(&set);
}

static void test_not_found_warns_once(void **state)
{
	struct tl_counter_set a, b;
	struct capture cap;
	const struct tl_counter *c;
	char *err;

	(void)state;
	tl_counters_init(&a);
	tl_counters_init(&b);
	capture_start(&cap);
	assert_int_equal(tl_counters_add(&a, "no-such-event"), 0);
	assert_int_equal(tl_counters_add(&b, "no-such-event"), 0);
	/* A model event of a CPU this is not (or a VM without its PMU tables). */
	assert_int_equal(tl_counters_add(&a, "NO_SUCH_EVENT:WALK_COMPLETED"), 0);
	err = capture_end(&cap);
	assert_int_equal(count_lines(err, "warning: event 'no-such-event' unavailable: libpfm4: "), 1);
	assert_int_equal(count_lines(err, "warning: event 'NO_SUCH_EVENT:WALK_COMPLETED'"), 1);
	free(err);

	c = get(&a, "no-such-event");
	assert_int_equal(c->status, TL_COUNTER_UNAVAILABLE);
	assert_null(c->encoding);
	assert_non_null(c->reason);
	assert_non_null(strstr(c->reason, "not found"));

	/* It stays unavailable through a run, and the run's other counters are unaffected. */
	assert_int_equal(tl_counters_add(&b, "page-faults"), 0);
	count_child(&b, "--touch", PAGES);
	assert_int_equal(get(&b, "no-such-event")->status, TL_COUNTER_UNAVAILABLE);
	assert_int_equal(get(&b, "page-faults")->status, TL_COUNTER_OK);
	assert_true(get(&b, "page-faults")->value >= PAGES);
	tl_counters_release(&a);
	tl_counters_release(&b);
}

static void test_parse_lists(void **state)
{
	static const char *const bad[] = {
		"{instructions,page-faults", "instructions}", "a,,b", "{a,,b}", "{}", "{{a,b}}", "",
		"task-clock,task-clock",
	};
	const char *items[] = { "cycles", "{instructions, page-faults}", " task-clock " };
	struct tl_counter_set set;

	(void)state;
	tl_counters_init(&set);
	set.quiet = true;
	assert_int_equal(tl_counters_parse(&set, "cycles,{instructions,page-faults},task-clock"), 0);
	assert_int_equal(set.n, 4);
	assert_int_equal(set.ngroups, 1);
	assert_int_equal(get(&set, "cycles")->group, -1);
	assert_int_equal(get(&set, "instructions")->group, 0);
	assert_int_equal(get(&set, "page-faults")->group, 0);
	assert_int_equal(get(&set, "task-clock")->group, -1);
	tl_counters_release(&set);

	/* A spec's list: group items in braces, names trimmed. */
	tl_counters_init(&set);
	set.quiet = true;
	assert_int_equal(tl_counters_add_list(&set, items, 3), 0);
	assert_int_equal(set.n, 4);
	assert_int_equal(get(&set, "page-faults")->group, 0);
	assert_non_null(tl_counters_find(&set, "task-clock"));
	tl_counters_release(&set);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct capture cap;
		char *err;
		int rc;

		tl_counters_init(&set);
		set.quiet = true;
		capture_start(&cap);
		rc = tl_counters_parse(&set, bad[i]);
		err = capture_end(&cap);
		if (rc >= 0)
			fail_msg("'%s' accepted", bad[i]);
		if (!strstr(err, "error: "))
			fail_msg("'%s' refused without an error line", bad[i]);
		free(err);
		tl_counters_release(&set);
	}
}

/* ---- counting a real child ---- */

static void test_software_counts(void **state)
{
	struct tl_counter_set set;
	const struct tl_counter *tc, *pf, *mf;
	double first;

	(void)state;
	tl_counters_init(&set);
	assert_int_equal(tl_counters_parse(&set, "task-clock,page-faults,minor-faults,major-faults,"
						 "context-switches,cpu-migrations"), 0);
	count_child(&set, "--touch", PAGES);
	for (size_t i = 0; i < set.n; i++) {
		const struct tl_counter *c = &set.v[i];

		if (c->status != TL_COUNTER_OK)
			fail_msg("'%s' not counted: %s", c->event, c->reason ? c->reason : "?");
		assert_true(c->enabled_ns > 0);
		assert_true(c->running_ns > 0 && c->running_ns <= c->enabled_ns);
		/* Software events are never multiplexed. */
		assert_true(c->multiplex_pct > 99.99 && c->multiplex_pct <= 100.0);
		assert_true(c->value >= (double)c->raw);
	}
	pf = get(&set, "page-faults");
	mf = get(&set, "minor-faults");
	tc = get(&set, "task-clock");
	if (pf->value < PAGES)
		fail_msg("page-faults %.0f < %d pages touched", pf->value, PAGES);
	assert_true(mf->value >= PAGES);
	assert_true(mf->value <= pf->value);
	/* CPU time: positive, and one thread cannot use more than its wall time. */
	assert_true(tc->value > 0);
	assert_true(tc->value <= tc->enabled_ns * 1.05);
	assert_int_equal(set.pid, 0);
	first = pf->value;

	/* The set is reusable: a second run counts afresh, not on top. */
	count_child(&set, "--touch", 16);
	assert_int_equal(get(&set, "page-faults")->status, TL_COUNTER_OK);
	assert_true(get(&set, "page-faults")->value < first - PAGES / 2);
	tl_counters_release(&set);
}

static void test_inherit_to_children(void **state)
{
	struct tl_counter_set set;

	(void)state;
	tl_counters_init(&set);
	assert_int_equal(tl_counters_add(&set, "page-faults"), 0);
	count_child(&set, "--fork-touch", PAGES);
	assert_int_equal(get(&set, "page-faults")->status, TL_COUNTER_OK);
	if (get(&set, "page-faults")->value < PAGES)
		fail_msg("page-faults %.0f: the grandchild's %d faults were not inherited",
			 get(&set, "page-faults")->value, PAGES);
	tl_counters_release(&set);
}

static void test_hardware_unavailable_software_counts(void **state)
{
	const char *group[] = { "instructions", "task-clock" };
	struct tl_counter_set set;
	const struct tl_counter *cy, *in, *tc, *pf;
	struct capture cap;
	char *err;

	(void)state;
	tl_counters_init(&set);
	assert_int_equal(tl_counters_add(&set, "cycles"), 0);
	assert_int_equal(tl_counters_add_group(&set, group, 2), 0);
	assert_int_equal(tl_counters_add(&set, "page-faults"), 0);
	capture_start(&cap);
	count_child(&set, "--touch", PAGES);
	err = capture_end(&cap);

	cy = get(&set, "cycles");
	in = get(&set, "instructions");
	tc = get(&set, "task-clock");
	pf = get(&set, "page-faults");
	if (machine_has_cpu_pmu()) {
		print_message("this machine has a CPU PMU: checking hardware events count\n");
		assert_int_equal(cy->status, TL_COUNTER_OK);
		assert_true(cy->value > 0);
	} else {
		assert_int_equal(cy->status, TL_COUNTER_UNAVAILABLE);
		assert_non_null(cy->reason);
		assert_non_null(strstr(cy->reason, "no hardware PMU in this VM (perf_event_open: "));
		assert_int_equal(count_lines(err, "warning: event 'cycles' unavailable: no hardware PMU"), 1);
		/* The group's leader is missing: its other member leads and counts. */
		assert_int_equal(in->status, TL_COUNTER_UNAVAILABLE);
		assert_int_equal(count_lines(err, "warning: event 'instructions' unavailable"), 1);
	}
	assert_int_equal(tc->status, TL_COUNTER_OK);
	assert_true(tc->value > 0);
	assert_int_equal(pf->status, TL_COUNTER_OK);
	assert_true(pf->value >= PAGES);
	free(err);

	/* A second run warns no more. */
	capture_start(&cap);
	count_child(&set, "--touch", 16);
	err = capture_end(&cap);
	assert_int_equal(count_lines(err, "warning: event 'cycles'"), 0);
	free(err);
	tl_counters_release(&set);
}

static void test_group_counts_together(void **state)
{
	struct tl_counter_set set;
	const struct tl_counter *a, *b;

	(void)state;
	tl_counters_init(&set);
	assert_int_equal(tl_counters_parse(&set, "{page-faults,task-clock}"), 0);
	count_child(&set, "--touch", PAGES);
	a = get(&set, "page-faults");
	b = get(&set, "task-clock");
	assert_int_equal(a->status, TL_COUNTER_OK);
	assert_int_equal(b->status, TL_COUNTER_OK);
	assert_true(a->value >= PAGES);
	assert_true(b->value > 0);
	/* One group, one schedule: the same enabled and running times. */
	assert_int_equal(a->enabled_ns, b->enabled_ns);
	assert_int_equal(a->running_ns, b->running_ns);
	/* A group read sums the inherited counters of children too. */
	count_child(&set, "--fork-touch", PAGES);
	assert_int_equal(a->status, TL_COUNTER_OK);
	if (a->value < PAGES)
		fail_msg("group page-faults %.0f: the grandchild's %d faults are missing", a->value, PAGES);
	tl_counters_release(&set);
}

static void test_explain(void **state)
{
	char reason[256], fix[128];

	(void)state;
	assert_int_equal(tl_counters_explain(EACCES, PERF_TYPE_HARDWARE, reason, sizeof(reason), fix,
					     sizeof(fix)), TL_COUNTER_UNAVAILABLE);
	assert_non_null(strstr(reason, "not permitted (perf_event_open: Permission denied"));
	assert_non_null(strstr(reason, "perf_event_paranoid is "));
	assert_string_equal(fix, "set /proc/sys/kernel/perf_event_paranoid to 1 or lower, or run as root");
	assert_int_equal(tl_counters_explain(-EPERM, PERF_TYPE_SOFTWARE, reason, sizeof(reason), fix,
					     sizeof(fix)), TL_COUNTER_UNAVAILABLE);
	assert_non_null(strstr(fix, "perf_event_paranoid"));

	assert_int_equal(tl_counters_explain(ENOENT, PERF_TYPE_HARDWARE, reason, sizeof(reason), fix,
					     sizeof(fix)), TL_COUNTER_UNAVAILABLE);
	if (machine_has_cpu_pmu())
		assert_non_null(strstr(reason, "this CPU's PMU has no such event"));
	else
		assert_string_equal(reason, "no hardware PMU in this VM (perf_event_open: No such file or directory)");
	assert_string_equal(fix, "");
	assert_int_equal(tl_counters_explain(EOPNOTSUPP, PERF_TYPE_RAW, reason, sizeof(reason), fix,
					     sizeof(fix)), TL_COUNTER_UNAVAILABLE);
	assert_int_equal(tl_counters_explain(EINVAL, PERF_TYPE_HARDWARE, reason, sizeof(reason), fix,
					     sizeof(fix)), TL_COUNTER_UNAVAILABLE);
	/* Running out of descriptors is no property of the machine: failed, not unavailable. */
	assert_int_equal(tl_counters_explain(EMFILE, PERF_TYPE_SOFTWARE, reason, sizeof(reason), fix,
					     sizeof(fix)), TL_COUNTER_FAILED);
	assert_non_null(strstr(reason, "Too many open files"));
}

static void test_open_twice_and_dead_pid(void **state)
{
	struct tl_counter_set set;
	struct capture cap;
	pid_t pid;
	int st;

	(void)state;
	tl_counters_init(&set);
	set.quiet = true;
	assert_int_equal(tl_counters_add(&set, "task-clock"), 0);
	/* A process that is gone: the counter fails (ESRCH), nothing else does. */
	pid = fork();
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(tl_counters_open(&set, pid), 0);
	assert_int_equal(get(&set, "task-clock")->status, TL_COUNTER_FAILED);
	assert_non_null(strstr(get(&set, "task-clock")->reason, "No such process"));
	assert_int_equal(tl_counters_read(&set), 0);

	assert_int_equal(tl_counters_open(&set, getpid()), 0);
	capture_start(&cap);
	assert_true(tl_counters_open(&set, getpid()) < 0);
	free(capture_end(&cap));
	tl_counters_close(&set);
	assert_int_equal(get(&set, "task-clock")->status, TL_COUNTER_NOT_RUN);
	tl_counters_release(&set);
}

/*
 * The paranoid path for real: an unprivileged process under
 * perf_event_paranoid >= 2 asks for kernel-mode counting and is refused.
 * The check runs in a child that gives up root; it reports back the
 * status, the reason and its stderr through a pipe.
 */
static void test_paranoid_refusal(void **state)
{
	int paranoid = -1, p[2], st;
	char buf[2048] = "";
	ssize_t got = 0, r;
	FILE *f;
	pid_t pid;

	(void)state;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -1;
		fclose(f);
	}
	if (geteuid() != 0 || paranoid < 2) {
		print_message("skipping: needs root to drop privileges and perf_event_paranoid >= 2 "
			      "(it is %d)\n", paranoid);
		return;
	}
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct tl_counter_set set;
		const struct tl_counter *c;

		close(p[0]);
		dup2(p[1], 2);
		if (setgid(65534) || setuid(65534))
			_exit(3);
		tl_counters_init(&set);
		if (tl_counters_parse(&set, "task-clock:k=1,page-faults") ||
		    tl_counters_open(&set, getpid()))
			_exit(4);
		c = tl_counters_find(&set, "task-clock:k=1");
		fprintf(stderr, "\nstatus=%s reason=%s\n", tl_counter_status_names[c->status],
			c->reason ? c->reason : "");
		fprintf(stderr, "other=%s\n",
			tl_counter_status_names[tl_counters_find(&set, "page-faults")->status]);
		tl_counters_release(&set);
		_exit(0);
	}
	close(p[1]);
	while ((r = read(p[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += r;
	close(p[0]);
	buf[got] = '\0';
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st))
		fail_msg("child exited %d: %s", WEXITSTATUS(st), buf);
	if (!strstr(buf, "status=unavailable reason=not permitted (perf_event_open: Permission denied; "
			 "perf_event_paranoid is "))
		fail_msg("unexpected outcome: %s", buf);
	assert_non_null(strstr(buf, "warning: event 'task-clock:k=1' unavailable: not permitted"));
	assert_non_null(strstr(buf, "; set /proc/sys/kernel/perf_event_paranoid to 1 or lower, or run as root\n"));
	/* User-mode counting is still allowed: the other event opened. */
	assert_non_null(strstr(buf, "other=ok"));
}

/* ---- the store ---- */

static void test_store_rows(void **state)
{
	char dir[] = "/tmp/tl-counters-XXXXXX", path[PATH_MAX];
	struct tl_experiment_record e = { .name = "counters" };
	struct tl_run_result res = { .status = TL_STATUS_OK };
	struct tl_run_record r = { .run_key = "k-r1", .config_key = "k", .rep = 1, .result = &res };
	struct tl_counter_set set;
	struct tl_store *st;
	sqlite3_stmt *s;
	int64_t exp, run;
	int rows = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	assert_int_equal(tl_store_open(path, &st), 0);
	assert_int_equal(tl_store_add_experiment(st, &e, &exp), 0);
	r.experiment_id = exp;

	tl_counters_init(&set);
	set.quiet = true;
	assert_int_equal(tl_counters_parse(&set, "page-faults,no-such-event,cycles,task-clock"), 0);
	count_child(&set, "--touch", PAGES);
	assert_int_equal(tl_counters_record(&set, &r), 0);
	assert_int_equal(tl_store_add_run(st, &r, &run), 0);

	assert_int_equal(sqlite3_prepare_v2(tl_store_db(st),
					    "SELECT event, encoding, value, enabled_ns, running_ns,"
					    " multiplex_pct, status, reason FROM counters WHERE run_id = ?",
					    -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_int64(s, 1, run);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *event = (const char *)sqlite3_column_text(s, 0);
		const char *status = (const char *)sqlite3_column_text(s, 6);
		const struct tl_counter *c = get(&set, event);

		rows++;
		assert_string_equal(status, tl_counter_status_names[c->status]);
		if (c->status == TL_COUNTER_OK) {
			assert_int_equal(sqlite3_column_type(s, 2), SQLITE_FLOAT);
			assert_true(sqlite3_column_double(s, 2) == c->value);
			assert_int_equal(sqlite3_column_int64(s, 3), (sqlite3_int64)c->enabled_ns);
			assert_int_equal(sqlite3_column_int64(s, 4), (sqlite3_int64)c->running_ns);
			assert_true(sqlite3_column_double(s, 5) > 99.99);
			assert_string_equal((const char *)sqlite3_column_text(s, 1), c->encoding);
			assert_int_equal(sqlite3_column_type(s, 7), SQLITE_NULL);
		} else {
			/* Never a zero: no value at all, and the reason. */
			assert_int_equal(sqlite3_column_type(s, 2), SQLITE_NULL);
			assert_int_equal(sqlite3_column_type(s, 5), SQLITE_NULL);
			assert_string_equal((const char *)sqlite3_column_text(s, 7), c->reason);
		}
		if (!strcmp(event, "no-such-event"))
			assert_int_equal(sqlite3_column_type(s, 1), SQLITE_NULL);
	}
	sqlite3_finalize(s);
	assert_int_equal(rows, 4);
	assert_true(get(&set, "page-faults")->value >= PAGES);
	tl_record_release(&r);

	/* The rows belong to their run: a second run has its own, and a set not run adds none. */
	assert_int_equal(tl_counters_record(&set, &r), 0);
	assert_int_equal(r.counters.n, 4);
	assert_int_equal(tl_store_add_run(st, &r, &run), 0);
	tl_record_release(&r);
	assert_int_equal(sqlite3_prepare_v2(tl_store_db(st), "SELECT count(*) FROM counters", -1, &s,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(s, 0), 8);
	sqlite3_finalize(s);
	{
		struct tl_counter_set fresh;

		tl_counters_init(&fresh);
		fresh.quiet = true;
		assert_int_equal(tl_counters_parse(&fresh, "task-clock"), 0);
		assert_int_equal(tl_counters_record(&fresh, &r), 0);
		assert_int_equal(r.counters.n, 0);
		tl_counters_release(&fresh);
	}

	tl_counters_release(&set);
	tl_store_close(st);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

/* ---- wired into the runner, as the lead will ---- */

static int hook_started(pid_t pid, void *arg)
{
	return tl_counters_open(arg, pid);
}

static void hook_finished(pid_t pid, void *arg)
{
	(void)pid;
	tl_counters_read(arg);
}

static void test_runner_hooks(void **state)
{
	char dir[] = "/tmp/tl-counters-XXXXXX", cmd[PATH_MAX + 16];
	char pages[16];
	char *argv[] = { self, "--touch", pages, NULL };
	char *envp[] = { NULL };
	struct tl_counter_set set;
	struct tl_runner_hooks hooks = { .started = hook_started, .finished = hook_finished, .arg = &set };
	struct tl_run_request req = { .argv = argv, .envp = envp, .out_dir = dir, .hooks = &hooks };
	struct tl_run_result res;

	(void)state;
	snprintf(pages, sizeof(pages), "%d", PAGES);
	assert_non_null(mkdtemp(dir));
	tl_counters_init(&set);
	assert_int_equal(tl_counters_parse(&set, "page-faults,task-clock"), 0);
	assert_int_equal(tl_runner_run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_OK);
	assert_int_equal(get(&set, "page-faults")->status, TL_COUNTER_OK);
	assert_true(get(&set, "page-faults")->value >= PAGES);
	/* Counting starts at exec: the child's CPU time, not tierlab's set-up. */
	assert_true(get(&set, "task-clock")->value <= (res.user + res.sys) * 1e9 * 1.5 + 5e6);
	tl_counters_release(&set);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_generic),
		cmocka_unit_test(test_encode_software),
		cmocka_unit_test(test_not_found_warns_once),
		cmocka_unit_test(test_parse_lists),
		cmocka_unit_test(test_software_counts),
		cmocka_unit_test(test_inherit_to_children),
		cmocka_unit_test(test_hardware_unavailable_software_counts),
		cmocka_unit_test(test_group_counts_together),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_open_twice_and_dead_pid),
		cmocka_unit_test(test_paranoid_refusal),
		cmocka_unit_test(test_store_rows),
		cmocka_unit_test(test_runner_hooks),
	};

	if (argc > 2 && (!strcmp(argv[1], "--touch") || !strcmp(argv[1], "--fork-touch")))
		return child_main(argc, argv);
	if (!realpath(argv[0], self))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
