/*
 * error(), warning(), die(), BUG(): the one place messages get their prefix.
 */
#include "util/error.h"
#include "util/visible.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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
 * sequence: the message is made visible (util/visible.h), the raw text
 * kept only when there is no memory for that.
 */
int tl_error_set(struct tl_error *err, const char *fmt, ...)
{
	char raw[sizeof(err->msg)], *shown;
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(raw, sizeof(raw), fmt, ap);
		va_end(ap);
		shown = tl_visible(raw, 0);
		snprintf(err->msg, sizeof(err->msg), "%s", shown ? shown : raw);
		free(shown);
	}
	return -EINVAL;
}
