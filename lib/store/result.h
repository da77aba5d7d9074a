/*
 * The record of one run, as the parts that measure it fill it and the
 * store writes it: how the process ended (the runner), and everything
 * measured about it. Only lib/store/ turns it into rows.
 */
#ifndef TL_RESULT_H
#define TL_RESULT_H

enum tl_run_status {
	TL_STATUS_OK,		/* exit 0 and a figure of merit (when one was asked for) */
	TL_STATUS_FAILED,	/* non-zero exit, could not start, or no figure of merit */
	TL_STATUS_TIMEOUT,
	TL_STATUS_CRASHED,	/* killed by a signal it did not get from us */
	TL_STATUS__COUNT
};
extern const char *const tl_status_names[TL_STATUS__COUNT];	/* "ok", "failed", "timeout", "crashed" */

struct tl_run_result {
	enum tl_run_status status;
	int exit_code;			/* -1 when it did not exit */
	int signal;			/* terminating signal, 0 when none */
	double wall, user, sys;		/* seconds */
	long maxrss_kb;
	double started_at, ended_at;	/* seconds since the epoch */
	char error[512];		/* why, when status != ok: "exit status 3", "killed by SIGSEGV", ... */
};

#endif
