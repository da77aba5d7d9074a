/*
 * Tests of tl_fom_extract: stdout.txt, last match wins (across lines and
 * within one), the newest of several files matching a glob, globs
 * relative to dir or out_dir, and the failures a user must be told about:
 * no file, no match, bad regex, no capture group, a capture that is not a
 * number. Also a file larger than the read window, figure at its end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "measure/fom.h"

static char scratch[512];
static int nth_dir;

static int setup(void **state)
{
	(void)state;
	strcpy(scratch, "/tmp/tierlab-test-fom.XXXXXX");
	return mkdtemp(scratch) ? 0 : -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *new_dir(void)
{
	static char dirs[4][1024];	/* a test holds up to two at once */
	char *dir = dirs[nth_dir % 4];

	snprintf(dir, sizeof(dirs[0]), "%s/d%d", scratch, ++nth_dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	return dir;
}

/* Writes `text` to dir/name with the given mtime (seconds ago; <0 = now). */
static void put(const char *dir, const char *name, const char *text, int age)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	if (age >= 0) {
		struct timespec t[2];

		clock_gettime(CLOCK_REALTIME, &t[0]);
		t[0].tv_sec -= age;
		t[1] = t[0];
		assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
	}
}

static struct tl_error err;
static const char *const why = err.msg;

static int extract(const char *out_dir, const char *dir, const char *glob, const char *re, double *v)
{
	err.msg[0] = '\0';
	return tl_fom_extract(out_dir, dir, glob, re, v, &err);
}

static void test_stdout(void **state)
{
	const char *d = new_dir();
	double v = 0;

	(void)state;
	put(d, "stdout.txt", "starting\nGFLOP/s rating of=12.75\ndone\n", -1);
	assert_int_equal(extract(d, NULL, NULL, "rating of=([0-9.]+)", &v), 0);
	assert_true(v == 12.75);
}

static void test_last_match_wins(void **state)
{
	const char *d = new_dir();
	double v = 0;

	(void)state;
	put(d, "stdout.txt",
	    "iter 1: 1.5 GF/s\n"
	    "iter 2: 2.5 GF/s\n"
	    "noise\n"
	    "iter 3: 3.5 GF/s, again 4.25 GF/s\n"
	    "summary without a figure\n", -1);
	assert_int_equal(extract(d, NULL, NULL, "([0-9.]+) GF/s", &v), 0);
	assert_true(v == 4.25);

	/* Anchors work per line; the final line has no newline. */
	put(d, "stdout.txt", "x=1\nx=2\nx=3e2", -1);
	assert_int_equal(extract(d, NULL, NULL, "^x=([-+0-9.e]+)$", &v), 0);
	assert_true(v == 300);
}

/* Ranks' lines as their launcher labels them: only rank 0's count, whichever rank printed last. */
static void test_rank0(void **state)
{
	const char *d = new_dir();
	double v = 0;

	(void)state;
	put(d, "stdout.txt",
	    "[1,0]<stdout>:figure-of-merit: 1.5 GF/s\n"
	    "[1,10]<stdout>:figure-of-merit: 9.5 GF/s\n"
	    "[1,1]<stdout>:figure-of-merit: 2.5 GF/s\n", -1);
	assert_int_equal(tl_fom_extract_ranked(d, NULL, NULL, "^figure-of-merit: ([0-9.]+)", "mpirun", &v, &err), 0);
	assert_true(v == 1.5);
	put(d, "stdout.txt", " 1: figure-of-merit: 2.5\n 0: figure-of-merit: 3.25\n10: figure-of-merit: 4\n", -1);
	assert_int_equal(tl_fom_extract_ranked(d, NULL, NULL, "^figure-of-merit: ([0-9.]+)", "srun", &v, &err), 0);
	assert_true(v == 3.25);
	/* rank 0 said nothing: no figure, and the message says where it looked */
	put(d, "stdout.txt", "[1,1]<stdout>:figure-of-merit: 2.5\nfigure-of-merit: 7\n", -1);
	assert_int_equal(tl_fom_extract_ranked(d, NULL, NULL, "figure-of-merit: ([0-9.]+)", "mpirun", &v, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "in rank 0's lines"));
	/* a file the program wrote is read whole */
	put(d, "out.txt", "figure-of-merit: 8\n", -1);
	assert_int_equal(tl_fom_extract_ranked(d, NULL, "out.txt", "figure-of-merit: ([0-9.]+)", "mpirun", &v, &err), 0);
	assert_true(v == 8);
}

static void test_glob_newest(void **state)
{
	const char *out = new_dir(), *wd = new_dir();
	double v = 0;

	(void)state;
	put(wd, "HPCG-Benchmark_2024-01-01.txt", "GFLOP/s rating of=1.0\n", 300);
	put(wd, "HPCG-Benchmark_2024-01-03.txt", "GFLOP/s rating of=3.0\n", 10);
	put(wd, "HPCG-Benchmark_2024-01-02.txt", "GFLOP/s rating of=2.0\n", 100);
	put(wd, "other.txt", "GFLOP/s rating of=9.0\n", 0);
	put(out, "stdout.txt", "GFLOP/s rating of=8.0\n", -1);
	assert_int_equal(extract(out, wd, "HPCG-Benchmark*.txt", "rating of=([0-9.]+)", &v), 0);
	assert_true(v == 3.0);

	/* No dir: the glob is relative to out_dir. */
	put(out, "result-a.log", "score 7\n", 50);
	put(out, "result-b.log", "score 5\n", 60);
	assert_int_equal(extract(out, NULL, "result-*.log", "score ([0-9]+)", &v), 0);
	assert_true(v == 7);
}

static void test_glob_no_file(void **state)
{
	const char *out = new_dir(), *wd = new_dir();
	char want[PATH_MAX];
	double v = -1;

	(void)state;
	assert_int_equal(extract(out, wd, "HPCG-*.txt", "of=([0-9.]+)", &v), -ENOENT);
	snprintf(want, sizeof(want), "no file matches 'HPCG-*.txt' in %s", wd);
	assert_string_equal(why, want);
	assert_true(v == -1);
}

static void test_no_match(void **state)
{
	const char *d = new_dir(), *wd = new_dir();
	double v = -1;

	(void)state;
	put(d, "stdout.txt", "nothing to see\n", -1);
	assert_int_equal(extract(d, NULL, NULL, "rate=([0-9.]+)", &v), -ENOENT);
	assert_string_equal(why, "no match for /rate=([0-9.]+)/ in stdout.txt");
	assert_true(v == -1);

	/* A glob-found file is named as found, relative to the directory. */
	put(wd, "out.1", "nothing\n", -1);
	assert_int_equal(extract(d, wd, "out.*", "rate=([0-9.]+)", &v), -ENOENT);
	assert_string_equal(why, "no match for /rate=([0-9.]+)/ in out.1");

	/* No stdout.txt at all. */
	assert_int_equal(extract(wd, NULL, NULL, "rate=([0-9.]+)", &v), -ENOENT);
	assert_non_null(strstr(why, "cannot open 'stdout.txt'"));
}

static void test_bad_regex(void **state)
{
	const char *d = new_dir();
	double v = -1;

	(void)state;
	put(d, "stdout.txt", "rate=1\n", -1);
	assert_int_equal(extract(d, NULL, NULL, "rate=([0-9.]+", &v), -EINVAL);
	assert_non_null(strstr(why, "bad regex /rate=([0-9.]+/"));
	assert_int_equal(extract(d, NULL, NULL, "rate=[0-9]+", &v), -EINVAL);
	assert_non_null(strstr(why, "no capture group"));
	assert_true(v == -1);
}

static void test_not_a_number(void **state)
{
	const char *d = new_dir();
	double v = -1;

	(void)state;
	/* The last match decides, even when an earlier one was a number. */
	put(d, "stdout.txt", "rate=1.5\nrate=n/a\n", -1);
	assert_int_equal(extract(d, NULL, NULL, "rate=([^ ]+)$", &v), -ENOENT);
	assert_string_equal(why, "'n/a' matched by /rate=([^ ]+)$/ in stdout.txt is not a number");
	/* strtod must take all of it. */
	put(d, "stdout.txt", "rate=12abc\n", -1);
	assert_int_equal(extract(d, NULL, NULL, "rate=([0-9a-z]+)", &v), -ENOENT);
	assert_non_null(strstr(why, "'12abc'"));
	/* An empty capture is no number either. */
	put(d, "stdout.txt", "rate=\n", -1);
	assert_int_equal(extract(d, NULL, NULL, "rate=([0-9]*)", &v), -ENOENT);
	assert_non_null(strstr(why, "is not a number"));
	assert_true(v == -1);
}

/* A file beyond the 64 MiB read window: streamed, figure at the end found. */
static void test_big_file(void **state)
{
	const char *d = new_dir();
	char path[PATH_MAX], line[128];
	double v = 0;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/stdout.txt", d);
	f = fopen(path, "w");
	assert_non_null(f);
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 2] = '\n';
	line[sizeof(line) - 1] = '\0';
	fputs("rate=1\n", f);
	for (int i = 0; i < (70 << 20) / 127; i++)
		fputs(line, f);
	fputs("rate=99.5\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(extract(d, NULL, NULL, "rate=([0-9.]+)", &v), 0);
	assert_true(v == 99.5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stdout),
		cmocka_unit_test(test_last_match_wins),
		cmocka_unit_test(test_rank0),
		cmocka_unit_test(test_glob_newest),
		cmocka_unit_test(test_glob_no_file),
		cmocka_unit_test(test_no_match),
		cmocka_unit_test(test_bad_regex),
		cmocka_unit_test(test_not_a_number),
		cmocka_unit_test(test_big_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
