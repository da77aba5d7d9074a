/*
 * A fake runtime for the sampler tests and the benchmark: a 1 GiB arena
 * of its own laid out as the core lays out managed memory (one read-write
 * VMA, 1 GiB-aligned), a few 2 MiB blocks of it pre-touched, a span()
 * that hands the arena out, a deliver() that records samples under a lock, and a
 * ticker thread that calls ops->tick() at a rate, signals blocked, as the
 * core's runtime thread does. Header-only: each test includes it once.
 */
#ifndef TESTS_SAMPLER_HARNESS_H
#define TESTS_SAMPLER_HARNESS_H

#include "tiermem/rt-sampler.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define H_BLOCK (2UL << 20)
#define H_ARENA (1UL << 30)
#define H_MAX_SAMPLES 65536

static struct {
	uintptr_t base;
	size_t nblocks;
	_Atomic int span_off;		/* span() says nothing is managed */
	pthread_mutex_t lock;		/* orders deliveries and resets */
	_Atomic size_t nsamples;	/* published */
	struct rt_sample samples[H_MAX_SAMPLES];
	const struct rt_sampler_ops *ops;
	struct rt_sampler_env env;
	pthread_t ticker;
	_Atomic int ticking;
	_Atomic uint64_t ticks;
	double hz;
} H = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int h_span(struct rt_block *out)
{
	if (!H.nblocks || atomic_load(&H.span_off))
		return -1;
	out->addr = H.base;
	out->len = H_ARENA;
	return 0;
}

/*
 * Written under a lock, published with the count, so a reader never sees
 * a count ahead of its samples. The fault sampler delivers from several
 * handler threads, and a sample the test never waited for may arrive
 * after a reset: the lock orders it against the reset and the next one.
 */
static void h_deliver(const struct rt_sample *s)
{
	size_t i;

	pthread_mutex_lock(&H.lock);
	i = atomic_load(&H.nsamples);
	if (i < H_MAX_SAMPLES)
		H.samples[i] = *s;
	atomic_store(&H.nsamples, i + 1);
	pthread_mutex_unlock(&H.lock);
}

static inline size_t h_nsamples(void)
{
	size_t n = atomic_load(&H.nsamples);

	return n < H_MAX_SAMPLES ? n : H_MAX_SAMPLES;
}

static inline void h_reset_samples(void)
{
	pthread_mutex_lock(&H.lock);
	atomic_store(&H.nsamples, 0);
	pthread_mutex_unlock(&H.lock);
}

/*
 * Maps the arena (THP-advised unless thp is 0) and fills its first
 * nblocks 2 MiB blocks: byte i of block b = (i * 7 + b) & 0xff. The rest
 * of the arena is never touched.
 */
static inline uintptr_t h_map(size_t nblocks, int thp)
{
	uint8_t *p = mmap(NULL, 2 * H_ARENA, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		return 0;
	a = ((uintptr_t)p + H_ARENA - 1) & ~(H_ARENA - 1);
	if (mmap((void *)a, H_ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		return 0;
	madvise((void *)a, H_ARENA, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	for (size_t b = 0; b < nblocks; b++)
		for (size_t i = 0; i < H_BLOCK; i++)
			((uint8_t *)a)[b * H_BLOCK + i] = (uint8_t)((i * 7 + b) & 0xff);
	H.base = a;
	H.nblocks = nblocks;
	return a;
}

static inline int h_check(size_t b)
{
	const uint8_t *p = (const uint8_t *)(H.base + b * H_BLOCK);

	for (size_t i = 0; i < H_BLOCK; i++)
		if (p[i] != (uint8_t)((i * 7 + b) & 0xff))
			return 0;
	return 1;
}

/* The child gets the sample lock free, whatever a handler thread was doing. */
static void h_atfork_prepare(void)
{
	if (H.ops && H.ops->atfork_prepare)
		H.ops->atfork_prepare();
	pthread_mutex_lock(&H.lock);
}

static void h_atfork_parent(void)
{
	pthread_mutex_unlock(&H.lock);
	if (H.ops && H.ops->atfork_parent)
		H.ops->atfork_parent();
}

static void h_atfork_child(void)
{
	pthread_mutex_init(&H.lock, NULL);
	if (H.ops && H.ops->atfork_child)
		H.ops->atfork_child();
}

/* 0, or -errno from start() with the reason in why. */
static inline int h_start(const struct rt_sampler_ops *ops, double hz, char *why, size_t whylen)
{
	static int registered;

	if (!registered++)
		pthread_atfork(h_atfork_prepare, h_atfork_parent, h_atfork_child);
	H.env = (struct rt_sampler_env){ .rate_hz = hz, .span = h_span, .deliver = h_deliver };
	H.hz = hz;
	H.ops = ops;
	return ops->start(&H.env, why, whylen);
}

static void *h_ticker(void *arg)
{
	uint64_t period = (uint64_t)(1e9 / H.hz);
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	while (atomic_load(&H.ticking)) {
		ts.tv_nsec += (long)period;
		while (ts.tv_nsec >= 1000000000L) {
			ts.tv_nsec -= 1000000000L;
			ts.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (!atomic_load(&H.ticking))
			break;
		H.ops->tick();
		atomic_fetch_add(&H.ticks, 1);
	}
	return NULL;
}

static inline void h_ticker_start(double hz)
{
	sigset_t all, old;

	H.hz = hz;
	atomic_store(&H.ticks, 0);
	atomic_store(&H.ticking, 1);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_create(&H.ticker, NULL, h_ticker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static inline void h_ticker_stop(void)
{
	atomic_store(&H.ticking, 0);
	pthread_join(H.ticker, NULL);
}

#endif
