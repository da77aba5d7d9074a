/*
 * The replay engine: the runtime's core (lib/tiermem/core.c) over a
 * placement map. Each step mirrors the core's in order: an allocation
 * takes the first free run of chunk ids (the runtime's bitmap is first
 * fit), the budget follows the footprint before on_alloc, undecided chunks
 * go slow; a free releases fast room before on_free and then the budget;
 * a sample counts a hit by the chunk's tier at the sample's time (the
 * tier it left if its move began later, a miss during the move), then
 * on_sample.
 * Decisions go through tlp_core_step, as the runtime applies them. What
 * the runtime does and the replay cannot know: a migration the kernel
 * refused (mig_failed), which leaves the chunk where it was there.
 */
#include "simulate/replay.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/core-rules.h"

#define PAGE 4096ULL
#define MAX_CHUNKS (1U << 24)	/* TLRT_MAX_CHUNKS */


struct sim {
	const struct tl_sim_config *c;
	const struct tl_sim_hooks *h;
	const struct tl_trace_proc *p;
	struct tl_sim_result *res;
	const struct tlp_policy *pol;
	void *st;
	struct tlp_params params;
	uint32_t max_chunks, moves_cap, lowest_free;
	uint8_t *tier, *live, *placed, *tier_before;
	uint64_t *len;
	uint64_t *move_start, *move_end;	/* per chunk: its last move */
	uint64_t now, drained;			/* the event's time; when its drain began */
	uint64_t busy_until;			/* when the last move completes */
	struct tl_sim_interval *iv;		/* the current interval of res->iv */
	double pace;				/* model seconds per recorded second (1 without a pacer) */
	size_t move_seq;			/* moves so far, placements included: the log's M order */
	uint32_t *first;		/* per allocation seq: its first chunk, or TL_TRACE_NONE */
	uint32_t *nch;			/* per allocation seq: its chunks */
	uint32_t live_chunks, fast_chunks, budget;
	struct tlp_move *moves;
	int shift;			/* log2 of the chunk size, or -1 */
	void (*on_sample)(void *, uint32_t, struct tlp_decisions *);
};

static void *sim_alloc(size_t bytes)
{
	return calloc(1, bytes ? bytes : 1);
}

static void sim_free(void *p, size_t bytes)
{
	(void)bytes;
	free(p);
}

/* As the runtime's bitmap: the lowest run of n free ids. */
static long take_ids(struct sim *s, uint32_t n)
{
	uint32_t at = s->lowest_free;

	while ((uint64_t)at + n <= s->max_chunks) {
		uint32_t k = 0;

		while (k < n && !s->live[at + k])
			k++;
		if (k == n) {
			if (at == s->lowest_free) {
				s->lowest_free = at + n;
				while (s->lowest_free < s->max_chunks && s->live[s->lowest_free])
					s->lowest_free++;
			}
			return at;
		}
		at += k + 1;
	}
	return -1;
}

/* A migration of chunk id (not a placement), before its tier changes: when it runs (see replay.h). */
static void time_move(struct sim *s, uint32_t id)
{
	const struct tl_trace_move *m = s->move_seq < s->p->nmoves ? &s->p->moves[s->move_seq] : NULL;
	uint64_t start = s->drained > s->now ? s->drained : s->now;

	s->tier_before[id] = s->tier[id];
	if (s->c->recorded_moves && m && m->start_ns && m->chunk == id) {
		s->move_start[id] = m->start_ns;
		s->move_end[id] = m->end_ns;
		return;
	}
	if (start < s->busy_until)
		start = s->busy_until;
	s->move_start[id] = start;
	/* the move's model time, in the recording's time at the model's pace */
	s->move_end[id] = s->busy_until =
		start + (s->c->move_gbs > 0 ? (uint64_t)((s->c->move_cost_us * 1e3 + (double)s->len[id] / s->c->move_gbs) /
							 s->pace)
					    : 0);
}

static void apply(struct sim *s, const struct tlp_move *v, uint32_t n, int initial)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = v[i].chunk;
		unsigned to = v[i].tier == TLP_FAST ? TLP_FAST : TLP_SLOW;
		enum tl_direction dir;
		int first;

		if (id >= s->max_chunks)
			continue;
		switch (tlp_core_step(s->live[id], s->placed[id], s->tier[id], to, initial, s->fast_chunks, s->budget,
				      &first)) {
		case TLP_STEP_SKIP:
			continue;
		case TLP_STEP_REFUSED:
			s->res->refused++;
			continue;
		case TLP_STEP_MOVE:
			break;
		}
		dir = first ? (to == TLP_FAST ? TL_DIR_INITIAL_FAST : TL_DIR_INITIAL_SLOW)
			    : (to == TLP_FAST ? TL_DIR_SLOW_TO_FAST : TL_DIR_FAST_TO_SLOW);
		s->res->moves[dir]++;
		s->res->bytes[dir] += s->len[id];
		if (!first) {
			time_move(s, id);
			s->iv->moved_bytes += (double)s->len[id];
		}
		s->move_seq++;
		if (s->h && s->h->move)
			s->h->move(s->h->ctx, s->p, id, dir);
		s->placed[id] = 1;
		if (s->tier[id] != to) {
			if (to == TLP_FAST)
				s->fast_chunks++;
			else
				s->fast_chunks--;
			s->tier[id] = (uint8_t)to;
		}
	}
	if ((uint64_t)s->fast_chunks * s->c->chunk_size > s->res->fast_peak_bytes)
		s->res->fast_peak_bytes = (uint64_t)s->fast_chunks * s->c->chunk_size;
}

static void budget_update(struct sim *s)
{
	struct tlp_decisions d;
	uint32_t nb, cap;

	if (!(s->c->dynamic_fraction > 0))
		return;
	nb = tlp_core_dynamic_budget(s->c->dynamic_fraction, s->live_chunks);
	if (nb == s->budget)
		return;
	cap = tlp_core_budget_room(s->budget, nb, s->moves_cap);
	s->budget = nb;
	s->params.budget_chunks = nb;
	if (!(TLP_HAS(s->pol, on_budget) && s->pol->on_budget))
		return;
	d = (struct tlp_decisions){ s->moves, 0, cap };
	s->pol->on_budget(s->st, nb, &d);
	apply(s, d.v, d.n, 0);
}

static void on_alloc(struct sim *s, uint32_t seq)
{
	const struct tl_trace_alloc *a = &s->p->allocs[seq];
	uint64_t len = (a->bytes + PAGE - 1) / PAGE * PAGE, cs = s->c->chunk_size;
	uint32_t n = (uint32_t)((len + cs - 1) / cs);
	struct tlp_decisions d;
	struct tlp_alloc ta;
	long first;

	if (a->bytes < s->c->threshold)
		return;		/* below this configuration's threshold: not managed, its samples outside */
	first = n ? take_ids(s, n) : -1;
	if (first < 0)
		return;		/* the runtime would not have managed it */
	s->first[seq] = (uint32_t)first;
	s->nch[seq] = n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = (uint32_t)first + i;

		s->len[id] = (i + 1) * cs <= len ? cs : len - (uint64_t)i * cs;
		s->tier[id] = TLP_SLOW;
		s->live[id] = 1;
		s->placed[id] = 0;
		s->move_start[id] = s->move_end[id] = 0;
	}
	s->live_chunks += n;
	budget_update(s);
	ta = (struct tlp_alloc){ sizeof(ta), seq, (uint32_t)first, n, a->bytes };
	d = (struct tlp_decisions){ s->moves, 0, tlp_core_alloc_room(n, s->moves_cap) };
	s->pol->on_alloc(s->st, &ta, &d);
	apply(s, d.v, d.n, 1);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = (uint32_t)first + i;

		if (!s->placed[id]) {
			s->res->moves[TL_DIR_INITIAL_SLOW]++;
			s->res->bytes[TL_DIR_INITIAL_SLOW] += s->len[id];
			s->move_seq++;
			if (s->h && s->h->move)
				s->h->move(s->h->ctx, s->p, id, TL_DIR_INITIAL_SLOW);
			s->placed[id] = 1;
		}
	}
}

static void on_free(struct sim *s, uint32_t seq)
{
	const struct tl_trace_alloc *a = &s->p->allocs[seq];
	uint32_t first = s->first[seq], n;
	struct tlp_alloc ta;

	if (first == TL_TRACE_NONE)
		return;
	n = (uint32_t)(((a->bytes + PAGE - 1) / PAGE * PAGE + s->c->chunk_size - 1) / s->c->chunk_size);
	for (uint32_t i = first; i < first + n; i++) {
		if (s->tier[i] == TLP_FAST)
			s->fast_chunks--;
		s->live[i] = 0;
		s->tier[i] = TLP_SLOW;
	}
	s->live_chunks -= n;
	if (first < s->lowest_free)
		s->lowest_free = first;
	s->first[seq] = TL_TRACE_NONE;
	ta = (struct tlp_alloc){ sizeof(ta), seq, first, n, a->bytes };
	if (TLP_HAS(s->pol, on_free) && s->pol->on_free)
		s->pol->on_free(s->st, &ta);
	budget_update(s);
}

/* A xorshift64* draw in [0.5, 1.5) periods: the runtime thread's tick jitter. */
static uint64_t next_interval(uint64_t *x, double period_ns)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return (uint64_t)(period_ns * (0.5 + (double)((*x * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0));
}

static int setup(struct sim *s, char *why, size_t whylen)
{
	const struct tl_trace_proc *p = s->p;
	uint64_t max = 0, live = 0;

	/*
	 * The runtime sizes ids for its whole reservation (reserve / chunk
	 * size + units: millions). First fit never hands out an id beyond the
	 * chunks of every allocation of the trace together, so the map and the
	 * policy's arrays are sized for those: the same ids, without setting
	 * up millions of entries per configuration (docs/simulate.md).
	 */
	for (uint32_t i = 0; i < p->nallocs; i++)
		live += ((p->allocs[i].bytes + PAGE - 1) / PAGE * PAGE + s->c->chunk_size - 1) / s->c->chunk_size;
	max = p->p.known ? p->p.reserve_bytes / s->c->chunk_size + p->p.nunits : live;
	if (live < max)
		max = live;
	if (max > MAX_CHUNKS)
		max = MAX_CHUNKS;
	if (max < 1)
		max = 1;
	s->max_chunks = (uint32_t)max;
	s->moves_cap = s->max_chunks > TLP_SAMPLE_DECISIONS ? s->max_chunks : TLP_SAMPLE_DECISIONS;
	s->tier = calloc(max, 1);
	s->live = calloc(max, 1);
	s->placed = calloc(max, 1);
	s->len = calloc(max, sizeof(*s->len));
	s->first = malloc((p->nallocs + 1) * sizeof(*s->first));
	s->nch = malloc((p->nallocs + 1) * sizeof(*s->nch));
	s->moves = calloc(s->moves_cap, sizeof(*s->moves));
	s->move_start = calloc(max, sizeof(*s->move_start));
	s->move_end = calloc(max, sizeof(*s->move_end));
	s->tier_before = calloc(max, 1);
	if (!s->tier || !s->live || !s->placed || !s->len || !s->first || !s->nch || !s->moves || !s->move_start ||
	    !s->move_end || !s->tier_before)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nallocs; i++)
		s->first[i] = TL_TRACE_NONE;
	s->budget = s->c->dynamic_fraction > 0 ? 0 : s->c->budget_chunks;
	s->on_sample = TLP_HAS(s->pol, on_sample) ? s->pol->on_sample : NULL;
	s->shift = __builtin_popcountll(s->c->chunk_size) == 1 ? __builtin_ctzll(s->c->chunk_size) : -1;
	s->params = (struct tlp_params){
		.size = sizeof(struct tlp_params), .max_chunks = s->max_chunks, .budget_chunks = s->budget,
		.window = s->c->window, .chunk_size = s->c->chunk_size,
		.fractions = s->c->nfractions ? s->c->fractions : NULL, .nfractions = s->c->nfractions,
		.args = s->c->args, .alloc = sim_alloc, .free = sim_free,
	};
	if (TLP_HAS(s->pol, init) && s->pol->init && !(s->st = s->pol->init(&s->params))) {
		snprintf(why, whylen, "policy '%s': init failed", s->pol->name ? s->pol->name : "?");
		return -EINVAL;
	}
	return 0;
}

static void teardown(struct sim *s)
{
	if (s->st && TLP_HAS(s->pol, fini) && s->pol->fini)
		s->pol->fini(s->st);
	free(s->tier);
	free(s->live);
	free(s->placed);
	free(s->len);
	free(s->first);
	free(s->nch);
	free(s->moves);
	free(s->move_start);
	free(s->move_end);
	free(s->tier_before);
}

/* Where the chunk was at the sample's time (core.c's hit_at): moving is a miss. */
static int hit_at(struct sim *s, uint32_t chunk)
{
	if (s->now >= s->move_end[chunk])
		return s->tier[chunk] == TLP_FAST;
	if (s->now >= s->move_start[chunk]) {
		s->res->in_motion++;
		return 0;
	}
	return s->tier_before[chunk] == TLP_FAST;
}

static void sample(struct sim *s, size_t i)
{
	const struct tl_trace_event *e = &s->p->ev[i];
	struct tl_sim_result *res = s->res;
	struct tlp_decisions d;
	uint32_t first, chunk;
	uint64_t idx;
	int hit;

	res->samples++;
	if (e->seq == TL_TRACE_NONE || (first = s->first[e->seq]) == TL_TRACE_NONE ||
	    (idx = s->shift >= 0 ? e->off >> s->shift : e->off / s->c->chunk_size) >= s->nch[e->seq]) {
		/* outside managed memory, or in the allocation's last unit beyond its last chunk */
		s->iv->outside++;
		if (s->h && s->h->sample)
			s->h->sample(s->h->ctx, s->p, i, -1, 0);
		return;
	}
	chunk = first + (uint32_t)idx;
	hit = hit_at(s, chunk);
	s->iv->fast += (uint64_t)hit;
	s->iv->slow += (uint64_t)!hit;
	res->samples_managed++;
	res->hits += (uint64_t)hit;	/* not a branch: hit or miss is not predictable */
	res->misses += (uint64_t)!hit;
	if (s->h && s->h->sample)
		s->h->sample(s->h->ctx, s->p, i, (int32_t)chunk, hit);
	if (!s->on_sample)
		return;
	d = (struct tlp_decisions){ s->moves, 0, TLP_SAMPLE_DECISIONS };
	s->on_sample(s->st, chunk, &d);
	if (d.n)
		apply(s, d.v, d.n, 0);
}

static int replay_proc(const struct tl_trace_proc *p, const struct tl_sim_config *c, const struct tl_sim_hooks *h,
		       struct tl_sim_result *res, uint64_t t0, uint64_t span, char *why, size_t whylen)
{
	struct sim s = { .c = c, .h = h, .p = p, .res = res, .pol = c->pol };
	/*
	 * Thinning needs at least the rate asked for: a recording that
	 * delivered fewer samples than that is replayed whole (the command
	 * says so), never as if it held samples it has not.
	 */
	double delivered = tl_trace_delivered_hz(p);
	int thin = c->rate_hz > 0 && delivered > 0 && c->rate_hz < delivered;
	double period = thin ? 1e9 / c->rate_hz : 0;
	uint64_t x = c->seed ? c->seed : 0x9E3779B97F4A7C15ULL, tick = p->t_first;
	unsigned occ = 0, ivn = 0;
	uint64_t next_occ = t0;	/* the time of occupancy point occ */
	uint64_t next_iv = t0 + span / TL_SIM_INTERVALS;	/* when interval ivn ends */
	int rc = setup(&s, why, whylen);

	s.iv = &res->iv[0];
	s.pace = 1;

	for (size_t i = 0; !rc && i < p->nev; i++) {
		const struct tl_trace_event *e = &p->ev[i];

		s.now = e->t_ns;
		/* thinned, the run's drains are not this replay's (set below) */
		s.drained = !thin && p->drained ? p->drained[i] : 0;
		while (e->t_ns >= next_occ) {
			res->occupancy[occ++] += (double)s.fast_chunks * (double)c->chunk_size;
			next_occ = occ < TL_SIM_OCC_POINTS ? t0 + span / TL_SIM_OCC_POINTS * occ : UINT64_MAX;
		}
		while (e->t_ns >= next_iv && ivn + 1 < TL_SIM_INTERVALS) {
			if (c->pace)
				s.pace = c->pace(c->pace_ctx, s.iv, res->interval_s);
			s.iv = &res->iv[++ivn];
			next_iv = ivn + 1 < TL_SIM_INTERVALS ? t0 + span / TL_SIM_INTERVALS * (ivn + 1) : UINT64_MAX;
		}
		switch (e->kind) {
		case TL_EV_ALLOC:
			on_alloc(&s, e->seq);
			break;
		case TL_EV_FREE:
			on_free(&s, e->seq);
			break;
		case TL_EV_SAMPLE:
			if (thin) {
				/*
				 * The first recorded access at or after a tick stands for
				 * that tick's sample. The runtime's one thread moves before
				 * it arms: while the moves of the last sample run it takes
				 * no sample, and the ticks that came due meanwhile are
				 * skipped (ticks_late), not fired late.
				 */
				if (e->t_ns < tick || e->t_ns < s.busy_until)
					break;
				/*
				 * A gap of many periods with no sample (or a log's
				 * time jumping) takes no tick's sample: skip to a
				 * few periods before, at the intervals' mean.
				 */
				if ((double)(e->t_ns - tick) > 64 * period)
					tick += (uint64_t)(floor((double)(e->t_ns - tick) / period) - 2) * (uint64_t)period;
				while (tick <= e->t_ns)
					tick += next_interval(&x, period);
				/* the runtime drains this sample's moves when the next tick is due, before arming it */
				s.drained = tick;
			}
			sample(&s, i);
			break;
		}
	}
	while (!rc && occ < TL_SIM_OCC_POINTS)
		res->occupancy[occ++] += (double)s.fast_chunks * (double)c->chunk_size;
	teardown(&s);
	return rc;
}

int tl_sim_replay(const struct tl_trace *t, const struct tl_sim_config *c, const struct tl_sim_hooks *hooks,
		  struct tl_sim_result *res, char *why, size_t whylen)
{
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	if (!c->pol || !TLP_HAS(c->pol, on_alloc) || !c->pol->on_alloc)
		return snprintf(why, whylen, "policy without on_alloc"), -EINVAL;
	/* every chunk id, length and sample's chunk divides by it: whoever filled c, it must be a chunk size */
	if (!c->chunk_size || c->chunk_size % PAGE)
		return snprintf(why, whylen, "chunk size %" PRIu64 ": not a multiple of 4096 above 0", c->chunk_size),
		       -EINVAL;
	for (size_t i = 0; i < t->nprocs; i++) {
		if (!t->procs[i].nev)
			continue;
		if (t->procs[i].t_first < t0)
			t0 = t->procs[i].t_first;
		if (t->procs[i].t_last > t1)
			t1 = t->procs[i].t_last;
	}
	res->interval_s = t1 > t0 ? (double)(t1 - t0) / 1e9 / TL_SIM_INTERVALS : 0;
	for (size_t i = 0; i < t->nprocs && !rc; i++)
		rc = replay_proc(&t->procs[i], c, hooks, res, t0, t1 > t0 ? t1 - t0 : 0, why, whylen);
	return rc;
}

void tl_sim_result_add(struct tl_sim_result *total, const struct tl_sim_result *r)
{
	total->samples += r->samples;
	total->samples_managed += r->samples_managed;
	total->hits += r->hits;
	total->misses += r->misses;
	total->refused += r->refused;
	total->in_motion += r->in_motion;
	for (int d = 0; d < TL_DIR__COUNT; d++) {
		total->moves[d] += r->moves[d];
		total->bytes[d] += r->bytes[d];
	}
	for (int k = 0; k < TL_SIM_OCC_POINTS; k++)
		total->occupancy[k] += r->occupancy[k];
	total->fast_peak_bytes += r->fast_peak_bytes;
	for (int k = 0; k < TL_SIM_INTERVALS; k++) {
		total->iv[k].fast += r->iv[k].fast;
		total->iv[k].slow += r->iv[k].slow;
		total->iv[k].outside += r->iv[k].outside;
		total->iv[k].moved_bytes += r->iv[k].moved_bytes;
	}
	if (r->interval_s > total->interval_s)
		total->interval_s = r->interval_s;
}

double tl_sim_hit_rate(const struct tl_sim_result *r)
{
	return r->samples_managed ? (double)r->hits / (double)r->samples_managed : 0;
}
