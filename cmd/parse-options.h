/*
 * Command-line options from one table, as git's parse-options: the same
 * table parses argv and prints the usage that `-h` shows, so the help can
 * never drift from what a command accepts.
 *
 *   static const char *const usage[] = { "tierlab run [<options>] <spec>", NULL };
 *   struct option opts[] = {
 *           OPT_BOOL('n', "dry-run", &dry_run, "print the planned runs"),
 *           OPT_STRING(0, "db", &db, "file", "results database"),
 *           OPT_END(),
 *   };
 *   argc = parse_options(argc, argv, opts, usage);
 *
 * Options and non-options may mix; "--" ends options. Long options take
 * "--name=value" or "--name value". `-h`/`--help` print usage to stdout and
 * exit 0; an unknown option or a missing or bad value prints one error line
 * and the usage to stderr and exits 2. Returns the count of non-option
 * arguments, which are moved to argv[0..n-1].
 */
#ifndef TL_PARSE_OPTIONS_H
#define TL_PARSE_OPTIONS_H

#include <stdio.h>

enum parse_opt_type {
	OPTION_END,
	OPTION_GROUP,
	OPTION_BOOL,		/* int *, set to 1 */
	OPTION_INTEGER,		/* int * */
	OPTION_DOUBLE,		/* double * */
	OPTION_STRING,		/* const char ** */
	OPTION_STRING_LIST,	/* struct tl_optlist *: every occurrence appended */
	OPTION_FORMAT,		/* int *: the index of the value in formats */
};

struct tl_optlist {
	const char **v;
	int n;
};

struct option {
	enum parse_opt_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh;	/* name of the value in the usage, e.g. "file" */
	const char *help;	/* OPTION_FORMAT: generated from formats and the default */
	const char *const *formats;	/* OPTION_FORMAT: the printers' names, NULL-terminated */
};

#define OPT_END()				{ OPTION_END, 0, NULL, NULL, NULL, NULL, NULL }
#define OPT_GROUP(h)				{ OPTION_GROUP, 0, NULL, NULL, NULL, (h), NULL }
#define OPT_BOOL(s, l, v, h)			{ OPTION_BOOL, (s), (l), (v), NULL, (h), NULL }
#define OPT_INTEGER(s, l, v, a, h)		{ OPTION_INTEGER, (s), (l), (v), (a), (h), NULL }
#define OPT_DOUBLE(s, l, v, a, h)		{ OPTION_DOUBLE, (s), (l), (v), (a), (h), NULL }
#define OPT_STRING(s, l, v, a, h)		{ OPTION_STRING, (s), (l), (v), (a), (h), NULL }
#define OPT_STRING_LIST(s, l, v, a, h)		{ OPTION_STRING_LIST, (s), (l), (v), (a), (h), NULL }
/*
 * -f, --format: one of a command's printers by name, so every command
 * takes, lists and refuses formats alike; *v (an int) holds the default's
 * index until a name is given.
 */
#define OPT_FORMAT(v, names)			{ OPTION_FORMAT, 'f', "format", (v), "fmt", NULL, (names) }

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const usage[]);

/* Prints usage and the option table to `out` (stdout for -h). */
void usage_with_options_to(FILE *out, const char *const usage[],
			   const struct option *opts);
/* Prints usage to stderr and exits 2. */
_Noreturn void usage_with_options(const char *const usage[], const struct option *opts);

void tl_optlist_free(struct tl_optlist *l);

#endif
