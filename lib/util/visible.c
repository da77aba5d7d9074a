/*
 * Making text safe to print (see visible.h): one walk over UTF-8 that
 * decides, byte sequence by byte sequence, what passes as it is.
 */
#include "util/visible.h"

#include <stdlib.h>

size_t tl_utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned cp;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	/* A NUL fails the continuation test, so a truncated sequence never reads past the end. */
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static void put_control(unsigned char c, FILE *f)
{
	switch (c) {
	case '\n': fputs("\\n", f); break;
	case '\r': fputs("\\r", f); break;
	case '\t': fputs("\\t", f); break;
	default: fprintf(f, "\\x%02x", c); break;
	}
}

void tl_fput_visible(const char *s, unsigned flags, FILE *f)
{
	size_t l;

	for (; *s; s += l) {
		unsigned char c = *s;

		l = 1;
		if ((c == '\n' || c == '\t') && (flags & TL_VISIBLE_LINES)) {
			fputc(c, f);
		} else if (c < 0x20 || c == 0x7f) {
			put_control(c, f);
		} else if (c == '|' && (flags & TL_VISIBLE_PIPES)) {
			fputs("\\|", f);
		} else if (c < 0x80) {
			fputc(c, f);
		} else if (!(l = tl_utf8_len(s))) {
			l = 1;
			fprintf(f, "\\x%02x", c);
		} else if (c == 0xc2 && (unsigned char)s[1] < 0xa0) {
			/* C1 controls (U+0080..U+009F): some terminals act on them too. */
			fprintf(f, "\\u%04x", (unsigned char)s[1]);
		} else {
			fwrite(s, 1, l, f);
		}
	}
}

char *tl_visible(const char *s, unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	tl_fput_visible(s, flags, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
