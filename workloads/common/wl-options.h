/*
 * The option parser every built-in workload shares: a table of options,
 * the size presets of the workload's descriptor (wl-sizes.h, generated
 * from workload.yaml by the build: the presets are written there only),
 * and -h generated from both.
 *
 * --size NAME applies a preset: its arguments are defaults, so an option
 * given on the command line wins over the preset's, and so does one that
 * replaces it (.replaces: --time replaces a preset's --sets). An option
 * that names the problem size by itself (WL_NOT_WITH_SIZE: dgemm's --n)
 * cannot be combined with --size, and without --size it stands alone;
 * otherwise the descriptor's default size applies, when the workload takes
 * its defaults from it (.default_size set). A workload whose own
 * option is called --size (memaccess's working set) gets the values that
 * are not preset names.
 *
 * Errors follow wl.h: one line "<prog>: <what> (see --help)", exit 2.
 */
#ifndef WL_OPTIONS_H
#define WL_OPTIONS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wl.h"

/* One size preset: its name and the arguments it stands for. */
struct wl_size {
	const char *name;
	const char *const *args;	/* NULL-terminated */
};

#define WL_FLAG 0x1		/* takes no value */
#define WL_NOT_WITH_SIZE 0x2	/* names the problem size itself: never with --size or a preset */

struct wl_option {
	int key;		/* handed to set(); unique, not 0 */
	char short_name;	/* 'p' for -p; 0 when none */
	const char *long_name;	/* "points" for --points; NULL when none */
	const char *arg;	/* the value's name in the help; NULL for a flag */
	unsigned flags;
	int replaces;		/* the key of an option this one replaces in a preset; 0 when none */
	const char *help;	/* continuation lines start with '\n' */
};

/*
 * A workload's command line. WL_DESCRIPTOR (wl-sizes.h) fills what its
 * workload.yaml says: .prog (name), .summary (description), .sizes.
 */
struct wl_cmd {
	const char *prog;
	const char *synopsis;	/* after "usage: prog "; NULL: made from the options */
	const char *summary;	/* the paragraph under the usage line, wrapped when printed */
	const char *footer;	/* printed last, or NULL */
	const struct wl_option *options;	/* ended by key 0 */
	const struct wl_size *sizes;		/* ended by a NULL name */
	const char *default_size;		/* WL_DEFAULT_SIZE, or NULL: defaults of its own */
	int size_key;		/* key of the workload's own --size, 0 when --size only names presets */
	/* one line on the preset after its arguments in the help, e.g. its memory; may be NULL */
	void (*size_note)(const struct wl_size *s, char *buf, size_t len);
	void (*set)(int key, const char *value, void *ctx);	/* value NULL for a flag */
	void *ctx;
};

/* The value a preset gives option `opt` ("--n"), or NULL. */
static inline const char *wl_size_arg(const struct wl_size *s, const char *opt)
{
	for (const char *const *a = s->args; a[0]; a++)
		if (!strcmp(a[0], opt) && a[1])
			return a[1];
	return NULL;
}

static inline const struct wl_size *wl_size_find(const struct wl_cmd *c, const char *name)
{
	for (const struct wl_size *s = c->sizes; s && s->name; s++)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

/* Prints word at column *col, going to a new line indented by indent past 78 columns. */
static inline void wl_print_word(const char *word, int len, int *col, int indent)
{
	if (*col > indent && *col + 1 + len > 78) {
		printf("\n%*s", indent, "");
		*col = indent;
	} else if (*col > indent) {
		putchar(' ');
		(*col)++;
	}
	printf("%.*s", len, word);
	*col += len;
}

/* text from column col, its words wrapped at 78 columns, its own newlines kept. */
static inline void wl_print_wrapped(const char *text, int col, int indent)
{
	while (*text) {
		int len = (int)strcspn(text, " \n");

		if (len)
			wl_print_word(text, len, &col, indent);
		text += len;
		if (*text == '\n') {
			printf("\n%*s", indent, "");
			col = indent;
		}
		if (*text)
			text++;
	}
	putchar('\n');
}

/* "usage: prog [--size NAME] [-p N] [--seed S] ...", from the option table unless given. */
static inline void wl_print_synopsis(const struct wl_cmd *c, int own_size)
{
	int col = printf("usage: %s ", c->prog), indent = col;
	char word[64];

	if (c->synopsis) {
		wl_print_wrapped(c->synopsis, col, indent);
		return;
	}
	if (!own_size && c->sizes && c->sizes->name)
		wl_print_word("[--size NAME]", 13, &col, indent);
	for (const struct wl_option *o = c->options; o->key; o++) {
		int n = o->short_name ? snprintf(word, sizeof(word), "[-%c", o->short_name)
				      : snprintf(word, sizeof(word), "[--%s", o->long_name);

		n += snprintf(word + n, sizeof(word) - (size_t)n, "%s%s]", o->arg ? " " : "", o->arg ? o->arg : "");
		wl_print_word(word, n, &col, indent);
	}
	putchar('\n');
}

static inline void wl_usage(const struct wl_cmd *c)
{
	int shorts = 0, own_size = 0;
	char note[160];

	for (const struct wl_option *o = c->options; o->key; o++) {
		shorts |= o->short_name != 0;
		own_size |= o->long_name && !strcmp(o->long_name, "size");
	}
	wl_print_synopsis(c, own_size);
	printf("\n");
	wl_print_wrapped(c->summary, 0, 0);
	printf("\n");
	if (!own_size && c->sizes && c->sizes->name)
		printf("  %s%-*s %s\n", shorts ? "    " : "", shorts ? 18 : 22, "--size NAME",
		       "a size preset below; options given here override its values");
	for (const struct wl_option *o = c->options; o->key; o++) {
		char left[64];
		const char *h = o->help, *nl;

		if (o->short_name && o->long_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->long_name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		else if (o->short_name)
			snprintf(left, sizeof(left), "-%c%s%s", o->short_name, o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "%s--%s%s%s", shorts ? "    " : "", o->long_name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		printf("  %-22s ", left);
		while ((nl = strchr(h, '\n'))) {
			printf("%.*s\n%25s", (int)(nl - h), h, "");
			h = nl + 1;
		}
		printf("%s\n", h);
	}
	printf("  %-22s %s\n", "-h, --help", "this text");
	if (c->sizes && c->sizes->name) {
		printf("\nsize presets (from the workload's descriptor");
		if (c->default_size)
			printf("; the default is %s", c->default_size);
		printf("):\n");
		for (const struct wl_size *s = c->sizes; s->name; s++) {
			printf("  %-7s", s->name);
			for (const char *const *a = s->args; *a; a++)
				printf(" %s", *a);
			if (c->size_note) {
				c->size_note(s, note, sizeof(note));
				printf("  (%s)", note);
			}
			printf("\n");
		}
	}
	if (c->footer)
		printf("\n%s\n", c->footer);
}

static inline const struct wl_option *wl_option_find(const struct wl_cmd *c, const char *arg, const char **value)
{
	*value = NULL;
	if (arg[0] == '-' && arg[1] == '-') {
		size_t n = strcspn(arg + 2, "=");

		for (const struct wl_option *o = c->options; o->key; o++)
			if (o->long_name && strlen(o->long_name) == n && !strncmp(o->long_name, arg + 2, n)) {
				if (arg[2 + n] == '=')
					*value = arg + 3 + n;
				return o;
			}
		return NULL;
	}
	for (const struct wl_option *o = c->options; o->key; o++)
		if (arg[0] == '-' && o->short_name && arg[1] == o->short_name) {
			if (arg[2])
				*value = arg + 2;
			return o;
		}
	return NULL;
}

/*
 * Reads one option and its value from argv at *i into (opt, value); `from`
 * names where it came from in messages. Returns the option; exits on a bad one.
 */
static inline const struct wl_option *wl_option_read(const struct wl_cmd *c, char *const *argv, int argc, int *i,
						      const char **value)
{
	const char *arg = argv[*i];
	const struct wl_option *o = wl_option_find(c, arg, value);

	if (!o)
		wl_usage_error(c->prog, arg[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'", arg);
	if (o->flags & WL_FLAG) {
		if (*value)
			wl_usage_error(c->prog, "option '%s' takes no value", arg);
		return o;
	}
	if (!*value) {
		if (*i + 1 >= argc)
			wl_usage_error(c->prog, "option '%s' needs a value", arg);
		*value = argv[++*i];
	}
	return o;
}

/*
 * Parses argv (argv[0] is the program) and calls c->set for each option,
 * a preset's first so that the command line's win. Exits 0 after -h, 2 on
 * a bad argument.
 */
static inline void wl_parse(const struct wl_cmd *c, int argc, char **argv)
{
	const struct wl_size *preset = NULL;
	const char *size_opt = NULL;
	char given[256] = { 0 };
	int alone = 0;

	/* first pass: what the command line gives, and which preset */
	for (int i = 1; i < argc; i++) {
		const char *v;
		const struct wl_option *o;

		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			wl_usage(c);
			exit(0);
		}
		if (!strcmp(argv[i], "--size") || !strncmp(argv[i], "--size=", 7)) {
			v = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < argc ? argv[++i] : NULL;
			if (!v)
				wl_usage_error(c->prog, "option '--size' needs a value");
			if (wl_size_find(c, v)) {
				preset = wl_size_find(c, v);
				size_opt = NULL;
				continue;
			}
			if (!c->size_key) {
				char names[160] = "";

				for (const struct wl_size *s = c->sizes; s && s->name; s++)
					snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
						 names[0] ? ", " : "", s->name);
				wl_usage_error(c->prog, "--size: unknown preset '%s' (%s)", v, names);
			}
			size_opt = v;
			given[c->size_key & 0xff] = 1;
			continue;
		}
		o = wl_option_read(c, argv, argc, &i, &v);
		given[o->key & 0xff] = 1;
		alone |= (o->flags & WL_NOT_WITH_SIZE) != 0;
	}
	if (preset && alone)
		wl_usage_error(c->prog, "--size %s and the options that name a size exclude each other", preset->name);
	if (!preset && !alone && !size_opt && c->default_size)
		preset = wl_size_find(c, c->default_size);

	/* the preset's values, where the command line gives none */
	for (int i = 0; preset && preset->args[i]; i++) {
		int argn = 0;
		const char *v;
		const struct wl_option *o;

		while (preset->args[argn])
			argn++;
		o = wl_option_read(c, (char *const *)preset->args, argn, &i, &v);
		if (given[o->key & 0xff])
			continue;
		for (const struct wl_option *r = c->options; r->key && o; r++)
			if (given[r->key & 0xff] && r->replaces == o->key)
				o = NULL;
		if (o)
			c->set(o->key, (o->flags & WL_FLAG) ? NULL : v, c->ctx);
	}
	/* then the command line's, in its order */
	for (int i = 1; i < argc; i++) {
		const char *v;
		const struct wl_option *o;

		if (!strcmp(argv[i], "--size") || !strncmp(argv[i], "--size=", 7)) {
			v = argv[i][6] == '=' ? argv[i] + 7 : argv[++i];
			if (!wl_size_find(c, v))
				c->set(c->size_key, v, c->ctx);
			continue;
		}
		o = wl_option_read(c, argv, argc, &i, &v);
		c->set(o->key, (o->flags & WL_FLAG) ? NULL : v, c->ctx);
	}
}

#endif
