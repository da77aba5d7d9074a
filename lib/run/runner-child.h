/*
 * Internal to the runner: what the forked child does before exec, and how
 * it tells the parent that it could not get there. Everything the child
 * needs is prepared by the parent before fork (see runner.c), because
 * between fork and exec only async-signal-safe calls are allowed.
 */
#ifndef TL_RUNNER_CHILD_H
#define TL_RUNNER_CHILD_H

#include <sys/types.h>

struct bitmask;

/* Where the child gave up; the parent words its error from this. */
enum tl_child_stage {
	TL_CHILD_EXEC,
	TL_CHILD_STDIO,
	TL_CHILD_CHDIR,
	TL_CHILD_CPUS,
	TL_CHILD_MEMS,
};

/* Written to the error pipe by a child that could not exec. */
struct tl_child_error {
	int stage;			/* enum tl_child_stage */
	int err;			/* errno */
};

/* All fds are >= 3 and close-on-exec in the parent. */
struct tl_child_setup {
	char *const *argv;
	char *const *envp;
	const char *dir;
	int stdin_fd, stdout_fd, stderr_fd;
	int cork_rd, cork_wr;		/* socket pair: the child closes cork_wr, waits for a byte on cork_rd */
	int err_rd, err_wr;		/* the child closes err_rd and reports on err_wr */
	pid_t parent;			/* to notice a parent that died before PR_SET_PDEATHSIG */
	int max_fd;			/* for the close-on-exec loop when close_range is missing */
	const struct bitmask *cpus;	/* CPUs to run on, NULL = unchanged */
	const struct bitmask *mems;	/* nodes of the mempolicy, NULL = unchanged */
	int mem_mode;			/* MPOL_BIND, MPOL_PREFERRED_MANY, MPOL_INTERLEAVE, ... */
};

/* Runs in the child after fork; never returns (exec or _exit(127)). */
_Noreturn void tl_runner_child(const struct tl_child_setup *s);

/*
 * The guard of one run, in a second child forked after the workload: it
 * waits on guard_rd, whose write end only tierlab holds. A 'q' there ends
 * it quietly (tierlab reaped the run itself); end of file without one
 * means tierlab died without cleaning up (SIGKILL cannot be caught), and
 * the guard kills the run's process group, whose leader the kernel
 * killed (PR_SET_PDEATHSIG) but whose other members would live on under
 * init. Never returns.
 */
_Noreturn void tl_runner_guard(int guard_rd, pid_t pgid);

#endif
