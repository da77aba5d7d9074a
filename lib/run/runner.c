/*
 * The parent side of running one workload (see runner.h), after perf
 * stat's workload handling and git's run-command: everything the child
 * needs is prepared before fork, the child waits corked until the caller's
 * started hook has run, then execs; the parent watches it through a pidfd
 * (ticks, timeout, SIGTERM then SIGKILL to its process group), reaps it
 * with wait4 for its rusage, and finally kills and reaps whatever it
 * started. tierlab makes itself a child subreaper so that orphans of the
 * workload come back to it instead of to init, which lets it reap them too
 * (a container's init may never do it) and find the daemons that left the
 * process group with setsid. A guard process per run (runner-child.c)
 * kills the process group when tierlab dies without doing it (SIGKILL).
 */
#include "run/runner.h"
#include "util/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <numa.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "util/fs.h"
#include "util/nodeset.h"
#include "run/capture.h"
#include "run/runner-child.h"

/* The run in progress, for tl_runner_kill_current from a signal handler. */
static volatile sig_atomic_t current_pgid;
static volatile sig_atomic_t kill_requested;

struct run {
	const struct tl_run_request *req;
	struct tl_run_result *res;
	struct tl_child_setup cs;
	struct tl_capture out, err;	/* stdout.txt, stderr.txt */
	struct bitmask *cpus, *mems;
	pid_t pid;
	int pidfd;
	pid_t guard;			/* the run's guard process, 0 when none */
	int guard_wr;			/* its socket: 'q' and close to end it */
	unsigned long long start_ticks;	/* the leader's start time, to tell its orphans from ours */
	bool have_start;
	bool started;			/* the started hook accepted the child */
	bool exec_failed;
	struct tl_child_error ce;
	bool timed_out;
	int wstatus;
	double t0, t1;			/* CLOCK_MONOTONIC at uncork and at exit */
	struct timeval utime, stime;
	long maxrss_kb;
};

static int fail(struct tl_run_result *res, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct tl_run_result *res, int rc, const char *fmt, ...)
{
	va_list ap;

	res->status = TL_STATUS_FAILED;
	va_start(ap, fmt);
	vsnprintf(res->error, sizeof(res->error), fmt, ap);
	va_end(ap);
	return rc;
}

void tl_runner_kill_current(void)
{
	pid_t pgid = current_pgid;

	if (pgid > 0) {
		kill_requested = 1;
		kill(-pgid, SIGKILL);
	}
}

/*
 * The child moves its stdio onto fds 0-2; were one of the fds it needs
 * already there, that move would clobber it.
 */
static int above_stdio(int fd)
{
	int high;

	if (fd < 0 || fd > 2)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return high;
}

/*
 * The CPUs of the nodes in `text` (numactl --cpunodebind); NULL when none.
 * numa_run_on_node_mask would do this in the child, but it allocates.
 */
static struct bitmask *node_cpus(const char *text)
{
	struct bitmask *nodes = tl_nodeset_parse_cpus(text);
	struct bitmask *cpus = numa_allocate_cpumask();
	struct bitmask *one = numa_allocate_cpumask();
	unsigned n = 0;

	if (!nodes || !cpus || !one)
		goto fail;
	for (unsigned node = 0; node < nodes->size; node++) {
		if (!numa_bitmask_isbitset(nodes, node))
			continue;
		if (numa_node_to_cpus((int)node, one))
			goto fail;
		for (unsigned cpu = 0; cpu < one->size; cpu++)
			if (numa_bitmask_isbitset(one, cpu)) {
				numa_bitmask_setbit(cpus, cpu);
				n++;
			}
	}
	if (!n)		/* memory-only nodes (HBM, CXL) have no CPUs to run on */
		goto fail;
	numa_bitmask_free(nodes);
	numa_bitmask_free(one);
	return cpus;
fail:
	if (nodes)
		numa_bitmask_free(nodes);
	if (cpus)
		numa_bitmask_free(cpus);
	if (one)
		numa_bitmask_free(one);
	return NULL;
}

static int prepare(struct run *r)
{
	const struct tl_run_request *req = r->req;
	struct tl_child_setup *cs = &r->cs;
	struct rlimit rl;
	int sv[2], ep[2], rc;

	if (!req->argv || !req->argv[0] || !req->out_dir)
		return fail(r->res, -EINVAL, "nothing to run");
	rc = tl_mkdir_p(req->out_dir);
	if (rc)
		return fail(r->res, rc, "cannot create '%s': %s", req->out_dir, strerror(-rc));
	if ((req->cpu_nodes || req->mem_nodes) && numa_available() < 0)
		return fail(r->res, -ENOSYS, "cannot bind to nodes: no NUMA support here");
	if (req->cpu_nodes && !(r->cpus = node_cpus(req->cpu_nodes)))
		return fail(r->res, -EINVAL, "no CPUs to run on in nodes '%s' on this machine",
			    req->cpu_nodes);
	if (req->mem_nodes && !(r->mems = tl_nodeset_parse(req->mem_nodes)))
		return fail(r->res, -EINVAL, "cannot bind memory to nodes '%s' on this machine",
			    req->mem_nodes);

	rc = tl_capture_open(&r->out, req->out_dir, "stdout.txt", &cs->stdout_fd, r->res->error,
			     sizeof(r->res->error));
	if (!rc)
		rc = tl_capture_open(&r->err, req->out_dir, "stderr.txt", &cs->stderr_fd, r->res->error,
				     sizeof(r->res->error));
	if (rc) {
		r->res->status = TL_STATUS_FAILED;
		return rc;
	}
	/*
	 * The child leads a background process group: reading the terminal
	 * would stop it (SIGTTIN) until the timeout, so it reads nothing.
	 */
	cs->stdin_fd = above_stdio(open("/dev/null", O_RDONLY | O_CLOEXEC));
	if (cs->stdin_fd < 0)
		return fail(r->res, -errno, "cannot open '/dev/null': %s", strerror(errno));
	/* A socket for the cork, so that uncorking a dead child cannot raise SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return fail(r->res, -errno, "cannot create a socket pair: %s", strerror(errno));
	cs->cork_rd = above_stdio(sv[0]);
	cs->cork_wr = above_stdio(sv[1]);
	if (pipe2(ep, O_CLOEXEC))
		return fail(r->res, -errno, "cannot create a pipe: %s", strerror(errno));
	cs->err_rd = above_stdio(ep[0]);
	cs->err_wr = above_stdio(ep[1]);
	if (cs->cork_rd < 0 || cs->cork_wr < 0 || cs->err_rd < 0 || cs->err_wr < 0)
		return fail(r->res, -EMFILE, "out of file descriptors");

	cs->argv = req->argv;
	cs->envp = req->envp ? req->envp : environ;
	cs->dir = req->dir ? req->dir : req->out_dir;
	cs->cpus = r->cpus;
	cs->mems = r->mems;
	cs->mem_mode = req->mem_mode ? req->mem_mode : MPOL_BIND;
	cs->parent = getpid();
	cs->max_fd = getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur > 65536 ? 65536 : (int)rl.rlim_cur;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Start time (field 22) and process group (field 5) from /proc/PID/stat. */
static int proc_stat(pid_t pid, pid_t *pgrp, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the command name may hold spaces and parentheses */
	if (!p)
		return -EIO;
	/* After ") ": state ppid pgrp session tty tpgid flags ... starttime is the 20th. */
	p += 2;
	for (int field = 3; field < 22; field++) {
		if (field == 5)
			*pgrp = (pid_t)strtol(p, NULL, 10);
		p = strchr(p, ' ');
		if (!p)
			return -EIO;
		p++;
	}
	*start = strtoull(p, NULL, 10);
	return 0;
}

static int spawn(struct run *r)
{
	sigset_t all, old;
	pid_t pgrp;
	int fork_errno;

	/* Orphans of the workload come to us, to be killed and reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/*
	 * With every signal blocked across fork, no handler of the caller runs
	 * in the child before it restores the defaults, and a SIGINT arriving
	 * now is handled only once current_pgid names the child.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	kill_requested = 0;
	r->pid = fork();
	fork_errno = errno;
	if (r->pid == 0)
		tl_runner_child(&r->cs);
	if (r->pid > 0) {
		setpgid(r->pid, r->pid);
		current_pgid = r->pid;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	close_fd(&r->cs.stdin_fd);
	close_fd(&r->cs.stdout_fd);
	close_fd(&r->cs.stderr_fd);
	close_fd(&r->cs.cork_rd);
	close_fd(&r->cs.err_wr);
	if (r->pid < 0)
		return fail(r->res, -fork_errno, "cannot fork: %s", strerror(fork_errno));
	r->pidfd = pidfd_open(r->pid, 0);	/* -1 on old kernels: we poll instead */
	r->have_start = !proc_stat(r->pid, &pgrp, &r->start_ticks);
	return 0;
}

/*
 * Forks the run's guard (tl_runner_guard) with every signal blocked, as
 * the workload was, so no handler of tierlab's runs in it. A socket, so
 * that telling a guard someone killed cannot raise SIGPIPE.
 */
static int start_guard(struct run *r)
{
	sigset_t all, old;
	int sv[2], fork_errno;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return fail(r->res, -errno, "cannot create a socket pair: %s", strerror(errno));
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r->guard = fork();
	fork_errno = errno;
	if (r->guard == 0)
		tl_runner_guard(sv[0], r->pid);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(sv[0]);
	r->guard_wr = sv[1];
	if (r->guard < 0) {
		r->guard = 0;
		close_fd(&r->guard_wr);
		return fail(r->res, -fork_errno, "cannot fork: %s", strerror(fork_errno));
	}
	return 0;
}

static void stop_guard(struct run *r)
{
	char q = 'q';

	if (r->guard <= 0)
		return;
	send(r->guard_wr, &q, 1, MSG_NOSIGNAL);
	close_fd(&r->guard_wr);
	while (waitpid(r->guard, NULL, 0) < 0 && errno == EINTR)
		;
	r->guard = 0;
}

/* Runs the started hook on the corked child, uncorks it and waits for its exec. */
static int start(struct run *r)
{
	const struct tl_runner_hooks *h = r->req->hooks;
	char go = 'g';
	ssize_t n;

	if (h && h->started) {
		int rc = h->started(r->pid, h->arg);

		if (rc)
			return fail(r->res, rc < 0 ? rc : -ECANCELED,
				    "aborted before '%s' started", r->req->argv[0]);
	}
	r->started = true;
	r->t0 = tl_mono_s();
	r->res->started_at = tl_wall_s();
	/* Fails only if the child already gave up; its error pipe says why. */
	send(r->cs.cork_wr, &go, 1, MSG_NOSIGNAL);
	close_fd(&r->cs.cork_wr);
	/* End of file: exec closed the pipe (or the child died, which the wait tells). */
	do
		n = read(r->cs.err_rd, &r->ce, sizeof(r->ce));
	while (n < 0 && errno == EINTR);
	r->exec_failed = n == (ssize_t)sizeof(r->ce);
	close_fd(&r->cs.err_rd);
	return 0;
}

/* Whether the leader has ended, without reaping it (its pgid must stay taken). */
static bool leader_exited(pid_t pid)
{
	siginfo_t si;
	int rc;

	memset(&si, 0, sizeof(si));
	do
		rc = waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT);
	while (rc < 0 && errno == EINTR);
	return rc ? errno == ECHILD : si.si_pid == pid;
}

static void wait_loop(struct run *r)
{
	const struct tl_runner_hooks *h = r->req->hooks;
	double tick = h && h->tick ? (h->tick_ms ? h->tick_ms : 100) / 1000.0 : 0;
	double grace = r->req->kill_grace > 0 ? r->req->kill_grace : 5;
	double next_tick = tick ? r->t0 + tick : INFINITY;
	double deadline = r->req->timeout > 0 ? r->t0 + r->req->timeout : INFINITY;
	double kill_at = INFINITY;

	while (!leader_exited(r->pid)) {
		double now = tl_mono_s(), next;
		struct pollfd pfd[3] = {
			{ .fd = r->pidfd, .events = POLLIN },
			{ .fd = tl_capture_fd(&r->out), .events = POLLIN },
			{ .fd = tl_capture_fd(&r->err), .events = POLLIN },
		};
		int ms;

		/* the output first: a program waiting on a full pipe must not wait for a tick */
		tl_capture_pump(&r->out);
		tl_capture_pump(&r->err);

		if (now >= next_tick) {
			h->tick(r->pid, h->arg);
			next_tick += tick;
			if (next_tick <= now)	/* a slow hook: skip ticks rather than bunch them */
				next_tick = now + tick;
			continue;
		}
		if (now >= deadline) {
			kill(-r->pid, SIGTERM);
			r->timed_out = true;
			deadline = INFINITY;
			kill_at = now + grace;
			continue;
		}
		if (now >= kill_at) {
			kill(-r->pid, SIGKILL);
			kill_at = INFINITY;
			continue;
		}
		next = fmin(fmin(next_tick, deadline), kill_at);
		ms = isinf(next) ? -1 : (int)fmin(ceil((next - now) * 1000), 1e9);
		if (r->pidfd < 0 && (ms < 0 || ms > 10))
			ms = 10;
		/* poll skips the negative fds: a pipe that ended, no pidfd */
		poll(pfd, 3, ms);
	}
	r->t1 = tl_mono_s();
	r->res->ended_at = tl_wall_s();
}

static void add_rusage(struct run *r, const struct rusage *ru)
{
	timeradd(&r->utime, &ru->ru_utime, &r->utime);
	timeradd(&r->stime, &ru->ru_stime, &r->stime);
	if (ru->ru_maxrss > r->maxrss_kb)
		r->maxrss_kb = ru->ru_maxrss;
}

/* Our children, from every thread's /proc/self/task/TID/children. */
static size_t list_children(pid_t *out, size_t max)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		char path[PATH_MAX];
		FILE *f;
		long pid;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (n < max && fscanf(f, "%ld", &pid) == 1)
			out[n++] = (pid_t)pid;
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * Descendants that left the process group (a daemon calls setsid) and
 * were orphaned came to us as subreaper: they are our children that
 * started no earlier than the leader and are not in our own process group
 * (children the caller forks itself stay in it). Killing one orphans its
 * own children to us in turn, hence the rounds.
 */
static void sweep_orphans(struct run *r)
{
	pid_t self = getpgrp();

	if (!r->have_start)
		return;
	for (int round = 0; round < 100; round++) {
		pid_t kids[256], pgrp;
		unsigned long long start;
		size_t n = list_children(kids, 256), killed = 0;

		for (size_t i = 0; i < n; i++) {
			if (proc_stat(kids[i], &pgrp, &start) || pgrp == self || start < r->start_ticks)
				continue;
			kill(kids[i], SIGKILL);
			kids[killed++] = kids[i];
		}
		for (size_t i = 0; i < killed; i++) {
			struct rusage ru;
			int ws;

			while (wait4(kids[i], &ws, 0, &ru) < 0 && errno == EINTR)
				;
			add_rusage(r, &ru);
		}
		if (!killed)
			break;
	}
}

/*
 * Ends whatever is left of the run and reaps it all: the leader for its
 * status and rusage, then its process group (members orphaned to us), then
 * the orphans that left the group.
 */
static void finish(struct run *r)
{
	struct rusage ru;
	pid_t p;

	kill(-r->pid, SIGKILL);
	do
		p = wait4(r->pid, &r->wstatus, 0, &ru);
	while (p < 0 && errno == EINTR);
	if (p == r->pid)
		add_rusage(r, &ru);
	else
		r->wstatus = -1;	/* reaped by someone else: SIGCHLD ignored by the caller */
	for (;;) {
		int ws;

		p = wait4(-r->pid, &ws, 0, &ru);
		if (p > 0)
			add_rusage(r, &ru);
		else if (errno != EINTR)
			break;
	}
	current_pgid = 0;
	sweep_orphans(r);
	stop_guard(r);
	close_fd(&r->pidfd);
	/* every writer is gone: the rest of the pipes, then the files */
	tl_capture_close(&r->out);
	tl_capture_close(&r->err);
}

static const char *stage_error(const struct run *r, char *buf, size_t len)
{
	const char *what = r->req->argv[0], *why = strerror(r->ce.err);

	switch (r->ce.stage) {
	case TL_CHILD_STDIO:
		snprintf(buf, len, "cannot redirect the output of '%s': %s", what, why);
		break;
	case TL_CHILD_CHDIR:
		snprintf(buf, len, "cannot change to directory '%s': %s", r->cs.dir, why);
		break;
	case TL_CHILD_CPUS:
		snprintf(buf, len, "cannot run '%s' on the CPUs of nodes '%s': %s", what,
			 r->req->cpu_nodes, why);
		break;
	case TL_CHILD_MEMS:
		snprintf(buf, len, "cannot %s the memory of '%s' %s nodes '%s': %s",
			 r->cs.mem_mode == MPOL_BIND ? "bind" : "set the mempolicy of", what,
			 r->cs.mem_mode == MPOL_BIND ? "to" : "over", r->req->mem_nodes, why);
		break;
	default:
		snprintf(buf, len, "cannot run '%s': %s", what, why);
		break;
	}
	return buf;
}

/*
 * An output not captured whole fails an ok run, whose figure of merit
 * would come from what is left of it; another status keeps its own
 * reason, with this one after it.
 */
static void classify_capture(struct run *r, const struct tl_capture *c)
{
	struct tl_run_result *res = r->res;
	char why[sizeof(res->error)];
	size_t n;

	if (!tl_capture_failed(c, why, sizeof(why)))
		return;
	if (res->status == TL_STATUS_OK) {
		fail(res, 0, "%s", why);
		return;
	}
	n = strlen(res->error);
	if (!strstr(res->error, "output not captured whole") && n + 3 < sizeof(res->error))
		snprintf(res->error + n, sizeof(res->error) - n, "; %.*s", (int)(sizeof(res->error) - n - 3), why);
}

static void classify(struct run *r)
{
	struct tl_run_result *res = r->res;
	int ws = r->wstatus;

	res->wall = r->t1 - r->t0;
	res->user = r->utime.tv_sec + r->utime.tv_usec / 1e6;
	res->sys = r->stime.tv_sec + r->stime.tv_usec / 1e6;
	res->maxrss_kb = r->maxrss_kb;
	/* a program that never started has no exit status (the child's 127 is tierlab's own) */
	res->exit_code = !r->exec_failed && ws != -1 && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
	res->signal = ws != -1 && WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;

	if (r->exec_failed) {
		res->status = TL_STATUS_FAILED;
		stage_error(r, res->error, sizeof(res->error));
	} else if (kill_requested) {
		fail(res, 0, "interrupted");
	} else if (r->timed_out) {
		res->status = TL_STATUS_TIMEOUT;
		snprintf(res->error, sizeof(res->error), "timed out after %gs", r->req->timeout);
	} else if (ws == -1) {
		fail(res, 0, "lost track of '%s' (SIGCHLD ignored?)", r->req->argv[0]);
	} else if (WIFEXITED(ws)) {
		res->status = res->exit_code ? TL_STATUS_FAILED : TL_STATUS_OK;
		if (res->exit_code)
			snprintf(res->error, sizeof(res->error), "exit status %d", res->exit_code);
	} else {
		const char *abbrev = sigabbrev_np(res->signal);

		res->status = TL_STATUS_CRASHED;
		if (abbrev)
			snprintf(res->error, sizeof(res->error), "killed by SIG%s", abbrev);
		else
			snprintf(res->error, sizeof(res->error), "killed by signal %d", res->signal);
	}
	classify_capture(r, &r->out);
	classify_capture(r, &r->err);
}

static void release(struct run *r)
{
	tl_capture_close(&r->out);
	tl_capture_close(&r->err);
	close_fd(&r->cs.stdin_fd);
	close_fd(&r->cs.stdout_fd);
	close_fd(&r->cs.stderr_fd);
	close_fd(&r->cs.cork_rd);
	close_fd(&r->cs.cork_wr);
	close_fd(&r->cs.err_rd);
	close_fd(&r->cs.err_wr);
	close_fd(&r->pidfd);
	close_fd(&r->guard_wr);
	if (r->cpus)
		numa_bitmask_free(r->cpus);
	if (r->mems)
		numa_bitmask_free(r->mems);
}

int tl_runner_run(const struct tl_run_request *req, struct tl_run_result *res)
{
	struct run r = {
		.req = req,
		.res = res,
		.pidfd = -1,
		.guard_wr = -1,
		.out = { .rd = -1, .file = -1 },
		.err = { .rd = -1, .file = -1 },
		.cs = {
			.stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1,
			.cork_rd = -1, .cork_wr = -1, .err_rd = -1, .err_wr = -1,
		},
	};
	const struct tl_runner_hooks *h = req->hooks;
	int rc;

	memset(res, 0, sizeof(*res));
	res->exit_code = -1;
	res->started_at = res->ended_at = tl_wall_s();
	rc = prepare(&r);
	if (rc)
		goto out_release;
	rc = spawn(&r);
	if (rc)
		goto out_release;
	rc = start_guard(&r);
	if (!rc)
		rc = start(&r);
	if (!rc)
		wait_loop(&r);
	finish(&r);
	if (!rc)
		classify(&r);
	if (r.started && h && h->finished)
		h->finished(r.pid, h->arg);
out_release:
	release(&r);
	return rc;
}
