/*
 * The option parser behind every subcommand (see parse-options.h).
 */
#include "parse-options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"

/* "text, csv or json" */
static const char *format_list(const struct option *o, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; o->formats[i] && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", !i ? "" : o->formats[i + 1] ? ", " : " or ", o->formats[i]);
	return buf;
}

void usage_with_options_to(FILE *out, const char *const usage[], const struct option *opts)
{
	fprintf(out, "usage: %s\n", usage[0]);
	for (int i = 1; usage[i]; i++)
		fprintf(out, "   or: %s\n", usage[i]);
	fputc('\n', out);
	for (const struct option *o = opts; o->type != OPTION_END; o++) {
		char left[64];
		int n = 0;

		if (o->type == OPTION_GROUP) {
			fprintf(out, "%s%s\n", o == opts ? "" : "\n", o->help);
			continue;
		}
		if (o->short_name)
			n += snprintf(left + n, sizeof(left) - n, "-%c%s", o->short_name,
				      o->long_name ? ", " : "");
		if (o->long_name)
			n += snprintf(left + n, sizeof(left) - n, "--%s", o->long_name);
		if (o->argh)
			snprintf(left + n, sizeof(left) - n, " <%s>", o->argh);
		if (o->type == OPTION_FORMAT) {
			char list[160];

			fprintf(out, "    %-26s %s (default %s)\n", left, format_list(o, list, sizeof(list)),
				o->formats[*(int *)o->value]);
			continue;
		}
		fprintf(out, "    %-26s %s\n", left, o->help);
	}
	fprintf(out, "    %-26s %s\n", "-h, --help", "show this help");
}

void usage_with_options(const char *const usage[], const struct option *opts)
{
	usage_with_options_to(stderr, usage, opts);
	exit(2);
}

static const struct option *find_long(const struct option *opts, const char *name, size_t len)
{
	for (const struct option *o = opts; o->type != OPTION_END; o++)
		if (o->long_name && strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
			return o;
	return NULL;
}

static const struct option *find_short(const struct option *opts, int c)
{
	for (const struct option *o = opts; o->type != OPTION_END; o++)
		if (o->type != OPTION_GROUP && o->short_name == c)
			return o;
	return NULL;
}

static _Noreturn void bad_option(const char *const usage[], const struct option *opts, const char *fmt,
		       const char *what)
{
	fprintf(stderr, "error: ");
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	usage_with_options(usage, opts);
}

static char *option_name(const struct option *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
	return buf;
}

static void set_value(const struct option *o, const char *arg, const char *const usage[],
		      const struct option *opts)
{
	char name[64], *end;
	char msg[160];

	switch (o->type) {
	case OPTION_BOOL:
		*(int *)o->value = 1;
		return;
	case OPTION_STRING:
		*(const char **)o->value = arg;
		return;
	case OPTION_STRING_LIST: {
		struct tl_optlist *l = o->value;
		const char **v = realloc(l->v, sizeof(*v) * (l->n + 1));

		if (!v)
			die("out of memory");
		l->v = v;
		l->v[l->n++] = arg;
		return;
	}
	case OPTION_INTEGER: {
		long v;

		errno = 0;
		v = strtol(arg, &end, 10);
		if (!*arg || *end || errno || v < -2147483647L || v > 2147483647L) {
			snprintf(msg, sizeof(msg), "%s expects a whole number, not '%%s'",
				 option_name(o, name, sizeof(name)));
			bad_option(usage, opts, msg, arg);
		}
		*(int *)o->value = (int)v;
		return;
	}
	case OPTION_DOUBLE: {
		double v;

		errno = 0;
		v = strtod(arg, &end);
		if (!*arg || *end || errno || v != v) {
			snprintf(msg, sizeof(msg), "%s expects a number, not '%%s'",
				 option_name(o, name, sizeof(name)));
			bad_option(usage, opts, msg, arg);
		}
		*(double *)o->value = v;
		return;
	}
	case OPTION_FORMAT: {
		char list[160];

		for (int i = 0; o->formats[i]; i++) {
			if (!strcmp(arg, o->formats[i])) {
				*(int *)o->value = i;
				return;
			}
		}
		snprintf(msg, sizeof(msg), "%s: unknown format '%%s' (%s)", option_name(o, name, sizeof(name)),
			 format_list(o, list, sizeof(list)));
		bad_option(usage, opts, msg, arg);
	}
	default:
		BUG("option type %d", o->type);
	}
}

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const usage[])
{
	int nargs = 0;
	int only_args = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct option *o;
		const char *val = NULL;
		char name[64];

		if (only_args || a[0] != '-' || !a[1]) {
			argv[nargs++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_args = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage_with_options_to(stdout, usage, opts);
			exit(0);
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			o = find_long(opts, a + 2, len);
			if (!o)
				bad_option(usage, opts, "unknown option '%s'", a);
			if (eq) {
				if (o->type == OPTION_BOOL)
					bad_option(usage, opts, "option '%s' takes no value", a);
				val = eq + 1;
			}
		} else {
			o = find_short(opts, a[1]);
			if (!o)
				bad_option(usage, opts, "unknown switch '%s'", a);
			if (a[2]) {
				if (o->type == OPTION_BOOL)
					bad_option(usage, opts, "unknown switch '%s'", a);
				val = a + 2;
			}
		}
		if (o->type != OPTION_BOOL && !val) {
			if (i + 1 >= argc)
				bad_option(usage, opts, "option '%s' requires a value",
					   option_name(o, name, sizeof(name)));
			val = argv[++i];
		}
		set_value(o, val, usage, opts);
	}
	argv[nargs] = NULL;
	return nargs;
}

void tl_optlist_free(struct tl_optlist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
