/*
 * The perf sampler against the fake runtime, on its test vehicle: the
 * software page-fault event (tlrt_perf_test_page_faults) stands in for a
 * PMU this machine does not have, so each record is a page's first touch.
 * What is checked is the sampler's path, not what a PMU samples: events
 * opened at the first tick on the threads that exist (not on the ticking
 * thread) and inherited by threads they create later; one sample per
 * tick, drawn among the records in the span, with the exact address, the
 * thread, a PC and a CLOCK_MONOTONIC time; records outside the span or of
 * a tick without one never delivered; a full buffer counted as lost; a
 * forked child with none of the parent's descriptors that samples its own
 * threads; nothing left open after stop. Without the test vehicle, start()
 * on this machine fails with the reason.
 */
#include "harness.h"
#include "tiermem/sampler-perf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#define PAGE 4096UL
#define MAXN 4096

static const struct rt_sampler_ops *ops = &rt_sampler_perf;

/* A thread of the program that touches what it is told, and may start another. */
struct worker {
	pthread_t t;
	pid_t tid;
	sem_t go, done;
	const uintptr_t *addrs;
	size_t n;
	struct worker *spawn;	/* start this one from here, before touching */
	void (*fn)(void);	/* run this from here, before touching */
	int quit;
};

static struct worker w1, w2;

static void worker_start(struct worker *w);

static void *work(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	sem_post(&w->done);
	for (;;) {
		sem_wait(&w->go);
		if (w->quit)
			return NULL;
		if (w->spawn) {
			worker_start(w->spawn);
			w->spawn = NULL;
		}
		if (w->fn) {
			w->fn();
			w->fn = NULL;
		}
		for (size_t i = 0; i < w->n; i++)
			*(volatile uint8_t *)w->addrs[i] = 1;
		sem_post(&w->done);
	}
}

static void worker_start(struct worker *w)
{
	sem_init(&w->go, 0, 0);
	sem_init(&w->done, 0, 0);
	w->quit = 0;
	pthread_create(&w->t, NULL, work, w);
	sem_wait(&w->done);
}

static void worker_run(struct worker *w, const uintptr_t *addrs, size_t n)
{
	w->addrs = addrs;
	w->n = n;
	sem_post(&w->go);
	sem_wait(&w->done);
}

static void worker_stop(struct worker *w)
{
	w->quit = 1;
	sem_post(&w->go);
	pthread_join(w->t, NULL);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * n never-touched addresses in 2 MiB block `block` of the arena, a
 * different byte of each page; fresh() makes them never-touched again.
 */
static size_t pages(uintptr_t *out, size_t block, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = H.base + block * H_BLOCK + i * PAGE + (i * 24) % PAGE;
	return n;
}

static void fresh(size_t block)
{
	madvise((void *)(H.base + block * H_BLOCK), H_BLOCK, MADV_DONTNEED);
}

static int perf_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], target[64];
	int n = 0;
	ssize_t len;

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		if ((len = readlink(path, target, sizeof(target) - 1)) > 0) {
			target[len] = '\0';
			n += !!strstr(target, "perf_event");
		}
	}
	if (d)
		closedir(d);
	return n;
}

/* The threads of this process (a sanitizer may have one of its own). */
static int tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int is_one_of(uintptr_t a, const uintptr_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == a)
			return 1;
	return 0;
}

/* This machine has no PMU sampling: without the vehicle, start() says so and starts nothing. */
static void no_pmu_here(void **state)
{
	struct rt_sampler_env env = { .rate_hz = 100, .span = h_span, .deliver = h_deliver };
	char why[256] = "";
	int err;

	(void)state;
	err = ops->start(&env, why, sizeof(why));
	if (!err) {
		ops->stop();
		print_message("skipped: this machine has a precise memory-access PMU\n");
		skip();
	}
	assert_int_equal(err, -ENOENT);
	/* PEBS: libpfm4 may know this CPU's event while the kernel (a VM) has no PMU for it */
	assert_non_null(strstr(why, "perf: no precise memory-access sampling on this CPU (no ibs_op or arm_spe PMU in "
				    "/sys/bus/event_source/devices; PEBS: "));
	assert_int_equal(perf_fds(), 0);
}

static int setup(void **state)
{
	char why[256] = "";

	(void)state;
	if (!h_map(1, 0))
		return -1;
	tlrt_perf_test_page_faults = 1;
	/* a thread of the program from before the first tick; this one only ticks */
	worker_start(&w1);
	if (h_start(ops, 100, why, sizeof(why))) {
		print_message("perf sampler (page faults) unavailable: %s\n", why);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ops->stop();
	worker_stop(&w1);
	return 0;
}

/* The first tick opens the events; from then on a tick delivers one of the records since the last. */
static void one_sample_per_tick(void **state)
{
	uintptr_t a[10];
	struct tlrt_perf_counts c0, c1;
	uint64_t t0;

	(void)state;
	assert_int_equal(perf_fds(), 0);	/* nothing opened before the first tick */
	ops->tick();
	tlrt_sampler_perf_counts(&c0);
	assert_int_equal(c0.threads, tasks() - 1);	/* w1 (and a sanitizer's), not the ticking thread */
	assert_int_equal(c0.events, c0.threads * (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(perf_fds(), (int)c0.events);
	for (int round = 0; round < 5; round++) {
		h_reset_samples();
		t0 = mono_ns();
		worker_run(&w1, a, pages(a, 4, 10));
		errno = 777;
		ops->tick();
		assert_int_equal(errno, 777);
		assert_int_equal(h_nsamples(), 1);
		assert_true(is_one_of(H.samples[0].addr, a, 10));
		assert_int_equal(H.samples[0].tid, w1.tid);
		assert_true(H.samples[0].pc != 0);
		assert_int_equal(H.samples[0].flags, 0);
		assert_true(H.samples[0].t_ns >= t0 && H.samples[0].t_ns <= mono_ns());
		/* nothing new: nothing delivered */
		h_reset_samples();
		ops->tick();
		assert_int_equal(h_nsamples(), 0);
		fresh(4);
	}
	tlrt_sampler_perf_counts(&c1);
	assert_int_equal(c1.in_span - c0.in_span, 50);
	assert_true(c1.records - c0.records >= 50);
	assert_int_equal(c1.delivered - c0.delivered, 5);
	assert_int_equal(c1.foreign, 0);
	assert_int_equal(c1.malformed, 0);
	assert_int_equal(c1.lost, 0);
}

/* A thread created by a sampled thread after the first tick is sampled too; the ticking thread never is. */
static void later_threads_inherit(void **state)
{
	uintptr_t a[5], b[5];

	(void)state;
	ops->tick();
	w1.spawn = &w2;
	worker_run(&w1, a, 0);
	h_reset_samples();
	worker_run(&w2, a, pages(a, 5, 5));
	ops->tick();
	assert_int_equal(h_nsamples(), 1);
	assert_int_equal(H.samples[0].tid, w2.tid);
	assert_true(is_one_of(H.samples[0].addr, a, 5));
	/* the ticking thread's own touches */
	h_reset_samples();
	pages(b, 6, 5);
	for (int i = 0; i < 5; i++)
		*(volatile uint8_t *)b[i] = 1;
	ops->tick();
	assert_int_equal(h_nsamples(), 0);
	worker_stop(&w2);
	fresh(5);
	fresh(6);
}

/* Where samples land follows where the records are: 1 page touched in one block, 9 in another. */
static void draw_follows_records(void **state)
{
	uintptr_t a[10];
	const int rounds = 300;
	int in_b = 0;
	double sd = sqrt(rounds * 0.9 * 0.1);

	(void)state;
	ops->tick();
	for (int r = 0; r < rounds; r++) {
		pages(a, 7, 1);
		pages(a + 1, 8, 9);
		h_reset_samples();
		worker_run(&w1, a, 10);
		ops->tick();
		assert_int_equal(h_nsamples(), 1);
		in_b += H.samples[0].addr - (H.base + 8 * H_BLOCK) < H_BLOCK;
		fresh(7);
		fresh(8);
	}
	assert_in_range(in_b, (int)(rounds * 0.9 - 4 * sd), (int)(rounds * 0.9 + 4 * sd));
}

/* Records outside the span, and records of a tick without one, are read and dropped. */
static void out_of_span_and_no_span(void **state)
{
	uint8_t *other = mmap(NULL, 64 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a[64];
	struct tlrt_perf_counts c0, c1;

	(void)state;
	assert_true(other != MAP_FAILED);
	ops->tick();
	tlrt_sampler_perf_counts(&c0);
	for (int i = 0; i < 64; i++)
		a[i] = (uintptr_t)other + (size_t)i * PAGE;
	h_reset_samples();
	worker_run(&w1, a, 64);
	ops->tick();
	assert_int_equal(h_nsamples(), 0);
	tlrt_sampler_perf_counts(&c1);
	assert_true(c1.records - c0.records >= 64);
	assert_int_equal(c1.in_span, c0.in_span);
	/* the core is busy: no span; those records are not kept for the next tick */
	atomic_store(&H.span_off, 1);
	worker_run(&w1, a, pages(a, 9, 10));
	ops->tick();
	atomic_store(&H.span_off, 0);
	ops->tick();
	assert_int_equal(h_nsamples(), 0);
	munmap(other, 64 * PAGE);
	fresh(9);
}

/* More records between two ticks than the buffers hold: the kernel's LOST records are counted, a sample still comes. */
static void full_buffers_counted(void **state)
{
	static uintptr_t a[MAXN];
	struct tlrt_perf_counts c0, c1;

	(void)state;
	ops->tick();
	tlrt_sampler_perf_counts(&c0);
	h_reset_samples();
	/* 4096 faults: more than the 64 KiB buffers of both CPUs hold (48-byte records) */
	for (size_t b = 0; b < 8; b++)
		pages(a + b * 512, 10 + b, 512);
	worker_run(&w1, a, MAXN);
	ops->tick();
	assert_int_equal(h_nsamples(), 1);
	/*
	 * The kernel writes a buffer's LOST record with the next record that
	 * fits in that buffer: one more fault on each CPU (the worker may have
	 * run on several, the more often on a busy machine), the worker
	 * pinned to each in turn.
	 */
	cpu_set_t all, one;
	size_t extra = 0;

	assert_int_equal(pthread_getaffinity_np(w1.t, sizeof(all), &all), 0);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		assert_int_equal(pthread_setaffinity_np(w1.t, sizeof(one), &one), 0);
		fresh(10);
		worker_run(&w1, a, 1);
		extra++;
	}
	assert_int_equal(pthread_setaffinity_np(w1.t, sizeof(all), &all), 0);
	ops->tick();
	tlrt_sampler_perf_counts(&c1);
	print_message("%llu in the span, %llu lost, %llu throttles (%zu more faults, one per CPU)\n",
		      (unsigned long long)(c1.in_span - c0.in_span), (unsigned long long)(c1.lost - c0.lost),
		      (unsigned long long)(c1.throttled - c0.throttled), extra);
	assert_true(c1.lost > c0.lost);
	assert_true(c1.in_span - c0.in_span < MAXN);
	/* every fault is a record or counted lost, unless the kernel throttled the event (its samples are neither) */
	assert_true(c1.throttled > c0.throttled || c1.in_span - c0.in_span + (c1.lost - c0.lost) >= MAXN + extra);
	for (size_t b = 0; b < 8; b++)
		fresh(10 + b);
}

/*
 * Run by w1, a sampled thread: a child it forks has none of the parent's
 * descriptors and samples its own thread from its own first tick; its
 * faults never reach the parent's buffers (inherit_thread).
 */
static int child_status;

static void fork_and_wait(void)
{
	uintptr_t a[10];
	pid_t pid = fork(), me;
	int ok = 0, st;

	if (pid) {
		child_status = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		return;
	}
	me = gettid();
	if (perf_fds())
		_exit(10);
	h_reset_samples();
	h_ticker_start(200);	/* the child's ticker: it opens events on this thread */
	for (int i = 0; i < 500 && !ok; i++) {
		pages(a, 20, 10);
		for (int j = 0; j < 10; j++)
			*(volatile uint8_t *)a[j] = 1;
		fresh(20);
		usleep(10000);
		for (size_t n = 0; n < h_nsamples(); n++)
			ok |= H.samples[n].tid == me && H.samples[n].addr - (H.base + 20 * H_BLOCK) < H_BLOCK;
	}
	h_ticker_stop();
	ops->stop();
	_exit(ok ? 0 : 11);
}

static void fork_child_starts_afresh(void **state)
{
	struct tlrt_perf_counts c0, c1;
	uintptr_t a[10];

	(void)state;
	ops->tick();
	assert_true(perf_fds() > 0);
	tlrt_sampler_perf_counts(&c0);
	child_status = -1;
	w1.fn = fork_and_wait;
	worker_run(&w1, a, 0);
	assert_int_equal(child_status, 0);
	/* the parent samples on, and never saw the child's faults */
	h_reset_samples();
	worker_run(&w1, a, pages(a, 21, 10));
	ops->tick();
	assert_int_equal(h_nsamples(), 1);
	assert_int_equal(H.samples[0].tid, w1.tid);
	tlrt_sampler_perf_counts(&c1);
	assert_true(c1.records - c0.records >= 10);
	assert_int_equal(c1.foreign, c0.foreign);
	fresh(21);
}

static void stop_closes_everything(void **state)
{
	struct tlrt_perf_counts c;
	char why[256] = "";

	(void)state;
	ops->tick();
	assert_true(perf_fds() > 0);
	assert_null(ops->release_range);	/* nothing is armed: nothing to release */
	ops->stop();
	assert_int_equal(perf_fds(), 0);
	tlrt_sampler_perf_counts(&c);
	assert_int_equal(c.events, 0);
	/* and it starts again (teardown stops it) */
	assert_int_equal(ops->start(&H.env, why, sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest first[] = {
		cmocka_unit_test(no_pmu_here),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_sample_per_tick),
		cmocka_unit_test(later_threads_inherit),
		cmocka_unit_test(draw_follows_records),
		cmocka_unit_test(out_of_span_and_no_span),
		cmocka_unit_test(full_buffers_counted),
		cmocka_unit_test(fork_child_starts_afresh),
		cmocka_unit_test(stop_closes_everything),
	};

	return cmocka_run_group_tests(first, NULL, NULL) | cmocka_run_group_tests(tests, setup, teardown);
}
