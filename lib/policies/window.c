/*
 * window: the fast tier holds the chunks sampled most often among the
 * last N samples (N = params->window).
 *
 * Each live chunk has a count (its samples among the last N) and sits in
 * one of 2 x (N + 1) frequency buckets, by tier and count. Each bucket is a
 * closed list (chunk-list.h: a sample changes two buckets or more, and
 * closed lists do it without a branch) whose head is the chunk that
 * entered it last: a chunk enters a bucket when it is allocated, when its
 * count changes, and when it changes tier. Ranking is by count, then by
 * that entry order:
 *   - the demotion candidate is the oldest entry of the lowest fast bucket,
 *   - the promotion candidate is the newest entry of the highest slow bucket.
 * After each event the policy rebalances:
 *   1. while the fast set exceeds the budget, demote the candidate;
 *   2. while it is below the budget and slow chunks exist, promote;
 *   3. while the best slow chunk has a strictly higher count than the
 *      worst fast chunk, swap them (demotion first).
 * Ties never migrate: a chunk as frequent as a fast one stays where it is,
 * which saves migrations that would buy nothing. Once settled, a sample
 * changes one count up and at most one down, so it costs at most two swaps
 * (4 decisions <= TLP_SAMPLE_DECISIONS). Room left by a free (on_free
 * cannot answer) and what did not fit in one call are done by later calls.
 *
 * New chunks go fast in order while there is room, else slow, as lru.
 * Freed chunks leave their buckets at once; their samples stay in the
 * window (they still age out in turn) but carry the chunk's generation, so
 * a chunk id reused by a later allocation does not inherit them. A sample
 * in the chunk whose sample it pushes out leaves its count as it was and
 * only re-enters its bucket, as the two changes would.
 *
 * Cost: O(1) per sample in the number of chunks. Finding the candidates
 * walks a lazy bound over the bucket counts (lowest non-empty fast bucket,
 * highest non-empty slow bucket); a walk is paid for by earlier moves of
 * the bound and never exceeds N + 1 steps. `work` counts these steps and
 * list operations for the tests.
 */
#include "policies/chunk-list.h"
#include "policies/param-bounds.h"
#include "policies/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct ring_slot {
	uint32_t chunk, gen;
};

/* what TLP_WINDOW_MAX was derived from: a ring slot, and per tier a bucket sentinel's two links */
_Static_assert(sizeof(struct ring_slot) + 2 * 2 * sizeof(uint32_t) == TLP_WINDOW_SLOT_BYTES,
	       "the window's cost per sample changed: derive TLP_WINDOW_MAX again (param-bounds.h)");

struct window {
	uint32_t max_chunks, budget, n;		/* n: window length in samples */
	struct tlp_links links;			/* chunks, then the buckets' sentinels */
	uint32_t *count, *gen;
	uint8_t *live, *tier;
	uint32_t bucket[2];			/* [tier]: the sentinel of count 0; count k is + k */
	uint32_t nlive[2];			/* chunks per tier */
	uint32_t lo_fast;			/* <= the lowest count of a fast chunk */
	uint32_t hi_slow;			/* >= the highest count of a slow chunk */
	struct ring_slot *ring;
	uint32_t rpos, rlen;
	uint64_t work;
	void (*free)(void *p, size_t bytes);
	size_t memlen;
};

/* The parameters it takes in TIERLAB_POLICY_ARGS; `window` there wins over TIERLAB_WINDOW. */
static const struct tlp_param window_params[] = {
	{ "window", TLP_STR(TLP_WINDOW_DEFAULT), "samples in the window, 1 to " TLP_STR(TLP_WINDOW_MAX) " (" TLP_WINDOW_COST "; the runtime's "
	  "TIERLAB_WINDOW when not given here)" },
	{ NULL, NULL, NULL },
};

/* One line on stderr; write(2), not stdio: we may be called from inside malloc. */
static void say(const char *what, const char *value)
{
	char line[200];
	int n = snprintf(line, sizeof(line), "tierlab: policy 'window': %s '%s'\n", what, value);

	if (n > 0 && write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) < 0)
		return;
}

/* The window length: policy args, else the runtime's window; 0 after saying why. */
static uint32_t window_length(const struct tlp_params *p)
{
	char buf[64], *end;
	const char *v;
	unsigned long n;

	if (tlp_args_unknown(p->args, window_params, buf, sizeof(buf))) {
		say("takes no parameter", buf);
		return 0;
	}
	v = tlp_arg(p->args, "window", buf, sizeof(buf));
	if (!v) {
		/* the runtime's parser bounds TIERLAB_WINDOW; a replay or another caller may not have */
		if (!p->window || p->window > TLP_WINDOW_MAX) {
			snprintf(buf, sizeof(buf), "%u", p->window);
			say("window: not a number of samples from " TLP_WINDOW_RANGE ":",
			    buf);
			return 0;
		}
		return p->window;
	}
	n = strtoul(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || n == 0 || n > TLP_WINDOW_MAX) {
		say("window: not a number of samples from " TLP_WINDOW_RANGE ":", v);
		return 0;
	}
	return (uint32_t)n;
}

static void *window_init(const struct tlp_params *p)
{
	uint32_t len = window_length(p);
	size_t off = 0, mc = p->max_chunks, nb = (size_t)len + 1, ids = mc + 2 * nb;
	struct window *w;
	char *base;

	if (!len)
		return NULL;
	if (ids > UINT32_MAX) {
		char v[16];

		snprintf(v, sizeof(v), "%u", len);
		say("window: its buckets and max_chunks take more than 2^32 - 1 ids:", v);
		return NULL;
	}
	tlp_carve(NULL, &off, sizeof(*w));
	tlp_carve(NULL, &off, sizeof(uint32_t) * ids * 2);
	tlp_carve(NULL, &off, sizeof(uint32_t) * mc * 2);
	tlp_carve(NULL, &off, mc * 2);
	tlp_carve(NULL, &off, sizeof(struct ring_slot) * len);
	if (!(base = p->alloc(off)))
		return NULL;
	w = (struct window *)base;
	w->memlen = off;
	off = 0;
	tlp_carve(base, &off, sizeof(*w));
	w->links.prev = tlp_carve(base, &off, sizeof(uint32_t) * ids * 2);
	w->links.next = w->links.prev + ids;
	w->count = tlp_carve(base, &off, sizeof(uint32_t) * mc * 2);
	w->gen = w->count + mc;
	w->live = tlp_carve(base, &off, mc * 2);
	w->tier = w->live + mc;
	w->ring = tlp_carve(base, &off, sizeof(struct ring_slot) * len);
	w->bucket[TLP_SLOW] = (uint32_t)mc;
	w->bucket[TLP_FAST] = (uint32_t)(mc + nb);
	for (size_t i = mc; i < ids; i++)
		tlp_clist_init(&w->links, (uint32_t)i);
	w->max_chunks = p->max_chunks;
	w->budget = p->budget_chunks;
	w->n = len;
	w->free = p->free;
	return w;
}

/* c, of tier t and count k, goes to the head of its bucket. */
static void push(struct window *w, uint32_t c, enum tlp_tier t, uint32_t k)
{
	tlp_clist_push_head(&w->links, w->bucket[t] + k, c);
	if (t == TLP_FAST && k < w->lo_fast)
		w->lo_fast = k;
	if (t == TLP_SLOW && k > w->hi_slow)
		w->hi_slow = k;
	w->work++;
}

static void enter(struct window *w, uint32_t c, enum tlp_tier t)
{
	w->tier[c] = (uint8_t)t;
	w->nlive[t]++;
	push(w, c, t, w->count[c]);
}

static void leave(struct window *w, uint32_t c)
{
	tlp_clist_remove(&w->links, c);
	w->nlive[w->tier[c]]--;
	w->work++;
}

/* The worst fast chunk; there must be one. */
static uint32_t worst_fast(struct window *w)
{
	while (tlp_clist_empty(&w->links, w->bucket[TLP_FAST] + w->lo_fast)) {
		w->lo_fast++;
		w->work++;
	}
	return w->links.prev[w->bucket[TLP_FAST] + w->lo_fast];
}

/* The best slow chunk; there must be one. */
static uint32_t best_slow(struct window *w)
{
	while (tlp_clist_empty(&w->links, w->bucket[TLP_SLOW] + w->hi_slow)) {
		w->hi_slow--;
		w->work++;
	}
	return w->links.next[w->bucket[TLP_SLOW] + w->hi_slow];
}

static void move(struct window *w, uint32_t c, enum tlp_tier t, struct tlp_decisions *out)
{
	leave(w, c);
	enter(w, c, t);
	tlp_decide(out, c, t);
}

static void rebalance(struct window *w, struct tlp_decisions *out)
{
	for (;;) {
		uint32_t room = out->cap > out->n ? out->cap - out->n : 0;
		uint32_t f, s;

		if (w->nlive[TLP_FAST] > w->budget) {
			if (!room)
				return;
			move(w, worst_fast(w), TLP_SLOW, out);
			continue;
		}
		if (!w->nlive[TLP_SLOW])
			return;
		if (w->nlive[TLP_FAST] < w->budget) {
			if (!room)
				return;
			move(w, best_slow(w), TLP_FAST, out);
			continue;
		}
		if (!w->nlive[TLP_FAST])
			return;		/* budget 0 */
		f = worst_fast(w);
		s = best_slow(w);
		if (w->count[s] <= w->count[f] || room < 2)
			return;
		move(w, f, TLP_SLOW, out);
		move(w, s, TLP_FAST, out);
	}
}

static int in_range(const struct window *w, const struct tlp_alloc *a)
{
	return a->first_chunk <= w->max_chunks && a->nchunks <= w->max_chunks - a->first_chunk;
}

static void window_on_alloc(void *st, const struct tlp_alloc *a, struct tlp_decisions *out)
{
	struct window *w = st;

	if (!in_range(w, a))
		return;
	for (uint32_t i = 0; i < a->nchunks; i++) {
		uint32_t c = a->first_chunk + i;
		enum tlp_tier t = w->nlive[TLP_FAST] < w->budget && out->n < out->cap ? TLP_FAST : TLP_SLOW;

		w->live[c] = 1;
		w->count[c] = 0;
		enter(w, c, t);
		tlp_decide(out, c, t);
	}
}

static void window_on_free(void *st, const struct tlp_alloc *a)
{
	struct window *w = st;

	if (!in_range(w, a))
		return;
	for (uint32_t i = 0; i < a->nchunks; i++) {
		uint32_t c = a->first_chunk + i;

		if (!w->live[c])
			continue;
		leave(w, c);
		w->live[c] = 0;
		w->count[c] = 0;
		w->gen[c]++;
	}
}

/* c's count changes by delta (0: it only re-enters its bucket); it stays in its tier. */
static void recount(struct window *w, uint32_t c, int delta)
{
	uint32_t k = (uint32_t)((int64_t)w->count[c] + delta);

	tlp_clist_remove(&w->links, c);
	w->work++;
	w->count[c] = k;
	push(w, c, (enum tlp_tier)w->tier[c], k);
}

static void window_on_sample(void *st, uint32_t c, struct tlp_decisions *out)
{
	struct window *w = st;
	int delta = +1;

	if (c >= w->max_chunks || !w->live[c])
		return;
	if (w->rlen == w->n) {
		struct ring_slot old = w->ring[w->rpos];

		if (old.chunk == c && old.gen == w->gen[c])
			delta = 0;
		else if (w->live[old.chunk] && w->gen[old.chunk] == old.gen)
			recount(w, old.chunk, -1);
	} else {
		w->rlen++;
	}
	w->ring[w->rpos] = (struct ring_slot){ c, w->gen[c] };
	w->rpos = w->rpos + 1 == w->n ? 0 : w->rpos + 1;
	recount(w, c, delta);
	rebalance(w, out);
}

static void window_on_budget(void *st, uint32_t budget, struct tlp_decisions *out)
{
	struct window *w = st;

	w->budget = budget;
	rebalance(w, out);
}

static void window_fini(void *st)
{
	struct window *w = st;

	w->free(w, w->memlen);
}

uint64_t tlp_window_work(const void *st)
{
	return ((const struct window *)st)->work;
}

uint32_t tlp_window_length(const void *st)
{
	return ((const struct window *)st)->n;
}

static const struct tlp_policy window_policy = {
	.size = sizeof(struct tlp_policy),
	.abi_version = TLP_ABI_VERSION,
	.name = "window",
	.init = window_init,
	.on_alloc = window_on_alloc,
	.on_free = window_on_free,
	.on_sample = window_on_sample,
	.on_budget = window_on_budget,
	.fini = window_fini,
	.flags = TLP_DYNAMIC,
	.params = window_params,
};

TLP_POLICY_ENTRY(window, window_policy)
