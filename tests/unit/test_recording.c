/*
 * What a recording says it is (lib/simulate/recording.c, issue 28):
 *   - the last-level cache from a sysfs tree made here (the highest level
 *     wins, whatever its index; sysfs's "K" sizes);
 *   - the delivered rate of a recording whose sampler was asked 1 kHz and
 *     delivered one sample every 1/d seconds, for a d chosen here: d, and
 *     "short" below 90% of the asked rate only;
 *   - a footprint that fits in the cache and one that does not;
 *   - a replay at a rate above the delivered one keeps every sample, one
 *     below it thins (the thinning's own count is test_simulate's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "policies/policies.h"
#include "simulate/recording.h"
#include "simulate/replay.h"

#define MIB (1ULL << 20)
#define GOOD_P "P\t1073741824\t512\t1024\t2097152\t8\t0\t16\t1000\t1048576\tlru\t-\t-\n"

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void cache_index(const char *root, int i, const char *level, const char *size)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/cpu0/cache/index%d", root, i);
	assert_int_equal(mkdir(dir, 0700), 0);
	put_file(dir, "level", level);
	put_file(dir, "size", size);
}

static void test_llc(void **state)
{
	char root[] = "/tmp/tierlab-llc-XXXXXX", dir[512], rm[600];
	(void)state;

	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/cpu0", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/cpu0/cache", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(tl_llc_bytes(root), 0);	/* no cache listed: unknown */
	cache_index(root, 0, "1\n", "48K\n");
	cache_index(root, 2, "3\n", "12288K\n");
	cache_index(root, 1, "2\n", "2048K\n");
	assert_int_equal(tl_llc_bytes(root), 12288ULL * 1024);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", root);
	assert_int_equal(system(rm), 0);
}

/* n samples, one every period_us, in one 8 MiB allocation, the sampler asked 1 kHz (the P record) */
static void recording(struct tl_trace *t, int n, unsigned period_us)
{
	size_t cap = 64 + (size_t)n * 64, len = 0;
	char *log = malloc(cap), why[256] = "";

	assert_non_null(log);
	len += (size_t)snprintf(log + len, cap - len, GOOD_P);
	len += (size_t)snprintf(log + len, cap - len, "A\t1\t0\t0x10000000\t%llu\t0\t4\t0x0\t-\n",
				(unsigned long long)(8 * MIB));
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(log + len, cap - len, "S\t%llu\t0x%llx\t0x0\t1\t0\t0\t0\n",
					1000ULL + (unsigned long long)i * period_us * 1000, 0x10000000ULL + (unsigned)(i % 7) * MIB);
	memset(t, 0, sizeof(*t));
	assert_int_equal(tl_trace_add_log(t, 9, log, len, why, sizeof(why)), 0);
	free(log);
}

static void test_delivered(void **state)
{
	struct tl_recording_facts f;
	struct tl_trace t;
	(void)state;

	/* 400 Hz delivered of 1 kHz asked: short */
	recording(&t, 801, 2500);
	tl_recording_facts(&t, 4 * MIB, &f);
	assert_float_equal(f.asked_hz, 1000, 1e-9);
	assert_float_equal(f.delivered_hz, 1e6 / 2500, 1e-6);
	assert_true(f.short_rate);
	assert_int_equal(f.managed_bytes, 8 * MIB);
	assert_false(f.fits_llc);
	tl_recording_facts(&t, 8 * MIB, &f);
	assert_true(f.fits_llc);
	tl_trace_release(&t);
	/* 950 Hz: not short */
	recording(&t, 96, 1052);
	tl_recording_facts(&t, 0, &f);
	assert_float_equal(f.delivered_hz, 1e6 / 1052, 1e-6);
	assert_false(f.short_rate);
	assert_false(f.fits_llc);	/* cache unknown: nothing claimed */
	tl_trace_release(&t);
}

static void test_no_thinning_above_delivered(void **state)
{
	struct tl_sim_config c = { .pol = tlp_policy_find("lru"), .chunk_size = 2 * MIB, .budget_chunks = 2 };
	struct tl_sim_result r;
	struct tl_trace t;
	char why[256] = "";
	double delivered;
	(void)state;

	recording(&t, 2001, 2500);	/* 5 s at 400 Hz, asked 1 kHz */
	delivered = tl_trace_delivered_hz(&t.procs[0]);
	c.rate_hz = 1.5 * delivered;	/* under the asked rate, above the delivered one: every sample */
	assert_int_equal(tl_sim_replay(&t, &c, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.samples, 2001);
	c.rate_hz = delivered / 4;	/* below: thinned, about a quarter */
	assert_int_equal(tl_sim_replay(&t, &c, NULL, &r, why, sizeof(why)), 0);
	assert_true(r.samples > 2001 / 4 * 8 / 10 && r.samples < 2001 / 4 * 12 / 10);
	tl_trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llc),
		cmocka_unit_test(test_delivered),
		cmocka_unit_test(test_no_thinning_above_delivered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
