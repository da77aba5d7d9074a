/*
 * The damon sampler's parts that need no DAMON, against a directory of
 * plain files laid out as DAMON's sysfs interface (lib/tiermem/damon.h
 * takes the root the production code passes as /sys/kernel/mm/damon/admin):
 * reading a tried_regions tree, the requirements check (refusing by reading
 * alone when DAMON is in use), the configuration written and undone, the
 * attributes for a rate; and the weighted draw, whose counts over many
 * draws must stay within binomial bounds of nr_accesses x size. The real
 * kdamond is exercised in the guest (tests/cli/damon-guest.sh).
 */
#include "tiermem/damon.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096UL
#define TRIED "/kdamonds/0/contexts/0/schemes/0/tried_regions"

static char root[64];

/* ---- a fake sysfs tree ---- */

static void mkdirs(const char *rel)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(path, 0755);
			*s = '/';
		}
	mkdir(path, 0755);
}

/* Writes rel (creating its directory) with text. */
static void file(const char *rel, const char *text)
{
	char path[1024], dir[512];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	if (strrchr(dir, '/')) {
		*strrchr(dir, '/') = '\0';
		mkdirs(dir);
	}
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static const char *text(const char *rel)
{
	static char buf[256];
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (!(f = fopen(path, "r")))
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void region(int i, uint64_t start, uint64_t end, const char *nr)
{
	char rel[256], v[32];

	snprintf(rel, sizeof(rel), TRIED "/%d/start", i);
	snprintf(v, sizeof(v), "%llu\n", (unsigned long long)start);
	file(rel, v);
	snprintf(rel, sizeof(rel), TRIED "/%d/end", i);
	snprintf(v, sizeof(v), "%llu\n", (unsigned long long)end);
	file(rel, v);
	snprintf(rel, sizeof(rel), TRIED "/%d/nr_accesses", i);
	file(rel, nr);
	snprintf(rel, sizeof(rel), TRIED "/%d/age", i);
	file(rel, "3\n");
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/tierlab-damon.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- reading tried_regions ---- */

#define MAXR 16
struct seen {
	int n;
	struct tlrt_damon_region r[MAXR];
};

static void collect(void *arg, const struct tlrt_damon_region *r)
{
	struct seen *s = arg;

	if (s->n < MAXR)
		s->r[s->n] = *r;
	s->n++;
}

static void regions_parsed(void **state)
{
	struct seen s = { 0 };

	(void)state;
	file(TRIED "/total_bytes", "12288\n");
	region(0, 0x7f0000000000, 0x7f0000200000, "20\n");
	region(1, 0x7f0000200000, 0x7f0000201000, "0\n");
	region(2, 0x7f0000201000, 0x7f0040000000, "7");	/* no newline: sysfs always has one, plain files need not */
	assert_int_equal(tlrt_damon_regions(root, collect, &s), 3);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.r[0].start, 0x7f0000000000);
	assert_int_equal(s.r[0].end, 0x7f0000200000);
	assert_int_equal(s.r[0].nr_accesses, 20);
	assert_int_equal(s.r[1].nr_accesses, 0);
	assert_int_equal(s.r[2].start, 0x7f0000201000);
	assert_int_equal(s.r[2].end, 0x7f0040000000);
	assert_int_equal(s.r[2].nr_accesses, 7);
}

/* Directories are numbered from 0: the first missing one ends the list. */
static void regions_end_at_first_gap(void **state)
{
	struct seen s = { 0 };

	(void)state;
	region(0, 0x1000, 0x2000, "1\n");
	region(1, 0x2000, 0x3000, "2\n");
	region(3, 0x4000, 0x5000, "3\n");
	assert_int_equal(tlrt_damon_regions(root, collect, &s), 2);
	assert_int_equal(s.n, 2);
}

static void regions_none(void **state)
{
	struct seen s = { 0 };

	(void)state;
	file(TRIED "/total_bytes", "0\n");
	assert_int_equal(tlrt_damon_regions(root, collect, &s), 0);
	assert_int_equal(s.n, 0);
	/* no tried_regions directory at all reads the same */
	teardown(NULL);
	setup(NULL);
	assert_int_equal(tlrt_damon_regions(root, collect, &s), 0);
}

static void regions_malformed(void **state)
{
	struct seen s = { 0 };

	(void)state;
	region(0, 0x1000, 0x2000, "many\n");
	assert_int_equal(tlrt_damon_regions(root, collect, &s), -EINVAL);
	region(0, 0x1000, 0x2000, "-1\n");
	assert_int_equal(tlrt_damon_regions(root, collect, &s), -EINVAL);
	region(0, 0x3000, 0x2000, "1\n");	/* end before start */
	assert_int_equal(tlrt_damon_regions(root, collect, &s), -EINVAL);
	region(0, 0x1000, 0x2000, "4294967296\n");
	assert_int_equal(tlrt_damon_regions(root, collect, &s), -EINVAL);
	region(0, 0x1000, 0x2000, "1\n");
	unlink(strcat(strcpy((char[512]){ 0 }, root), TRIED "/0/end"));
	assert_int_equal(tlrt_damon_regions(root, collect, &s), -ENOENT);
	assert_int_equal(s.n, 0);
}

/* ---- the draw ---- */

struct want {
	struct tlrt_damon_region r;
	uint64_t lo, hi;	/* the part inside the span */
	double p;		/* expected share of draws */
	long count;
};

/* Draws n times over regions v (clipped to [lo, hi)); counts land in v[i].count. */
static void draw_many(struct want *v, int nv, uintptr_t lo, uintptr_t hi, long n, uint64_t *rng)
{
	for (long k = 0; k < n; k++) {
		struct tlrt_damon_pick p = { .rng = rng };
		uintptr_t a;
		int hit = 0;

		for (int i = 0; i < nv; i++)
			tlrt_damon_pick_offer(&p, &v[i].r, lo, hi);
		a = tlrt_damon_pick_addr(&p);
		assert_int_not_equal(a, 0);
		assert_int_equal(a % PAGE, 0);
		for (int i = 0; i < nv; i++)
			if (a >= v[i].lo && a < v[i].hi) {
				v[i].count++;
				hit++;
			}
		assert_int_equal(hit, 1);
	}
}

/* |count - n p| within 5 standard deviations of the binomial (a false alarm about once in 3 million). */
static void within_binomial(const struct want *w, long n)
{
	double mean = n * w->p, sd = sqrt(n * w->p * (1 - w->p));

	if (fabs((double)w->count - mean) > 5 * sd + 1)
		fail_msg("region [%#llx, %#llx): %ld draws of %ld, expected %.0f +- %.0f", (unsigned long long)w->lo,
			 (unsigned long long)w->hi, w->count, n, mean, 5 * sd);
}

static void draw_follows_accesses_times_size(void **state)
{
	const uintptr_t lo = 0x40000000, hi = 0x80000000;
	struct want v[] = {
		/* 4 pages accessed in all 20 intervals: weight 80 */
		{ .r = { 0x40000000, 0x40004000, 20 }, .lo = 0x40000000, .hi = 0x40004000 },
		/* 64 pages in 5 of 20: weight 320 */
		{ .r = { 0x40100000, 0x40140000, 5 }, .lo = 0x40100000, .hi = 0x40140000 },
		/* a big region never accessed: never drawn */
		{ .r = { 0x40140000, 0x7ff00000, 0 }, .lo = 0x40140000, .hi = 0x7ff00000 },
		/* straddles the span's end: only its 16 pages inside count, weight 16 x 10 = 160 */
		{ .r = { 0x7fff0000, 0x80010000, 10 }, .lo = 0x7fff0000, .hi = 0x80000000 },
		/* wholly outside: never drawn */
		{ .r = { 0x20000000, 0x30000000, 20 }, .lo = 0x20000000, .hi = 0x30000000 },
	};
	const double total = 80 + 320 + 160;
	const long n = 200000;
	uint64_t rng = 12345;

	(void)state;
	v[0].p = 80 / total;
	v[1].p = 320 / total;
	v[3].p = 160 / total;
	draw_many(v, 5, lo, hi, n, &rng);
	assert_int_equal(v[2].count, 0);
	assert_int_equal(v[4].count, 0);
	for (int i = 0; i < 5; i++)
		within_binomial(&v[i], n);
}

/* Inside the region drawn, every page is equally likely. */
static void draw_uniform_within_region(void **state)
{
	enum { PAGES = 8 };
	struct want v[PAGES];
	struct tlrt_damon_region r = { 0x10000000, 0x10000000 + PAGES * PAGE, 3 };
	const long n = 80000;
	uint64_t rng = 99;

	(void)state;
	for (int i = 0; i < PAGES; i++)
		v[i] = (struct want){ .lo = r.start + i * PAGE, .hi = r.start + (i + 1) * PAGE, .p = 1.0 / PAGES };
	for (long k = 0; k < n; k++) {
		struct tlrt_damon_pick p = { .rng = &rng };
		uintptr_t a;

		tlrt_damon_pick_offer(&p, &r, 0, UINTPTR_MAX);
		a = tlrt_damon_pick_addr(&p);
		assert_true(a >= r.start && a < r.end && a % PAGE == 0);
		v[(a - r.start) / PAGE].count++;
	}
	for (int i = 0; i < PAGES; i++)
		within_binomial(&v[i], n);
}

static void draw_nothing_accessed(void **state)
{
	struct tlrt_damon_region r[] = { { 0x1000, 0x100000, 0 }, { 0x100000, 0x200000, 0 }, { 0x300000, 0x400000, 9 } };
	struct tlrt_damon_pick p;
	uint64_t rng = 7;

	(void)state;
	p = (struct tlrt_damon_pick){ .rng = &rng };
	tlrt_damon_pick_offer(&p, &r[0], 0, UINTPTR_MAX);
	tlrt_damon_pick_offer(&p, &r[1], 0, UINTPTR_MAX);
	assert_int_equal(tlrt_damon_pick_addr(&p), 0);
	/* accessed, but outside the span */
	p = (struct tlrt_damon_pick){ .rng = &rng };
	tlrt_damon_pick_offer(&p, &r[2], 0x400000, 0x800000);
	assert_int_equal(tlrt_damon_pick_addr(&p), 0);
	p = (struct tlrt_damon_pick){ .rng = &rng };
	assert_int_equal(tlrt_damon_pick_addr(&p), 0);
}

/* ---- requirements, configuration, release ---- */

/* What the kernel shows after nr_kdamonds = 1, nr_contexts = 1, nr_targets = 1, nr_regions = 1, nr_schemes = 1. */
static void kdamond_tree(const char *nr_kdamonds, const char *avail)
{
	static const char *const files[] = {
		"kdamonds/0/state", "kdamonds/0/pid", "kdamonds/0/contexts/nr_contexts",
		"kdamonds/0/contexts/0/operations",
		"kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us",
		"kdamonds/0/contexts/0/monitoring_attrs/intervals/aggr_us",
		"kdamonds/0/contexts/0/monitoring_attrs/intervals/update_us",
		"kdamonds/0/contexts/0/monitoring_attrs/nr_regions/min",
		"kdamonds/0/contexts/0/monitoring_attrs/nr_regions/max",
		"kdamonds/0/contexts/0/targets/nr_targets", "kdamonds/0/contexts/0/targets/0/pid_target",
		"kdamonds/0/contexts/0/targets/0/regions/nr_regions",
		"kdamonds/0/contexts/0/targets/0/regions/0/start", "kdamonds/0/contexts/0/targets/0/regions/0/end",
		"kdamonds/0/contexts/0/schemes/nr_schemes", "kdamonds/0/contexts/0/schemes/0/action",
		"kdamonds/0/contexts/0/schemes/0/access_pattern/sz/min",
		"kdamonds/0/contexts/0/schemes/0/access_pattern/sz/max",
		"kdamonds/0/contexts/0/schemes/0/access_pattern/nr_accesses/min",
		"kdamonds/0/contexts/0/schemes/0/access_pattern/nr_accesses/max",
		"kdamonds/0/contexts/0/schemes/0/access_pattern/age/min",
		"kdamonds/0/contexts/0/schemes/0/access_pattern/age/max",
	};

	file("kdamonds/nr_kdamonds", nr_kdamonds);
	file("kdamonds/0/contexts/0/avail_operations", avail);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		file(files[i], "0\n");
	file("kdamonds/0/state", "off\n");
}

static void check_missing_interface(void **state)
{
	char why[256] = "", missing[128];

	(void)state;
	snprintf(missing, sizeof(missing), "%s/no-such-dir", root);
	assert_int_equal(tlrt_damon_check(missing, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "no DAMON sysfs interface"));
	assert_non_null(strstr(why, missing));
}

/* Someone else's kdamond: refused, and nothing under the root written. */
static void check_refuses_in_use(void **state)
{
	char why[300] = "";
	struct stat before, after;
	char path[512];

	(void)state;
	kdamond_tree("1\n", "paddr\n");
	file("kdamonds/0/state", "on\n");
	snprintf(path, sizeof(path), "%s/kdamonds/nr_kdamonds", root);
	assert_int_equal(stat(path, &before), 0);
	assert_int_equal(tlrt_damon_check(root, why, sizeof(why)), -EBUSY);
	assert_non_null(strstr(why, "DAMON is in use on this machine (nr_kdamonds is 1"));
	assert_non_null(strstr(why, "no DAMON vaddr operations"));
	assert_int_equal(stat(path, &after), 0);
	assert_true(before.st_mtim.tv_sec == after.st_mtim.tv_sec && before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
	assert_string_equal(text("kdamonds/nr_kdamonds"), "1\n");
	assert_string_equal(text("kdamonds/0/state"), "on\n");

	/* with vaddr, the reason does not claim it is missing */
	kdamond_tree("2\n", "vaddr\nfvaddr\npaddr\n");
	assert_int_equal(tlrt_damon_check(root, why, sizeof(why)), -EBUSY);
	assert_non_null(strstr(why, "nr_kdamonds is 2"));
	assert_null(strstr(why, "vaddr"));
}

static void create_watch_release(void **state)
{
	char why[300] = "", pid[32];
	struct tlrt_damon_attrs a;

	(void)state;
	kdamond_tree("0\n", "vaddr\nfvaddr\npaddr\n");
	assert_int_equal(tlrt_damon_check(root, why, sizeof(why)), 0);
	assert_int_equal(tlrt_damon_create(root, 4242, why, sizeof(why)), 0);
	assert_string_equal(text("kdamonds/nr_kdamonds"), "1");
	assert_string_equal(text("kdamonds/0/contexts/nr_contexts"), "1");
	assert_string_equal(text("kdamonds/0/contexts/0/operations"), "vaddr");
	assert_string_equal(text("kdamonds/0/contexts/0/targets/nr_targets"), "1");
	snprintf(pid, sizeof(pid), "%d", 4242);
	assert_string_equal(text("kdamonds/0/contexts/0/targets/0/pid_target"), pid);
	assert_string_equal(text("kdamonds/0/contexts/0/schemes/nr_schemes"), "1");
	assert_string_equal(text("kdamonds/0/contexts/0/schemes/0/action"), "stat");
	assert_string_equal(text("kdamonds/0/contexts/0/schemes/0/access_pattern/sz/max"), "18446744073709551615");
	assert_string_equal(text("kdamonds/0/contexts/0/schemes/0/access_pattern/nr_accesses/max"), "4294967295");
	assert_string_equal(text("kdamonds/0/contexts/0/schemes/0/access_pattern/age/max"), "4294967295");
	assert_string_equal(text("kdamonds/0/state"), "off\n");	/* not started before it has a region */

	tlrt_damon_attrs_for(10, 1UL << 30, &a);
	assert_int_equal(tlrt_damon_watch(root, &a, 0x7f0040000000, 0x7f0080000000, 0, why, sizeof(why)), 0);
	assert_string_equal(text("kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us"), "5000");
	assert_string_equal(text("kdamonds/0/contexts/0/monitoring_attrs/intervals/aggr_us"), "100000");
	assert_string_equal(text("kdamonds/0/contexts/0/monitoring_attrs/nr_regions/min"), "10");
	assert_string_equal(text("kdamonds/0/contexts/0/monitoring_attrs/nr_regions/max"), "512");
	assert_string_equal(text("kdamonds/0/contexts/0/targets/0/regions/0/start"), "139639050469376");
	assert_string_equal(text("kdamonds/0/contexts/0/targets/0/regions/0/end"), "139640124211200");
	assert_string_equal(text("kdamonds/0/state"), "on");
	/* a new span for a running kdamond is committed, not started again */
	assert_int_equal(tlrt_damon_watch(root, &a, 0x7f0040000000, 0x7f00c0000000, 1, why, sizeof(why)), 0);
	assert_string_equal(text("kdamonds/0/contexts/0/targets/0/regions/0/end"), "139641197953024");
	assert_string_equal(text("kdamonds/0/state"), "commit");

	assert_int_equal(tlrt_damon_snapshot(root), 0);
	assert_string_equal(text("kdamonds/0/state"), "update_schemes_tried_regions");

	assert_int_equal(tlrt_damon_release(root), 0);
	assert_string_equal(text("kdamonds/0/state"), "off");
	assert_string_equal(text("kdamonds/nr_kdamonds"), "0");
}

/* No vaddr: refused, and the kdamond it created is gone again. */
static void create_without_vaddr_undoes(void **state)
{
	char why[300] = "";

	(void)state;
	kdamond_tree("0\n", "paddr\n");
	assert_int_equal(tlrt_damon_check(root, why, sizeof(why)), 0);
	assert_int_equal(tlrt_damon_create(root, 1, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "no vaddr operations"));
	assert_string_equal(text("kdamonds/nr_kdamonds"), "0");
}

/* A file it cannot write (here: missing) fails with its name, and undoes too. */
static void create_failure_undoes(void **state)
{
	char why[300] = "", path[512];

	(void)state;
	kdamond_tree("0\n", "vaddr\n");
	snprintf(path, sizeof(path), "%s/kdamonds/0/contexts/0/schemes/0/action", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(tlrt_damon_create(root, 1, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "schemes/0/action"));
	assert_string_equal(text("kdamonds/nr_kdamonds"), "0");
}

static void attrs_for_rates(void **state)
{
	static const struct {
		double hz;
		size_t span;
		unsigned long sample, aggr, max;
	} cases[] = {
		{ 10, 1UL << 30, 5000, 100000, 512 },
		{ 1, 1UL << 30, 50000, 1000000, 512 },
		{ 100, 1UL << 30, 1000, 10000, 512 },	/* 500 us would be below the floor */
		{ 5000, 1UL << 30, 1000, 1000, 512 },	/* aggregation never shorter than one sample */
		{ 10, 4UL << 20, 5000, 100000, 10 },
		{ 10, 64UL << 30, 5000, 100000, 1000 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tlrt_damon_attrs a;

		tlrt_damon_attrs_for(cases[i].hz, cases[i].span, &a);
		assert_int_equal(a.sample_us, cases[i].sample);
		assert_int_equal(a.aggr_us, cases[i].aggr);
		assert_int_equal(a.min_regions, 10);
		assert_int_equal(a.max_regions, cases[i].max);
		assert_true(a.update_us >= 3600UL * 1000000);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(regions_parsed, setup, teardown),
		cmocka_unit_test_setup_teardown(regions_end_at_first_gap, setup, teardown),
		cmocka_unit_test_setup_teardown(regions_none, setup, teardown),
		cmocka_unit_test_setup_teardown(regions_malformed, setup, teardown),
		cmocka_unit_test(draw_follows_accesses_times_size),
		cmocka_unit_test(draw_uniform_within_region),
		cmocka_unit_test(draw_nothing_accessed),
		cmocka_unit_test_setup_teardown(check_missing_interface, setup, teardown),
		cmocka_unit_test_setup_teardown(check_refuses_in_use, setup, teardown),
		cmocka_unit_test_setup_teardown(create_watch_release, setup, teardown),
		cmocka_unit_test_setup_teardown(create_without_vaddr_undoes, setup, teardown),
		cmocka_unit_test_setup_teardown(create_failure_undoes, setup, teardown),
		cmocka_unit_test(attrs_for_rates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
