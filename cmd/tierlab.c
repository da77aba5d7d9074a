/*
 * tierlab: the table of subcommands, as git.c holds its builtins.
 */
#include <stdio.h>
#include <string.h>
#include "builtin.h"
#include "util/error.h"
#include "parse-options.h"
#include "util/version.h"
#include "util/array.h"

struct cmd_struct {
	const char *name;
	int (*fn)(int, const char **);
	const char *help;
};

static const struct cmd_struct commands[] = {
#define TL_COMMAND_ROW(name, help) { #name, cmd_##name, help },
	TL_COMMANDS(TL_COMMAND_ROW)
#undef TL_COMMAND_ROW
};

static void print_commands(FILE *out)
{
	fprintf(out, "usage: tierlab [--version] [--help] <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "   %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n'tierlab <command> -h' shows a command's options.\n");
}

int cmd_help(int argc, const char **argv)
{
	const char *sub[] = { NULL, "-h", NULL };
	static const char *const usage[] = {
		"tierlab help [<command>]",
		NULL
	};
	const struct option options[] = {
		OPT_END(),
	};

	argc = parse_options(argc, argv, options, usage);
	if (!argc) {
		print_commands(stdout);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(commands[i].name, argv[0])) {
			sub[0] = argv[0];
			return commands[i].fn(2, sub);
		}
	}
	error("'%s' is not a tierlab command; see 'tierlab --help'", argv[0]);
	return 2;
}

int main(int argc, const char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_commands(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("tierlab %s\n", tl_version);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, argv[1]))
			return commands[i].fn(argc - 1, argv + 1);
	error("'%s' is not a tierlab command; see 'tierlab --help'", argv[1]);
	return 2;
}
