/*
 * What every built-in workload shares: timing, argument checks, the one
 * line that carries the figure of merit, and big allocations.
 *
 * Output convention (the descriptors' regexes rely on it):
 *   validation: passed            (or "validation: FAILED: <why>", exit 1)
 *   figure-of-merit: <value> <unit>
 * A bad argument prints one line "<prog>: <what is wrong>" to stderr and
 * exits 2.
 *
 * Each big array is ONE malloc'd block (not row by row), so a tiering
 * runtime sees it as one large allocation it can manage and name.
 */
#ifndef WL_H
#define WL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((format(printf, 2, 3), noreturn))
static inline void wl_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see --help)\n");
	exit(2);
}

/* A whole positive integer in [min, max], or a usage error naming the option. */
static inline long wl_parse_long(const char *prog, const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s ? s : "", &end, 10);
	if (!s || !*s || *end || errno || v < min || v > max)
		wl_usage_error(prog, "%s: '%s' is not a whole number from %ld to %ld", opt,
			       s ? s : "", min, max);
	return v;
}

static inline double wl_parse_double(const char *prog, const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s ? s : "", &end);
	if (!s || !*s || *end || errno || v != v)
		wl_usage_error(prog, "%s: '%s' is not a number", opt, s ? s : "");
	return v;
}

/* The thread count OMP_NUM_THREADS asks for (its first level), 1 when unset. */
static inline int wl_default_threads(const char *prog)
{
	const char *s = getenv("OMP_NUM_THREADS");
	char *end;
	long v;

	if (!s || !*s)
		return 1;
	v = strtol(s, &end, 10);
	/* OMP_NUM_THREADS may be a list ("4,2"): its first level counts */
	if (v < 1 || v > 4096 || (*end && *end != ','))
		wl_usage_error(prog, "OMP_NUM_THREADS: '%s' is not a thread count", s);
	return (int)v;
}

/* One big block, or exit with a clear message (a workload cannot go on without it). */
static inline void *wl_alloc(const char *prog, const char *what, size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	if (!p) {
		fprintf(stderr, "%s: cannot allocate %zu bytes for %s\n", prog, bytes, what);
		exit(1);
	}
	return p;
}

/* The verdict and, when it passed, the figure of merit; 0 or 1 for the exit status. */
static inline int wl_print_verdict(const char *check_failure, double fom, const char *unit)
{
	if (check_failure)
		printf("validation: FAILED: %s\n", check_failure);
	else
		printf("validation: passed\nfigure-of-merit: %.6g %s\n", fom, unit);
	fflush(stdout);
	return check_failure ? 1 : 0;
}

static inline void wl_report(const char *check_failure, double fom, const char *unit)
{
	if (wl_print_verdict(check_failure, fom, unit))
		exit(1);
}

#endif
