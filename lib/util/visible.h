/*
 * Text from outside tierlab (a workload's stderr, a spec's units and
 * arguments, whatever the store holds) made safe to print on a terminal:
 * control characters as C escapes ("\n", "\x1b"), C1 controls as
 * "\u0085", invalid UTF-8 bytes as "\xNN". An escape sequence in a unit
 * must not clear the screen, nor a newline forge a line of output. What
 * report, show and the progress lines print goes through here.
 */
#ifndef TL_VISIBLE_H
#define TL_VISIBLE_H

#include <stddef.h>
#include <stdio.h>

enum {
	TL_VISIBLE_LINES = 1,	/* keep '\n' and '\t' (multi-line text: a stderr tail) */
	TL_VISIBLE_PIPES = 2,	/* '|' as "\|" (a markdown table cell) */
};

/*
 * Length in bytes of the valid UTF-8 sequence at s (1..4), or 0 when the
 * bytes there are not one (a stray continuation byte, an overlong or
 * truncated sequence, a surrogate).
 */
size_t tl_utf8_len(const char *s);

/* Writes s made visible (flags: TL_VISIBLE_*) to f. */
void tl_fput_visible(const char *s, unsigned flags, FILE *f);

/* s made visible, malloc'd; NULL when out of memory. */
char *tl_visible(const char *s, unsigned flags);

#endif
