/*
 * Fuzz target: the quoting of lib/util/quote.c. The first byte picks the
 * language, the rest is the text (for shell words, the words between NUL
 * bytes). Each form is parsed back here the way its reader reads it (a
 * small parser per language: gnuplot's scanner, a gnuplot data file,
 * bash, sbatch's #SBATCH reader, RFC 4180) and must give back the text,
 * made visible where the language cannot hold it (gnuplot), with nothing
 * left over: no character outside quotes that the reader would act on,
 * and no line break anywhere but inside a CSV field.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <strings.h>

#include "fuzz.h"
#include "util/quote.h"
#include "util/visible.h"

enum { GNUPLOT, GNUPLOT_DATA, SHELL, SBATCH, CSV, NLANGS };

#define PLAIN "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,+@%="

static char *written(void (*f)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	f(out, s);
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* gnuplot's scanner on 'text': '' is one quote, the next lone quote ends it; the text into out. */
static void parse_gnuplot(const char *q, char *out)
{
	FUZZ_CHECK(*q++ == '\'');
	for (;; q++) {
		FUZZ_CHECK(*q);
		if (*q == '\'' && q[1] != '\'')
			break;
		q += *q == '\'';
		*out++ = *q;
	}
	*out = '\0';
	FUZZ_CHECK(!q[1]);
}

static void gnuplot(const char *s)
{
	char *q = written(tl_quote_gnuplot, s), *shown = tl_visible(s, 0), *back;

	if (!q || !shown)
		goto out;
	FUZZ_CHECK(!has_control(q));
	back = malloc(strlen(q) + 1);
	if (back) {
		parse_gnuplot(q, back);
		FUZZ_CHECK(!strcmp(back, shown));
	}
	free(back);
out:
	free(q);
	free(shown);
}

/* A string column of a data file: between two double quotes, nothing escaped. */
static void gnuplot_data(const char *s)
{
	char *q = written(tl_quote_gnuplot_data, s), *shown = tl_visible(s, 0);
	size_t n, i = 0;

	if (!q || !shown)
		goto out;
	n = strlen(q);
	FUZZ_CHECK(n >= 2 && q[0] == '"' && q[n - 1] == '"' && !memchr(q + 1, '"', n - 2));
	FUZZ_CHECK(!has_control(q));
	/* the visible text, each " as \x22 */
	for (const char *c = shown; *c; c++) {
		if (*c == '"') {
			FUZZ_CHECK(!strncmp(q + 1 + i, "\\x22", 4));
			i += 4;
		} else {
			FUZZ_CHECK(q[1 + i] == *c);
			i++;
		}
	}
	FUZZ_CHECK(i == n - 2);
out:
	free(q);
	free(shown);
}

static int hex(char c)
{
	return isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
}

/*
 * bash on one word at *q, up to a space or the end: '...', $'...' with the
 * escapes the writer uses, \c, and unquoted characters that bash takes as
 * themselves. Returns the word (malloc'd) and moves *q past it.
 */
static char *parse_shell_word(const char **q)
{
	const char *start = *q, *p = start;
	char *out = malloc(strlen(p) + 1), *o = out;
	size_t name;

	if (!out)
		return NULL;
	while (*p && *p != ' ') {
		if (*p == '\'') {
			for (p++; *p != '\''; p++) {
				FUZZ_CHECK(*p);
				*o++ = *p;
			}
			p++;
		} else if (p[0] == '$' && p[1] == '\'') {
			for (p += 2; *p != '\''; p++) {
				FUZZ_CHECK(*p);
				if (*p != '\\') {
					*o++ = *p;
					continue;
				}
				switch (*++p) {
				case '\\': case '\'': *o++ = *p; break;
				case 'n': *o++ = '\n'; break;
				case 't': *o++ = '\t'; break;
				case 'x':
					FUZZ_CHECK(isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2]));
					*o++ = (char)(hex(p[1]) * 16 + hex(p[2]));
					p += 2;
					break;
				default:
					FUZZ_CHECK(!"an escape the writer does not use");
				}
			}
			p++;
		} else if (*p == '\\') {
			FUZZ_CHECK(p[1]);
			*o++ = p[1];
			p += 2;
		} else {
			/* unquoted: only what bash takes as itself, and no %job or =command at the start */
			FUZZ_CHECK(strchr(PLAIN, *p));
			FUZZ_CHECK(!(p == start && (*p == '%' || *p == '=')));
			*o++ = *p++;
		}
	}
	*o = '\0';
	/* NAME= unquoted at the start: an assignment, were the word a command's first */
	name = strspn(start, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	FUZZ_CHECK(!(name && !isdigit((unsigned char)*start) && start[name] == '='));
	*q = p;
	return out;
}

static void shell(const uint8_t *data, size_t size)
{
	char **argv, *line;
	size_t argc = 1, k = 0;
	const char *q;

	for (size_t i = 0; i < size; i++)
		argc += !data[i];
	argv = calloc(argc, sizeof(*argv));
	if (!argv)
		return;
	for (size_t i = 0, start = 0; i <= size; i++)
		if (i == size || !data[i]) {
			argv[k++] = fuzz_text(data + start, i - start);
			start = i + 1;
		}
	for (size_t i = 0; i < argc; i++)
		if (!argv[i])
			goto out;
	line = tl_quote_shell_argv(argv, argc);
	if (!line)
		goto out;
	FUZZ_CHECK(!has_control(line));
	q = line;
	for (size_t i = 0; i < argc; i++) {
		char *word = parse_shell_word(&q);

		if (!word)
			break;
		FUZZ_CHECK(!strcmp(word, argv[i]));
		free(word);
		FUZZ_CHECK(*q == (i + 1 < argc ? ' ' : '\0'));
		q += *q == ' ';
	}
	free(line);
out:
	for (size_t i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

/* sbatch's reading of one argument of an #SBATCH line (_get_argument in src/sbatch/opt.c). */
static void parse_sbatch(const char *q, char *out)
{
	bool escaped = false, quoted = false;
	char quote = 0;

	for (; *q && (quoted || !isspace((unsigned char)*q)); q++) {
		if (escaped) {
			escaped = false;
		} else if (*q == '\\') {
			escaped = true;
			continue;
		} else if (quoted) {
			if (*q == quote) {
				quoted = false;
				continue;
			}
		} else if (*q == '"' || *q == '\'') {
			quoted = true;
			quote = *q;
			continue;
		} else {
			FUZZ_CHECK(*q != '#');	/* a comment would cut the value short */
		}
		*out++ = *q;
	}
	*out = '\0';
	FUZZ_CHECK(!*q && !quoted && !escaped);
}

static void sbatch(const char *s)
{
	char *buf = NULL, *back;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	const char *why = NULL;
	int rc, checked;

	if (!out)
		return;
	rc = tl_quote_sbatch(out, s);
	if (fclose(out)) {
		free(buf);
		return;
	}
	checked = tl_sbatch_value_check(s, &why);
	FUZZ_CHECK(rc == checked);
	FUZZ_CHECK((rc == -EINVAL) == (!*s || has_control(s)));
	if (rc) {
		FUZZ_CHECK(!*buf && why && *why);
		free(buf);
		return;
	}
	FUZZ_CHECK(!has_control(buf));
	/* sbatch treats the line as a heterogeneous job's separator wherever these words are */
	FUZZ_CHECK(!strcasestr(buf, "hetjob") && !strcasestr(buf, "packjob"));
	back = malloc(len + 1);
	if (back) {
		parse_sbatch(buf, back);
		FUZZ_CHECK(!strcmp(back, s));
	}
	free(back);
	free(buf);
}

/* A number a spreadsheet reads as one, by strtod: all of the text, finite, digits only (no inf, nan or 0x). */
static bool spreadsheet_number(const char *s)
{
	char *end;
	double d = strtod(s, &end);

	return *s && !*end && isfinite(d) && !strpbrk(s, "xXiInN ");
}

static void csv(const char *s)
{
	char *q = written(tl_quote_csv, s), *back, *o;
	const char *p;

	if (!q)
		return;
	back = o = malloc(strlen(q) + 1);
	if (!back)
		goto out;
	p = q;
	if (*p == '"') {
		for (p++;; p++) {
			FUZZ_CHECK(*p);
			if (*p == '"' && p[1] != '"')
				break;
			p += *p == '"';
			*o++ = *p;
		}
		FUZZ_CHECK(!p[1]);
	} else {
		FUZZ_CHECK(!strpbrk(p, ",\"\r\n"));
		o = stpcpy(o, p);
	}
	*o = '\0';
	FUZZ_CHECK(!strcmp(back, s) || (back[0] == '\'' && !strcmp(back + 1, s)));
	/* no formula: what a spreadsheet reads does not start with = + - @ TAB CR LF, a number aside */
	FUZZ_CHECK(!strchr("=+-@\t\r\n", back[0]) || !back[0] || (back[0] == '-' && spreadsheet_number(back)));
	/* a ' only where one was needed */
	if (strcmp(back, s))
		FUZZ_CHECK(s[0] && strchr("=+-@\t\r\n", s[0]));
	free(back);
out:
	free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1)
		return 0;
	if (data[0] % NLANGS == SHELL) {
		shell(data + 1, size - 1);
		return 0;
	}
	text = fuzz_text(data + 1, size - 1);
	if (!text)
		return 0;
	switch (data[0] % NLANGS) {
	case GNUPLOT:
		gnuplot(text);
		break;
	case GNUPLOT_DATA:
		gnuplot_data(text);
		break;
	case SBATCH:
		sbatch(text);
		break;
	case CSV:
		csv(text);
		break;
	}
	free(text);
	return 0;
}
