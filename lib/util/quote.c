/*
 * The quoting of quote.h, one function per language. Each writes what the
 * reader of that language reads back as the same text (gnuplot: the text
 * made visible), never a character that reader would act on.
 */
#include "util/quote.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/visible.h"

#define DIGITS "0123456789"
#define LETTERS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
/* What neither bash nor sbatch reads as anything but itself, anywhere in a word. */
#define PLAIN LETTERS DIGITS "-_./:,+@%="

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* s made visible (visible.h) character by character, each `quote` written as `as`. */
static void put_visible(FILE *out, const char *s, char quote, const char *as)
{
	char one[5];
	size_t l;

	for (; s && *s; s += l) {
		l = (unsigned char)*s < 0x80 ? 1 : tl_utf8_len(s);
		l = l ? l : 1;
		if (*s == quote) {
			fputs(as, out);
			continue;
		}
		memcpy(one, s, l);
		one[l] = '\0';
		tl_fput_visible(one, 0, out);
	}
}

void tl_quote_gnuplot(FILE *out, const char *s)
{
	fputc('\'', out);
	put_visible(out, s, '\'', "''");
	fputc('\'', out);
}

void tl_quote_gnuplot_tic(FILE *out, const char *s)
{
	size_t n = 0;
	char *d, *q;

	for (const char *p = s ? s : ""; *p; p++)
		n += *p == '%';
	if (!n || !(d = malloc(strlen(s) + n + 1))) {
		/* nothing to double, or no memory: a % shown as the format reads it beats no label at all */
		tl_quote_gnuplot(out, s);
		return;
	}
	for (q = d; *s; s++) {
		*q++ = *s;
		if (*s == '%')
			*q++ = '%';
	}
	*q = '\0';
	tl_quote_gnuplot(out, d);
	free(d);
}

void tl_quote_gnuplot_data(FILE *out, const char *s)
{
	fputc('"', out);
	put_visible(out, s, '"', "\\x22");
	fputc('"', out);
}

static bool shell_plain(const char *w)
{
	const char *eq = strchr(w, '=');
	size_t name = strspn(w, LETTERS DIGITS "_");

	if (!*w || *w == '%' || *w == '=' || w[strspn(w, PLAIN)])
		return false;
	/* NAME=value as the first word of a command would set a variable, not run one */
	return !(eq && (size_t)(eq - w) == name && !strchr(DIGITS, *w));
}

void tl_quote_shell(FILE *out, const char *w)
{
	bool control = false;

	if (shell_plain(w)) {
		fputs(w, out);
		return;
	}
	for (const char *c = w; *c; c++)
		control |= is_control(*c);
	if (!control) {
		fputc('\'', out);
		for (; *w; w++)
			*w == '\'' ? fputs("'\\''", out) : fputc(*w, out);
		fputc('\'', out);
		return;
	}
	fputs("$'", out);
	for (; *w; w++) {
		unsigned char c = *w;

		if (c == '\\' || c == '\'')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (is_control(c))
			fprintf(out, "\\x%02x", c);	/* bash reads at most two hex digits */
		else
			fputc(c, out);
	}
	fputc('\'', out);
}

char *tl_quote_shell_argv(char *const *argv, size_t argc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < argc; i++) {
		if (i)
			fputc(' ', f);
		tl_quote_shell(f, argv[i]);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int tl_sbatch_value_check(const char *v, const char **why)
{
	if (!*v) {
		*why = "is empty (leave it out for Slurm's default)";
		return -EINVAL;
	}
	for (; *v; v++) {
		if (*v == '\n') {
			*why = "holds a newline, which would end its #SBATCH line and start a line of the script";
			return -EINVAL;
		}
		if (is_control(*v)) {
			*why = "holds a control character (an #SBATCH value is one line of text)";
			return -EINVAL;
		}
	}
	return 0;
}

/* Is p the last letter of "hetjob" or "packjob" (sbatch's words for a heterogeneous job's parts)? */
static bool ends_job_word(const char *start, const char *p)
{
	return (p - start >= 5 && !strncasecmp(p - 5, "hetjob", 6)) ||
	       (p - start >= 6 && !strncasecmp(p - 6, "packjob", 7));
}

int tl_quote_sbatch(FILE *out, const char *v)
{
	const char *why;
	bool plain = !v[strspn(v, PLAIN)];

	if (tl_sbatch_value_check(v, &why))
		return -EINVAL;
	for (const char *c = v; plain && *c; c++)
		plain = !ends_job_word(v, c);
	if (plain) {
		fputs(v, out);
		return 0;
	}
	fputc('"', out);
	for (const char *c = v; *c; c++) {
		if (*c == '"' || *c == '\\' || ends_job_word(v, c))
			fputc('\\', out);
		fputc(*c, out);
	}
	fputc('"', out);
	return 0;
}

/* A number as tierlab writes one (%d, %.6f, tl_fmt_exact): -3.5, 42, 1e-05; not -1e999 (no double). */
static bool csv_number(const char *s)
{
	if (!isfinite(strtod(s, NULL)))
		return false;
	s += *s == '-';
	if (!*s || !strchr(DIGITS, *s))
		return false;
	s += strspn(s, DIGITS);
	if (*s == '.') {
		if (!*++s || !strchr(DIGITS, *s))
			return false;
		s += strspn(s, DIGITS);
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		s += *s == '+' || *s == '-';
		if (!*s || !strchr(DIGITS, *s))
			return false;
		s += strspn(s, DIGITS);
	}
	return !*s;
}

void tl_quote_csv(FILE *out, const char *cell)
{
	bool formula, quoted;

	if (!cell)
		return;
	formula = *cell && strchr("=+-@\t\r\n", *cell) && !csv_number(cell);
	quoted = strpbrk(cell, ",\"\r\n") != NULL;
	if (quoted)
		fputc('"', out);
	if (formula)
		fputc('\'', out);
	for (; *cell; cell++) {
		if (*cell == '"')
			fputc('"', out);
		fputc(*cell, out);
	}
	if (quoted)
		fputc('"', out);
}
