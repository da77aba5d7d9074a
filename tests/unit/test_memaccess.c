/*
 * memaccess kernel and validator: size parsing, both list orders form one
 * cycle through every node, the chase sums what it visits, and broken
 * lists or payloads are caught.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "memaccess.h"

static void test_parse_size(void **state)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "144", 144 }, { "12B", 12 }, { "4K", 4096 }, { "4KiB", 4096 },
		{ "256M", 256ULL << 20 }, { "1G", 1ULL << 30 }, { "4GiB", 4ULL << 30 },
		{ "2T", 2ULL << 40 },
	};
	static const char *bad[] = { "", "M", "4X", "-1", "4 M", "4m", "4MB", "1.5G",
				     "99999999999999999999", "20000000T" };
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 0;
		assert_int_equal(ma_parse_size(good[i].s, &v), 0);
		assert_int_equal(v, good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		assert_int_equal(ma_parse_size(bad[i], &v), -EINVAL);
		assert_int_equal(v, 7);
	}
	assert_int_equal(ma_parse_size(NULL, &v), -EINVAL);
}

static struct ma_node *make(size_t n, enum ma_order order, uint64_t seed)
{
	struct ma_node *nodes = malloc(n * sizeof(*nodes));

	assert_non_null(nodes);
	ma_build(nodes, n, order, seed);
	return nodes;
}

static void test_sequential_links(void **state)
{
	struct ma_node *nodes = make(1000, MA_SEQ, 3);

	(void)state;
	for (size_t i = 0; i < 1000; i++) {
		assert_ptr_equal(nodes[i].next, &nodes[(i + 1) % 1000]);
		assert_int_equal(nodes[i].payload, ma_payload(3, i));
	}
	assert_null(ma_check(nodes, 1000, 3));
	free(nodes);
}

/* Walk the list by hand: every node exactly once per lap. */
static void assert_one_cycle(const struct ma_node *nodes, size_t n)
{
	char *seen = calloc(n, 1);
	const struct ma_node *p = nodes;

	assert_non_null(seen);
	for (size_t k = 0; k < n; k++) {
		size_t i = (size_t)(p - nodes);

		assert_true(i < n);
		assert_int_equal(seen[i], 0);
		seen[i] = 1;
		p = p->next;
	}
	assert_ptr_equal(p, nodes);
	free(seen);
}

static void test_random_is_one_cycle(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 5, 64, 1000, 77777 };

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (uint64_t seed = 0; seed < 4; seed++) {
			struct ma_node *nodes = make(sizes[k], MA_RANDOM, seed);

			assert_one_cycle(nodes, sizes[k]);
			assert_null(ma_check(nodes, sizes[k], seed));
			free(nodes);
		}
	}
}

static void test_random_is_shuffled(void **state)
{
	struct ma_node *a = make(1000, MA_RANDOM, 1), *b = make(1000, MA_RANDOM, 2);
	size_t in_order = 0, same = 0;

	(void)state;
	for (size_t i = 0; i < 1000; i++) {
		in_order += a[i].next == &a[(i + 1) % 1000];
		same += (a[i].next - a) == (b[i].next - b);
	}
	/* a random cycle has about one successor in place; seeds give different lists */
	assert_true(in_order < 20);
	assert_true(same < 20);
	free(a);
	free(b);
}

/* Sattolo over 4 nodes: all 3! = 6 cycles, each about 1/6 of the time. */
static void test_random_is_uniform(void **state)
{
	int counts[64] = { 0 };
	int distinct = 0;

	(void)state;
	for (uint64_t seed = 0; seed < 6000; seed++) {
		struct ma_node nodes[4];
		int code = 0;

		ma_build(nodes, 4, MA_RANDOM, seed * 7919);
		for (int i = 0; i < 4; i++)
			code = code * 4 + (int)(nodes[i].next - nodes);
		counts[code % 64]++;
	}
	for (int i = 0; i < 64; i++) {
		if (!counts[i])
			continue;
		distinct++;
		assert_true(counts[i] > 800 && counts[i] < 1200);
	}
	assert_int_equal(distinct, 6);
}

static void test_chase_sums(void **state)
{
	struct ma_node *nodes = make(500, MA_SEQ, 9);
	uint64_t first = 0;

	(void)state;
	for (size_t i = 0; i < 123; i++)
		first += ma_payload(9, i);
	assert_int_equal(ma_chase(nodes, 123), first);
	assert_int_equal(ma_chase(nodes, 0), 0);
	free(nodes);

	nodes = make(777, MA_RANDOM, 5);
	assert_int_equal(ma_chase(nodes, 777 * 3), 3 * ma_expected_sum(777, 5));
	free(nodes);
}

static void test_corrupt_payload_caught(void **state)
{
	struct ma_node *nodes = make(1000, MA_RANDOM, 4);
	const char *why;

	(void)state;
	nodes[500].payload++;
	why = ma_check(nodes, 1000, 4);
	assert_non_null(why);
	assert_non_null(strstr(why, "checksum"));
	nodes[500].payload--;
	assert_null(ma_check(nodes, 1000, 4));
	/* the wrong seed means other payloads */
	assert_non_null(ma_check(nodes, 1000, 5));
	free(nodes);
}

static void test_short_cycle_caught(void **state)
{
	struct ma_node *nodes = make(1000, MA_SEQ, 4);
	const char *why;

	(void)state;
	nodes[499].next = &nodes[0];
	why = ma_check(nodes, 1000, 4);
	assert_non_null(why);
	assert_non_null(strstr(why, "after 500 of 1000"));
	free(nodes);
}

static void test_cycle_missing_head_caught(void **state)
{
	struct ma_node *nodes = make(1000, MA_SEQ, 4);
	const char *why;

	(void)state;
	nodes[999].next = &nodes[10];   /* head is never reached again */
	why = ma_check(nodes, 1000, 4);
	assert_non_null(why);
	assert_non_null(strstr(why, "does not return"));
	free(nodes);
}

static void test_skipped_node_caught(void **state)
{
	struct ma_node *nodes = make(1000, MA_RANDOM, 4);

	(void)state;
	/* the list claims one node fewer than it has: it does not close in time */
	assert_non_null(ma_check(nodes, 999, 4));
	free(nodes);
}

static void test_wild_pointer_caught(void **state)
{
	struct ma_node *nodes = make(100, MA_SEQ, 4), outside;
	const char *why;

	(void)state;
	nodes[42].next = &outside;
	why = ma_check(nodes, 100, 4);
	assert_non_null(why);
	assert_non_null(strstr(why, "node 42 links outside"));
	nodes[42].next = (struct ma_node *)((char *)&nodes[43] + 8);   /* mid-node */
	assert_non_null(ma_check(nodes, 100, 4));
	nodes[42].next = &nodes[100];   /* one past the end */
	assert_non_null(ma_check(nodes, 100, 4));
	free(nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_sequential_links),
		cmocka_unit_test(test_random_is_one_cycle),
		cmocka_unit_test(test_random_is_shuffled),
		cmocka_unit_test(test_random_is_uniform),
		cmocka_unit_test(test_chase_sums),
		cmocka_unit_test(test_corrupt_payload_caught),
		cmocka_unit_test(test_short_cycle_caught),
		cmocka_unit_test(test_cycle_missing_head_caught),
		cmocka_unit_test(test_skipped_node_caught),
		cmocka_unit_test(test_wild_pointer_caught),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
