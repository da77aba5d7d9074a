/*
 * The one palette of every figure: a policy or an allocator has the same
 * colour, fill pattern and point type wherever it is drawn, so a reader
 * learns it once. The colours are Okabe and Ito's eight (2008), which
 * readers with any of the common colour-vision deficiencies tell apart;
 * the patterns and point types tell them apart again in grey print.
 */
#include "plot/plot.h"

#include <string.h>

/* Okabe-Ito, less black (bars and text are black) and yellow (unreadable on white): six, then grey. */
#define OI_ORANGE "#E69F00"
#define OI_SKY "#56B4E9"
#define OI_GREEN "#009E73"
#define OI_BLUE "#0072B2"
#define OI_VERMILLION "#D55E00"
#define OI_PURPLE "#CC79A7"
#define OI_GREY "#999999"

/*
 * Known names first, fixed, so adding a policy never recolours another;
 * patterns: gnuplot's fill patterns (0 none, 4 and 5 diagonals, 1 cross,
 * 6 and 7 sparse diagonals); points: gnuplot's point types, filled ones
 * first. all-fast and all-slow are lines, but a figure of them alone (or
 * a legend) uses the same colours.
 */
static const struct tl_plot_style known[] = {
	{ "all-fast", OI_GREEN, 0, 7, 2 },
	{ "all-slow", OI_VERMILLION, 0, 5, 3 },
	{ "none", OI_GREY, 0, 9, 4 },
	{ "static", OI_ORANGE, 4, 13, 5 },
	{ "lru", OI_BLUE, 5, 7, 1 },
	{ "window", OI_PURPLE, 1, 5, 1 },
	{ "autonuma", OI_SKY, 6, 11, 1 },
	{ "damos", OI_VERMILLION, 7, 9, 1 },
	/* allocators: glibc's is the reference, grey like the policy that changes nothing */
	{ "system", OI_GREY, 0, 9, 4 },
	{ "jemalloc", OI_SKY, 4, 5, 1 },
	{ "fat", OI_BLUE, 5, 7, 1 },
	{ "mimalloc", OI_ORANGE, 1, 13, 1 },
};

/* A name the table does not know (a plugin by path): one of the same colours, by a hash of the name, so it stays. */
static const struct tl_plot_style others[] = {
	{ NULL, OI_ORANGE, 6, 11, 1 }, { NULL, OI_SKY, 7, 13, 1 }, { NULL, OI_GREEN, 4, 9, 1 },
	{ NULL, OI_BLUE, 1, 15, 1 },   { NULL, OI_VERMILLION, 5, 4, 1 }, { NULL, OI_PURPLE, 6, 6, 1 },
};

struct tl_plot_style tl_plot_style_of(const char *name)
{
	char base[128];
	unsigned h = 5381;
	struct tl_plot_style s;

	if (!name)
		name = "none";
	/* "static:1,0" is static; a plugin's arguments do not change its colour */
	tl_policy_base(name, base, sizeof(base));
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].name, base))
			return known[i];
	for (const char *p = base; *p; p++)
		h = h * 33 + (unsigned char)*p;
	s = others[h % (sizeof(others) / sizeof(others[0]))];
	s.name = NULL;
	return s;
}
