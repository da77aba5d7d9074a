/*
 * Error reporting, as git does it: library code prints with error() and
 * returns; only cmd/ code dies. Messages are lowercase, no final period,
 * subjects in quotes: "error: spec 'x.yaml':12:5: unknown policy 'lur'".
 *
 * Library functions that must hand a message back to the caller instead of
 * printing it (the spec parser, so tests can compare error lines) fill a
 * struct tl_error.
 */
#ifndef TL_ERROR_H
#define TL_ERROR_H

#include <stdarg.h>

struct tl_error {
	char msg[1024];
};

/* Prints "error: <msg>" to stderr; returns -1 so callers can `return error(...)`. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "warning: <msg>" to stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "fatal: <msg>" and exits with status 2 (bad usage or input). Only for cmd/. */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A broken invariant: prints file:line and aborts. */
#define BUG(...) tl_bug(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void tl_bug(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Formats into err->msg (when err is non-NULL), control characters written
 * as \n, \t, \r or \xNN so the message stays one line, and returns -EINVAL.
 */
int tl_error_set(struct tl_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
