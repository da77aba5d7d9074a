/*
 * A run's stdout and stderr, captured whole or the run fails. The child
 * writes into a pipe and tierlab copies what comes into the run's file
 * (stdout.txt, stderr.txt), checking every write: a full file system
 * (ENOSPC, EDQUOT), an I/O error or a write that makes no progress is
 * noticed by tierlab, not only by the program, which may well ignore it
 * and exit 0 with its figure of merit cut off. Such a run is not ok: the
 * reason names the file, the error and the directory, and `--resume`
 * runs it again. Whatever the file refuses is still read from the pipe
 * (and dropped), so the program runs on as it would have.
 */
#ifndef TL_RUN_CAPTURE_H
#define TL_RUN_CAPTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_capture {
	int rd;			/* the pipe's read end, non-blocking; -1 once at its end */
	int file;		/* the run's file; -1 once closed */
	char path[PATH_MAX];
	uint64_t written;	/* bytes in the file */
	uint64_t lost;		/* bytes read that the file did not take */
	int err;		/* the first error writing or closing the file (errno), 0 if none */
};

/*
 * Creates dir/name (truncated) and a pipe; *child_fd is the pipe's write
 * end for the child's stdout or stderr (close-on-exec, above fd 2). 0, or
 * -errno with the reason in why. c is usable by the functions below
 * either way (they do nothing to what was not opened).
 */
int tl_capture_open(struct tl_capture *c, const char *dir, const char *name, int *child_fd, char *why,
		    size_t whylen);

/* The fd to poll for input, or -1 when the pipe has ended. */
int tl_capture_fd(const struct tl_capture *c);

/* Copies what the pipe holds now into the file; never blocks. */
void tl_capture_pump(struct tl_capture *c);

/*
 * The last of the pipe (once every writer is gone), then the file is
 * closed, which reports what some file systems report only then.
 */
void tl_capture_close(struct tl_capture *c);

/*
 * Why the output is not whole, in one line, into buf; false when it is
 * (nothing lost, no error).
 */
bool tl_capture_failed(const struct tl_capture *c, char *buf, size_t len);

#endif
