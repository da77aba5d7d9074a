/*
 * The tier model's equations (lib/simulate/model.c, docs/simulate.md "The
 * tier model") against cases worked out from first principles, each with
 * figures unlike the shipped models' so that no constant of a model file
 * can make a case pass:
 *   - bandwidth-bound, the two channels stream at once: the best split is
 *     BW_f / (BW_f + BW_s) of the traffic fast, and it beats all-fast by
 *     (BW_f + BW_s) / BW_f; all-slow is BW_s / BW_f;
 *   - latency-bound (one outstanding line): time follows the mean
 *     latency, so a slow tier of lower latency wins;
 *   - compute hidden under memory (overlap 1) and added to it (overlap 0);
 *   - migration bytes on both channels; unmanaged memory on the slow tier;
 *   - the pace of an interval (model seconds per recorded second);
 *   - a replay whose chunk's move completes in model time: a model whose
 *     configuration runs faster than the recording stretches the move in
 *     recorded time, so a later sample still finds the chunk on its old tier;
 *   - a probe profile's measured move throughput as the model's migration
 *     figures; the probe's move measurement itself runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>

#include "policies/policies.h"
#include "probe/probe.h"
#include "simulate/model.h"
#include "simulate/replay.h"
#include "simulate/trace.h"

#define MIB (1ULL << 20)

/* A result of n samples per interval, k of them fast, each interval secs long. */
static void uniform(struct tl_sim_result *r, uint64_t n, uint64_t k, double secs)
{
	memset(r, 0, sizeof(*r));
	r->interval_s = secs;
	for (int i = 0; i < TL_SIM_INTERVALS; i++) {
		r->iv[i].fast = k;
		r->iv[i].slow = n - k;
	}
}

static struct tl_tier_model bw_model(double bwf, double bws)
{
	return (struct tl_tier_model){ .fast = { NULL, 90, bwf }, .slow = { NULL, 140, bws },
				       .migration_gbs = 3, .overlap = 1 };
}

static void test_bandwidth_concurrent(void **state)
{
	struct tl_tier_model m = bw_model(150, 50);
	struct tl_model_place pl = { 0 };
	struct tl_sim_result r;
	double best = m.fast.bandwidth_gbs / (m.fast.bandwidth_gbs + m.slow.bandwidth_gbs);	/* 0.75 */
	(void)state;

	uniform(&r, 100, 100, 0.5);
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl), 1, 1e-12);
	uniform(&r, 100, 0, 0.5);
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl), m.slow.bandwidth_gbs / m.fast.bandwidth_gbs, 1e-12);
	/* the recording ran all-slow: its length is the model's all-slow time */
	assert_float_equal(tl_tier_model_run_time(&m, &r, &pl), 0.5 * TL_SIM_INTERVALS, 1e-9);
	uniform(&r, 100, (uint64_t)(100 * best), 0.5);
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl),
			   (m.fast.bandwidth_gbs + m.slow.bandwidth_gbs) / m.fast.bandwidth_gbs, 1e-12);
	/* past the best split the fast channel binds: time = f B / BW_f, estimate 1 / f */
	uniform(&r, 100, 90, 0.5);
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl), 1 / 0.9, 1e-12);
	/* below it the slow channel binds: estimate BW_s / ((1 - f) BW_f) */
	uniform(&r, 100, 40, 0.5);
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl),
			   m.slow.bandwidth_gbs / (0.6 * m.fast.bandwidth_gbs), 1e-12);
}

static void test_latency_bound(void **state)
{
	/* one outstanding line: 64 B per latency, far below either bandwidth */
	struct tl_tier_model m = bw_model(150, 50);
	struct tl_model_place pl = { 0 };
	struct tl_sim_result r;
	double lf, ls;
	(void)state;

	m.mlp = 1;
	m.fast.latency_ns = lf = 130;
	m.slow.latency_ns = ls = 95;
	uniform(&r, 200, 0, 0.01);
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl), lf / ls, 1e-12);
	assert_true(tl_tier_model_estimate(&m, &r, &pl) > 1);	/* the lower-latency tier wins */
	uniform(&r, 200, 50, 0.01);
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl), lf / (0.25 * lf + 0.75 * ls), 1e-12);
	/* the per-byte cost is the latency of a line over the outstanding lines */
	assert_float_equal(tl_tier_model_per_byte(&m, false), ls / 64 / m.mlp * 1e-9, 1e-21);
}

static void test_compute_overlap(void **state)
{
	struct tl_tier_model m = bw_model(200, 40);
	struct tl_model_place pl = { 0 };
	struct tl_sim_result r;
	double c, mf, ms;
	(void)state;

	/* compute 0.1 ns per byte: above the slow tier's 1/40 ns, so all hidden at overlap 1 */
	m.compute_ns_per_byte = c = 0.1;
	uniform(&r, 10, 0, 1);
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl), 1, 1e-12);
	/* overlap 0: compute and memory add up */
	m.overlap = 0;
	mf = 1 / m.fast.bandwidth_gbs;
	ms = 1 / m.slow.bandwidth_gbs;
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl), (c + mf) / (c + ms), 1e-12);
	/* half overlapped, compute the shorter: max + half the min */
	m.overlap = 0.5;
	m.compute_ns_per_byte = c = 0.01;
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl), (c + 0.5 * mf) / (ms + 0.5 * c), 1e-12);
}

static void test_migration_and_unmanaged(void **state)
{
	struct tl_tier_model m = bw_model(100, 25);
	struct tl_model_place pl = { 0 };
	struct tl_sim_result r;
	double beta = m.slow.bandwidth_gbs * 1e9, bytes = beta * 0.2, d = 1e9, t_fast = bytes / 100e9;
	(void)state;

	/* every sample fast; one interval migrates d bytes, read fast and written slow */
	uniform(&r, 10, 10, 0.2);
	r.iv[7].moved_bytes = d;
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl),
			   TL_SIM_INTERVALS * t_fast /
				   ((TL_SIM_INTERVALS - 1) * t_fast + (bytes + d) / 100e9 > d / 25e9
					    ? (TL_SIM_INTERVALS - 1) * t_fast + (bytes + d) / 100e9
					    : (TL_SIM_INTERVALS - 1) * t_fast + d / 25e9),
			   1e-12);
	/* a quarter of the traffic unmanaged (slow), the rest all fast: max(0.75 B / BW_f, 0.25 B / BW_s) */
	r.iv[7].moved_bytes = 0;
	pl.unmanaged_share = 0.25;
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl), (1 / 100.0) / (0.25 / 25.0), 1e-12);
	/* all-fast binds unmanaged memory fast too */
	pl.unmanaged_fast = true;
	assert_float_equal(tl_tier_model_estimate(&m, &r, &pl), 1, 1e-12);
}

static void test_pace(void **state)
{
	struct tl_tier_model m = bw_model(120, 30);
	struct tl_model_pacer p = { &m, { 0, false } };
	struct tl_sim_interval slow = { .slow = 5 }, fast = { .fast = 5 };
	(void)state;

	assert_float_equal(tl_tier_model_pace(&p, &slow, 0.01), 1, 1e-12);
	assert_float_equal(tl_tier_model_pace(&p, &fast, 0.01), 30.0 / 120, 1e-12);
}

/* A move of 2 MiB at 4 GB/s takes 524 us of model time: 2.1 ms of recorded time where the model runs 4x faster. */
static void test_move_in_model_time(void **state)
{
	struct tl_tier_model m = bw_model(120, 30);
	struct tl_model_pacer p = { &m, { 0, false } };
	struct tl_sim_config c = { .pol = tlp_policy_find("lru"), .chunk_size = 2 * MIB, .budget_chunks = 2,
				   .move_gbs = 4 };
	struct tl_trace t = { 0 };
	struct tl_sim_result r;
	char log[1 << 16], why[256] = "";
	size_t n = 0;
	(void)state;

	/*
	 * Three chunks, two fast from the start; samples every 100 us for 64
	 * ms, all in chunk 0 (hot, fast throughout) except one in chunk 2 at
	 * 40 ms (promoted, chunk 1 demoted: two moves one after the other)
	 * and one again 1.5 ms later.
	 */
	n += (size_t)snprintf(log + n, sizeof(log) - n, "A\t0\t0\t0x10000000\t%llu\t0\t3\t0x0\t-\n",
			      (unsigned long long)(6 * MIB));
	for (int i = 1; i <= 640 && n < sizeof(log) - 128; i++) {
		unsigned long long addr = 0x10000000ULL + (i == 400 || i == 415 ? 4 * MIB : 0) + 64;

		n += (size_t)snprintf(log + n, sizeof(log) - n, "S\t%d00000\t0x%llx\t0x0\t1\t0\t0\t0\n", i, addr);
	}
	assert_int_equal(tl_trace_add_log(&t, 1, log, n, why, sizeof(why)), 0);
	/* recorded time: the two moves (524 us each) are over by the second sample 1.5 ms later */
	assert_int_equal(tl_sim_replay(&t, &c, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.moves[TL_DIR_SLOW_TO_FAST], 1);
	assert_int_equal(r.moves[TL_DIR_FAST_TO_SLOW], 1);
	assert_int_equal(r.in_motion, 0);
	assert_int_equal(r.misses, 1);
	/*
	 * model time: the hot chunk fast makes the model run 4x the
	 * recording's pace, each move 2.1 ms long; at 41.5 ms the demotion
	 * still runs and chunk 2's move has not begun: it is on its old tier,
	 * a miss
	 */
	c.pace = tl_tier_model_pace;
	c.pace_ctx = &p;
	assert_int_equal(tl_sim_replay(&t, &c, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.misses, 2);
	tl_trace_release(&t);
}

/* A probe profile's measured move throughput becomes the model's migration figures, said to be the probe's. */
static void test_probe_migration(void **state)
{
	static const char json[] =
		"{\"nodes\": [{\"id\": 0, \"latency_ns\": 100.0, \"read_gbs\": 60.0},"
		" {\"id\": 1, \"latency_ns\": 120.0, \"read_gbs\": 180.0}],"
		" \"recommendation\": {\"fast\": \"1\", \"slow\": \"0\"},"
		" \"migration\": {\"from\": 0, \"to\": 1, \"move_gbs\": 2.75, \"move_cost_us\": 31.5, \"skipped\": null}}";
	struct tl_tier_model m;
	struct tl_error err = { { 0 } };
	(void)state;

	assert_int_equal(tl_tier_model_from_probe("p.json", json, &m, &err), 0);
	assert_float_equal(m.migration_gbs, 2.75, 1e-12);
	assert_float_equal(m.migration_cost_us, 31.5, 1e-12);
	assert_non_null(strstr(m.migration_source, "tierlab probe"));
	assert_float_equal(m.fast.bandwidth_gbs, 180, 1e-12);
	assert_false(m.calibrated);
	tl_tier_model_release(&m);
}

/* The probe's own move measurement runs (here between a node and itself: the calls, not a tier's speed). */
static void test_probe_move(void **state)
{
	double gbs = 0, cost = -1;
	(void)state;

	assert_int_equal(tl_probe_move(0, 0, 8ull << 20, &gbs, &cost), 0);
	assert_true(gbs > 0 && cost >= 0);
	assert_int_equal(tl_probe_move(-1, 0, 8ull << 20, &gbs, &cost), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bandwidth_concurrent),
		cmocka_unit_test(test_latency_bound),
		cmocka_unit_test(test_compute_overlap),
		cmocka_unit_test(test_migration_and_unmanaged),
		cmocka_unit_test(test_pace),
		cmocka_unit_test(test_move_in_model_time),
		cmocka_unit_test(test_probe_migration),
		cmocka_unit_test(test_probe_move),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
