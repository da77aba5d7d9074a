/*
 * The placement policies against naive reference models (the SQLite way).
 *
 * Each model below is the policy's rule written the obvious way: plain
 * arrays, O(n) scans, window frequencies recounted from the sample history.
 * A stream driver feeds the policy and its model the same random events
 * (allocations and frees of random sizes with chunk ids reused, uniform and
 * zipf-like samples with a moving hot set, budget changes of every size),
 * applies the policy's decisions to a simulated tier array exactly as the
 * core does (in order, a promotion beyond the budget refused and counted),
 * and after every event asserts: the two fast sets are equal, the budget
 * holds, nothing was refused, every decision named a live chunk. Then
 * the closed lists (chunk-list.h) are walked against arrays, hand-checked
 * scenarios pin the rules themselves, the window policy's work
 * per sample is counted as the chunks grow tenfold, and the plugins
 * (including the example cut out of docs/policies.md) are loaded with
 * dlopen.
 */
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "policies/chunk-list.h"
#include "policies/param-bounds.h"
#include "policies/policies.h"
#include "policies/tierlab-policy.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- memory handed to policies: counted, so fini must give back every byte ---- */

static long long outstanding;

static void *counted_alloc(size_t bytes)
{
	void *p = calloc(1, bytes);

	if (p)
		outstanding += (long long)bytes;
	return p;
}

static void counted_free(void *p, size_t bytes)
{
	if (!p)
		return;
	outstanding -= (long long)bytes;
	free(p);
}

/* ---- random numbers (splitmix64) ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static double unit(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* ---- the simulated core ---- */

struct sim {
	uint32_t max_chunks, budget;
	uint8_t *live, *placed, *tier;
	uint32_t nfast, refused;
	struct tlp_alloc *allocs;	/* live allocations */
	uint32_t nallocs, seq;
	struct tlp_move *moves;
};

static void sim_init(struct sim *s, uint32_t max_chunks, uint32_t budget)
{
	memset(s, 0, sizeof(*s));
	s->max_chunks = max_chunks;
	s->budget = budget;
	s->live = calloc(max_chunks, 1);
	s->placed = calloc(max_chunks, 1);
	s->tier = calloc(max_chunks, 1);
	s->allocs = calloc(max_chunks, sizeof(*s->allocs));
	s->moves = calloc(max_chunks + TLP_SAMPLE_DECISIONS, sizeof(*s->moves));
	assert_non_null(s->live);
	assert_non_null(s->placed);
	assert_non_null(s->tier);
	assert_non_null(s->allocs);
	assert_non_null(s->moves);
}

static void sim_release(struct sim *s)
{
	free(s->live);
	free(s->placed);
	free(s->tier);
	free(s->allocs);
	free(s->moves);
}

/* As tlrt_apply: in order, refusing (and counting) a promotion beyond the budget. */
static void sim_apply(struct sim *s, const struct tlp_decisions *d, int initial)
{
	for (uint32_t i = 0; i < d->n; i++) {
		uint32_t c = d->v[i].chunk;
		int to = d->v[i].tier == TLP_FAST ? TLP_FAST : TLP_SLOW;

		assert_in_range(d->v[i].tier, TLP_SLOW, TLP_FAST);
		assert_true(c < s->max_chunks);
		assert_true(s->live[c]);	/* decisions name chunks of live allocations only */
		if (!(initial && !s->placed[c]) && s->tier[c] == to)
			continue;
		if (to == TLP_FAST && s->nfast >= s->budget) {
			s->refused++;
			continue;
		}
		if (s->tier[c] != to || !s->placed[c]) {
			if (s->placed[c] && s->tier[c] == TLP_FAST)
				s->nfast--;
			if (to == TLP_FAST)
				s->nfast++;
		}
		s->placed[c] = 1;
		s->tier[c] = (uint8_t)to;
	}
}

/* First fit of n contiguous free ids, so freed ids come back; UINT32_MAX when none. */
static uint32_t sim_find(const struct sim *s, uint32_t n)
{
	uint32_t run = 0;

	for (uint32_t c = 0; c < s->max_chunks; c++) {
		run = s->live[c] ? 0 : run + 1;
		if (run == n)
			return c + 1 - n;
	}
	return UINT32_MAX;
}

/* ---- the models ---- */

enum kind { K_LRU, K_WINDOW, K_STATIC, K_ALL_FAST, K_ALL_SLOW, K_FIRST_TOUCH };

struct model {
	enum kind kind;
	uint32_t max_chunks, budget, window;
	const double *fractions;
	uint32_t nfractions;
	uint8_t *live, *tier;
	uint32_t nfast;
	uint64_t clock;
	int64_t *stamp;			/* lru: recency; window: bucket entry; static: promotion order */
	int64_t *key;			/* static: denied order */
	uint8_t *wanted_denied;		/* static: wanted, found no room */
	int64_t *hist;			/* window: the last `window` samples, oldest first; -1 dead */
	uint32_t nhist;
};

static void model_init(struct model *m, enum kind kind, const struct tlp_params *p)
{
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->max_chunks = p->max_chunks;
	m->budget = p->budget_chunks;
	m->window = p->window;
	m->fractions = p->fractions;
	m->nfractions = p->nfractions;
	m->live = calloc(p->max_chunks, 1);
	m->tier = calloc(p->max_chunks, 1);
	m->stamp = calloc(p->max_chunks, sizeof(int64_t));
	m->key = calloc(p->max_chunks, sizeof(int64_t));
	m->wanted_denied = calloc(p->max_chunks, 1);
	m->hist = calloc(p->window + 1, sizeof(int64_t));
	assert_true(m->live && m->tier && m->stamp && m->key && m->wanted_denied && m->hist);
}

static void model_release(struct model *m)
{
	free(m->live);
	free(m->tier);
	free(m->stamp);
	free(m->key);
	free(m->wanted_denied);
	free(m->hist);
}

static uint32_t model_count(const struct model *m, uint32_t c)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < m->nhist; i++)
		n += m->hist[i] == (int64_t)c;
	return n;
}

static void set_tier(struct model *m, uint32_t c, int t)
{
	if (m->tier[c] != t)
		m->nfast += t == TLP_FAST ? 1 : (uint32_t)-1;
	m->tier[c] = (uint8_t)t;
}

/* lru: the fast chunk sampled (or placed) longest ago */
static uint32_t lru_tail(const struct model *m)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t c = 0; c < m->max_chunks; c++)
		if (m->live[c] && m->tier[c] == TLP_FAST && (best == UINT32_MAX || m->stamp[c] < m->stamp[best]))
			best = c;
	assert_true(best != UINT32_MAX);
	return best;
}

/* window: lowest (count, entry), and highest (count, entry) */
static uint32_t win_worst_fast(const struct model *m)
{
	uint32_t best = UINT32_MAX, bc = 0;

	for (uint32_t c = 0; c < m->max_chunks; c++) {
		uint32_t n;

		if (!m->live[c] || m->tier[c] != TLP_FAST)
			continue;
		n = model_count(m, c);
		if (best == UINT32_MAX || n < bc || (n == bc && m->stamp[c] < m->stamp[best]))
			best = c, bc = n;
	}
	assert_true(best != UINT32_MAX);
	return best;
}

static uint32_t win_best_slow(const struct model *m)
{
	uint32_t best = UINT32_MAX, bc = 0;

	for (uint32_t c = 0; c < m->max_chunks; c++) {
		uint32_t n;

		if (!m->live[c] || m->tier[c] != TLP_SLOW)
			continue;
		n = model_count(m, c);
		if (best == UINT32_MAX || n > bc || (n == bc && m->stamp[c] > m->stamp[best]))
			best = c, bc = n;
	}
	assert_true(best != UINT32_MAX);
	return best;
}

static uint32_t model_nlive(const struct model *m)
{
	uint32_t n = 0;

	for (uint32_t c = 0; c < m->max_chunks; c++)
		n += m->live[c];
	return n;
}

static void win_move(struct model *m, uint32_t c, int t)
{
	set_tier(m, c, t);
	m->stamp[c] = (int64_t)++m->clock;
}

static void win_rebalance(struct model *m, uint32_t cap)
{
	uint32_t dn = 0;

	for (;;) {
		uint32_t nslow = model_nlive(m) - m->nfast, f, s;

		if (m->nfast > m->budget) {
			if (dn >= cap)
				return;
			win_move(m, win_worst_fast(m), TLP_SLOW), dn++;
			continue;
		}
		if (!nslow)
			return;
		if (m->nfast < m->budget) {
			if (dn >= cap)
				return;
			win_move(m, win_best_slow(m), TLP_FAST), dn++;
			continue;
		}
		if (!m->nfast)
			return;
		f = win_worst_fast(m);
		s = win_best_slow(m);
		if (model_count(m, s) <= model_count(m, f) || cap - dn < 2)
			return;
		win_move(m, f, TLP_SLOW);
		win_move(m, s, TLP_FAST);
		dn += 2;
	}
}

/* static: the largest k with k <= f * n, with the documented 1e-9 slack */
static uint32_t static_wanted(const struct model *m, const struct tlp_alloc *a)
{
	uint32_t k = 0;

	if (m->kind == K_ALL_FAST)
		return a->nchunks;
	if (a->seq >= m->nfractions)
		return 0;
	while (k < a->nchunks && (double)(k + 1) <= m->fractions[a->seq] * a->nchunks + 1e-9)
		k++;
	return k;
}

static void model_alloc(struct model *m, const struct tlp_alloc *a)
{
	uint32_t nw = (m->kind == K_STATIC || m->kind == K_ALL_FAST) ? static_wanted(m, a) : 0;

	for (uint32_t i = 0; i < a->nchunks; i++) {
		uint32_t c = a->first_chunk + i;

		m->live[c] = 1;
		m->tier[c] = TLP_SLOW;
		m->wanted_denied[c] = 0;
		m->stamp[c] = (int64_t)++m->clock;
		switch (m->kind) {
		case K_LRU:
		case K_WINDOW:
			if (m->nfast < m->budget)
				set_tier(m, c, TLP_FAST);
			break;
		case K_STATIC:
		case K_ALL_FAST:
			if (i < nw && m->nfast < m->budget)
				set_tier(m, c, TLP_FAST);
			else if (i < nw)
				m->wanted_denied[c] = 1, m->key[c] = (int64_t)m->clock;
			break;
		default:
			break;
		}
	}
}

static void model_free(struct model *m, const struct tlp_alloc *a)
{
	for (uint32_t i = 0; i < a->nchunks; i++) {
		uint32_t c = a->first_chunk + i;

		set_tier(m, c, TLP_SLOW);
		m->live[c] = 0;
		m->wanted_denied[c] = 0;
		for (uint32_t j = 0; j < m->nhist; j++)
			if (m->hist[j] == (int64_t)c)
				m->hist[j] = -1;
	}
}

static void model_sample(struct model *m, uint32_t c, uint32_t cap)
{
	uint32_t dn = 0;

	switch (m->kind) {
	case K_LRU:
		if (m->tier[c] == TLP_FAST) {
			m->stamp[c] = (int64_t)++m->clock;
			while (m->nfast > m->budget && dn < cap)
				set_tier(m, lru_tail(m), TLP_SLOW), dn++;
			return;
		}
		while (m->nfast > m->budget && dn < cap)
			set_tier(m, lru_tail(m), TLP_SLOW), dn++;
		if (!m->budget || m->nfast > m->budget)
			return;
		if (m->nfast == m->budget) {
			if (cap - dn < 2)
				return;
			set_tier(m, lru_tail(m), TLP_SLOW);
		}
		set_tier(m, c, TLP_FAST);
		m->stamp[c] = (int64_t)++m->clock;
		return;
	case K_WINDOW:
		if (m->nhist == m->window) {
			int64_t e = m->hist[0];

			memmove(m->hist, m->hist + 1, sizeof(*m->hist) * (m->nhist - 1));
			m->nhist--;
			if (e >= 0)
				m->stamp[e] = (int64_t)++m->clock;	/* its count changed: it re-enters a bucket */
		}
		m->hist[m->nhist++] = c;
		m->stamp[c] = (int64_t)++m->clock;
		win_rebalance(m, cap);
		return;
	case K_FIRST_TOUCH:
		if (m->tier[c] != TLP_FAST && m->nfast < m->budget)
			set_tier(m, c, TLP_FAST);
		return;
	default:
		return;
	}
}

static void model_budget(struct model *m, uint32_t budget, uint32_t cap)
{
	uint32_t dn = 0;

	m->budget = budget;
	switch (m->kind) {
	case K_LRU:
		while (m->nfast > budget && dn < cap)
			set_tier(m, lru_tail(m), TLP_SLOW), dn++;
		return;
	case K_WINDOW:
		win_rebalance(m, cap);
		return;
	case K_STATIC:
	case K_ALL_FAST:
		while (m->nfast > budget && dn < cap) {
			uint32_t best = UINT32_MAX;

			for (uint32_t c = 0; c < m->max_chunks; c++)
				if (m->live[c] && m->tier[c] == TLP_FAST && (best == UINT32_MAX || m->stamp[c] > m->stamp[best]))
					best = c;
			set_tier(m, best, TLP_SLOW);
			m->wanted_denied[best] = 1;
			m->key[best] = -(int64_t)++m->clock;	/* first in line for the next grow */
			dn++;
		}
		while (m->nfast < budget && dn < cap) {
			uint32_t best = UINT32_MAX;

			for (uint32_t c = 0; c < m->max_chunks; c++)
				if (m->live[c] && m->wanted_denied[c] && (best == UINT32_MAX || m->key[c] < m->key[best]))
					best = c;
			if (best == UINT32_MAX)
				break;
			m->wanted_denied[best] = 0;
			set_tier(m, best, TLP_FAST);
			m->stamp[best] = (int64_t)++m->clock;
			dn++;
		}
		return;
	case K_FIRST_TOUCH:
		for (uint32_t c = m->max_chunks; c-- > 0 && m->nfast > budget && dn < cap;)
			if (m->live[c] && m->tier[c] == TLP_FAST)
				set_tier(m, c, TLP_SLOW), dn++;
		return;
	default:
		return;
	}
}

/* ---- the stream driver ---- */

struct stream {
	enum kind kind;
	const struct tlp_policy *pol;	/* NULL: the built-in for kind */
	uint64_t seed;
	uint32_t max_chunks, window, events;
	int zipf;			/* skewed samples with a moving hot set */
	int wide_budget_calls;		/* on_budget gets room for the whole change (else TLP_SAMPLE_DECISIONS) */
	const double *fractions;
	uint32_t nfractions;
};

struct stream_result {
	uint64_t samples, promotions, demotions, max_fast_seen, budget_calls;
	uint64_t window_work_max;
};

static const struct tlp_policy *builtin(enum kind k)
{
	static const char *const names[] = { [K_LRU] = "lru", [K_WINDOW] = "window", [K_STATIC] = "static",
					     [K_ALL_FAST] = "all-fast", [K_ALL_SLOW] = "all-slow" };

	assert_true(k < N(names));
	return tlp_policy_find(names[k]);
}

static void count_moves(struct stream_result *r, const struct tlp_decisions *d, const struct sim *s)
{
	(void)s;
	for (uint32_t i = 0; i < d->n; i++)
		d->v[i].tier == TLP_FAST ? r->promotions++ : r->demotions++;
}

static void check_same(const struct sim *s, const struct model *m, uint32_t event)
{
	for (uint32_t c = 0; c < s->max_chunks; c++) {
		assert_int_equal(s->live[c], m->live[c]);
		if (s->live[c] && s->tier[c] != m->tier[c]) {
			print_error("event %u: chunk %u is %s in the policy, %s in the model\n", event, c,
				    s->tier[c] == TLP_FAST ? "fast" : "slow", m->tier[c] == TLP_FAST ? "fast" : "slow");
			fail();
		}
	}
	assert_int_equal(s->nfast, m->nfast);
}

static uint32_t pick_sample(struct sim *s, uint32_t *livelist, uint32_t nlive, uint32_t event, int zipf)
{
	uint32_t k;

	if (!zipf)
		return livelist[below(nlive)];
	/* P(rank k) ~ 1/(k+1); the hot set moves every 1500 events */
	k = (uint32_t)(exp(unit() * log((double)nlive + 1.0)) - 1.0);
	if (k >= nlive)
		k = nlive - 1;
	(void)s;
	return livelist[(k + (event / 1500) * 7919u) % nlive];
}

static struct stream_result run_stream(const struct stream *st)
{
	const struct tlp_policy *pol = st->pol ? st->pol : builtin(st->kind);
	uint32_t budget0 = st->max_chunks * 2 / 5;
	struct tlp_params p = {
		.size = sizeof(p), .max_chunks = st->max_chunks, .budget_chunks = budget0, .window = st->window,
		.chunk_size = 2u << 20, .fractions = st->fractions, .nfractions = st->nfractions,
		.alloc = counted_alloc, .free = counted_free,
	};
	struct stream_result r = { 0 };
	uint32_t *livelist = calloc(st->max_chunks, sizeof(uint32_t));
	struct model m;
	struct sim s;
	void *ps;

	assert_non_null(pol);
	assert_non_null(livelist);
	rng_state = st->seed;
	outstanding = 0;
	sim_init(&s, st->max_chunks, budget0);
	model_init(&m, st->kind, &p);
	ps = pol->init(&p);
	assert_non_null(ps);

	for (uint32_t ev = 0; ev < st->events; ev++) {
		uint32_t roll = below(1000), nfast_before = s.nfast, nlive = 0;
		struct tlp_decisions d = { s.moves, 0, TLP_SAMPLE_DECISIONS };

		for (uint32_t c = 0; c < s.max_chunks; c++)
			if (s.live[c])
				livelist[nlive++] = c;
		if (roll < 30 || !nlive) {			/* allocate */
			uint32_t n = 1 + below(roll < 5 ? st->max_chunks / 3 : st->max_chunks / 16 + 1);
			uint32_t first = sim_find(&s, n);
			struct tlp_alloc a;

			if (first == UINT32_MAX)
				continue;
			a = (struct tlp_alloc){ sizeof(a), s.seq++, first, n, (uint64_t)n << 21 };
			for (uint32_t i = 0; i < n; i++)
				s.live[first + i] = 1, s.placed[first + i] = 0, s.tier[first + i] = TLP_SLOW;
			s.allocs[s.nallocs++] = a;
			d.cap = n > TLP_SAMPLE_DECISIONS ? n : TLP_SAMPLE_DECISIONS;
			pol->on_alloc(ps, &a, &d);
			assert_true(d.n <= d.cap);
			sim_apply(&s, &d, 1);
			for (uint32_t i = 0; i < n; i++)
				s.placed[first + i] = 1;	/* undecided chunks go slow */
			model_alloc(&m, &a);
		} else if (roll < 50) {				/* free */
			uint32_t i;
			struct tlp_alloc a;

			if (!s.nallocs)
				continue;
			i = below(s.nallocs);
			a = s.allocs[i];
			s.allocs[i] = s.allocs[--s.nallocs];
			for (uint32_t j = 0; j < a.nchunks; j++) {
				uint32_t c = a.first_chunk + j;

				if (s.tier[c] == TLP_FAST)
					s.nfast--;		/* the core releases the room first */
				s.live[c] = 0, s.tier[c] = TLP_SLOW;
			}
			pol->on_free(ps, &a);
			model_free(&m, &a);
		} else if (roll < 80) {				/* budget */
			uint32_t nb, pick = below(10);

			if (pick == 0)
				nb = 0;
			else if (pick == 1)
				nb = TLP_UNLIMITED;
			else if (pick < 5)
				nb = below(st->max_chunks + 1);
			else if (s.budget == TLP_UNLIMITED)
				nb = st->max_chunks / 2;
			else
				nb = below(2) ? s.budget + below(9) : (s.budget > 8 ? s.budget - below(9) : below(9));
			if (st->wide_budget_calls)
				d.cap = st->max_chunks > TLP_SAMPLE_DECISIONS ? st->max_chunks : TLP_SAMPLE_DECISIONS;
			s.budget = nb;
			r.budget_calls++;
			if (pol->on_budget)
				pol->on_budget(ps, nb, &d);
			assert_true(d.n <= d.cap);
			count_moves(&r, &d, &s);
			sim_apply(&s, &d, 0);
			model_budget(&m, nb, d.cap);
		} else {					/* sample */
			uint32_t c = pick_sample(&s, livelist, nlive, ev, st->zipf);
			uint64_t w0 = st->kind == K_WINDOW && !st->pol ? tlp_window_work(ps) : 0;

			r.samples++;
			pol->on_sample(ps, c, &d);
			assert_true(d.n <= d.cap);
			count_moves(&r, &d, &s);
			sim_apply(&s, &d, 0);
			model_sample(&m, c, d.cap);
			if (st->kind == K_WINDOW && !st->pol && tlp_window_work(ps) - w0 > r.window_work_max)
				r.window_work_max = tlp_window_work(ps) - w0;
		}
		assert_int_equal(s.refused, 0);
		if (st->wide_budget_calls)
			assert_true(s.nfast <= s.budget);
		else	/* over budget only after a shrink too big for one call, and never growing then */
			assert_true(s.nfast <= s.budget || s.nfast <= nfast_before);
		if (s.nfast > r.max_fast_seen)
			r.max_fast_seen = s.nfast;
		if (st->kind != K_ALL_SLOW)
			check_same(&s, &m, ev);
		else
			assert_int_equal(s.nfast, 0);
	}
	pol->fini(ps);
	assert_int_equal(outstanding, 0);
	model_release(&m);
	sim_release(&s);
	free(livelist);
	return r;
}

/* ---- the closed lists of chunk-list.h against arrays ---- */

/*
 * 40 chunks in 5 closed lists (sentinels 40..44), random pushes and
 * removals; after each, every list walked both ways equals its array
 * (head first) and says empty exactly when the array is.
 */
static void test_clist(void **state)
{
	enum { NC = 40, NL = 5 };
	uint32_t prev[NC + NL], next[NC + NL], model[NL][NC], len[NL] = { 0 }, in[NC];
	struct tlp_links k = { prev, next };
	uint32_t moves = 0;

	(void)state;
	rng_state = 5;
	for (uint32_t l = 0; l < NL; l++)
		tlp_clist_init(&k, NC + l);
	for (uint32_t c = 0; c < NC; c++)
		in[c] = NL;		/* in no list */
	for (int op = 0; op < 5000; op++) {
		uint32_t c = below(NC), l = in[c];

		if (l < NL) {
			uint32_t i = 0;

			while (model[l][i] != c)
				i++;
			memmove(&model[l][i], &model[l][i + 1], sizeof(uint32_t) * (--len[l] - i));
			tlp_clist_remove(&k, c);
			in[c] = NL;
		} else {
			l = below(NL);
			memmove(&model[l][1], &model[l][0], sizeof(uint32_t) * len[l]++);
			model[l][0] = c;
			tlp_clist_push_head(&k, NC + l, c);
			in[c] = l;
			moves++;
		}
		for (l = 0; l < NL; l++) {
			uint32_t at = NC + l, back = NC + l;

			assert_int_equal(tlp_clist_empty(&k, NC + l), len[l] == 0);
			for (uint32_t i = 0; i < len[l]; i++) {
				at = next[at];
				back = prev[back];
				assert_int_equal(at, model[l][i]);
				assert_int_equal(back, model[l][len[l] - 1 - i]);
			}
			assert_int_equal(next[at], NC + l);
			assert_int_equal(prev[back], NC + l);
		}
	}
	assert_true(moves > 2000);
}

/* ---- tests: model agreement ---- */

static const uint64_t seeds[] = { 1, 2, 3, 0xdeadbeef, 20261130 };

static void run_kind(enum kind kind, uint32_t window)
{
	static const double fractions[] = { 1.0, 0.5, 0.0, 0.7, 0.29, 1.0 / 3.0, 0.99, 0.25, 1.0, 0.1 };

	for (size_t i = 0; i < N(seeds); i++) {
		for (int zipf = 0; zipf <= 1; zipf++) {
			for (int wide = 0; wide <= 1; wide++) {
				struct stream st = {
					.kind = kind, .seed = seeds[i] * 4 + (uint64_t)(zipf * 2 + wide),
					.max_chunks = i % 2 ? 64 : 200, .window = window, .events = 3000,
					.zipf = zipf, .wide_budget_calls = wide,
					.fractions = fractions, .nfractions = (uint32_t)(i * 2 % N(fractions)),
				};
				struct stream_result r = run_stream(&st);

				assert_true(r.samples > 1000);
				assert_true(r.budget_calls > 40);
				if (kind == K_LRU || kind == K_WINDOW)
					assert_true(r.promotions > 0 && r.demotions > 0);
				if (kind != K_ALL_SLOW && (kind != K_STATIC || st.nfractions))
					assert_true(r.max_fast_seen > 0);
			}
		}
	}
}

static void test_lru_vs_model(void **state)
{
	(void)state;
	run_kind(K_LRU, 16);
}

static void test_window_vs_model(void **state)
{
	(void)state;
	run_kind(K_WINDOW, 16);
	run_kind(K_WINDOW, 1);
	run_kind(K_WINDOW, 128);
}

static void test_static_vs_model(void **state)
{
	(void)state;
	run_kind(K_STATIC, 16);
}

static void test_all_fast_vs_model(void **state)
{
	(void)state;
	run_kind(K_ALL_FAST, 16);
}

static void test_all_slow(void **state)
{
	(void)state;
	run_kind(K_ALL_SLOW, 16);
}

/* ---- tests: the rules, by hand ---- */

struct hand {
	const struct tlp_policy *pol;
	void *st;
	struct tlp_move v[256];
	struct tlp_decisions d;
};

static void hand_init(struct hand *h, const char *name, uint32_t max_chunks, uint32_t budget, uint32_t window,
		      const double *fractions, uint32_t nfractions)
{
	struct tlp_params p = { sizeof(p), max_chunks, budget, window, 1u << 21, fractions, nfractions, NULL,
				counted_alloc, counted_free };

	outstanding = 0;
	h->pol = tlp_policy_find(name);
	assert_non_null(h->pol);
	h->st = h->pol->init(&p);
	assert_non_null(h->st);
}

static struct tlp_decisions *fresh(struct hand *h, uint32_t cap)
{
	h->d = (struct tlp_decisions){ h->v, 0, cap };
	return &h->d;
}

/* Decisions as text: "0+ 1+ 2-" (+ fast, - slow). */
static const char *said(const struct hand *h)
{
	static char buf[512];
	size_t off = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < h->d.n; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%u%c", i ? " " : "", h->d.v[i].chunk,
					h->d.v[i].tier == TLP_FAST ? '+' : '-');
	return buf;
}

static void hand_alloc(struct hand *h, uint32_t seq, uint32_t first, uint32_t n, const char *want)
{
	struct tlp_alloc a = { sizeof(a), seq, first, n, (uint64_t)n << 21 };

	h->pol->on_alloc(h->st, &a, fresh(h, n > 8 ? n : 8));
	assert_string_equal(said(h), want);
}

static void hand_sample(struct hand *h, uint32_t c, const char *want)
{
	h->pol->on_sample(h->st, c, fresh(h, TLP_SAMPLE_DECISIONS));
	assert_string_equal(said(h), want);
}

static void hand_budget(struct hand *h, uint32_t b, uint32_t cap, const char *want)
{
	h->pol->on_budget(h->st, b, fresh(h, cap));
	assert_string_equal(said(h), want);
}

static void hand_free(struct hand *h, uint32_t seq, uint32_t first, uint32_t n)
{
	struct tlp_alloc a = { sizeof(a), seq, first, n, (uint64_t)n << 21 };

	h->pol->on_free(h->st, &a);
}

static void hand_fini(struct hand *h)
{
	h->pol->fini(h->st);
	assert_int_equal(outstanding, 0);
}

static void test_lru_rules(void **state)
{
	struct hand h;

	(void)state;
	hand_init(&h, "lru", 16, 2, 16, NULL, 0);
	hand_alloc(&h, 0, 0, 4, "0+ 1+ 2- 3-");		/* fill in order */
	hand_sample(&h, 3, "0- 3+");			/* tail is 0: placed before 1 */
	hand_sample(&h, 1, "");				/* hit: 1 to the head */
	hand_sample(&h, 2, "3- 2+");			/* tail is now 3 */
	hand_budget(&h, 1, 8, "1-");			/* shrink from the tail */
	hand_budget(&h, 3, 8, "");			/* grow promotes nothing */
	hand_sample(&h, 0, "0+");			/* room: no demotion */
	hand_free(&h, 0, 0, 4);
	hand_alloc(&h, 1, 0, 2, "0+ 1+");		/* ids reused, room again */
	hand_budget(&h, 0, 8, "0- 1-");
	hand_sample(&h, 0, "");				/* budget 0: nothing is promoted */
	hand_fini(&h);
}

static void test_lru_catch_up(void **state)
{
	struct hand h;

	(void)state;
	hand_init(&h, "lru", 32, 20, 16, NULL, 0);
	hand_alloc(&h, 0, 0, 20, "0+ 1+ 2+ 3+ 4+ 5+ 6+ 7+ 8+ 9+ 10+ 11+ 12+ 13+ 14+ 15+ 16+ 17+ 18+ 19+");
	hand_budget(&h, 2, 8, "0- 1- 2- 3- 4- 5- 6- 7-");	/* 10 over budget after this call */
	hand_sample(&h, 19, "8- 9- 10- 11- 12- 13- 14- 15-");	/* a hit: only the excess moves */
	hand_sample(&h, 0, "16- 17- 18- 0+");		/* trims, then one swap within budget */
	hand_fini(&h);
}

static void test_window_rules(void **state)
{
	struct hand h;

	(void)state;
	hand_init(&h, "window", 16, 2, 4, NULL, 0);
	hand_alloc(&h, 0, 0, 4, "0+ 1+ 2- 3-");
	hand_sample(&h, 2, "0- 2+");		/* 2 has 1 sample > 0; worst fast is 0 (entered first) */
	hand_sample(&h, 3, "1- 3+");		/* 3: 1 > 0 of 1 */
	hand_sample(&h, 0, "");			/* 0: 1 sample, not > 1 of 2 or 3: a tie stays put */
	hand_sample(&h, 0, "2- 0+");		/* 0: 2 > 1; among the fast ones with 1, 2 entered first */
	hand_sample(&h, 1, "");			/* window now 3 0 0 1; 2 aged out (1 is as good as 3) */
	hand_sample(&h, 1, "3- 1+");		/* 3 aged out: 0 0 1 1 */
	hand_free(&h, 0, 0, 4);
	hand_alloc(&h, 1, 0, 3, "0+ 1+ 2-");	/* ids reused: old samples do not count */
	hand_sample(&h, 2, "0- 2+");
	hand_budget(&h, 3, 8, "0+");		/* grow: best slow goes fast */
	hand_budget(&h, 1, 8, "1- 0-");		/* shrink: least frequent first, oldest entry among equals */
	hand_fini(&h);
}

static void test_static_rules(void **state)
{
	static const double f[] = { 0.7, 0.29, 1.0 / 3.0, 0.5, 0.99, 1.0, 0.0 };
	static const struct { uint32_t n; const char *want; } allocs[] = {
		{ 10, "0+ 1+ 2+ 3+ 4+ 5+ 6+ 7- 8- 9-" },		/* 0.7 of 10 is 7, not 8 */
		{ 100, NULL },					/* 0.29 of 100 is 29 */
		{ 3, "0+ 1- 2-" },				/* 1/3 of 3 */
		{ 3, "0+ 1- 2-" },				/* 0.5 of 3 rounds down */
		{ 10, "0+ 1+ 2+ 3+ 4+ 5+ 6+ 7+ 8+ 9-" },		/* 0.99 of 10 */
		{ 2, "0+ 1+" },
		{ 2, "0- 1-" },
		{ 2, "0- 1-" },					/* beyond the list: none */
	};
	struct hand h;

	(void)state;
	for (size_t i = 0; i < N(allocs); i++) {
		struct tlp_alloc a = { sizeof(a), (uint32_t)i, 0, allocs[i].n, 0 };
		uint32_t fast = 0;

		hand_init(&h, "static", 128, TLP_UNLIMITED, 16, f, N(f));
		/* earlier allocations: sequence numbers matter, chunk ids do not */
		h.pol->on_alloc(h.st, &a, fresh(&h, 128));
		assert_int_equal(h.d.n, allocs[i].n);
		for (uint32_t j = 0; j < h.d.n; j++)
			fast += h.d.v[j].tier == TLP_FAST;
		if (allocs[i].want)
			assert_string_equal(said(&h), allocs[i].want);
		else
			assert_int_equal(fast, 29);
		hand_fini(&h);
	}

	/* the budget caps; shrink undoes the last promotions, grow gives them back */
	hand_init(&h, "static", 16, 3, 16, f, N(f));
	hand_alloc(&h, 0, 0, 5, "0+ 1+ 2+ 3- 4-");	/* wants 3 (0.7 of 5) */
	hand_alloc(&h, 1, 5, 4, "5- 6- 7- 8-");		/* wants 1, full */
	hand_budget(&h, 5, 8, "5+");			/* the denied chunk */
	hand_budget(&h, 2, 8, "5- 2-");			/* last promoted first */
	hand_budget(&h, 4, 8, "2+ 5+");			/* the same set again */
	hand_budget(&h, 1, 1, "5-");			/* one decision of room: the rest waits */
	hand_budget(&h, 1, 8, "2- 1-");
	hand_fini(&h);

	/* fractions outside [0, 1] refuse to start */
	{
		static const double bad[] = { 0.5, 1.5 };
		struct tlp_params p = { sizeof(p), 16, 4, 16, 1u << 21, bad, 2, NULL, counted_alloc, counted_free };

		outstanding = 0;
		assert_null(tlp_policy_static()->init(&p));
		assert_int_equal(outstanding, 0);
	}
}

static void test_window_bad_args(void **state)
{
	struct tlp_params p = { sizeof(p), 16, 4, 0, 1u << 21, NULL, 0, NULL, counted_alloc, counted_free };

	(void)state;
	outstanding = 0;
	assert_null(tlp_policy_window()->init(&p));
	assert_int_equal(outstanding, 0);
}

/* What each built-in declares for tierlab's planning: dynamic or fixed, its parameters. */
static void test_declarations(void **state)
{
	static const struct {
		const char *name;
		bool dynamic;
		const char *params;	/* declared names, space-separated */
	} rows[] = {
		{ "all-fast", false, "" }, { "all-slow", false, "" }, { "static", false, "" },
		{ "lru", true, "" }, { "window", true, "window" },
	};
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct tlp_policy *pol = tlp_policy_find(rows[i].name);
		char got[128] = "";

		assert_non_null(pol);
		assert_true(TLP_HAS(pol, flags) && TLP_HAS(pol, params));
		assert_int_equal(!!(pol->flags & TLP_DYNAMIC), rows[i].dynamic);
		for (const struct tlp_param *p = pol->params; p && p->name; p++) {
			assert_non_null(p->def);
			assert_non_null(p->help);
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", got[0] ? " " : "", p->name);
		}
		assert_string_equal(got, rows[i].params);
	}
	while (tlp_policy_names[n])
		n++;
	assert_int_equal(n, sizeof(rows) / sizeof(rows[0]));	/* a new built-in is declared here too */
}

/* Reading policy arguments: tlp_arg and tlp_args_unknown, and the window policy taking its length from them. */
static void test_policy_args(void **state)
{
	char buf[8];
	struct tlp_params p = { sizeof(p), 16, 4, 16, 1u << 21, NULL, 0, "window=4", counted_alloc, counted_free };
	const struct tlp_param params[] = { { "window", "16", "" }, { "alpha", "1", "" }, { NULL, NULL, NULL } };
	void *st;

	(void)state;
	assert_string_equal(tlp_arg("alpha=0.5,window=128", "window", buf, sizeof(buf)), "128");
	assert_string_equal(tlp_arg("alpha=0.5,window=128", "alpha", buf, sizeof(buf)), "0.5");
	assert_null(tlp_arg("alpha=0.5,window=128", "win", buf, sizeof(buf)));
	assert_null(tlp_arg(NULL, "window", buf, sizeof(buf)));
	assert_string_equal(tlp_arg("window=123456789", "window", buf, sizeof(buf)), "1234567");	/* cut */
	assert_null(tlp_args_unknown("alpha=0.5,window=128", params, buf, sizeof(buf)));
	assert_null(tlp_args_unknown(NULL, params, buf, sizeof(buf)));
	assert_string_equal(tlp_args_unknown("window=1,beta=2", params, buf, sizeof(buf)), "beta");

	/* window=4 from the arguments wins over the runtime's 16; without arguments the 16 stands */
	outstanding = 0;
	st = tlp_policy_window()->init(&p);
	assert_non_null(st);
	assert_int_equal(tlp_window_length(st), 4);
	tlp_policy_window()->fini(st);
	p.args = NULL;
	st = tlp_policy_window()->init(&p);
	assert_int_equal(tlp_window_length(st), 16);
	tlp_policy_window()->fini(st);
	/* a parameter it does not take, or a bad value: no state, nothing left allocated */
	p.args = "windw=4";
	assert_null(tlp_policy_window()->init(&p));
	p.args = "window=0";
	assert_null(tlp_policy_window()->init(&p));
	/* issue 27: 10^9 was taken, 24 GB inside the program; the bound is what it costs (param-bounds.h) */
	p.args = "window=1000000000";
	assert_null(tlp_policy_window()->init(&p));
	p.args = "window=1000001";
	assert_null(tlp_policy_window()->init(&p));
	p.args = NULL;
	p.window = 1000000000;
	assert_null(tlp_policy_window()->init(&p));
	assert_int_equal(outstanding, 0);
	p.window = TLP_WINDOW_MAX;
	st = tlp_policy_window()->init(&p);
	assert_non_null(st);
	assert_int_equal(tlp_window_length(st), TLP_WINDOW_MAX);
	tlp_policy_window()->fini(st);
	assert_int_equal(outstanding, 0);
}

/* ---- O(1): the window policy's work per sample as the chunks grow tenfold ---- */

static struct stream_result window_work(uint32_t max_chunks)
{
	struct stream st = { .kind = K_WINDOW, .seed = 77, .max_chunks = max_chunks, .window = 128,
			     .events = 0, .zipf = 1 };
	const struct tlp_policy *pol = tlp_policy_window();
	struct tlp_params p = { sizeof(p), max_chunks, max_chunks * 2 / 5, st.window, 1u << 21, NULL, 0, NULL,
				counted_alloc, counted_free };
	struct stream_result r = { 0 };
	struct tlp_move v[TLP_SAMPLE_DECISIONS];
	uint32_t nalloc = max_chunks / 10;
	struct tlp_move *big = calloc(max_chunks, sizeof(*big));
	uint64_t total = 0;
	void *ps;

	outstanding = 0;
	rng_state = st.seed;
	ps = pol->init(&p);
	assert_non_null(ps);
	assert_non_null(big);
	for (uint32_t i = 0; i < 10; i++) {
		struct tlp_alloc a = { sizeof(a), i, i * nalloc, nalloc, 0 };
		struct tlp_decisions d = { big, 0, max_chunks };

		pol->on_alloc(ps, &a, &d);
	}
	for (uint32_t ev = 0; ev < 20000; ev++) {
		struct tlp_decisions d = { v, 0, TLP_SAMPLE_DECISIONS };
		uint32_t k = (uint32_t)(exp(unit() * log((double)max_chunks + 1.0)) - 1.0) % max_chunks;
		uint64_t w0 = tlp_window_work(ps), w;

		pol->on_sample(ps, (k * 2654435761u + (ev / 2000) * 7919u) % max_chunks, &d);
		w = tlp_window_work(ps) - w0;
		total += w;
		if (w > r.window_work_max)
			r.window_work_max = w;
		r.promotions += d.n;
	}
	r.samples = total;	/* total work, for the average */
	pol->fini(ps);
	free(big);
	assert_int_equal(outstanding, 0);
	return r;
}

static void test_window_work_bounded(void **state)
{
	struct stream_result small = window_work(2000), large = window_work(20000);

	(void)state;
	print_message("window work per sample: 2000 chunks max %llu avg %.2f, 20000 chunks max %llu avg %.2f\n",
		      (unsigned long long)small.window_work_max, small.samples / 20000.0,
		      (unsigned long long)large.window_work_max, large.samples / 20000.0);
	assert_true(small.promotions > 0 && large.promotions > 0);	/* the fast set did move */
	/* independent of the chunk count: bounded by the window's buckets, not by chunks */
	assert_true(large.window_work_max <= 8 * (128 + 1) + 32);
	assert_true(large.window_work_max <= 2 * small.window_work_max + 16);
	assert_true(large.samples <= 2 * small.samples + 20000);
}

/* ---- the plugins ---- */

/* A file of the build tree, found from this binary (build/tests/test_policies). */
static const char *plugin(const char *rel)
{
	static char path[2 * PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	assert_true(n > 0);
	exe[n] = 0;
	slash = strrchr(exe, '/');
	assert_non_null(slash);
	*slash = 0;
	snprintf(path, sizeof(path), "%s/../%s", exe, rel);
	return path;
}

static void test_plugins_load(void **state)
{
	(void)state;
	for (size_t i = 0; tlp_policy_names[i]; i++) {
		char rel[128];
		const struct tlp_policy *pol;
		tlp_entry_fn entry;
		void *dl;

		snprintf(rel, sizeof(rel), "lib/tierlab/policy-%s.so", tlp_policy_names[i]);
		dl = dlopen(plugin(rel), RTLD_NOW | RTLD_LOCAL);
		if (!dl)
			print_error("%s\n", dlerror());
		assert_non_null(dl);
		entry = (tlp_entry_fn)dlsym(dl, TLP_ENTRY_NAME);
		assert_non_null(entry);
		pol = entry();
		assert_non_null(pol);
		assert_string_equal(pol->name, tlp_policy_names[i]);
		assert_int_equal(pol->abi_version, TLP_ABI_VERSION);
		assert_int_equal(pol->size, sizeof(struct tlp_policy));
		assert_true(pol->init && pol->on_alloc && pol->on_free && pol->on_sample && pol->on_budget && pol->fini);
		/* the archive's names and the helpers stay hidden */
		assert_null(dlsym(dl, "tlp_policy_lru"));
		assert_null(dlsym(dl, "tlp_place_alloc"));
		assert_null(dlsym(dl, "tlp_window_work"));
		/* the archive's copy is the same policy */
		assert_string_equal(tlp_policy_find(tlp_policy_names[i])->name, pol->name);
		assert_int_equal(tlp_policy_find(tlp_policy_names[i])->size, sizeof(struct tlp_policy));
		assert_int_equal(tlp_policy_find(tlp_policy_names[i])->abi_version, TLP_ABI_VERSION);
		if (!strcmp(pol->name, "lru") || !strcmp(pol->name, "window")) {
			struct stream st = { .kind = !strcmp(pol->name, "lru") ? K_LRU : K_WINDOW, .pol = pol,
					     .seed = 99, .max_chunks = 64, .window = 16, .events = 1500, .zipf = 1 };

			run_stream(&st);
		}
		dlclose(dl);
	}
	assert_null(tlp_policy_find("lur"));
	assert_null(tlp_policy_find(NULL));
}

/* The example of docs/policies.md, cut out and built by lib/policies/build.mk. */
static void test_doc_example(void **state)
{
	const struct tlp_policy *pol;
	tlp_entry_fn entry;
	void *dl;

	(void)state;
	dl = dlopen(plugin("obj/policies-doc/policy-first-touch.so"), RTLD_NOW | RTLD_LOCAL);
	if (!dl)
		print_error("%s\n", dlerror());
	assert_non_null(dl);
	entry = (tlp_entry_fn)dlsym(dl, TLP_ENTRY_NAME);
	assert_non_null(entry);
	pol = entry();
	assert_string_equal(pol->name, "first-touch");
	assert_int_equal(pol->abi_version, TLP_ABI_VERSION);
	assert_int_equal(pol->size, sizeof(struct tlp_policy));
	for (size_t i = 0; i < N(seeds); i++)
		for (int wide = 0; wide <= 1; wide++) {
			struct stream st = { .kind = K_FIRST_TOUCH, .pol = pol, .seed = seeds[i] + 1000,
					     .max_chunks = 96, .window = 16, .events = 2000, .zipf = (int)(i % 2),
					     .wide_budget_calls = wide };
			struct stream_result r = run_stream(&st);

			assert_true(r.promotions > 0);
		}
	dlclose(dl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clist),
		cmocka_unit_test(test_lru_rules),
		cmocka_unit_test(test_lru_catch_up),
		cmocka_unit_test(test_window_rules),
		cmocka_unit_test(test_static_rules),
		cmocka_unit_test(test_window_bad_args),
		cmocka_unit_test(test_lru_vs_model),
		cmocka_unit_test(test_window_vs_model),
		cmocka_unit_test(test_static_vs_model),
		cmocka_unit_test(test_all_fast_vs_model),
		cmocka_unit_test(test_all_slow),
		cmocka_unit_test(test_window_work_bounded),
		cmocka_unit_test(test_declarations),
		cmocka_unit_test(test_policy_args),
		cmocka_unit_test(test_plugins_load),
		cmocka_unit_test(test_doc_example),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
