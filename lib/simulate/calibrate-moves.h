/*
 * Calibration of a tier model's migration figures from live runs that
 * migrated: the runtime's one thread makes every move, and while it moves
 * it takes no sample (lib/tiermem/thread.c: ticks that come due meanwhile
 * are skipped). Its time in drains (rt.drain_ns_total) over the moves and
 * bytes it made gives what one move costs it on this machine, under a
 * running program: what a replay needs to take the samples a live run
 * takes, and what probe's move throughput of an idle buffer does not say.
 *
 *   drain_ns = moves * cost_ns + bytes / gbs	(least squares, both >= 0)
 *
 * With one move size the two terms cannot be told apart: all of it is
 * taken per byte (a move's time then scales with its chunk, as copying
 * and the per-page work of a same-node move both do).
 */
#ifndef TL_SIMULATE_CALIBRATE_MOVES_H
#define TL_SIMULATE_CALIBRATE_MOVES_H

#include <stdbool.h>
#include <stddef.h>

/* One live run: its runtime's drain time and the moves and bytes it made. */
struct tl_calib_moves {
	double drain_ns, moves, bytes;
};

struct tl_calib_moves_fit {
	double cost_us, gbs;		/* the fitted figures (gbs: bytes per ns) */
	bool per_byte_only;		/* one move size, or a negative term: all of it per byte */
	double rms_ms;			/* of the runs' drain time residuals */
	double max_rel;			/* the largest residual relative to its run's drain time */
};

/*
 * Fits *fit to the n runs (those with no move are ignored). -EINVAL when
 * no run moved or none spent time draining.
 */
int tl_calibrate_moves(const struct tl_calib_moves *runs, size_t n, struct tl_calib_moves_fit *fit);

#endif
