/*
 * The quoting of util/quote.h, against hostile text (backticks, $(...),
 * ;, quotes, newlines, escape sequences, formula cells): the exact form
 * each writer gives, and for the shell bash itself reading the words back
 * (tests/cli/hostile-plot.sh runs gnuplot on the gnuplot form;
 * tests/fuzz/fuzz-quote.c parses every form back).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/quote.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* What f wrote for s, malloc'd. */
static char *written(void (*f)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	f(out, s);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static void expect(void (*f)(FILE *, const char *), const char *in, const char *want)
{
	char *got = written(f, in);

	if (strcmp(got, want))
		fail_msg("'%s' was written '%s', expected '%s'", in, got, want);
	free(got);
}

static void test_gnuplot(void **state)
{
	static const struct {
		const char *in, *script, *data;
	} cases[] = {
		{ "GF/s", "'GF/s'", "\"GF/s\"" },
		{ "", "''", "\"\"" },
		{ "a `touch x` b", "'a `touch x` b'", "\"a `touch x` b\"" },
		{ "it's", "'it''s'", "\"it's\"" },
		{ "say \"hi\"", "'say \"hi\"'", "\"say \\x22hi\\x22\"" },
		{ "a\nset output '/etc/x'", "'a\\nset output ''/etc/x'''", "\"a\\nset output '/etc/x'\"" },
		{ "\x1b[2J\r\t", "'\\x1b[2J\\r\\t'", "\"\\x1b[2J\\r\\t\"" },
		{ "back\\", "'back\\'", "\"back\\\"" },
		{ "@macro; # x", "'@macro; # x'", "\"@macro; # x\"" },
		{ "caf\xc3\xa9 \xff", "'caf\xc3\xa9 \\xff'", "\"caf\xc3\xa9 \\xff\"" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		expect(tl_quote_gnuplot, cases[i].in, cases[i].script);
		expect(tl_quote_gnuplot_data, cases[i].in, cases[i].data);
	}
	expect(tl_quote_gnuplot, NULL, "''");
	/* a tic's label is a format: % doubled (40% and %g would be read as formats), the rest as a string */
	expect(tl_quote_gnuplot_tic, "lru 40% 256KiB", "'lru 40%% 256KiB'");
	expect(tl_quote_gnuplot_tic, "%g it's", "'%%g it''s'");
	expect(tl_quote_gnuplot_tic, "plain", "'plain'");
	expect(tl_quote_gnuplot_tic, NULL, "''");
}

static const char *const hostile_words[] = {
	"plain", "", "it's", "a b", "$(touch x)", "`id`", "a;b", "a|b&c>d<e", "x\ny", "\n", "tab\there",
	"\x1b[2J", "back\\slash", "'", "''", "\"", "$HOME", "~", "~root", "*", "?", "[a]", "{a,b}", "#c", "a#b",
	"A=b", "_x=1", "1a=b", "=x", "%1", "-n", "!", "!!", "a\\", "\r", "\x7f", "caf\xc3\xa9", "\xff\xfe",
	"EOF", "a\nEOF\nb", "$'x'", "--db=/tmp/x", "policy=lru",
};

static void test_shell_forms(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "plain", "plain" },
		{ "--db=/tmp/r,1:2+3@4%5", "--db=/tmp/r,1:2+3@4%5" },
		{ "", "''" },
		{ "it's", "'it'\\''s'" },
		{ "$(touch x)", "'$(touch x)'" },
		{ "A=b", "'A=b'" },
		{ "1a=b", "1a=b" },
		{ "%1", "'%1'" },
		{ "=x", "'=x'" },
		{ "x\ny", "$'x\\ny'" },
		{ "it's\t\x1b", "$'it\\'s\\t\\x1b'" },
		{ "a\\\n", "$'a\\\\\\n'" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		expect(tl_quote_shell, cases[i].in, cases[i].want);
}

/* bash reads the words of tl_quote_shell_argv back as they were, none of them run, each on one line. */
static void test_shell_bash_reads_back(void **state)
{
	char path[64], cmd[256], out[8192];
	char *line = tl_quote_shell_argv((char *const *)hostile_words, N(hostile_words));
	size_t n, at = 0;
	FILE *f, *p;

	(void)state;
	assert_non_null(line);
	assert_null(strchr(line, '\n'));
	snprintf(path, sizeof(path), "/tmp/tierlab-quote-test.%d", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	/* as the first words of a command line: an assignment or a job would not reach printf */
	fprintf(f, "cd /tmp/tierlab-quote-test.%d.d || exit 1\nprintf '%%s\\0' %s\n", (int)getpid(), line);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s.d && bash %s", path, path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out), p);
	assert_int_equal(pclose(p), 0);
	for (size_t i = 0; i < N(hostile_words); i++) {
		assert_true(at < n);
		assert_string_equal(out + at, hostile_words[i]);
		at += strlen(out + at) + 1;
	}
	assert_int_equal(at, n);
	snprintf(cmd, sizeof(cmd), "%s.d/x", path);
	assert_int_equal(access(cmd, F_OK), -1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s.d", path, path);
	assert_int_equal(system(cmd), 0);
	free(line);
}

static void test_sbatch(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "compute", "compute" },
		{ "1:00:00", "1:00:00" },
		{ "/data/r/shards/e/slurm-%A_%a.out", "/data/r/shards/e/slurm-%A_%a.out" },
		{ "a b", "\"a b\"" },
		{ "x\"y\\z", "\"x\\\"y\\\\z\"" },
		{ "a#b", "\"a#b\"" },
		{ "it's", "\"it's\"" },
		{ "$(touch x); `id`", "\"$(touch x); `id`\"" },
		{ "hetjob", "\"hetjo\\b\"" },
		{ "my-PackJob-x", "\"my-PackJo\\b-x\"" },
	};
	static const char *const refused[] = { "", "a\nb", "a\n#SBATCH --x", "\r", "tab\t", "\x1b[2J", "\x7f" };
	const char *why;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		assert_int_equal(tl_sbatch_value_check(cases[i].in, &why), 0);
		assert_int_equal(tl_quote_sbatch(out, cases[i].in), 0);
		fclose(out);
		assert_string_equal(buf, cases[i].want);
		free(buf);
	}
	for (size_t i = 0; i < N(refused); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		why = NULL;
		assert_int_equal(tl_sbatch_value_check(refused[i], &why), -EINVAL);
		assert_non_null(why);
		assert_int_equal(tl_quote_sbatch(out, refused[i]), -EINVAL);
		fclose(out);
		assert_string_equal(buf, "");
		free(buf);
	}
	tl_sbatch_value_check("a\nb", &why);
	assert_non_null(strstr(why, "newline"));
	tl_sbatch_value_check("", &why);
	assert_string_equal(why, "is empty (leave it out for Slurm's default)");
}

static void test_csv(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "GF/s", "GF/s" },
		{ "", "" },
		{ "-3.5", "-3.5" },
		{ "42", "42" },
		{ "1e-05", "1e-05" },
		{ "-1.25E+300", "-1.25E+300" },
		{ "=1+1", "'=1+1" },
		{ "+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0" },
		{ "-2+3", "'-2+3" },
		{ "-", "'-" },
		{ "-inf", "'-inf" },
		{ "-6e699999999", "'-6e699999999" },
		{ "@SUM(A1:A2)", "'@SUM(A1:A2)" },
		{ "\t=1", "'\t=1" },
		{ "=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\nlines", "\"two\nlines\"" },
		{ "\r\n", "\"'\r\n\"" },
		{ "a=1", "a=1" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		expect(tl_quote_csv, cases[i].in, cases[i].want);
	expect(tl_quote_csv, NULL, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gnuplot),
		cmocka_unit_test(test_shell_forms),
		cmocka_unit_test(test_shell_bash_reads_back),
		cmocka_unit_test(test_sbatch),
		cmocka_unit_test(test_csv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
