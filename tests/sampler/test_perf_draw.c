/*
 * The perf sampler's draw (lib/tiermem/perf-draw.h): among the records of
 * a tick, each one in the span is chosen with the same probability,
 * records outside it never; so an address recorded nine times as often
 * is drawn nine times as often. Counts over many draws within binomial
 * bounds (4 standard deviations; a fixed seed makes the run repeatable).
 */
#include "tiermem/perf-draw.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>

#define LO 0x40000000UL
#define HI 0x80000000UL

static void in_span_uniform_out_of_span_never(void **state)
{
	/* 7 in the span (its first and last byte among them), 3 outside (below, at its end, far above) */
	const uintptr_t addr[10] = { LO - 1, LO, LO + 4096, 0x50000000, HI, 0x60000123, 0x7fff0000, HI - 1,
				     0x41000000, 0xffff800000000000UL };
	const int in[10] = { 0, 1, 1, 1, 0, 1, 1, 1, 1, 0 };
	const int rounds = 7000;
	int picked[10] = { 0 };
	uint64_t rng = 0x1234567;
	struct tlrt_perf_draw d;
	double p = 1.0 / 7, sd = sqrt(rounds * p * (1 - p));

	(void)state;
	for (int r = 0; r < rounds; r++) {
		tlrt_perf_draw_begin(&d, LO, HI, &rng);
		for (int i = 0; i < 10; i++) {
			struct rt_sample s = { .addr = addr[i], .pc = (uintptr_t)i };

			assert_int_equal(tlrt_perf_draw_offer(&d, &s), in[i]);
		}
		assert_int_equal(d.eligible, 7);
		picked[d.pick.pc]++;
	}
	for (int i = 0; i < 10; i++) {
		if (!in[i]) {
			assert_int_equal(picked[i], 0);
			continue;
		}
		assert_in_range(picked[i], (int)(rounds * p - 4 * sd), (int)(rounds * p + 4 * sd));
	}
}

/* Draws follow how often an address was recorded: 9 records of one block for 1 of another. */
static void follows_record_counts(void **state)
{
	const int rounds = 2000;
	uint64_t rng = 99;
	struct tlrt_perf_draw d;
	int hot = 0;
	double sd = sqrt(rounds * 0.9 * 0.1);

	(void)state;
	for (int r = 0; r < rounds; r++) {
		tlrt_perf_draw_begin(&d, LO, HI, &rng);
		for (int i = 0; i < 10; i++) {
			struct rt_sample s = { .addr = i == r % 10 ? LO + 0x100000 : LO + 0x200000 + (uintptr_t)i * 64 };

			tlrt_perf_draw_offer(&d, &s);
		}
		hot += d.pick.addr >= LO + 0x200000;
	}
	assert_in_range(hot, (int)(rounds * 0.9 - 4 * sd), (int)(rounds * 0.9 + 4 * sd));
}

static void nothing_eligible(void **state)
{
	uint64_t rng = 5;
	struct tlrt_perf_draw d;
	struct rt_sample s = { .addr = LO + 8 };

	(void)state;
	tlrt_perf_draw_begin(&d, LO, HI, &rng);
	assert_int_equal(d.eligible, 0);
	/* no span (the core was busy): nothing takes part */
	tlrt_perf_draw_begin(&d, 0, 0, &rng);
	assert_int_equal(tlrt_perf_draw_offer(&d, &s), 0);
	assert_int_equal(d.eligible, 0);
	/* the generator never reaches the state it cannot leave */
	for (int i = 0; i < 100000; i++)
		assert_true(tlrt_perf_random(&rng) != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_span_uniform_out_of_span_never),
		cmocka_unit_test(follows_record_counts),
		cmocka_unit_test(nothing_eligible),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
