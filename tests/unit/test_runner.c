/*
 * Tests of tl_runner_run against the small workloads in tests/helpers
 * (built into $(B)/tests-helpers next to this binary's directory): exit
 * statuses, crashes, timeouts with and without a SIGTERM-deaf child,
 * descendants killed, exec failures, environment, working directory,
 * bindings, hooks, rusage, and no fd, zombie or process left behind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <numa.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "measure/fom.h"
#include "run/runner.h"

/* Sized well below PATH_MAX so paths built from them cannot be truncated. */
static char scratch[512];
static char helpers[2048];
static int nth_run;

static int setup(void **state)
{
	char exe[sizeof(helpers) - 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)state;
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	/* build/tests/test_runner -> build/tests-helpers */
	*strrchr(exe, '/') = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(helpers, sizeof(helpers), "%s/tests-helpers", exe);
	if (access(helpers, X_OK)) {
		fprintf(stderr, "helpers not built in %s\n", helpers);
		return -1;
	}
	strcpy(scratch, "/tmp/tierlab-test-runner.XXXXXX");
	return mkdtemp(scratch) ? 0 : -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *helper(const char *name)
{
	static char path[4][PATH_MAX];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", helpers, name);
	return p;
}

static const char *new_out_dir(void)
{
	static char dir[1024];

	snprintf(dir, sizeof(dir), "%s/run%d", scratch, ++nth_run);
	return dir;
}

/* The whole file, NUL-terminated (malloc'd). */
static char *slurp(const char *dir, const char *name)
{
	char path[PATH_MAX];
	FILE *f;
	char *buf = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	FILE *m = open_memstream(&buf, &len);
	int c;

	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

/* The value of the "key: value" line of the probe helper's output. */
static char *probe_line(const char *out, const char *key, char *buf, size_t len)
{
	const char *p = strstr(out, key);
	size_t n;

	assert_non_null(p);
	p += strlen(key) + 2;
	n = strcspn(p, "\n");
	assert_true(n < len);
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

static char *empty_env[] = { NULL };

static int run(struct tl_run_request *req, struct tl_run_result *res)
{
	if (!req->out_dir)
		req->out_dir = new_out_dir();
	if (!req->envp)
		req->envp = empty_env;
	return tl_runner_run(req, res);
}

static void test_ok_output_captured(void **state)
{
	char *argv[] = { (char *)helper("fom-exit"), "42.5", NULL };
	char out_dir[PATH_MAX];
	struct tl_run_request req = { .argv = argv, .out_dir = out_dir };
	struct tl_run_result res;
	struct tl_error why;
	double fom = 0;

	(void)state;
	snprintf(out_dir, sizeof(out_dir), "%s/nested/dirs", new_out_dir());	/* created as needed */
	assert_int_equal(run(&req, &res), 0);
	assert_string_equal(tl_status_names[res.status], "ok");
	assert_int_equal(res.exit_code, 0);
	assert_int_equal(res.signal, 0);
	assert_string_equal(res.error, "");
	assert_true(res.wall > 0 && res.wall < 5);
	assert_true(res.started_at <= res.ended_at);

	char *out = slurp(req.out_dir, "stdout.txt"), *err = slurp(req.out_dir, "stderr.txt");

	assert_non_null(strstr(out, "final rate: 42.5 GF/s\n"));
	assert_string_equal(err, "note: done\n");
	free(out);
	free(err);
	assert_int_equal(tl_fom_extract(req.out_dir, NULL, NULL, "rate: ([0-9.]+)", &fom, &why), 0);
	assert_true(fom == 42.5);
}

static void test_nonzero_exit(void **state)
{
	char *argv[] = { (char *)helper("fom-exit"), "1", "3", NULL };
	struct tl_run_request req = { .argv = argv };
	struct tl_run_result res;

	(void)state;
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_FAILED);
	assert_int_equal(res.exit_code, 3);
	assert_int_equal(res.signal, 0);
	assert_string_equal(res.error, "exit status 3");
}

static void test_crash(void **state)
{
	char *argv[] = { (char *)helper("segv"), NULL };
	struct tl_run_request req = { .argv = argv };
	struct tl_run_result res;

	(void)state;
	assert_int_equal(run(&req, &res), 0);
	assert_string_equal(tl_status_names[res.status], "crashed");
	assert_int_equal(res.signal, SIGSEGV);
	assert_int_equal(res.exit_code, -1);
	assert_string_equal(res.error, "killed by SIGSEGV");
	char *out = slurp(req.out_dir, "stdout.txt");

	assert_string_equal(out, "about to crash\n");
	free(out);
}

static void test_timeout(void **state)
{
	char *argv[] = { (char *)helper("sleeper"), "30", NULL };
	struct tl_run_request req = { .argv = argv, .timeout = 1 };
	struct tl_run_result res;

	(void)state;
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_TIMEOUT);
	assert_int_equal(res.signal, SIGTERM);
	assert_string_equal(res.error, "timed out after 1s");
	assert_true(res.wall >= 0.95 && res.wall < 1.8);
}

static void test_timeout_sigterm_ignored(void **state)
{
	char *argv[] = { (char *)helper("term-ignore"), NULL };
	struct tl_run_request req = { .argv = argv, .timeout = 0.3, .kill_grace = 0.5 };
	struct tl_run_result res;

	(void)state;
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_TIMEOUT);
	assert_int_equal(res.signal, SIGKILL);
	assert_true(res.wall >= 0.75 && res.wall < 1.6);
}

static pid_t pid_from_stdout(const char *dir)
{
	char *out = slurp(dir, "stdout.txt");
	pid_t pid = (pid_t)atoi(out);

	free(out);
	assert_true(pid > 1);
	return pid;
}

static void test_grandchild_killed(void **state)
{
	char *argv[] = { (char *)helper("forker"), NULL };
	struct tl_run_request req = { .argv = argv };
	struct tl_run_result res;
	pid_t pid;

	(void)state;
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_OK);
	pid = pid_from_stdout(req.out_dir);
	/* Gone, not even a zombie: kill(pid, 0) would succeed on one. */
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
}

static void test_daemon_killed(void **state)
{
	char *argv[] = { (char *)helper("forker"), "--setsid", NULL };
	struct tl_run_request req = { .argv = argv };
	struct tl_run_result res;
	pid_t pid;

	(void)state;
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_OK);
	pid = pid_from_stdout(req.out_dir);
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
}

static void test_missing_binary(void **state)
{
	char *argv[] = { "tierlab-no-such-program", "x", NULL };
	char *argv2[] = { "/nonexistent/dir/prog", NULL };
	struct tl_run_request req = { .argv = argv };
	struct tl_run_result res;

	(void)state;
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_FAILED);
	/* it never ran, so it has no exit status (stored as NULL) */
	assert_int_equal(res.exit_code, -1);
	assert_string_equal(res.error, "cannot run 'tierlab-no-such-program': No such file or directory");

	req = (struct tl_run_request){ .argv = argv2 };
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.exit_code, -1);
	assert_string_equal(res.error, "cannot run '/nonexistent/dir/prog': No such file or directory");
}

static void test_not_executable(void **state)
{
	char path[PATH_MAX];
	char *argv[] = { path, NULL };
	struct tl_run_request req = { .argv = argv };
	struct tl_run_result res;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/not-a-program", scratch);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.exit_code, -1);
	assert_non_null(strstr(res.error, "Permission denied"));
}

static void test_env_exact(void **state)
{
	char *env[] = { "TL_PROBE=hello world", "OTHER=1", NULL };
	char *argv[] = { (char *)helper("probe"), "TL_PROBE", NULL };
	char *argv2[] = { (char *)helper("probe"), "HOME", NULL };
	struct tl_run_request req = { .argv = argv, .envp = env };
	struct tl_run_result res;
	char buf[256];

	(void)state;
	setenv("HOME", "/tierlab-test-home", 1);	/* ours, not the child's */
	assert_int_equal(run(&req, &res), 0);
	char *out = slurp(req.out_dir, "stdout.txt");

	assert_string_equal(probe_line(out, "env", buf, sizeof(buf)), "hello world");
	free(out);

	req = (struct tl_run_request){ .argv = argv2, .envp = env };
	assert_int_equal(run(&req, &res), 0);
	out = slurp(req.out_dir, "stdout.txt");
	assert_string_equal(probe_line(out, "env", buf, sizeof(buf)), "(unset)");
	free(out);
}

static void test_working_dir(void **state)
{
	char *argv[] = { (char *)helper("probe"), NULL };
	char wd[PATH_MAX], real[PATH_MAX], buf[PATH_MAX];
	struct tl_run_request req = { .argv = argv, .dir = wd };
	struct tl_run_result res;
	char *out;

	(void)state;
	snprintf(wd, sizeof(wd), "%s/workdir", scratch);
	assert_int_equal(mkdir(wd, 0755), 0);
	assert_int_equal(run(&req, &res), 0);
	out = slurp(req.out_dir, "stdout.txt");
	assert_non_null(realpath(wd, real));
	assert_string_equal(probe_line(out, "cwd", buf, sizeof(buf)), real);
	free(out);

	/* No dir: the run's output directory. */
	req = (struct tl_run_request){ .argv = argv };
	assert_int_equal(run(&req, &res), 0);
	out = slurp(req.out_dir, "stdout.txt");
	assert_non_null(realpath(req.out_dir, real));
	assert_string_equal(probe_line(out, "cwd", buf, sizeof(buf)), real);
	free(out);

	/* A directory that does not exist: the run fails, tierlab does not. */
	snprintf(wd, sizeof(wd), "%s/no-such-dir", scratch);
	req = (struct tl_run_request){ .argv = argv, .dir = wd };
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_FAILED);
	assert_int_equal(res.exit_code, -1);	/* the program never ran */
	assert_non_null(strstr(res.error, "cannot change to directory"));
	assert_non_null(strstr(res.error, "no-such-dir': No such file or directory"));
}

static void test_bindings(void **state)
{
	char *argv[] = { (char *)helper("probe"), NULL };
	struct tl_run_request req = { .argv = argv };
	struct tl_run_result res;
	char buf[256], want[256] = "";
	cpu_set_t old, one;
	struct bitmask *node0;
	char *out;

	(void)state;
	if (numa_available() < 0)
		skip();
	/* Node 0's CPUs, as the child should see them when bound there. */
	node0 = numa_allocate_cpumask();
	assert_int_equal(numa_node_to_cpus(0, node0), 0);
	for (unsigned c = 0; c < node0->size; c++)
		if (numa_bitmask_isbitset(node0, c))
			snprintf(want + strlen(want), sizeof(want) - strlen(want), " %u", c);
	numa_bitmask_free(node0);

	/*
	 * With one node, binding to it allows every CPU; restricting ourselves
	 * to CPU 0 first shows that the binding, not inheritance, set them.
	 */
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);

	assert_int_equal(run(&req, &res), 0);
	out = slurp(req.out_dir, "stdout.txt");
	assert_string_equal(probe_line(out, "cpus", buf, sizeof(buf)), "0");
	assert_string_equal(probe_line(out, "mempolicy", buf, sizeof(buf)), "0 0");
	free(out);

	req = (struct tl_run_request){ .argv = argv, .cpu_nodes = "0", .mem_nodes = "0" };
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_OK);
	out = slurp(req.out_dir, "stdout.txt");
	assert_string_equal(probe_line(out, "cpus", buf, sizeof(buf)), want + 1);	/* no leading blank */
	assert_string_equal(probe_line(out, "mempolicy", buf, sizeof(buf)), "2 0x1");	/* MPOL_BIND, node 0 */
	free(out);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);

	/* A node this machine lacks: refused before anything runs. */
	req = (struct tl_run_request){ .argv = argv, .mem_nodes = "63" };
	assert_true(run(&req, &res) < 0);
	assert_int_equal(res.status, TL_STATUS_FAILED);
	assert_non_null(strstr(res.error, "'63'"));
	req = (struct tl_run_request){ .argv = argv, .cpu_nodes = "63" };
	assert_true(run(&req, &res) < 0);
	assert_non_null(strstr(res.error, "'63'"));
}

static void test_signals_stdin_fds(void **state)
{
	char *argv[] = { (char *)helper("probe"), NULL };
	struct tl_run_request req = { .argv = argv };
	struct tl_run_result res;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_usr1;
	sigset_t usr2, old_mask;
	char buf[256];
	int leaked;
	char *out;

	(void)state;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGUSR1, &ign, &old_usr1);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr2, &old_mask);
	leaked = open("/dev/zero", O_RDONLY);	/* no O_CLOEXEC: the runner must stop it */
	assert_true(leaked >= 0);

	assert_int_equal(run(&req, &res), 0);
	close(leaked);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGUSR1, &old_usr1, NULL);

	out = slurp(req.out_dir, "stdout.txt");
	assert_string_equal(probe_line(out, "sigusr1", buf, sizeof(buf)), "default");
	assert_string_equal(probe_line(out, "sigusr2", buf, sizeof(buf)), "unblocked");
	assert_string_equal(probe_line(out, "stdin", buf, sizeof(buf)), "/dev/null");
	assert_string_equal(probe_line(out, "fds", buf, sizeof(buf)), "0 1 2");
	free(out);
}

struct hook_log {
	pid_t started_pid, finished_pid;
	bool started_corked;		/* the child was still a copy of this process */
	bool tick_after_exec;		/* /proc/PID/exe was the workload */
	int ticks;
	const char *workload;
	int started_rc;
	bool kill_on_tick;
};

static bool exe_is(pid_t pid, const char *want)
{
	char path[64], exe[PATH_MAX], real[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0 || !realpath(want, real))
		return false;
	exe[n] = '\0';
	return !strcmp(exe, real);
}

static bool read_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	return ok;
}

/*
 * Not exec'd yet: the child still has our command name and is not the
 * workload. (Comparing /proc/PID/exe with our own would fail under
 * valgrind, which fakes /proc/self/exe but not the child's.)
 */
static bool still_forked_copy(pid_t pid, const char *workload)
{
	char ours[64], theirs[64];

	return read_comm(getpid(), ours, sizeof(ours)) && read_comm(pid, theirs, sizeof(theirs)) &&
	       !strcmp(ours, theirs) && !exe_is(pid, workload);
}

static int on_started(pid_t pid, void *arg)
{
	struct hook_log *log = arg;

	log->started_pid = pid;
	log->started_corked = still_forked_copy(pid, log->workload);
	return log->started_rc;
}

static void on_tick(pid_t pid, void *arg)
{
	struct hook_log *log = arg;

	if (log->ticks++ == 0)
		log->tick_after_exec = exe_is(pid, log->workload);
	if (log->kill_on_tick)
		tl_runner_kill_current();
}

static void on_finished(pid_t pid, void *arg)
{
	((struct hook_log *)arg)->finished_pid = pid;
}

static void test_hooks(void **state)
{
	char *argv[] = { (char *)helper("sleeper"), "0.3", NULL };
	struct hook_log log = { .workload = argv[0] };
	struct tl_runner_hooks hooks = {
		.started = on_started, .tick = on_tick, .finished = on_finished,
		.arg = &log, .tick_ms = 50,
	};
	struct tl_run_request req = { .argv = argv, .hooks = &hooks };
	struct tl_run_result res;

	(void)state;
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_OK);
	assert_true(log.started_pid > 0);
	assert_true(log.started_corked);
	assert_true(log.tick_after_exec);
	assert_true(log.ticks >= 1 && log.ticks <= 10);
	assert_int_equal(log.finished_pid, log.started_pid);
	assert_true(res.wall >= 0.29);
}

static void test_started_hook_aborts(void **state)
{
	char *argv[] = { (char *)helper("probe"), NULL };
	struct hook_log log = { .workload = argv[0], .started_rc = -EIO };
	struct tl_runner_hooks hooks = { .started = on_started, .finished = on_finished, .arg = &log };
	struct tl_run_request req = { .argv = argv, .hooks = &hooks };
	struct tl_run_result res;
	struct stat st;
	char path[PATH_MAX];

	(void)state;
	assert_int_equal(run(&req, &res), -EIO);
	assert_int_equal(res.status, TL_STATUS_FAILED);
	assert_non_null(strstr(res.error, "aborted"));
	assert_true(log.started_pid > 0);
	assert_int_equal(log.finished_pid, 0);
	assert_int_equal(kill(log.started_pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	/* The workload never ran. */
	snprintf(path, sizeof(path), "%s/stdout.txt", req.out_dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
}

static void test_kill_current(void **state)
{
	char *argv[] = { (char *)helper("sleeper"), "30", NULL };
	struct hook_log log = { .workload = argv[0], .kill_on_tick = true };
	struct tl_runner_hooks hooks = { .tick = on_tick, .arg = &log, .tick_ms = 20 };
	struct tl_run_request req = { .argv = argv, .hooks = &hooks };
	struct tl_run_result res;

	(void)state;
	tl_runner_kill_current();	/* nothing running: nothing happens */
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_FAILED);
	assert_string_equal(res.error, "interrupted");
	assert_int_equal(res.signal, SIGKILL);
	assert_true(res.wall < 2);
}

static void test_rusage(void **state)
{
	char *argv[] = { (char *)helper("burn"), "0.3", NULL };
	struct tl_run_request req = { .argv = argv };
	struct tl_run_result res;

	(void)state;
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_OK);
	assert_true(res.user >= 0.2);
	assert_true(res.user < 5);
	assert_true(res.sys >= 0 && res.sys < 1);
	assert_true(res.wall >= res.user * 0.9);
	assert_true(res.maxrss_kb > 0);
}

static void test_lots_of_output(void **state)
{
	char *argv[] = { (char *)helper("spew"), "200000", NULL };
	struct tl_run_request req = { .argv = argv, .timeout = 20 };
	struct tl_run_result res;
	size_t lines = 0;

	(void)state;
	assert_int_equal(run(&req, &res), 0);
	assert_int_equal(res.status, TL_STATUS_OK);
	char *out = slurp(req.out_dir, "stdout.txt"), *err = slurp(req.out_dir, "stderr.txt");

	for (char *p = out; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, 200000);
	assert_non_null(strstr(out, "\nline 200000 of output"));
	assert_non_null(strstr(err, "\nerr 200000\n"));
	free(out);
	free(err);
}

static void test_bad_requests(void **state)
{
	char *argv[] = { (char *)helper("probe"), NULL };
	char *none[] = { NULL };
	char file[1024], under[PATH_MAX];
	struct tl_run_request req = { .argv = none };
	struct tl_run_result res;
	int fd;

	(void)state;
	assert_int_equal(run(&req, &res), -EINVAL);
	assert_int_equal(res.status, TL_STATUS_FAILED);

	/* An output directory that cannot be created is tierlab's failure. */
	snprintf(file, sizeof(file), "%s/a-file", scratch);
	fd = open(file, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	snprintf(under, sizeof(under), "%s/sub", file);
	req = (struct tl_run_request){ .argv = argv, .out_dir = under };
	assert_int_equal(run(&req, &res), -ENOTDIR);
	assert_int_equal(res.status, TL_STATUS_FAILED);
	assert_non_null(strstr(res.error, "cannot create"));
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_no_leaks_after_many_runs(void **state)
{
	char *ok[] = { (char *)helper("fom-exit"), "1", NULL };
	char *bad[] = { (char *)helper("fom-exit"), "1", "2", NULL };
	char *crash[] = { (char *)helper("segv"), NULL };
	char *fork[] = { (char *)helper("forker"), NULL };
	char *missing[] = { "tierlab-no-such-program", NULL };
	char *const *argvs[] = { ok, bad, crash, fork, missing };
	enum tl_run_status want[] = {
		TL_STATUS_OK, TL_STATUS_FAILED, TL_STATUS_CRASHED, TL_STATUS_OK, TL_STATUS_FAILED,
	};
	char out_dir[PATH_MAX];
	int before = count_fds();

	(void)state;
	snprintf(out_dir, sizeof(out_dir), "%s/many", scratch);
	for (int i = 0; i < 50; i++) {
		struct tl_run_request req = { .argv = argvs[i % 5], .out_dir = out_dir };
		struct tl_run_result res;

		assert_int_equal(run(&req, &res), 0);
		assert_int_equal(res.status, want[i % 5]);
	}
	assert_int_equal(count_fds(), before);
	/* No child of ours is left, not even a zombie. */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_status_names(void **state)
{
	(void)state;
	assert_string_equal(tl_status_names[TL_STATUS_OK], "ok");
	assert_string_equal(tl_status_names[TL_STATUS_FAILED], "failed");
	assert_string_equal(tl_status_names[TL_STATUS_TIMEOUT], "timeout");
	assert_string_equal(tl_status_names[TL_STATUS_CRASHED], "crashed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_ok_output_captured),
		cmocka_unit_test(test_nonzero_exit),
		cmocka_unit_test(test_crash),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_timeout_sigterm_ignored),
		cmocka_unit_test(test_grandchild_killed),
		cmocka_unit_test(test_daemon_killed),
		cmocka_unit_test(test_missing_binary),
		cmocka_unit_test(test_not_executable),
		cmocka_unit_test(test_env_exact),
		cmocka_unit_test(test_working_dir),
		cmocka_unit_test(test_bindings),
		cmocka_unit_test(test_signals_stdin_fds),
		cmocka_unit_test(test_hooks),
		cmocka_unit_test(test_started_hook_aborts),
		cmocka_unit_test(test_kill_current),
		cmocka_unit_test(test_rusage),
		cmocka_unit_test(test_lots_of_output),
		cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_no_leaks_after_many_runs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
