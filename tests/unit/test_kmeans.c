/*
 * kmeans kernel and validators: known small answers, agreement between
 * thread counts, and the validators catching a wrong assignment or mean.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kmeans.h"

static void make_random(struct km_problem *pb, long n, int d, int c, int grid, uint64_t seed)
{
	uint64_t st = seed;

	pb->n = n;
	pb->d = d;
	pb->c = c;
	pb->points = malloc(sizeof(int) * (size_t)n * d);
	pb->means = malloc(sizeof(int) * (size_t)c * d);
	pb->assign = malloc(sizeof(int) * (size_t)n);
	assert_non_null(pb->points);
	assert_non_null(pb->means);
	assert_non_null(pb->assign);
	km_generate(pb->points, (size_t)n * d, grid, &st);
	km_generate(pb->means, (size_t)c * d, grid, &st);
}

static void free_problem(struct km_problem *pb)
{
	free(pb->points);
	free(pb->means);
	free(pb->assign);
}

static void test_sq_dist(void **state)
{
	int a[3] = { 1, 2, 3 }, b[3] = { 4, 6, 3 };

	(void)state;
	assert_int_equal(km_sq_dist(a, b, 3), 9 + 16 + 0);
	assert_int_equal(km_sq_dist(a, a, 3), 0);
}

static void test_max_grid(void **state)
{
	(void)state;
	for (int d = 1; d <= 4096; d *= 4) {
		long g = km_max_grid(d);

		assert_true(3LL * d * (g - 1) * (g - 1) < INT_MAX);
		assert_true(3LL * d * g * g >= INT_MAX);
	}
	assert_true(km_max_grid(40) >= 1000);   /* the paper's setup fits */
}

static void test_generate_in_range(void **state)
{
	int v[1000];
	uint64_t st = 7;
	int lo = 100, hi = -1;

	(void)state;
	km_generate(v, 1000, 10, &st);
	for (int i = 0; i < 1000; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 9);
}

/* Two obvious groups on a line; the means must land on their averages. */
static void test_known_answer(void **state)
{
	int points[] = { 0, 0, 1, 0, 2, 0, 100, 10, 102, 10, 104, 13 };
	int means[] = { 90, 0, 50, 0 };  /* start swapped and far off */
	int assign[6];
	struct km_problem pb = { 6, 2, 2, points, means, assign };
	struct km_result res;

	(void)state;
	assert_int_equal(km_run(&pb, 1, 100, &res), 0);
	assert_true(res.converged);
	/* pass 1: all six points nearest 50 or 90; it takes a few passes to split */
	assert_true(res.iterations >= 2);
	assert_int_equal(assign[0], assign[1]);
	assert_int_equal(assign[0], assign[2]);
	assert_int_equal(assign[3], assign[4]);
	assert_int_equal(assign[3], assign[5]);
	assert_int_not_equal(assign[0], assign[3]);
	assert_int_equal(means[assign[0] * 2], 1);
	assert_int_equal(means[assign[0] * 2 + 1], 0);
	assert_int_equal(means[assign[3] * 2], 102);
	assert_int_equal(means[assign[3] * 2 + 1], 11);   /* 33/3, truncated */
	assert_null(km_check_assignment(&pb));
	assert_null(km_check_means(&pb));
}

/* A point exactly between two means goes to the lower index (Phoenix's rule). */
static void test_tie_lowest_index(void **state)
{
	int points[] = { 5, 0 };
	int means[] = { 9, 0, 1, 0, 5, 4, 5, -4 };   /* all at squared distance 16 */
	int assign[1];
	struct km_problem pb = { 1, 2, 4, points, means, assign };
	struct km_result res;

	(void)state;
	assert_int_equal(km_run(&pb, 1, 1, &res), 0);
	assert_int_equal(assign[0], 0);
}

/*
 * One pass must give every point its nearest initial mean, lowest index on
 * ties, for cluster counts that exercise the 32-wide and the 8-wide blocks
 * and the padding; a coarse grid makes ties frequent.
 */
static void one_pass_is_nearest(long n, int d, int c, int grid, uint64_t seed)
{
	struct km_problem pb;
	struct km_result res;
	size_t bytes = sizeof(int) * (size_t)c * d;
	int *initial = malloc(bytes);

	assert_non_null(initial);
	make_random(&pb, n, d, c, grid, seed);
	memcpy(initial, pb.means, bytes);
	assert_int_equal(km_run(&pb, 1, 1, &res), 0);
	assert_int_equal(res.iterations, 1);
	memcpy(pb.means, initial, bytes);
	assert_null(km_check_assignment(&pb));
	/* ties must go to the lowest index: recheck against a plain scan */
	for (long i = 0; i < n; i++) {
		const int *p = pb.points + i * d;
		int64_t best = km_sq_dist(p, pb.means, d);
		int bj = 0;

		for (int j = 1; j < c; j++) {
			int64_t dj = km_sq_dist(p, pb.means + j * d, d);

			if (dj < best) {
				best = dj;
				bj = j;
			}
		}
		assert_int_equal(pb.assign[i], bj);
	}
	free(initial);
	free_problem(&pb);
}

static void test_fast_kernel_matches_plain(void **state)
{
	static const int cs[] = { 1, 7, 8, 9, 32, 37, 70, 100 };

	(void)state;
	for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		struct km_problem pb;
		struct km_result res;

		/* the int16 path (small coordinates), odd and even dimensions */
		one_pass_is_nearest(3000, 5, cs[i], 4, 100 + i);
		one_pass_is_nearest(500, 41, cs[i], 1000, 300 + i);
		one_pass_is_nearest(500, 40, cs[i], 1000, 400 + i);
		/* the int32 path (coordinates past 16 bits, scores within 32) */
		one_pass_is_nearest(2000, 1, cs[i], 20000, 500 + i);
		/* the plain 64-bit path (scores past 32 bits) */
		one_pass_is_nearest(1000, 3, cs[i], 1000000, 600 + i);

		make_random(&pb, 3000, 5, cs[i], 6, 200 + i);
		assert_int_equal(km_run(&pb, 1, 1000, &res), 0);
		assert_true(res.converged);
		assert_null(km_check_assignment(&pb));
		assert_null(km_check_means(&pb));
		free_problem(&pb);
	}
}

static void test_threads_agree(void **state)
{
	struct km_problem a, b;
	struct km_result ra, rb;

	(void)state;
	make_random(&a, 20000, 8, 20, 1000, 9);
	make_random(&b, 20000, 8, 20, 1000, 9);
	assert_int_equal(km_run(&a, 1, 1000, &ra), 0);
	assert_int_equal(km_run(&b, 3, 1000, &rb), 0);
	assert_true(ra.converged);
	assert_true(rb.converged);
	assert_int_equal(ra.iterations, rb.iterations);
	assert_memory_equal(a.assign, b.assign, sizeof(int) * 20000);
	assert_memory_equal(a.means, b.means, sizeof(int) * 20 * 8);
	assert_null(km_check_assignment(&b));
	assert_null(km_check_means(&b));
	free_problem(&a);
	free_problem(&b);
}

static void test_more_threads_than_points(void **state)
{
	struct km_problem pb;
	struct km_result res;

	(void)state;
	make_random(&pb, 3, 2, 2, 100, 5);
	assert_int_equal(km_run(&pb, 8, 100, &res), 0);
	assert_true(res.converged);
	assert_null(km_check_assignment(&pb));
	free_problem(&pb);
}

static void test_not_converged(void **state)
{
	struct km_problem pb;
	struct km_result res;

	(void)state;
	make_random(&pb, 5000, 4, 30, 1000, 3);
	assert_int_equal(km_run(&pb, 1, 2, &res), 0);
	assert_int_equal(res.iterations, 2);
	assert_false(res.converged);
	free_problem(&pb);
}

static void run_converged(struct km_problem *pb)
{
	struct km_result res;

	make_random(pb, 4000, 6, 12, 1000, 11);
	assert_int_equal(km_run(pb, 2, 1000, &res), 0);
	assert_true(res.converged);
	assert_null(km_check_assignment(pb));
	assert_null(km_check_means(pb));
}

static void test_wrong_assignment_caught(void **state)
{
	struct km_problem pb;
	const char *why;

	(void)state;
	run_converged(&pb);
	/* move point 17 to the cluster farthest from it */
	{
		const int *p = pb.points + 17 * pb.d;
		int far = 0;

		for (int j = 1; j < pb.c; j++)
			if (km_sq_dist(p, pb.means + j * pb.d, pb.d) >
			    km_sq_dist(p, pb.means + far * pb.d, pb.d))
				far = j;
		assert_int_not_equal(far, pb.assign[17]);
		pb.assign[17] = far;
	}
	why = km_check_assignment(&pb);
	assert_non_null(why);
	assert_non_null(strstr(why, "point 17 "));
	/* the means no longer match the members either */
	assert_non_null(km_check_means(&pb));
	free_problem(&pb);
}

static void test_wrong_mean_caught(void **state)
{
	struct km_problem pb;
	const char *why;
	int j;

	(void)state;
	run_converged(&pb);
	j = pb.assign[0];
	pb.means[j * pb.d + 3] += 1;
	why = km_check_means(&pb);
	assert_non_null(why);
	assert_non_null(strstr(why, "coordinate 3"));
	free_problem(&pb);
}

static void test_bad_cluster_index_caught(void **state)
{
	struct km_problem pb;

	(void)state;
	run_converged(&pb);
	pb.assign[5] = pb.c;
	assert_non_null(km_check_assignment(&pb));
	assert_non_null(km_check_means(&pb));
	pb.assign[5] = -1;
	assert_non_null(km_check_assignment(&pb));
	free_problem(&pb);
}

static void test_bad_arguments(void **state)
{
	struct km_problem pb;
	struct km_result res;

	(void)state;
	make_random(&pb, 10, 2, 2, 10, 1);
	assert_int_equal(km_run(&pb, 0, 10, &res), -EINVAL);
	free_problem(&pb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sq_dist),
		cmocka_unit_test(test_max_grid),
		cmocka_unit_test(test_generate_in_range),
		cmocka_unit_test(test_known_answer),
		cmocka_unit_test(test_tie_lowest_index),
		cmocka_unit_test(test_fast_kernel_matches_plain),
		cmocka_unit_test(test_threads_agree),
		cmocka_unit_test(test_more_threads_than_points),
		cmocka_unit_test(test_not_converged),
		cmocka_unit_test(test_wrong_assignment_caught),
		cmocka_unit_test(test_wrong_mean_caught),
		cmocka_unit_test(test_bad_cluster_index_caught),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
