/*
 * Starting and finishing one workload process, as git's run-command and
 * perf stat do it: the child is forked and waits on a pipe ("cork") until
 * the parent has done its set-up (counters, recording), then execs the
 * argv directly (never a shell). The child leads its own process group so
 * a timeout can end it and everything it started: SIGTERM to the group,
 * then SIGKILL after a grace period. stdout and stderr go through pipes
 * into files (capture.h): an output not captured whole (a full disk) fails
 * the run.
 *
 * Every error path kills and reaps the child: tl_runner_run never leaves a
 * process behind. To reap the workload's orphans too (and find daemons
 * that left its process group with setsid), the calling process becomes a
 * child subreaper (PR_SET_CHILD_SUBREAPER) on its first run. Should the
 * calling process die while a run is in progress (SIGKILL), the kernel
 * kills the workload (PR_SET_PDEATHSIG) and the run's guard process kills
 * the rest of its process group.
 */
#ifndef TL_RUNNER_H
#define TL_RUNNER_H

#include <numaif.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "store/result.h"

/* Called with the child corked (stopped before exec) and every tick while it runs. */
struct tl_runner_hooks {
	int (*started)(pid_t pid, void *arg);	/* non-zero: abort the run (status failed) */
	void (*tick)(pid_t pid, void *arg);	/* every tick_ms while the child runs */
	void (*finished)(pid_t pid, void *arg);	/* after the child was reaped */
	void *arg;
	unsigned tick_ms;			/* 0 = 100 */
};

/* Linux 6.9's mode; the numaif.h of libnuma 2.0.16 predates it. */
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif

struct tl_run_request {
	char *const *argv;		/* argv[0] looked up in PATH when it has no '/' */
	char *const *envp;		/* the whole environment of the child; NULL = ours */
	const char *dir;		/* working directory, NULL = out_dir */
	const char *out_dir;		/* created if missing; stdout.txt and stderr.txt go there */
	const char *cpu_nodes;		/* numactl node syntax; NULL = no CPU binding */
	const char *mem_nodes;		/* the nodes of the process's mempolicy; NULL = none */
	int mem_mode;			/* its mode (MPOL_*, numaif.h); 0 = MPOL_BIND */
	double timeout;			/* seconds; 0 = none */
	double kill_grace;		/* seconds between SIGTERM and SIGKILL; 0 = 5 */
	const struct tl_runner_hooks *hooks;
};


/*
 * Runs the request to completion. Returns 0 when the run happened (whatever
 * its status, which is in res), negative errno when tierlab itself failed
 * (could not create out_dir, fork failed): res->status is then FAILED with
 * the reason in res->error. A missing binary is a run that failed (with
 * the reason, and exit_code -1: the program never ran), not an error of
 * tierlab.
 */
int tl_runner_run(const struct tl_run_request *req, struct tl_run_result *res);

/*
 * Async-signal-safe: kills the process group of the run in progress (if
 * any), for a SIGINT/SIGTERM handler of the caller. tl_runner_run then
 * returns with the child reaped, status FAILED, error "interrupted".
 */
void tl_runner_kill_current(void);

#endif
