/*
 * The children of tl_runner_run: the workload's side from fork to exec,
 * and the run's guard. Only async-signal-safe calls are made here: the
 * parent may have had other threads holding the malloc or stdio locks at
 * fork time, so this code uses what the parent prepared (fds, paths,
 * bitmasks) and raw system calls. A step of the workload's child that
 * fails is reported through the error pipe and ends the child with 127, as
 * a shell does for a command it cannot run.
 */
#include "run/runner-child.h"

#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

static _Noreturn void give_up(const struct tl_child_setup *s, enum tl_child_stage stage, int err)
{
	struct tl_child_error ce = { .stage = stage, .err = err };
	ssize_t n;

	do
		n = write(s->err_wr, &ce, sizeof(ce));
	while (n < 0 && errno == EINTR);
	_exit(127);
}

/* dup2 leaves the target open across exec; a no-op dup2 would keep CLOEXEC. */
static int put_fd(int fd, int target)
{
	if (fd == target)
		return fcntl(fd, F_SETFD, 0);
	return dup2(fd, target) < 0 ? -1 : 0;
}

/*
 * Whatever tierlab holds (the store, counters, other runs' files) must not
 * reach the workload. Marking instead of closing keeps the cork and error
 * pipes usable until exec.
 */
static void cloexec_the_rest(int max_fd)
{
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	for (int fd = 3; fd < max_fd; fd++) {
		int flags = fcntl(fd, F_GETFD);

		if (flags >= 0 && !(flags & FD_CLOEXEC))
			fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
	}
}

/*
 * Handlers would not survive exec anyway, but ignored signals would, and a
 * workload that ignores SIGTERM or SIGPIPE because tierlab did would
 * behave differently from the same command run from a shell.
 */
static void default_signals(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;

	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);	/* fails harmlessly for libc's reserved ones */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void tl_runner_child(const struct tl_child_setup *s)
{
	char c;
	ssize_t n;

	close(s->cork_wr);
	close(s->err_rd);
	/* The parent does the same; whoever runs first makes the group exist. */
	setpgid(0, 0);
	default_signals();
	/* A tierlab killed with SIGKILL must not leave its workload running. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != s->parent)
		_exit(127);

	if (put_fd(s->stdin_fd, 0) || put_fd(s->stdout_fd, 1) || put_fd(s->stderr_fd, 2))
		give_up(s, TL_CHILD_STDIO, errno);
	cloexec_the_rest(s->max_fd);
	if (s->dir && chdir(s->dir))
		give_up(s, TL_CHILD_CHDIR, errno);
	if (s->cpus && numa_sched_setaffinity(0, (struct bitmask *)s->cpus))
		give_up(s, TL_CHILD_CPUS, errno);
	/*
	 * set_mempolicy rather than numa_set_membind, numa_set_preferred_many
	 * or numa_set_interleave_mask, which report a failure by printing (not
	 * safe here) and return nothing (and libnuma 2.0.16 has no weighted
	 * interleave). The policy is inherited across exec and by the
	 * workload's own children, as numactl's is.
	 */
	if (s->mems && set_mempolicy(s->mem_mode, s->mems->maskp, s->mems->size + 1))
		give_up(s, TL_CHILD_MEMS, errno);

	/*
	 * Corked: the parent sets up counters on our pid, then sends one byte.
	 * End of file without it means the parent gave up (or died).
	 */
	do
		n = read(s->cork_rd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);

	execvpe(s->argv[0], s->argv, s->envp);
	give_up(s, TL_CHILD_EXEC, errno);
}

void tl_runner_guard(int guard_rd, pid_t pgid)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	char c = 0;
	ssize_t n;

	/*
	 * The terminal's signals reach tierlab's process group, the guard
	 * included: tierlab handles them; the guard must outlive it.
	 */
	sigemptyset(&ign.sa_mask);
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		sigaction(ignored[i], &ign, NULL);
	/* Nothing of tierlab's stays open here: the database, the run's pipes, its files. */
	if (guard_rd > 0)
		close_range(0, (unsigned)guard_rd - 1, 0);
	close_range((unsigned)guard_rd + 1, ~0U, 0);
	prctl(PR_SET_NAME, "tierlab-guard");
	do
		n = read(guard_rd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1 || c != 'q')
		kill(-pgid, SIGKILL);
	_exit(0);
}
