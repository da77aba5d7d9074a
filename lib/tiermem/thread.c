/*
 * The runtime thread and the sampler's life around it. The thread starts
 * at the first managed allocation (never in a constructor, so a program
 * that never allocates big keeps exactly its own threads), with every
 * signal blocked so the program's signals never land on it. At the
 * sampling rate it drains the sample ring through the policy, migrates,
 * and calls sampler->tick(). fork(): the sampler restores everything before
 * the fork; the child has no runtime thread and restarts it lazily at its
 * next managed allocation, with its own counters file.
 */
#include "tiermem/rt.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define IDLE_NS 100000000ULL	/* the period when not sampling */
#define DRAIN_BATCH 256
#define DRAIN_MAX 4096

/*
 * The thread sleeps on this condition, not in clock_nanosleep: at exit the
 * destructor wakes it, where a sleep would hold the program's exit for the
 * rest of its period (up to 150 ms at the default 10 Hz, a third of a
 * short program's run).
 */
static pthread_mutex_t nap_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nap = PTHREAD_COND_INITIALIZER;

static int span(struct rt_block *out)
{
	int r = -1;

	/*
	 * trylock: a sampler may hold its own lock in tick() while the core,
	 * holding ours, waits in release_range(); skipping a tick beats that.
	 */
	if (pthread_mutex_trylock(&tlrt.lock))
		return -1;
	if (tlrt.arena_len && tlrt.live_chunks) {
		out->addr = atomic_load_explicit(&tlrt.base, memory_order_relaxed);
		out->len = tlrt.arena_len;
		r = 0;
	}
	pthread_mutex_unlock(&tlrt.lock);
	return r;
}

int tlrt_sampler_setup(char *why, size_t whylen)
{
	const struct rt_sampler_ops *ops = tlrt_sampler_find(tlrt.opt.sampler);
	char reason[256] = "";
	const char *bad;

	if (!ops) {
		snprintf(why, whylen, "TIERLAB_SAMPLER='%s': not built into this runtime",
			 tlrt_sampler_names[tlrt.opt.sampler]);
		return -1;
	}
	if ((bad = tlrt_sampler_check(ops))) {
		snprintf(why, whylen, "sampler '%s': %s", tlrt_sampler_names[tlrt.opt.sampler], bad);
		return -1;
	}
	tlrt_ring_reset();
	tlrt.sampler = ops;
	tlrt.sampler_env = (struct rt_sampler_env){
		.rate_hz = tlrt.opt.rate_hz,
		.span = span,
		.deliver = tlrt_ring_push,
		/* one node set for both tiers: wherever the kernel puts a page is right */
		.first_touch = tlrt.same_node ? NULL : tlrt_first_touch,
	};
	if (ops->start(&tlrt.sampler_env, reason, sizeof(reason))) {
		snprintf(why, whylen, "sampler '%s': %s", ops->name, reason[0] ? reason : "cannot start");
		return -1;
	}
	tlrt.sampler_started = 1;
	return 0;
}

/* At most DRAIN_MAX per call, so a flood of samples cannot starve the ticks. */
void tlrt_drain(void)
{
	struct rt_sample s[DRAIN_BATCH];
	int n, rounds = DRAIN_MAX / DRAIN_BATCH;

	do {
		uint64_t t0;

		for (n = 0; n < DRAIN_BATCH && tlrt_ring_pop(&s[n]); n++)
			;
		if (!n)
			return;
		t0 = tlrt_now_ns();
		tlrt_stat_add(RT_STAT_samples, (uint64_t)n);
		pthread_mutex_lock(&tlrt.lock);
		tlrt_log_drain(t0);
		for (int i = 0; i < n; i++)
			tlrt_process_sample(&s[i]);
		pthread_mutex_unlock(&tlrt.lock);
		tlrt_stat_add(RT_STAT_drain_ns_total, tlrt_now_ns() - t0);
	} while (n == DRAIN_BATCH && --rounds);
}

/* Sleeps until t (CLOCK_MONOTONIC) or the stop; 1 when stopping. */
static int nap_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ULL), .tv_nsec = (long)(t % 1000000000ULL) };

	pthread_mutex_lock(&nap_lock);
	while (!atomic_load(&tlrt.stop) &&
	       pthread_cond_clockwait(&nap, &nap_lock, CLOCK_MONOTONIC, &ts) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&nap_lock);
	return atomic_load(&tlrt.stop);
}

/*
 * The tick after the one due at `at`. Each interval is drawn uniformly in
 * [period/2, 3*period/2): the rate asked on average, but never in step
 * with a program that repeats itself at a multiple of the period (a sweep
 * of a fixed size), which a fixed period would sample at the same few
 * places every time. Ticks whose time has passed are skipped, not fired
 * at once: a burst of armings right after a late one would sample what the
 * program does just after a stall, and the thread of the last sample would
 * likely not have made its access yet (docs/samplers.md).
 */
uint64_t tlrt_tick_after(uint64_t at, uint64_t now, uint64_t period, uint64_t *rng)
{
	if (now > at && (now - at) / period > 64)
		at += ((now - at) / period - 2) * period;	/* a long stall: a few periods before now */
	do {
		*rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
		at += period / 2 + *rng % (period | 1);
	} while (at <= now);
	return at;
}

/*
 * One tick: arm the sampler, and while it says the last sample's access
 * has not been made yet, ask again every `step` until the tick after this
 * one is due (then that tick tries). Time in tick() is the sampler's cost.
 */
static void tick(uint64_t following, uint64_t period)
{
	uint64_t step = period / 8, start = tlrt_now_ns(), t0 = start, spent;
	int r = tlrt_sampler_tick();

	spent = tlrt_now_ns() - t0;
	if (step > 250000)
		step = 250000;
	if (step < 20000)
		step = 20000;
	while (r == RT_TICK_NOT_YET && tlrt_now_ns() + step < following && !nap_until(tlrt_now_ns() + step)) {
		t0 = tlrt_now_ns();
		r = tlrt_sampler_tick();
		spent += tlrt_now_ns() - t0;
	}
	tlrt_stat_add(RT_STAT_ticks, 1);
	tlrt_stat_add(RT_STAT_sample_ns_total, spent);
	if (t0 != start)
		tlrt_stat_add(RT_STAT_arm_wait_ns, t0 - start);
}

static void *runtime_thread(void *arg)
{
	uint64_t period = tlrt.opt.rate_hz > 0 ? (uint64_t)(1e9 / tlrt.opt.rate_hz) : IDLE_NS;
	uint64_t now = tlrt_now_ns(), last_flush = now, rng = now | 1, next;
	struct tlrt_pressure pressure = { .path = "/proc/pressure/memory", .last_total = -1 };

	(void)arg;
	tlrt_in_rt = 1;
	if (!period)
		period = 1;
	next = tlrt_tick_after(now, now, period, &rng);
	while (!nap_until(next)) {
		uint64_t due = next;

		next = tlrt_tick_after(due, due, period, &rng);
		/*
		 * The last tick's sample first: its migrations release (disarm)
		 * the memory they move, so arming before them would waste the arm.
		 */
		tlrt_drain();
		if (tlrt.opt.rate_hz > 0 && tlrt.sampler_started)
			tick(next, period);
		now = tlrt_now_ns();
		if (now - last_flush > IDLE_NS) {
			tlrt_log_flush();
			last_flush = now;
		}
		tlrt_cache_poll(&pressure, now);
		/* the drain and the tick ran past the next tick: skip it, keep the schedule */
		if (next <= now) {
			if (tlrt.opt.rate_hz > 0)
				tlrt_stat_add(RT_STAT_ticks_late, (now - next) / period + 1);
			next = tlrt_tick_after(next, now, period, &rng);
		}
	}
	return NULL;
}

int tlrt_thread_start(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	int err;

	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	atomic_store(&tlrt.stop, 0);
	/* the thread inherits the mask: no signal of the program is ever delivered to it */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&tlrt.thread, &attr, runtime_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		return -err;
	pthread_setname_np(tlrt.thread, "tiermem");
	tlrt.thread_running = 1;
	return 0;
}

void tlrt_thread_stop(void)
{
	struct timespec ts;

	if (!tlrt.thread_running)
		return;
	pthread_mutex_lock(&nap_lock);
	atomic_store(&tlrt.stop, 1);
	pthread_cond_signal(&nap);
	pthread_mutex_unlock(&nap_lock);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	/* at exit another thread of the program may hold the lock forever: don't hang on it */
	if (!pthread_timedjoin_np(tlrt.thread, NULL, &ts))
		tlrt.thread_running = 0;
}

static int fork_locked;

static void fork_prepare(void)
{
	if (atomic_load(&tlrt.state) != TLRT_ACTIVE)
		return;
	tlrt_sampler_fork(TLRT_FORK_PREPARE);
	pthread_mutex_lock(&tlrt.lock);
	fork_locked = 1;
}

static void fork_parent(void)
{
	if (!fork_locked)
		return;
	fork_locked = 0;
	pthread_mutex_unlock(&tlrt.lock);
	tlrt_sampler_fork(TLRT_FORK_PARENT);
}

static void fork_child(void)
{
	int active = fork_locked;

	fork_locked = 0;
	/* fresh locks: the parent's holders do not exist here */
	pthread_mutex_init(&tlrt.lock, NULL);
	pthread_mutex_init(&nap_lock, NULL);
	pthread_cond_init(&nap, NULL);
	tlrt.thread_running = 0;
	atomic_store(&tlrt.stop, 0);
	tlrt_record_child();
	if (!active)
		return;
	tlrt_ring_reset();
	tlrt.start_ns = tlrt_now_ns();
	tlrt_sampler_fork(TLRT_FORK_CHILD);
}

void tlrt_atfork_register(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}
