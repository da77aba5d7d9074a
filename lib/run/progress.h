/*
 * Progress of a sweep on stderr: on a terminal one status line, rewritten,
 * with the run count and an ETA (mean duration of the finished runs times
 * the runs left) above which each finished run leaves one line; elsewhere
 * only the plain lines, so logs stay readable.
 */
#ifndef TL_PROGRESS_H
#define TL_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include "run/runner.h"

struct tl_progress {
	size_t total, done;
	bool tty;
	double t0, run_t0, busy;	/* busy: seconds spent in finished runs */
	size_t timed;			/* finished runs that count towards the ETA */
	char current[600];
};

void tl_progress_start(struct tl_progress *p, size_t total, bool tty);
void tl_progress_skip(struct tl_progress *p, const char *key, const char *desc);
void tl_progress_begin(struct tl_progress *p, const char *key, const char *desc);
void tl_progress_end(struct tl_progress *p, const struct tl_run_result *res, bool has_fom,
		     double fom, const char *unit);
void tl_progress_finish(struct tl_progress *p);

/* "1h02m", "3m05s", "42s" */
void tl_format_duration(char *buf, size_t len, double seconds);

#endif
