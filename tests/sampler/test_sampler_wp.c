/*
 * The uffd-wp sampler against a fake runtime: one sample per tick, drawn
 * uniformly among the pages written since the last tick (protected again
 * by the scan); reads are never reported. Also the `none` sampler: it
 * starts and never reports.
 */
#include "harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>

#define NBLOCKS 4

static const struct rt_sampler_ops *ops = &rt_sampler_uffd_wp;

static int setup(void **state)
{
	char why[256] = "";

	(void)state;
	if (!h_map(NBLOCKS, 1))
		return -1;
	if (h_start(ops, 100, why, sizeof(why))) {
		print_message("uffd-wp sampler unavailable: %s\n", why);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ops->stop();
	return 0;
}

static int reported(uintptr_t page)
{
	int n = 0;

	for (size_t i = 0; i < h_nsamples(); i++)
		if (H.samples[i].addr == page) {
			n++;
			assert_int_equal(H.samples[i].flags, RT_SAMPLE_WRITE);
			assert_int_equal(H.samples[i].tid, 0);
			assert_int_equal(H.samples[i].pc, 0);
		}
	return n;
}

/* One sample per tick, drawn among the pages written since the last tick; reads are invisible. */
static void writes_not_reads(void **state)
{
	uintptr_t w1 = H.base + 5 * 4096, w2 = H.base + 2 * H_BLOCK + 77 * 4096, r1 = H.base + H_BLOCK + 9 * 4096;
	volatile uint64_t sum = 0;
	int seen1 = 0, seen2 = 0;

	(void)state;
	ops->tick();		/* first sight: the span registered and protected */
	h_reset_samples();
	ops->tick();
	assert_int_equal(h_nsamples(), 0);	/* nothing written since */
	for (int round = 0; round < 40; round++) {
		h_reset_samples();
		*(volatile uint8_t *)(w1 + 10) = 1;
		*(volatile uint8_t *)(w2 + 4000) = 2;
		sum += *(volatile uint8_t *)r1;
		errno = 777;
		ops->tick();
		assert_int_equal(errno, 777);
		assert_int_equal(h_nsamples(), 1);
		assert_int_equal(reported(r1), 0);
		seen1 += reported(w1);
		seen2 += reported(w2);
		/* protected again by the scan: nothing new, nothing reported */
		h_reset_samples();
		ops->tick();
		assert_int_equal(h_nsamples(), 0);
	}
	assert_int_equal(seen1 + seen2, 40);
	assert_true(seen1 > 5 && seen2 > 5);
	assert_int_equal(*(volatile uint8_t *)(w1 + 10), 1);
}

/* Each written page is equally likely: 9 pages written in one block, 1 in another. */
static void draw_follows_written_pages(void **state)
{
	int in_b = 0, rounds = 400;

	(void)state;
	ops->tick();
	for (int round = 0; round < rounds; round++) {
		h_reset_samples();
		*(volatile uint8_t *)(H.base + 4096 * 3) = (uint8_t)round;
		for (int i = 0; i < 9; i++)
			*(volatile uint8_t *)(H.base + H_BLOCK + 4096 * (size_t)(10 + i)) = (uint8_t)round;
		ops->tick();
		assert_int_equal(h_nsamples(), 1);
		in_b += H.samples[0].addr - (H.base + H_BLOCK) < H_BLOCK;
	}
	/* 0.9 expected; binomial sd 0.015 over 400 draws */
	assert_in_range(in_b, (int)(0.84 * rounds), (int)(0.96 * rounds));
}

/* The core's frees and migrations leave protection on: writes after a release are still seen. */
static void protection_survives_release(void **state)
{
	(void)state;
	ops->tick();
	ops->release_range(H.base, H_BLOCK);
	h_reset_samples();
	*(volatile uint8_t *)(H.base + 4096) = 5;
	ops->tick();
	assert_int_equal(h_nsamples(), 1);
	assert_int_equal(reported(H.base + 4096), 1);
}

static void none_reports_nothing(void **state)
{
	const struct rt_sampler_ops *none = &rt_sampler_none;
	char why[64] = "";

	(void)state;
	assert_string_equal(none->name, "none");
	assert_int_equal(none->start(&H.env, why, sizeof(why)), 0);
	/* nothing to arm, release or count: those ops are absent, not no-ops (rt-sampler.h) */
	assert_null(none->tick);
	assert_null(none->release_range);
	assert_null(none->placement);
	assert_null(none->counts);
	h_reset_samples();
	for (int i = 0; i < 10; i++)
		*(volatile uint8_t *)(H.base + (size_t)i * 4096) = 1;
	none->stop();
	assert_int_equal(h_nsamples(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writes_not_reads),
		cmocka_unit_test(draw_follows_written_pages),
		cmocka_unit_test(protection_survives_release),
		cmocka_unit_test(none_reports_nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
