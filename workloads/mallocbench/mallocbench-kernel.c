/*
 * The mallocbench loop, its block checks and its threads.
 *
 * The random slot and size sequences are tables of prime lengths, walked
 * in step, so the pair (slot, size) repeats only after the product of the
 * lengths while the timed loop does two loads and two compares to get
 * them. Threads start their timed loops together behind a barrier, after
 * each has filled its own slots.
 */
#include "mallocbench.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIZE_TABLE 8191      /* prime */
#define SLOT_TABLE 32749     /* prime */
/* In --seconds mode the clock is read once per this many iterations. */
#define CLOCK_EVERY 1024

typedef uint64_t unaligned_u64 __attribute__((aligned(1), may_alias));

struct slot {
	void *p;
	size_t size;
	uint64_t tag;
};

struct mb_thread {
	const struct mb_config *cfg;
	const struct mb_allocator *a;
	struct mb_thread_result *res;
	int index;
	pthread_t tid;
	struct mb_shared *sh;
};

struct mb_shared {
	pthread_mutex_t gate;
	pthread_barrier_t start;
	int abort;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void mb_fill(void *p, size_t size, uint64_t tag)
{
	unaligned_u64 *w = p;
	size_t words = size / 8;
	unsigned char *tail = (unsigned char *)p + words * 8;

	for (size_t i = 0; i < words; i++)
		w[i] = tag;
	for (size_t i = 0; i < size % 8; i++)
		tail[i] = (unsigned char)tag;
}

long mb_check(const void *p, size_t size, uint64_t tag)
{
	const unaligned_u64 *w = p;
	const unsigned char *b = p;
	size_t words = size / 8;
	uint64_t diff = 0;

	/* the common case, all intact, in one vectorisable pass */
	for (size_t i = 0; i < words; i++)
		diff |= w[i] ^ tag;
	for (size_t i = words * 8; i < size; i++)
		diff |= (uint64_t)(b[i] ^ (unsigned char)tag);
	if (!diff)
		return -1;
	for (size_t i = 0; i < size; i++) {
		const unsigned char *t = (const unsigned char *)&tag;

		if (b[i] != (i < words * 8 ? t[i % 8] : (unsigned char)tag))
			return (long)i;
	}
	return -1;
}

size_t mb_required_alignment(size_t size)
{
	size_t a = 16;

	while (a > 1 && a > size)
		a /= 2;
	return a;
}

__attribute__((format(printf, 2, 3)))
static void fail(struct mb_thread_result *res, const char *fmt, ...)
{
	va_list ap;

	if (res->failure)
		return;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
	res->failure = res->why;
}

/* A fresh block into slot s; 0, or -1 with the failure recorded. */
static int take(struct mb_thread *th, struct slot *s, size_t size, uint64_t tag)
{
	void *p = th->a->malloc(size);

	if (!p) {
		fail(th->res, "thread %d: malloc(%zu) returned NULL", th->index, size);
		s->p = NULL;
		return -1;
	}
	if ((uintptr_t)p % mb_required_alignment(size)) {
		fail(th->res, "thread %d: malloc(%zu) returned %p, not %zu-byte aligned", th->index,
		     size, p, mb_required_alignment(size));
		th->a->free(p);
		s->p = NULL;
		return -1;
	}
	s->p = p;
	s->size = size;
	s->tag = tag;
	if (th->cfg->fill)
		mb_fill(p, size, tag);
	return 0;
}

/* Check slot s before its block goes back; 0, or -1 with the failure recorded. */
static int give_back_ok(struct mb_thread *th, const struct slot *s, size_t index)
{
	long off;

	if (!th->cfg->fill || !s->p)
		return 0;
	off = mb_check(s->p, s->size, s->tag);
	if (off < 0)
		return 0;
	fail(th->res,
	     "thread %d: block of %zu bytes at %p (slot %zu) was overwritten at offset %ld: overlapping blocks?",
	     th->index, s->size, s->p, index, off);
	return -1;
}

static int by_address(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct slot *)a)->p, y = (uintptr_t)((const struct slot *)b)->p;

	return x < y ? -1 : x > y;
}

/* No two live blocks may share a byte: sorted by address, each ends before the next starts. */
static void check_disjoint(struct mb_thread *th, struct slot *slots, size_t n)
{
	qsort(slots, n, sizeof(*slots), by_address);
	for (size_t i = 1; i < n; i++) {
		if (!slots[i - 1].p)
			continue;
		if ((uintptr_t)slots[i - 1].p + slots[i - 1].size > (uintptr_t)slots[i].p) {
			fail(th->res, "thread %d: live blocks %p (%zu bytes) and %p overlap", th->index,
			     slots[i - 1].p, slots[i - 1].size, slots[i].p);
			return;
		}
	}
}

static void *thread_main(void *arg)
{
	struct mb_thread *th = arg;
	const struct mb_config *cfg = th->cfg;
	struct mb_thread_result *res = th->res;
	uint32_t *sizes = malloc(sizeof(*sizes) * SIZE_TABLE);
	uint32_t *order = malloc(sizeof(*order) * SLOT_TABLE);
	struct slot *slots = calloc(cfg->blocks, sizeof(*slots));
	uint64_t seed = mb_mix(cfg->seed ^ ((uint64_t)th->index << 32));
	uint64_t span = cfg->max_size - cfg->min_size + 1, it = 0, tag;
	size_t zi = 0, si = 0;
	int broken = 0;
	double t0, deadline = 0;

	pthread_mutex_lock(&th->sh->gate);
	pthread_mutex_unlock(&th->sh->gate);
	if (th->sh->abort)
		goto out;
	if (!sizes || !order || !slots) {
		fail(res, "thread %d: out of memory for its tables", th->index);
		broken = 1;
	}
	for (size_t i = 0; !broken && i < SIZE_TABLE; i++)
		sizes[i] = (uint32_t)(cfg->min_size + mb_mix(seed + i) % span);
	for (size_t i = 0; !broken && i < SLOT_TABLE; i++)
		order[i] = (uint32_t)(mb_mix(~seed + i) % cfg->blocks);
	/* tags differ between threads and between successive blocks */
	tag = mb_mix(seed ^ 0x5a5a5a5a5a5a5a5aULL);
	for (size_t i = 0; !broken && i < cfg->blocks; i++)
		if (take(th, &slots[i], sizes[(i * 7) % SIZE_TABLE], tag += 0x9e3779b97f4a7c15ULL))
			broken = 1;

	/* every thread reaches the barrier, broken or not, or the others would wait forever */
	pthread_barrier_wait(&th->sh->start);
	if (broken)
		goto out_free_slots;
	t0 = now();
	if (cfg->seconds > 0)
		deadline = t0 + cfg->seconds;
	for (;;) {
		struct slot *s;
		size_t idx;

		if (deadline > 0) {
			if (it % CLOCK_EVERY == 0 && now() >= deadline)
				break;
		} else if (it == cfg->iterations) {
			break;
		}
		idx = order[si];
		s = &slots[idx];
		if (++si == SLOT_TABLE)
			si = 0;
		if (give_back_ok(th, s, idx))
			break;
		th->a->free(s->p);
		if (take(th, s, sizes[zi], tag += 0x9e3779b97f4a7c15ULL))
			break;
		if (++zi == SIZE_TABLE)
			zi = 0;
		it++;
	}
	res->seconds = now() - t0;
	res->iterations = it;

out_free_slots:
	for (size_t i = 0; slots && i < cfg->blocks; i++)
		give_back_ok(th, &slots[i], i);
	if (slots && !res->failure)
		check_disjoint(th, slots, cfg->blocks);
	for (size_t i = 0; slots && i < cfg->blocks; i++)
		th->a->free(slots[i].p);
out:
	free(slots);
	free(order);
	free(sizes);
	return NULL;
}

int mb_run(const struct mb_config *cfg, const struct mb_allocator *a, int threads,
	   struct mb_thread_result *results)
{
	struct mb_shared sh = { .abort = 0 };
	struct mb_thread *th;
	int started = 0, ret = 0;

	if (threads < 1 || !cfg->blocks || cfg->blocks > UINT32_MAX || !cfg->min_size ||
	    cfg->min_size > cfg->max_size || cfg->max_size > UINT32_MAX ||
	    (cfg->seconds <= 0 && !cfg->iterations))
		return -EINVAL;
	th = calloc((size_t)threads, sizeof(*th));
	if (!th)
		return -ENOMEM;
	memset(results, 0, sizeof(*results) * (size_t)threads);
	pthread_mutex_init(&sh.gate, NULL);
	pthread_barrier_init(&sh.start, NULL, (unsigned)threads);
	pthread_mutex_lock(&sh.gate);
	for (; started < threads; started++) {
		th[started] = (struct mb_thread){ cfg, a, &results[started], started, 0, &sh };
		if (pthread_create(&th[started].tid, NULL, thread_main, &th[started])) {
			sh.abort = 1;
			ret = -EAGAIN;
			break;
		}
	}
	pthread_mutex_unlock(&sh.gate);
	for (int t = 0; t < started; t++)
		pthread_join(th[t].tid, NULL);
	pthread_barrier_destroy(&sh.start);
	pthread_mutex_destroy(&sh.gate);
	free(th);
	return ret;
}

const char *mb_failure(const struct mb_thread_result *results, int threads)
{
	for (int t = 0; t < threads; t++)
		if (results[t].failure)
			return results[t].failure;
	return NULL;
}
