/*
 * Units and node sets, table-driven: sizes, rates, durations, percentages
 * and budgets (good values, the exact number they give, and the inputs
 * that must be refused without touching the output), canonical text and
 * its round trip, and numactl node lists as libnuma reads them on this
 * machine, without a word from libnuma on stderr.
 */
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <numa.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/nodeset.h"
#include "util/units.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define KiB 1024ULL
#define MiB (1024ULL * KiB)
#define GiB (1024ULL * MiB)
#define TiB (1024ULL * GiB)

/* Inputs every parser must refuse. */
static const char *const always_bad[] = {
	"", "   ", "-1M", "-1", "+1", "1.5.2M", "10 parsecs", "1e400", "NaN", "nan", "nanHz", "inf",
	"infinity", "0x10", "1,5", "M", ".", "1..5", "1 2", "one", "1e", "--1",
};

static void test_sizes(void **state)
{
	static const struct {
		const char *in;
		uint64_t bytes;
	} good[] = {
		{ "0", 0 }, { "0.0", 0 }, { "1B", 1 }, { "4097B", 4097 }, { "1K", KiB }, { "1KiB", KiB },
		{ "32M", 32 * MiB }, { "32MiB", 32 * MiB }, { "  32 MiB ", 32 * MiB }, { "1G", GiB },
		{ "1GiB", GiB }, { "2T", 2 * TiB }, { "2TiB", 2 * TiB }, { "1kB", 1000 }, { "1MB", 1000000 },
		{ "1GB", 1000000000ULL }, { "1TB", 1000000000000ULL }, { "231.75MiB", 243007488ULL },
		{ "1.5K", 1536 }, { ".5K", 512 }, { "1.K", 1024 }, { "1.50K", 1536 }, { "1.5GB", 1500000000ULL },
		{ "1.000000000000000000000000K", 1024 }, { "0.000000000001TB", 1 },
		{ "0.0009765625K", 1 }, { "16777215T", 16777215ULL * TiB },
		{ "18446744073709551615B", UINT64_MAX },
	};
	/* a number alone: bytes, or the MiB someone meant? refused (only 0 is 0 in every unit) */
	static const char *const bare[] = { "1", "4097", "40", "1.5", "0.5", "18446744073709551615", " 40 " };
	static const char *const bad[] = {
		"99999999999T", "16777216T", "18446744073709551616B", "99999999999999999999B", "1e3",
		"1e3M", "1 KB", "1KB", "1k", "1 mb", "1MiBs", "1 M iB", "1%", "1Hz", "1Mi", "1.5.2",
		"99999999999999999999.5K",
	};
	/* sizes, but not whole numbers of bytes: never rounded */
	static const char *const fractional[] = {
		"1.5B", "0.5B", "1.005K", "0.1K", "1.0000000000000000000001K", "0.0000000000001TB",
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < N(good); i++) {
		v = 12345;
		if (tl_parse_size(good[i].in, &v))
			fail_msg("'%s' refused", good[i].in);
		if (v != good[i].bytes)
			fail_msg("'%s' -> %llu, expected %llu", good[i].in, (unsigned long long)v,
				 (unsigned long long)good[i].bytes);
	}
	for (size_t i = 0; i < N(bad) + N(always_bad); i++) {
		const char *in = i < N(bad) ? bad[i] : always_bad[i - N(bad)];

		v = 12345;
		if (tl_parse_size(in, &v) != -EINVAL)
			fail_msg("'%s' accepted as a size (%llu)", in, (unsigned long long)v);
		assert_int_equal(v, 12345);	/* *out left alone */
	}
	for (size_t i = 0; i < N(fractional); i++) {
		v = 12345;
		if (tl_parse_size(fractional[i], &v) != -EDOM)
			fail_msg("'%s' not refused as a fraction of a byte (%llu)", fractional[i],
				 (unsigned long long)v);
		assert_int_equal(v, 12345);
	}
	for (size_t i = 0; i < N(bare); i++) {
		v = 12345;
		if (tl_parse_size(bare[i], &v) != -ENODATA)
			fail_msg("'%s' not refused as a size without a unit (%llu)", bare[i], (unsigned long long)v);
		assert_int_equal(v, 12345);
		/* SHAMBLES_* compatibility: there a bare number is bytes */
		assert_true(tl_parse_bytes(bare[i], &v) != -ENODATA);
	}
	assert_int_equal(tl_parse_bytes("4097", &v), 0);
	assert_int_equal(v, 4097);
	assert_int_equal(tl_parse_bytes("1.5", &v), -EDOM);
	assert_int_equal(tl_parse_size(NULL, &v), -EINVAL);
}

static void test_rates_durations_percent(void **state)
{
	static const struct {
		int (*parse)(const char *, double *);
		const char *in;
		double want;
	} good[] = {
		{ tl_parse_rate, "10Hz", 10 }, { tl_parse_rate, "1kHz", 1000 },
		{ tl_parse_rate, "2.5kHz", 2500 }, { tl_parse_rate, "1MHz", 1e6 }, { tl_parse_rate, "0.5 Hz", 0.5 },
		{ tl_parse_rate, "1e3Hz", 1000 }, { tl_parse_rate, "1e+06Hz", 1e6 }, { tl_parse_rate, "0", 0 },
		{ tl_parse_duration, "90s", 90 }, { tl_parse_duration, "90", 90 }, { tl_parse_duration, "10m", 600 },
		{ tl_parse_duration, "1.5h", 5400 }, { tl_parse_duration, "250ms", 0.25 },
		{ tl_parse_duration, "0", 0 },
		{ tl_parse_percent, "40%", 0.40 }, { tl_parse_percent, "100%", 1 }, { tl_parse_percent, "0.5%", 0.005 },
		{ tl_parse_percent, "150%", 1.5 },	/* the range is the caller's */
		{ tl_parse_percent, " 40 % ", 0.40 },
	};
	static const struct {
		int (*parse)(const char *, double *);
		const char *in;
	} bad[] = {
		{ tl_parse_rate, "10hz" }, { tl_parse_rate, "10 Hertz" }, { tl_parse_rate, "1e400Hz" },
		{ tl_parse_rate, "1e400" }, { tl_parse_rate, "10s" }, { tl_parse_rate, "1e308kHz" },
		{ tl_parse_duration, "10 minutes" }, { tl_parse_duration, "10min" }, { tl_parse_duration, "1d" },
		{ tl_parse_duration, "10Hz" }, { tl_parse_duration, "-5s" }, { tl_parse_duration, "1e400s" },
		{ tl_parse_percent, "40" }, { tl_parse_percent, "40%%" }, { tl_parse_percent, "%" },
		{ tl_parse_percent, "-40%" }, { tl_parse_percent, "forty%" }, { tl_parse_percent, "nan%" },
	};
	int (*const parsers[])(const char *, double *) = { tl_parse_rate, tl_parse_duration, tl_parse_percent };
	double v;

	(void)state;
	for (size_t i = 0; i < N(good); i++) {
		v = -1;
		if (good[i].parse(good[i].in, &v))
			fail_msg("'%s' refused", good[i].in);
		if (fabs(v - good[i].want) > 1e-12 * fabs(good[i].want))
			fail_msg("'%s' -> %.17g, expected %.17g", good[i].in, v, good[i].want);
	}
	assert_true(tl_parse_percent("40%", &v) == 0 && v == 40.0 / 100);	/* exact, not 40 * 0.01 */
	/* a rate needs its unit (0 is 0 Hz in any unit); a duration's bare seconds are documented */
	v = -1;
	assert_int_equal(tl_parse_rate("10", &v), -ENODATA);
	assert_int_equal(tl_parse_rate("2.5", &v), -ENODATA);
	assert_true(v == -1);
	assert_true(tl_parse_duration("90", &v) == 0 && v == 90);
	for (size_t i = 0; i < N(bad); i++) {
		v = -1;
		if (bad[i].parse(bad[i].in, &v) != -EINVAL)
			fail_msg("'%s' accepted (%g)", bad[i].in, v);
		assert_true(v == -1);
	}
	for (size_t p = 0; p < N(parsers); p++) {
		for (size_t i = 0; i < N(always_bad); i++) {
			v = -1;
			if (parsers[p](always_bad[i], &v) != -EINVAL)
				fail_msg("'%s' accepted by parser %zu (%g)", always_bad[i], p, v);
			assert_true(v == -1);
		}
		assert_int_equal(parsers[p](NULL, &v), -EINVAL);
	}
}

static void test_budgets(void **state)
{
	static const struct {
		const char *in;
		int is_percent;
		uint64_t bytes;
		double fraction;
		const char *canonical;
	} good[] = {
		{ "40%", 1, 0, 0.40, "40%" }, { "100%", 1, 0, 1, "100%" }, { "0.5%", 1, 0, 0.005, "0.5%" },
		{ "33.3%", 1, 0, 0.333, "33.3%" }, { "4G", 0, 4 * GiB, 0, "4GiB" },
		{ "1536MiB", 0, 1536 * MiB, 0, "1.5GiB" }, { "4097B", 0, 4097, 0, "4097B" },
	};
	static const char *const bad[] = { "0%", "0", "0B", "150%", "100.5%", "-40%", "40 percent", "%", "0.0%" };
	struct tl_budget b;
	char buf[64];

	(void)state;
	for (size_t i = 0; i < N(good); i++) {
		memset(&b, 0xff, sizeof(b));
		if (tl_parse_budget(good[i].in, &b))
			fail_msg("'%s' refused", good[i].in);
		assert_int_equal(b.is_percent, good[i].is_percent);
		if (b.is_percent)
			assert_true(fabs(b.fraction - good[i].fraction) < 1e-12);
		else
			assert_int_equal(b.bytes, good[i].bytes);
		assert_int_equal(tl_format_budget(buf, sizeof(buf), &b), strlen(good[i].canonical));
		assert_string_equal(buf, good[i].canonical);
	}
	for (size_t i = 0; i < N(bad); i++) {
		memset(&b, 0xab, sizeof(b));
		if (tl_parse_budget(bad[i], &b) != -EINVAL)
			fail_msg("'%s' accepted as a budget", bad[i]);
		assert_int_equal(b.is_percent, (int)0xabababab);
	}
	assert_int_equal(tl_parse_budget("1.5B", &b), -EDOM);	/* as for sizes: no byte fractions */
	/* "budget: 40" was 40 bytes, silently, and the run "ok" at a 0% hit rate */
	assert_int_equal(tl_parse_budget("40", &b), -ENODATA);
	assert_int_equal(tl_parse_budget_bytes("40", &b), 0);
	assert_true(!b.is_percent && b.bytes == 40);
}

static void test_format_size(void **state)
{
	static const struct {
		uint64_t bytes;
		const char *canonical, *human;
	} cases[] = {
		{ 0, "0B", "0 B" }, { 3, "3B", "3 B" }, { 1000, "1000B", "1000 B" }, { 1023, "1023B", "1023 B" },
		{ KiB, "1KiB", "1 KiB" }, { 4097, "4097B", "4.00 KiB" }, { 1536, "1.5KiB", "1.50 KiB" },
		{ 512 * KiB, "512KiB", "512 KiB" }, { 32 * MiB, "32MiB", "32 MiB" },
		{ 243007488ULL, "231.75MiB", "231.75 MiB" }, { 3 * GiB / 2, "1.5GiB", "1.50 GiB" },
		{ GiB + 1, "1073741825B", "1.00 GiB" }, { 10 * GiB + GiB / 4, "10.25GiB", "10.25 GiB" },
		{ 5 * TiB, "5TiB", "5 TiB" }, { 2048 * TiB, "2048TiB", "2048 TiB" },
		{ UINT64_MAX, "18446744073709551615B", "16777216.00 TiB" },
	};
	char buf[64];
	uint64_t back;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		assert_int_equal(tl_format_size(buf, sizeof(buf), cases[i].bytes), strlen(cases[i].canonical));
		if (strcmp(buf, cases[i].canonical))
			fail_msg("%llu -> '%s', expected '%s'", (unsigned long long)cases[i].bytes, buf,
				 cases[i].canonical);
		/* canonical text is exact: it parses back to the same bytes */
		assert_int_equal(tl_parse_size(buf, &back), 0);
		assert_int_equal(back, cases[i].bytes);
		tl_format_size_human(buf, sizeof(buf), cases[i].bytes);
		if (strcmp(buf, cases[i].human))
			fail_msg("%llu -> human '%s', expected '%s'", (unsigned long long)cases[i].bytes, buf,
				 cases[i].human);
	}
	/* snprintf semantics when the buffer is short */
	assert_int_equal(tl_format_size(buf, 4, 243007488ULL), 9);
	assert_string_equal(buf, "231");
}

static void test_format_rate(void **state)
{
	static const struct {
		double hz;
		const char *canonical;
	} cases[] = {
		{ 10, "10Hz" }, { 100, "100Hz" }, { 1000, "1000Hz" }, { 0.5, "0.5Hz" }, { 100000, "100000Hz" },
		{ 1e6, "1e+06Hz" }, { 0.001, "0.001Hz" },
	};
	/* the axis's bounds and rates between: what the spec canonicalises, the runtime reads back in range */
	static const double in_range[] = { TL_RATE_MIN_HZ, TL_RATE_MAX_HZ, 0.0010000001, 0.00123456789, 999999.9,
					   123456.789, 3.14159265 };
	char buf[32];
	double back;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		tl_format_rate(buf, sizeof(buf), cases[i].hz);
		assert_string_equal(buf, cases[i].canonical);
		assert_int_equal(tl_parse_rate(buf, &back), 0);	/* "%g" output parses back */
		assert_true(back == cases[i].hz);
	}
	for (size_t i = 0; i < N(in_range); i++) {
		tl_format_rate(buf, sizeof(buf), in_range[i]);
		assert_int_equal(tl_parse_rate(buf, &back), 0);
		if (back < TL_RATE_MIN_HZ || back > TL_RATE_MAX_HZ)
			fail_msg("%.10g Hz prints as '%s', outside the rate bounds", in_range[i], buf);
	}
}

/* Runs f with stderr redirected to a file; returns how many bytes it wrote there. */
static long stderr_bytes(void (*f)(void))
{
	char path[] = "/tmp/tierlab-stderr.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	long n;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	f();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = lseek(fd, 0, SEEK_END);
	close(fd);
	unlink(path);
	return n;
}

static const struct {
	const char *text;
	int want;	/* tl_nodeset_check on a machine whose only node is 0 */
} nodesets[] = {
	{ "0", 0 }, { "all", 0 }, { "0-0", 0 }, { "+0", 0 }, { "!1", 1 },
	{ "1", 1 }, { "0-3", 1 }, { "1,3", 1 }, { "0,1", 1 }, { "3-1", -EINVAL }, { "1023", 1 }, { "!3", 1 },
	{ "", -EINVAL }, { "x", -EINVAL }, { "hbm", -EINVAL }, { "0,,1", -EINVAL }, { "0-", -EINVAL },
	{ "-1", -EINVAL }, { "1 2", -EINVAL }, { "0x1", -EINVAL }, { "1024", -EINVAL }, { "99999", -EINVAL },
	{ "99999999999999999999", -EINVAL }, { ",", -EINVAL }, { "!", -EINVAL }, { "alll", -EINVAL },
	{ "node0", -EINVAL }, { "0;1", -EINVAL }, { "0--1", -EINVAL }, { "!-1", -EINVAL },
	{ "1-0", -EINVAL }, { "0,2-1", -EINVAL }, { "2-2", 1 }, { "!0", -ENOENT }, { "!all", -ENOENT },
	{ "!0-0", -ENOENT },
};

static int check_rc[N(nodesets)];
static bool parse_ok[N(nodesets)];

/* Only records: a failed assertion here would leave stderr redirected. */
static void check_all_nodesets(void)
{
	for (size_t i = 0; i < N(nodesets); i++) {
		struct bitmask *bm = tl_nodeset_parse(nodesets[i].text);

		check_rc[i] = tl_nodeset_check(nodesets[i].text);
		parse_ok[i] = bm != NULL;
		if (bm)
			numa_bitmask_free(bm);
	}
}

static void test_nodesets(void **state)
{
	struct bitmask *bm;
	char buf[64];

	(void)state;
	if (numa_available() < 0 || numa_max_node() != 0) {
		/* the table is for the development machine: one node, node 0 */
		print_message("skip: the node-set table assumes a single NUMA node (node 0)\n");
		skip();
	}
	/* libnuma's own complaints must not reach stderr */
	assert_int_equal(stderr_bytes(check_all_nodesets), 0);
	for (size_t i = 0; i < N(nodesets); i++) {
		if (check_rc[i] != nodesets[i].want)
			fail_msg("tl_nodeset_check('%s') = %d, expected %d", nodesets[i].text, check_rc[i],
				 nodesets[i].want);
		/* usable here exactly when the check says 0 */
		if (parse_ok[i] != (check_rc[i] == 0))
			fail_msg("tl_nodeset_parse('%s') disagrees with the check", nodesets[i].text);
	}
	assert_int_equal(tl_nodeset_check(NULL), -EINVAL);
	assert_null(tl_nodeset_parse(NULL));

	assert_int_equal(tl_nodeset_present(buf, sizeof(buf)), 1);
	assert_string_equal(buf, "0");
	bm = tl_nodeset_parse("0");
	assert_non_null(bm);
	assert_int_equal(tl_nodeset_mask(bm), 1);
	numa_bitmask_free(bm);
	bm = tl_nodeset_parse_cpus("0");
	assert_non_null(bm);
	numa_bitmask_free(bm);
	assert_null(tl_nodeset_parse_cpus("1"));
	assert_null(tl_nodeset_parse_cpus("zero"));
}

static void test_nodeset_mask(void **state)
{
	struct bitmask *bm = numa_bitmask_alloc(128);

	(void)state;
	assert_int_equal(tl_nodeset_mask(bm), 0);
	numa_bitmask_setbit(bm, 0);
	numa_bitmask_setbit(bm, 3);
	assert_int_equal(tl_nodeset_mask(bm), 9);
	numa_bitmask_setbit(bm, 63);
	assert_int_equal(tl_nodeset_mask(bm), (long long)(9ULL | (1ULL << 63)));
	numa_bitmask_setbit(bm, 64);
	assert_int_equal(tl_nodeset_mask(bm), -1);
	numa_bitmask_free(bm);
	assert_int_equal(tl_nodeset_mask(NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_rates_durations_percent),
		cmocka_unit_test(test_budgets),
		cmocka_unit_test(test_format_size),
		cmocka_unit_test(test_format_rate),
		cmocka_unit_test(test_nodesets),
		cmocka_unit_test(test_nodeset_mask),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
