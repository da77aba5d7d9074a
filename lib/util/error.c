/*
 * error(), warning(), die(), BUG(): the one place messages get their prefix.
 */
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("warning: ", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("fatal: ", fmt, ap);
	va_end(ap);
	exit(2);
}

void tl_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/*
 * A message is one line of text, but it quotes what users wrote, and a
 * YAML string or a command-line value may hold a newline or an escape
 * sequence: those are written as \n, \t, \r or \xNN.
 */
static void escape_controls(char *dst, size_t len, const char *src)
{
	size_t w = 0;

	for (; *src && w + 1 < len; src++) {
		unsigned char c = (unsigned char)*src;
		const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
		char esc[8];
		size_t n;

		if (c >= 0x20 && c != 0x7f) {
			dst[w++] = (char)c;
			continue;
		}
		if (!named)
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		n = strlen(named ? named : esc);
		if (w + n + 1 > len)
			break;
		memcpy(dst + w, named ? named : esc, n);
		w += n;
	}
	dst[w] = '\0';
}

int tl_error_set(struct tl_error *err, const char *fmt, ...)
{
	char raw[sizeof(err->msg)];
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(raw, sizeof(raw), fmt, ap);
		va_end(ap);
		escape_controls(err->msg, sizeof(err->msg), raw);
	}
	return -EINVAL;
}
