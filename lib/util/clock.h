/*
 * Seconds as a double, from the monotonic clock (durations, deadlines)
 * or the real-time clock (timestamps stored and shown: seconds since the
 * epoch). One place, so every duration and timestamp is read the same way.
 */
#ifndef TL_UTIL_CLOCK_H
#define TL_UTIL_CLOCK_H

#include <time.h>

static inline double tl_clock_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double tl_mono_s(void)
{
	return tl_clock_s(CLOCK_MONOTONIC);
}

static inline double tl_wall_s(void)
{
	return tl_clock_s(CLOCK_REALTIME);
}

#endif
