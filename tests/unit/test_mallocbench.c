/*
 * mallocbench kernel: the block fill and check, and the loop's validation
 * against allocators broken on purpose (overlapping blocks, NULL,
 * misaligned blocks), with a correct allocator accepted with any thread
 * count.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mallocbench.h"

static void test_fill_check_roundtrip(void **state)
{
	unsigned char buf[160];

	(void)state;
	for (size_t off = 0; off < 8; off++) {
		for (size_t size = 1; size <= 120; size++) {
			uint64_t tag = mb_mix(size * 31 + off);

			memset(buf, 0xee, sizeof(buf));
			mb_fill(buf + off, size, tag);
			assert_int_equal(mb_check(buf + off, size, tag), -1);
			/* nothing outside the block was written */
			for (size_t i = 0; i < off; i++)
				assert_int_equal(buf[i], 0xee);
			assert_int_equal(buf[off + size], 0xee);
			/* another tag does not match */
			assert_int_not_equal(mb_check(buf + off, size, tag ^ 0x0101010101010101ULL), -1);
		}
	}
}

static void test_check_finds_first_bad_byte(void **state)
{
	unsigned char buf[100];
	uint64_t tag = 0x1122334455667788ULL;

	(void)state;
	for (size_t pos = 0; pos < 99; pos++) {
		mb_fill(buf, 99, tag);
		buf[pos] ^= 0x40;
		assert_int_equal(mb_check(buf, 99, tag), (long)pos);
		if (pos + 5 < 99) {
			buf[pos + 5] ^= 1;
			assert_int_equal(mb_check(buf, 99, tag), (long)pos);
		}
	}
}

static void test_required_alignment(void **state)
{
	static const size_t in[] = { 1, 2, 3, 4, 7, 8, 12, 15, 16, 17, 4096, 1 << 20 };
	static const size_t out[] = { 1, 2, 2, 4, 4, 8, 8, 8, 16, 16, 16, 16 };

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		assert_int_equal(mb_required_alignment(in[i]), out[i]);
}

static void *sys_malloc(size_t n) { return malloc(n); }
static void sys_free(void *p) { free(p); }
static const struct mb_allocator sys = { sys_malloc, sys_free };

static void test_correct_allocator_passes(void **state)
{
	struct mb_config cfg = { .blocks = 25, .min_size = 1, .max_size = 300,
				 .iterations = 20000, .fill = 1, .seed = 3 };
	struct mb_thread_result res[3];

	(void)state;
	for (int threads = 1; threads <= 3; threads++) {
		assert_int_equal(mb_run(&cfg, &sys, threads, res), 0);
		assert_null(mb_failure(res, threads));
		for (int t = 0; t < threads; t++) {
			assert_int_equal(res[t].iterations, 20000);
			assert_true(res[t].seconds > 0);
		}
	}
	cfg.fill = 0;
	cfg.blocks = 1600;
	cfg.min_size = cfg.max_size = 64;
	assert_int_equal(mb_run(&cfg, &sys, 2, res), 0);
	assert_null(mb_failure(res, 2));
}

static void test_seconds_mode(void **state)
{
	struct mb_config cfg = { .blocks = 100, .min_size = 4, .max_size = 4096,
				 .seconds = 0.05, .fill = 1, .seed = 1 };
	struct mb_thread_result res[2];

	(void)state;
	assert_int_equal(mb_run(&cfg, &sys, 2, res), 0);
	assert_null(mb_failure(res, 2));
	for (int t = 0; t < 2; t++) {
		assert_true(res[t].iterations > 1000);
		assert_true(res[t].seconds >= 0.05 && res[t].seconds < 1);
	}
}

static void test_bad_config(void **state)
{
	struct mb_config ok = { .blocks = 10, .min_size = 4, .max_size = 8, .iterations = 10 };
	struct mb_config cfg;
	struct mb_thread_result res[1];

	(void)state;
	cfg = ok; cfg.blocks = 0;
	assert_int_equal(mb_run(&cfg, &sys, 1, res), -EINVAL);
	cfg = ok; cfg.min_size = 0;
	assert_int_equal(mb_run(&cfg, &sys, 1, res), -EINVAL);
	cfg = ok; cfg.min_size = 9;
	assert_int_equal(mb_run(&cfg, &sys, 1, res), -EINVAL);
	cfg = ok; cfg.iterations = 0;
	assert_int_equal(mb_run(&cfg, &sys, 1, res), -EINVAL);
	assert_int_equal(mb_run(&ok, &sys, 0, res), -EINVAL);
}

/*
 * A bump allocator over one arena that never reuses memory, with a bug
 * switched on by the test. Single-threaded tests only.
 */
static struct {
	char *arena, *top;
	size_t calls;
	size_t bug_every;     /* hand out the previous block again every Nth call */
	size_t null_at;       /* return NULL at this call */
	int misalign;         /* return blocks at an odd address */
	char *last;
	char *fixed;          /* after the initial fill, always return this */
	size_t fixed_after;
} fake;

static void *fake_malloc(size_t n)
{
	char *p;

	fake.calls++;
	if (fake.null_at && fake.calls == fake.null_at)
		return NULL;
	if (fake.fixed_after && fake.calls > fake.fixed_after)
		return fake.last;
	if (fake.bug_every && fake.calls % fake.bug_every == 0 && fake.last)
		return fake.last;
	p = fake.top + (fake.misalign ? 1 : 0);
	fake.top += (n + 31) & ~(size_t)15;
	fake.last = p;
	return p;
}

static void fake_free(void *p)
{
	(void)p;
}

static const struct mb_allocator broken = { fake_malloc, fake_free };

static void fake_reset(void)
{
	static char *arena;

	if (!arena)
		arena = aligned_alloc(64, 64 << 20);
	assert_non_null(arena);
	memset(&fake, 0, sizeof(fake));
	fake.arena = fake.top = arena;
}

static const char *run_broken(int fill)
{
	static struct mb_thread_result res[1];
	struct mb_config cfg = { .blocks = 100, .min_size = 8, .max_size = 256,
				 .iterations = 20000, .fill = fill, .seed = 5 };

	assert_int_equal(mb_run(&cfg, &broken, 1, res), 0);
	return mb_failure(res, 1);
}

static void test_fake_allocator_is_fine_unbroken(void **state)
{
	(void)state;
	fake_reset();
	assert_null(run_broken(1));
	fake_reset();
	assert_null(run_broken(0));
}

static void test_overlapping_blocks_caught(void **state)
{
	const char *why;

	(void)state;
	fake_reset();
	fake.bug_every = 997;
	why = run_broken(1);
	assert_non_null(why);
	assert_non_null(strstr(why, "overwritten"));
}

static void test_overlap_caught_without_fill(void **state)
{
	const char *why;

	(void)state;
	fake_reset();
	fake.fixed_after = 100;    /* the slots' initial blocks are fine, then one block for all */
	why = run_broken(0);
	assert_non_null(why);
	assert_non_null(strstr(why, "overlap"));
}

static void test_null_caught(void **state)
{
	const char *why;

	(void)state;
	fake_reset();
	fake.null_at = 5000;
	why = run_broken(1);
	assert_non_null(why);
	assert_non_null(strstr(why, "returned NULL"));
	/* also during the initial fill */
	fake_reset();
	fake.null_at = 3;
	assert_non_null(run_broken(1));
}

static void test_misaligned_caught(void **state)
{
	const char *why;

	(void)state;
	fake_reset();
	fake.misalign = 1;
	why = run_broken(0);
	assert_non_null(why);
	assert_non_null(strstr(why, "aligned"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_check_roundtrip),
		cmocka_unit_test(test_check_finds_first_bad_byte),
		cmocka_unit_test(test_required_alignment),
		cmocka_unit_test(test_correct_allocator_passes),
		cmocka_unit_test(test_seconds_mode),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_fake_allocator_is_fine_unbroken),
		cmocka_unit_test(test_overlapping_blocks_caught),
		cmocka_unit_test(test_overlap_caught_without_fill),
		cmocka_unit_test(test_null_caught),
		cmocka_unit_test(test_misaligned_caught),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
