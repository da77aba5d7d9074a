/*
 * Waiting for a quiet host before each run (run and sweep --quiet-host
 * LOAD[:WAIT]), as benchmark harnesses do: until the 1-minute load
 * average is below LOAD, giving up after WAIT (and saying so, in the
 * run's record too). The kernel updates the average every 5 s, with a
 * minute's memory: the last run's own load fades from it in about a
 * minute.
 */
#ifndef TL_QUIET_HOST_H
#define TL_QUIET_HOST_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include "util/error.h"

/* WAIT when --quiet-host gives none. */
#define TL_QUIET_WAIT_S 600.0

struct tl_quiet_host {
	double load;		/* wait until the 1-minute load is below this; 0: do not wait */
	double wait_s;		/* at most this long */
};

/*
 * "LOAD[:WAIT]": LOAD a number above 0 (the CPUs online is a busy host's
 * mark, tierlab report), WAIT a duration ("90s", "10m"; default
 * TL_QUIET_WAIT_S). 0, or -EINVAL with the reason in err.
 */
int tl_quiet_host_parse(const char *text, struct tl_quiet_host *q, struct tl_error *err);

/* How a wait ended. */
struct tl_quiet_result {
	double waited_s;
	double load;		/* the 1-minute load when it stopped waiting; NaN when unreadable */
	bool gave_up;		/* WAIT passed with the load at or above LOAD */
	bool stopped;		/* *stop was set */
};

/* The clock, the load and the sleep a wait uses (tests give their own); NULL: the host's. */
struct tl_quiet_ops {
	double (*now)(void *arg);		/* seconds, monotonic */
	double (*load1)(void *arg);		/* the 1-minute load; NaN when unreadable */
	void (*sleep)(double seconds, void *arg);
	void *arg;
};

/*
 * Waits as q says, polling every 5 s, until the load is below q->load,
 * q->wait_s have passed, or *stop (may be NULL) is set; says on say (may
 * be NULL) that it waits and how it ended. An unreadable load is not
 * waited for.
 */
void tl_quiet_host_wait(const struct tl_quiet_host *q, const struct tl_quiet_ops *ops,
			const volatile sig_atomic_t *stop, FILE *say, struct tl_quiet_result *out);

/* "load 1.52 below 2 after 35 s", "gave up after 600 s: load 3.10, not below 2": the record's host.quiet. */
void tl_quiet_result_text(const struct tl_quiet_host *q, const struct tl_quiet_result *r, char *buf, size_t len);

#endif
