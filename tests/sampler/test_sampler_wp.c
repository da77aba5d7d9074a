/*
 * The uffd-wp sampler against a fake runtime: writes to known pages are
 * reported once per scan, reads are not, and a page written again after
 * a scan is reported again (it was protected again by the scan). Also the
 * `none` sampler: it starts and never reports.
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

static void writes_not_reads(void **state)
{
	uintptr_t w1 = H.base + 5 * 4096, w2 = H.base + 2 * H_BLOCK + 77 * 4096, r1 = H.base + H_BLOCK + 9 * 4096;
	volatile uint64_t sum = 0;

	(void)state;
	ops->tick();		/* first sight: every block registered and protected */
	h_reset_samples();
	ops->tick();
	assert_int_equal(h_nsamples(), 0);	/* nothing written since */
	*(volatile uint8_t *)(w1 + 10) = 1;
	*(volatile uint8_t *)(w2 + 4000) = 2;
	sum += *(volatile uint8_t *)r1;
	errno = 777;
	ops->tick();
	assert_int_equal(errno, 777);
	assert_int_equal(reported(w1), 1);
	assert_int_equal(reported(w2), 1);
	assert_int_equal(reported(r1), 0);
	assert_int_equal(h_nsamples(), 2);

	/* protected again by the scan: a second write is reported again, the old one not twice */
	h_reset_samples();
	ops->tick();
	assert_int_equal(h_nsamples(), 0);
	*(volatile uint8_t *)(w1 + 20) = 3;
	ops->tick();
	assert_int_equal(reported(w1), 1);
	assert_int_equal(h_nsamples(), 1);
	assert_int_equal(*(volatile uint8_t *)(w1 + 10), 1);
	assert_int_equal(*(volatile uint8_t *)(w1 + 20), 3);
}

static void released_is_unprotected(void **state)
{
	(void)state;
	ops->release_range(H.base, H_BLOCK);
	h_reset_samples();
	*(volatile uint8_t *)(H.base + 4096) = 5;
	/* the released block was forgotten: its next sight registers it again, reporting nothing */
	ops->tick();
	assert_int_equal(reported(H.base + 4096), 0);
}

static void none_reports_nothing(void **state)
{
	const struct rt_sampler_ops *none = &rt_sampler_none;
	char why[64] = "";

	(void)state;
	assert_string_equal(none->name, "none");
	assert_int_equal(none->start(&H.env, why, sizeof(why)), 0);
	h_reset_samples();
	for (int i = 0; i < 10; i++) {
		*(volatile uint8_t *)(H.base + (size_t)i * 4096) = 1;
		none->tick();
	}
	none->release_range(H.base, H_BLOCK);
	none->stop();
	assert_int_equal(h_nsamples(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writes_not_reads),
		cmocka_unit_test(released_is_unprotected),
		cmocka_unit_test(none_reports_nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
