/*
 * The `damon` sampler: DAMON's virtual-address monitoring of this very
 * process as the sample source. A kdamond of the kernel (created through
 * sysfs, damon-sysfs.c) watches the managed span, adapts its regions to the
 * program's access pattern and counts, per region, the sampling intervals
 * in which it saw the region accessed (nr_accesses). One aggregation
 * interval is one tick period. Each tick asks DAMON to publish the regions
 * of its next aggregation, waits for them, and draws ONE address from
 * them: a region with probability proportional to nr_accesses x size,
 * which is its share of the program's accesses as DAMON estimates it
 * (damon-pick.c says why), then a uniformly random page inside. The
 * sample has flags 0, no PC and no thread: DAMON knows neither.
 *
 * A tick waits for a snapshot taken after it began, so no aggregation is
 * ever sampled twice. When DAMON publishes more slowly than the rate asks
 * (Linux 6.12's sysfs polls for the kdamond's answer every 100 ms), ticks
 * simply take longer and the achieved rate (ticks / run time) shows it.
 *
 * DAMON's sysfs interface has no owner: writing nr_kdamonds recreates the
 * directory of every kdamond, someone else's included. So the sampler
 * starts only where nr_kdamonds reads 0, finding that out by reading alone,
 * and leaves it 0 and the kdamond off at stop(), at exit (the runtime's
 * destructor stops the sampler) and on every error path.
 *
 * fork(): DAMON keeps monitoring the parent; the child is not sampled (its
 * pid differs) and says so once at its first tick, and its stop() leaves
 * the parent's kdamond alone. A second kdamond for the child would need
 * nr_kdamonds written, which recreates the parent's. Memory is never
 * armed or protected, so release_range() has nothing to do.
 */
#include "tiermem/damon.h"
#include "tiermem/rt-sampler.h"
#include "tiermem/sampler-uffd.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
	const struct rt_sampler_env *env;
	pthread_mutex_t lock;
	pid_t owner;		/* the pid DAMON monitors, 0 when off */
	int running;		/* the kdamond is on */
	struct rt_block watched;	/* the span DAMON was given; len 0 = none yet */
	int strayed;		/* the last snapshot had regions outside it: give it again */
	int said_child;
	uint64_t rng;
	struct tlrt_damon_counts c;
} D = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.rng = 0x9e3779b97f4a7c15ULL,
};

/* One line on stderr: what, then ": strerror(-err)" when err, then more. */
static void say(const char *what, int err, const char *more)
{
	char line[400];
	size_t at = tlrt_fmt_str(line, sizeof(line), 0, "tiermem: damon sampler: ");

	at = tlrt_fmt_str(line, sizeof(line), at, what);
	if (err) {
		at = tlrt_fmt_str(line, sizeof(line), at, ": ");
		at = tlrt_fmt_str(line, sizeof(line), at, strerror(-err));
	}
	at = tlrt_fmt_str(line, sizeof(line), at, more);
	at = tlrt_fmt_str(line, sizeof(line), at, "\n");
	if (write(STDERR_FILENO, line, at) < 0) {
		/* nowhere to say it */
	}
}

/* Lock held. Gives DAMON back and stops sampling, saying why. */
static void give_up(const char *why, int err)
{
	int released = !tlrt_damon_release(TLRT_DAMON_ROOT);

	say(why, err, released ? "; no more samples" : "; no more samples, and nr_kdamonds could not be put back to 0");
	D.owner = 0;
	D.running = 0;
}

static int damon_start(const struct rt_sampler_env *env, char *why, size_t whylen)
{
	int saved = errno, err = 0;

	pthread_mutex_lock(&D.lock);
	D.env = env;
	if (D.owner != getpid()) {
		D.owner = 0;
		if (!(err = tlrt_damon_check(TLRT_DAMON_ROOT, why, whylen)) &&
		    !(err = tlrt_damon_create(TLRT_DAMON_ROOT, getpid(), why, whylen))) {
			D.owner = getpid();
			D.running = 0;
			D.watched.len = 0;
			D.strayed = 0;
			D.said_child = 0;
		}
	}
	pthread_mutex_unlock(&D.lock);
	errno = saved;
	return err;
}

static void offer(void *arg, const struct tlrt_damon_region *r)
{
	struct tlrt_damon_pick *p = arg;

	D.c.regions++;
	if (r->start < D.watched.addr || r->end > D.watched.addr + D.watched.len)
		D.strayed = 1;
	tlrt_damon_pick_offer(p, r, D.watched.addr, D.watched.addr + D.watched.len);
}

static int damon_tick(void)
{
	struct tlrt_damon_pick pick = { .rng = &D.rng };
	struct rt_sample smp = { .flags = 0 };
	struct rt_block b;
	char why[300];
	uint64_t t0;
	long n;
	int err, saved = errno;

	pthread_mutex_lock(&D.lock);
	if (!D.owner)
		goto out;
	if (D.owner != getpid()) {
		if (!D.said_child++)
			say("DAMON monitors the parent process; this forked child is not sampled", 0, "");
		goto out;
	}
	if (D.env->span(&b))
		goto out;
	if (b.addr != D.watched.addr || b.len != D.watched.len || D.strayed) {
		struct tlrt_damon_attrs a;

		tlrt_damon_attrs_for(D.env->rate_hz, b.len, &a);
		if (tlrt_damon_watch(TLRT_DAMON_ROOT, &a, b.addr, b.addr + b.len, D.running, why, sizeof(why))) {
			give_up(why, 0);
			goto out;
		}
		D.running = 1;
		D.watched = b;
		D.strayed = 0;
	}
	t0 = rt_now_ns();
	err = tlrt_damon_snapshot(TLRT_DAMON_ROOT);
	D.c.snapshot_ns += rt_now_ns() - t0;
	/*
	 * Refused (EINVAL) when the kdamond was off already; when it stopped
	 * during the wait the update "succeeds" over the last snapshot's
	 * regions, which are stale. Either way: no sample.
	 */
	if (tlrt_damon_stopped(TLRT_DAMON_ROOT)) {
		give_up("the kdamond was turned off", 0);
		goto out;
	}
	if (err) {
		give_up("DAMON did not publish its regions (update_schemes_tried_regions)", err);
		goto out;
	}
	D.c.snapshots++;
	n = tlrt_damon_regions(TLRT_DAMON_ROOT, offer, &pick);
	if (n < 0) {
		give_up("cannot read the regions DAMON published", (int)n);
		goto out;
	}
	smp.addr = tlrt_damon_pick_addr(&pick);
	if (!smp.addr) {
		D.c.idle++;
		goto out;
	}
	smp.t_ns = rt_now_ns();
	D.env->deliver(&smp);
	D.c.samples++;
out:
	pthread_mutex_unlock(&D.lock);
	errno = saved;
	return 0;
}

static void damon_stop(void)
{
	int err, saved = errno;

	pthread_mutex_lock(&D.lock);
	if (D.owner == getpid() && (err = tlrt_damon_release(TLRT_DAMON_ROOT)))
		say("could not put nr_kdamonds back to 0", err, "");
	D.owner = 0;
	D.running = 0;
	pthread_mutex_unlock(&D.lock);
	errno = saved;
}

static void damon_atfork_child(void)
{
	/* a tick of the parent may have held the lock; the child keeps owner = the parent's pid */
	pthread_mutex_init(&D.lock, NULL);
	D.said_child = 0;
}

void tlrt_sampler_damon_counts(struct tlrt_damon_counts *out)
{
	pthread_mutex_lock(&D.lock);
	*out = D.c;
	pthread_mutex_unlock(&D.lock);
}

static size_t damon_counts(struct rt_sampler_count *out, size_t max)
{
	struct tlrt_damon_counts c;

	tlrt_sampler_damon_counts(&c);
	const struct rt_sampler_count all[] = {
		RT_SAMPLER_COUNT(c, snapshots), RT_SAMPLER_COUNT(c, regions), RT_SAMPLER_COUNT(c, idle),
		RT_SAMPLER_COUNT(c, samples), RT_SAMPLER_COUNT(c, snapshot_ns),
	};
	return rt_sampler_counts_copy(out, max, all, sizeof(all) / sizeof(all[0]));
}

const struct rt_sampler_ops rt_sampler_damon = {
	.name = "damon",
	.start = damon_start,
	.tick = damon_tick,
	.stop = damon_stop,
	.atfork_child = damon_atfork_child,
	.counts = damon_counts,
};
