/*
 * The offline replay (lib/simulate) against what can be worked out by
 * hand or by a naive model:
 *   - the trace loader: the P record, samples resolved against the
 *     allocations live at their moment (a freed range reused by a later
 *     allocation, an address past the page-rounded size but in the last
 *     2 MiB unit, managed or not by the chunk size as the runtime decides,
 *     outside memory),
 *     malformed lines skipped, reading stopping at a NUL; a P record the
 *     runtime could not have written refused, naming line and field;
 *   - the replay engine on random streams (allocations and frees of random
 *     sizes at reused addresses, skewed samples) against a naive LRU model
 *     written from the policy's rule (the sampled chunk to the head and
 *     into fast memory, the tail out when full, new chunks fast in
 *     allocation order while there is room): hits, promotions, demotions
 *     and initial placements must agree exactly;
 *   - moves that take time (a model's migration speed): a sample in a
 *     chunk still moving is a miss, before its move it counts the tier it
 *     left;
 *   - thinning: 10 s of samples every millisecond thinned to 100 Hz keep
 *     about 1000 (ticks every 5-15 ms), the same ones every time; a rate
 *     at or above the recorded one keeps all;
 *   - a configuration's threshold: smaller allocations unmanaged, the
 *     footprint of the larger ones;
 *   - the advisor's knapsack on allocations of known densities.
 * The tier model's equations are test_tier_model.c's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "policies/policies.h"
#include "simulate/advise.h"
#include "simulate/model.h"
#include "simulate/replay.h"
#include "simulate/trace.h"

#define MIB (1ULL << 20)

/* A growing text buffer for hand-made logs. */
struct text {
	char *s;
	size_t n, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->cap - t->n < 256) {
		t->cap = t->cap ? t->cap * 2 : 4096;
		t->s = realloc(t->s, t->cap);
		assert_non_null(t->s);
	}
	va_start(ap, fmt);
	n = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < t->cap - t->n);
	t->n += (size_t)n;
}

static void load(struct tl_trace *t, const struct text *x)
{
	char why[256] = "";

	memset(t, 0, sizeof(*t));
	if (tl_trace_add_log(t, 7, x->s, x->n, why, sizeof(why)))
		fail_msg("load: %s", why);
}

static void test_trace_parse(void **state)
{
	struct text x = { 0 };
	struct tl_trace t;
	const struct tl_trace_proc *p;
	(void)state;

	put(&x, "P\t1099511627776\t524288\t1048576\t2097152\t8\t0\t16\t1000\t1048576\tlru\twindow=4\t0.5,1\n");
	put(&x, "A\t100\t0\t0x10000000\t5000000\t0\t3\t0x1234\tapp+0x10\n");	/* 4886 KiB, pages to 5001216 */
	put(&x, "S\t110\t0x10000010\t0x1\t5\t0\t1\t0\n");				/* offset 16 */
	put(&x, "S\t120\t0x105f0000\t0x1\t5\t2\t0\t0\n");			/* past the last page, in the last unit */
	put(&x, "S\t130\t0x90000000\t0x1\t5\t-1\t0\t0\n");			/* no allocation */
	put(&x, "S\tgarbage\n");						/* skipped */
	put(&x, "F\t140\t0\n");
	put(&x, "A\t150\t1\t0x10000000\t2097152\t0\t1\t0x1234\tapp+0x10\n");	/* the same range again */
	put(&x, "S\t160\t0x10100000\t0x1\t5\t0\t0\t0\n");			/* offset 1 MiB of seq 1 */
	put(&x, "M\t170\t0\t0x10000000\t2097152\tslow-to-fast\t1\n");
	x.s[x.n] = '\0';
	put(&x, "%c", 0);
	put(&x, "S\t180\t0x10000000\t0x1\t5\t0\t0\t0\n");			/* after the NUL: not read */
	load(&t, &x);
	assert_int_equal(t.nprocs, 1);
	p = &t.procs[0];
	assert_true(p->p.known);
	assert_int_equal(p->p.chunk_size, 2 * MIB);
	assert_int_equal(p->p.budget_chunks, 8);
	assert_int_equal(p->p.window, 16);
	assert_string_equal(p->p.policy, "lru");
	assert_string_equal(p->p.args, "window=4");
	assert_int_equal(p->p.nfractions, 2);
	assert_true(p->p.fractions[0] == 0.5 && p->p.fractions[1] == 1);
	assert_int_equal(p->nallocs, 2);
	assert_int_equal(p->nsamples, 4);
	assert_int_equal(p->nev, 7);
	assert_int_equal(p->ev[1].seq, 0);
	assert_int_equal(p->ev[1].off, 16);
	assert_int_equal(p->ev[1].hit, 1);
	assert_int_equal(p->ev[2].seq, 0);
	assert_int_equal(p->ev[2].off, 0x5f0000);
	assert_int_equal(p->ev[3].seq, TL_TRACE_NONE);
	assert_int_equal(p->ev[4].kind, TL_EV_FREE);
	assert_int_equal(p->ev[6].seq, 1);
	assert_int_equal(p->ev[6].off, MIB);
	assert_int_equal(p->nmoves, 1);
	assert_int_equal(p->moves[0].dir, TL_DIR_SLOW_TO_FAST);
	assert_int_equal(p->peak_bytes, 5000000);
	assert_string_equal(p->allocs[0].callsite, "app+0x10");
	{
		/*
		 * As the runtime's chunk lookup: 0x5f0000 into a 5,001,216-byte
		 * allocation is in its third 2 MiB chunk (the runtime logged
		 * chunk 2), but past its fifth and last 1 MiB chunk.
		 */
		struct tl_sim_config c = { .pol = tlp_policy_find("all-slow"), .chunk_size = 2 * MIB,
					   .budget_chunks = TLP_UNLIMITED };
		struct tl_sim_result r;
		char why[256];

		assert_int_equal(tl_sim_replay(&t, &c, NULL, &r, why, sizeof(why)), 0);
		assert_int_equal(r.samples, 4);
		assert_int_equal(r.samples_managed, 3);
		c.chunk_size = MIB;
		assert_int_equal(tl_sim_replay(&t, &c, NULL, &r, why, sizeof(why)), 0);
		assert_int_equal(r.samples_managed, 2);
	}
	tl_trace_release(&t);
	free(x.s);
}

/* ---- random streams against a naive LRU ---- */

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1DULL;
}

#define MAXA 4		/* allocations live at once */
#define MAXC 64		/* chunks of one */

/* The model: for each slot, its chunks' last-use stamps (0 = slow). */
struct model {
	int live[MAXA];
	uint32_t nchunks[MAXA];
	uint64_t stamp[MAXA][MAXC];
	uint64_t clock;
	uint32_t fast, budget;
	uint64_t hits, managed, promoted, demoted, init_fast, init_slow;
};

static void model_alloc(struct model *m, int a, uint32_t n)
{
	m->live[a] = 1;
	m->nchunks[a] = n;
	for (uint32_t i = 0; i < n; i++) {
		m->stamp[a][i] = 0;
		if (m->fast < m->budget) {
			m->stamp[a][i] = ++m->clock;
			m->fast++;
			m->init_fast++;
		} else {
			m->init_slow++;
		}
	}
}

static void model_free(struct model *m, int a)
{
	for (uint32_t i = 0; i < m->nchunks[a]; i++)
		m->fast -= m->stamp[a][i] != 0;
	m->live[a] = 0;
}

static void model_sample(struct model *m, int a, uint32_t c)
{
	m->managed++;
	if (m->stamp[a][c]) {
		m->hits++;
		m->stamp[a][c] = ++m->clock;
		return;
	}
	if (!m->budget)
		return;
	if (m->fast == m->budget) {
		int ta = -1;
		uint32_t tc = 0;

		for (int b = 0; b < MAXA; b++)
			for (uint32_t i = 0; m->live[b] && i < m->nchunks[b]; i++)
				if (m->stamp[b][i] && (ta < 0 || m->stamp[b][i] < m->stamp[ta][tc]))
					ta = b, tc = i;
		m->stamp[ta][tc] = 0;
		m->fast--;
		m->demoted++;
	}
	m->stamp[a][c] = ++m->clock;
	m->fast++;
	m->promoted++;
}

/*
 * Issue 27: a P record the runtime could not have written is refused at
 * load, naming its line and field (a chunk size of 0 was a SIGFPE in the
 * replay, a window of 10^9 24 GB); the replay refuses a chunk size of 0
 * whoever built its configuration.
 */
static void test_hostile_params(void **state)
{
#define GOOD_P "P\t1073741824\t512\t1024\t2097152\t8\t0\t16\t1000\t1048576\tlru\t-\t-\n"
	static const struct {
		const char *p, *msg;
	} rows[] = {
		{ "P\t1073741824\t512\t1024\t0\t8\t0\t16\t1000\t1048576\tlru\t-\t-\n",
		  "line 2: P record: chunk_size 0: not a multiple of 4096 from 4096 to reserve_bytes" },
		{ "P\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n",
		  "line 2: P record: reserve_bytes 0: not a multiple of 2 MiB from 2 MiB to 128 TiB" },
		{ "P\t1073741824\t512\t1024\t6000\t8\t0\t16\t1000\t1048576\tlru\t-\t-\n",
		  "line 2: P record: chunk_size 6000: not a multiple of 4096 from 4096 to reserve_bytes" },
		{ "P\t1073741824\t511\t1024\t2097152\t8\t0\t16\t1000\t1048576\tlru\t-\t-\n",
		  "line 2: P record: units 511: not reserve_bytes / 2 MiB (512)" },
		{ "P\t1073741824\t512\t0\t2097152\t8\t0\t16\t1000\t1048576\tlru\t-\t-\n",
		  "line 2: P record: max_chunks 0: not from 1 to 16777216" },
		{ "P\t1073741824\t512\t1024\t2097152\t8\tnan\t16\t1000\t1048576\tlru\t-\t-\n",
		  "line 2: P record: dynamic_fraction nan: not in [0, 1]" },
		{ "P\t1073741824\t512\t1024\t2097152\t8\t0\t1000000000\t1000\t1048576\twindow\t-\t-\n",
		  "line 2: P record: window 1000000000: not from 1 to 1000000" },
		{ "P\t1073741824\t512\t1024\t2097152\t8\t0\t16\t-5\t1048576\tlru\t-\t-\n",
		  "line 2: P record: rate_hz -5: not from 0 to 1e+06" },
		{ "P\t1073741824\t512\t1024\t2097152\t8\t0\t16\t1000\t0\tlru\t-\t-\n",
		  "line 2: P record: threshold 0: not a positive size" },
		{ "P\t1073741824\t512\t1024\t2097152\t8\t0\t16\t1000\t1048576\tstatic\t-\t1,7\n",
		  "line 2: P record: fractions: '7' is not a fraction in [0, 1]" },
		{ "P\t1073741824\t512\n", "line 2: P record: not 13 tab-separated fields" },
	};
	char why[512];
	(void)state;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct text x = { 0 };
		struct tl_trace t = { 0 };

		put(&x, "D\t1\n%sA\t100\t0\t0x40000000\t4194304\t0\t2\t0x1\t-+0x1\n", rows[i].p);
		put(&x, "S\t200\t0x40000010\t0x1\t1\t0\t0\t0\n");
		why[0] = '\0';
		assert_int_equal(tl_trace_add_log(&t, 7, x.s, x.n, why, sizeof(why)), -EINVAL);
		if (strncmp(why, rows[i].msg, strlen(rows[i].msg)))
			fail_msg("row %zu: '%s', expected '%s'", i, why, rows[i].msg);
		assert_null(strchr(why, '\n'));
		tl_trace_release(&t);
		free(x.s);
	}
	{
		/* a good P loads; replayed at a chunk size of 0 (from anywhere), refused, not a SIGFPE */
		struct text x = { 0 };
		struct tl_trace t = { 0 };
		struct tl_sim_config c = { .pol = tlp_policy_find("lru"), .chunk_size = 0, .budget_chunks = 1,
					   .window = 16 };
		struct tl_sim_result r;

		put(&x, GOOD_P "A\t100\t0\t0x40000000\t4194304\t0\t2\t0x1\t-+0x1\n");
		put(&x, "S\t200\t0x40000010\t0x1\t1\t0\t0\t0\n");
		assert_int_equal(tl_trace_add_log(&t, 7, x.s, x.n, why, sizeof(why)), 0);
		assert_int_equal(tl_sim_replay(&t, &c, NULL, &r, why, sizeof(why)), -EINVAL);
		assert_string_equal(why, "chunk size 0: not a multiple of 4096 above 0");
		c.chunk_size = t.procs[0].p.chunk_size;
		assert_int_equal(tl_sim_replay(&t, &c, NULL, &r, why, sizeof(why)), 0);
		assert_int_equal(r.samples_managed, 1);
		tl_trace_release(&t);
		free(x.s);
	}
#undef GOOD_P
}

static void test_replay_vs_model(void **state)
{
	const uint64_t cs = 2 * MIB, base = 0x7f0000000000ULL;
	uint64_t x = 12345, promoted = 0, hits = 0, frees = 0;
	(void)state;

	for (int round = 0; round < 40; round++) {
		struct model m = { .budget = (uint32_t)(rnd(&x) % 24) };
		struct text tx = { 0 };
		uint32_t seq_of[MAXA], seq = 0;
		uint64_t t = 1000;
		struct tl_trace tr;
		struct tl_sim_result r;
		char why[256] = "";
		struct tl_sim_config c = { .pol = tlp_policy_find("lru"), .chunk_size = cs, .budget_chunks = m.budget,
					   .window = 16 };

		for (int e = 0; e < 3000; e++) {
			int a = (int)(rnd(&x) % MAXA);
			uint64_t k = rnd(&x) % 100;

			t += 1000;
			if (!m.live[a] && k < 60) {
				/* a random size, the last chunk often partial; slot a always at the same address */
				uint64_t bytes = 1 + rnd(&x) % (MAXC * cs - 1);
				uint32_t n = (uint32_t)(((bytes + 4095) / 4096 * 4096 + cs - 1) / cs);

				seq_of[a] = seq;
				put(&tx, "A\t%llu\t%u\t0x%llx\t%llu\t0\t%u\t0x0\t-\n", (unsigned long long)t, seq++,
				    (unsigned long long)(base + (uint64_t)a * MAXC * cs), (unsigned long long)bytes, n);
				model_alloc(&m, a, n);
			} else if (m.live[a] && k < 3) {
				put(&tx, "F\t%llu\t%u\n", (unsigned long long)t, seq_of[a]);
				model_free(&m, a);
				frees++;
			} else if (m.live[a]) {
				/* skewed: most samples in the first few chunks */
				uint32_t ci = (uint32_t)(rnd(&x) % (rnd(&x) % 4 ? (m.nchunks[a] < 6 ? m.nchunks[a] : 6)
										     : m.nchunks[a]));

				put(&tx, "S\t%llu\t0x%llx\t0x0\t1\t0\t0\t0\n", (unsigned long long)t,
				    (unsigned long long)(base + (uint64_t)a * MAXC * cs + ci * cs + rnd(&x) % 4096));
				model_sample(&m, a, ci);
			}
		}
		load(&tr, &tx);
		if (tl_sim_replay(&tr, &c, NULL, &r, why, sizeof(why)))
			fail_msg("replay: %s", why);
		assert_int_equal(r.samples_managed, m.managed);
		assert_int_equal(r.hits, m.hits);
		assert_int_equal(r.moves[TL_DIR_SLOW_TO_FAST], m.promoted);
		assert_int_equal(r.moves[TL_DIR_FAST_TO_SLOW], m.demoted);
		assert_int_equal(r.moves[TL_DIR_INITIAL_FAST], m.init_fast);
		assert_int_equal(r.moves[TL_DIR_INITIAL_SLOW], m.init_slow);
		assert_int_equal(r.refused, 0);
		assert_true(r.fast_peak_bytes <= (uint64_t)m.budget * cs);
		promoted += m.promoted;
		hits += m.hits;
		tl_trace_release(&tr);
		free(tx.s);
	}
	/* the streams did exercise the rules: promotions, hits and reuse after frees */
	assert_true(promoted > 1000 && hits > 1000 && frees > 100);
}

/* ---- thinning ---- */

static void test_thinning(void **state)
{
	struct text x = { 0 };
	struct tl_trace t;
	struct tl_sim_result r1, r2, all;
	char why[256] = "";
	struct tl_sim_config c = { .pol = tlp_policy_find("all-fast"), .chunk_size = 2 * MIB,
				   .budget_chunks = TLP_UNLIMITED, .rate_hz = 100 };
	(void)state;

	put(&x, "P\t1099511627776\t524288\t1048576\t2097152\t4294967295\t0\t16\t1000\t1048576\tall-fast\t-\t-\n");
	put(&x, "A\t0\t0\t0x10000000\t%llu\t0\t4\t0x0\t-\n", (unsigned long long)(8 * MIB));
	for (int i = 0; i < 10000; i++)
		put(&x, "S\t%llu\t0x%llx\t0x0\t1\t0\t1\t0\n", (unsigned long long)(i + 1) * 1000000ULL,
		    0x10000000ULL + (uint64_t)(i % 4) * 2 * MIB);
	load(&t, &x);
	assert_int_equal(tl_sim_replay(&t, &c, NULL, &r1, why, sizeof(why)), 0);
	assert_int_equal(tl_sim_replay(&t, &c, NULL, &r2, why, sizeof(why)), 0);
	assert_true(r1.samples >= 900 && r1.samples <= 1100);
	assert_int_equal(r1.samples, r2.samples);
	assert_int_equal(r1.hits, r1.samples_managed);
	c.rate_hz = 1000;
	assert_int_equal(tl_sim_replay(&t, &c, NULL, &all, why, sizeof(why)), 0);
	assert_int_equal(all.samples, 10000);
	c.rate_hz = 0;
	assert_int_equal(tl_sim_replay(&t, &c, NULL, &all, why, sizeof(why)), 0);
	assert_int_equal(all.samples, 10000);
	tl_trace_release(&t);
	free(x.s);
}

/*
 * Moves that take time: lru with room for one chunk; a miss in chunk 2 at
 * 1 ms demotes chunk 0 and then promotes chunk 2, each 2 MiB at 4 GB/s
 * plus 50 us (574.288 us): chunk 2 moves in [1.574, 2.149) ms. Its samples
 * at 1.2 ms (before its move: still slow), 2.0 ms (moving: a miss, in
 * motion) and 3.0 ms (there: a hit); with moves at once all three hit.
 */
static void test_moves_take_time(void **state)
{
	struct text x = { 0 };
	struct tl_trace t;
	struct tl_sim_result r;
	char why[256] = "";
	struct tl_sim_config c = { .pol = tlp_policy_find("lru"), .chunk_size = 2 * MIB, .budget_chunks = 1 };
	static const unsigned at_us[] = { 1000, 1200, 2000, 3000 };
	(void)state;

	put(&x, "A	0	0	0x10000000	%llu	0	4	0x0	-\n", (unsigned long long)(8 * MIB));
	for (int i = 0; i < 4; i++)
		put(&x, "S\t%u000\t0x%llx\t0x0\t1\t2\t0\t0\n", at_us[i], 0x10000000ULL + 4 * MIB + 64);
	load(&t, &x);
	assert_int_equal(tl_sim_replay(&t, &c, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.samples_managed, 4);
	assert_int_equal(r.hits, 3);
	assert_int_equal(r.in_motion, 0);
	c.move_gbs = 4;
	c.move_cost_us = 50;
	assert_int_equal(tl_sim_replay(&t, &c, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.moves[TL_DIR_SLOW_TO_FAST], 1);
	assert_int_equal(r.moves[TL_DIR_FAST_TO_SLOW], 1);
	assert_int_equal(r.hits, 1);
	assert_int_equal(r.in_motion, 1);
	tl_trace_release(&t);
	free(x.s);
}

/* ---- a configuration's threshold ---- */

static void test_threshold(void **state)
{
	struct text x = { 0 };
	struct tl_trace t;
	struct tl_sim_result r;
	char why[256] = "";
	struct tl_sim_config c = { .pol = tlp_policy_find("all-fast"), .chunk_size = 2 * MIB,
				   .budget_chunks = TLP_UNLIMITED };
	(void)state;

	put(&x, "A\t1\t0\t0x10000000\t%llu\t0\t1\t0x0\t-\n", (unsigned long long)MIB);
	put(&x, "A\t2\t1\t0x20000000\t%llu\t1\t2\t0x0\t-\n", (unsigned long long)(4 * MIB));
	put(&x, "F\t3\t0\n");
	put(&x, "A\t4\t2\t0x30000000\t%llu\t0\t3\t0x0\t-\n", (unsigned long long)(6 * MIB));
	for (int i = 0; i < 10; i++)
		put(&x, "S\t%d\t0x%x\t0x0\t1\t0\t1\t0\n", 10 + i, i % 2 ? 0x20000000 : 0x30000000);
	load(&t, &x);
	/* peaks: 1 + 4 live at once, then 4 + 6; at 2 MiB only the 4 and 6 MiB ones count */
	assert_int_equal(tl_trace_footprint(&t, 0), 10 * MIB);
	assert_int_equal(tl_trace_footprint(&t, 2 * MIB), 10 * MIB);
	assert_int_equal(tl_trace_footprint(&t, 5 * MIB), 6 * MIB);
	c.threshold = 5 * MIB;
	assert_int_equal(tl_sim_replay(&t, &c, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.samples, 10);
	assert_int_equal(r.samples_managed, 5);
	assert_int_equal(r.moves[TL_DIR_INITIAL_FAST], 3);
	c.threshold = 0;
	assert_int_equal(tl_sim_replay(&t, &c, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.samples_managed, 10);
	tl_trace_release(&t);
	free(x.s);
}

/* ---- the advisor ---- */

static void test_advise(void **state)
{
	struct text x = { 0 };
	struct tl_trace t;
	double frac[3];
	(void)state;

	/* A: 4 MiB, 40 samples (10/MiB); B: 2 MiB, 30 samples (15/MiB); C: 8 MiB, 8 samples (1/MiB) */
	put(&x, "A\t1\t0\t0x10000000\t%llu\t0\t2\t0x0\t-\n", (unsigned long long)(4 * MIB));
	put(&x, "A\t2\t1\t0x20000000\t%llu\t2\t1\t0x0\t-\n", (unsigned long long)(2 * MIB));
	put(&x, "A\t3\t2\t0x30000000\t%llu\t3\t4\t0x0\t-\n", (unsigned long long)(8 * MIB));
	for (int i = 0; i < 40; i++)
		put(&x, "S\t%d\t0x%x\t0x0\t1\t0\t0\t0\n", 10 + i, 0x10000000 + i * 4096);
	for (int i = 0; i < 30; i++)
		put(&x, "S\t%d\t0x%x\t0x0\t1\t2\t0\t0\n", 100 + i, 0x20000000 + i * 4096);
	for (int i = 0; i < 8; i++)
		put(&x, "S\t%d\t0x%x\t0x0\t1\t3\t0\t0\n", 200 + i, 0x30000000 + i * 4096);
	load(&t, &x);
	/* 3 MiB: B whole (densest), then a quarter of A's 4 MiB */
	assert_int_equal(tl_sim_advise(&t.procs[0], 3 * MIB, frac), 0);
	assert_true(frac[0] == 0.25 && frac[1] == 1 && frac[2] == 0);
	/* 7 MiB: B and A whole, then 1 MiB of C's 8 */
	assert_int_equal(tl_sim_advise(&t.procs[0], 7 * MIB, frac), 0);
	assert_true(frac[0] == 1 && frac[1] == 1 && frac[2] == 0.125);
	/* 1 MiB in 3: rounded down to 1e-4, never above the budget */
	assert_int_equal(tl_sim_advise(&t.procs[0], MIB / 3, frac), 0);
	assert_true(frac[1] == 0.1666 && frac[0] == 0 && frac[2] == 0);
	tl_trace_release(&t);
	free(x.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_parse),
		cmocka_unit_test(test_hostile_params),
		cmocka_unit_test(test_replay_vs_model),
		cmocka_unit_test(test_thinning),
		cmocka_unit_test(test_moves_take_time),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_advise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
