/*
 * tierlab sweep: `run` with matrix axes set from the command line. The
 * axis options are generated from the axis table, so every axis a spec's
 * matrix takes can be swept: --chunks 2,8,32,64 --rate 10,100.
 */
#include <stdio.h>
#include <stdlib.h>
#include "axis/axis.h"
#include "builtin.h"
#include "util/error.h"
#include "parse-options.h"
#include "util/array.h"

int cmd_sweep(int argc, const char **argv)
{
	struct run_options o = { .command = "sweep" };
	const char *lists[TL_AXIS__COUNT] = { 0 };
	static const char *const usage[] = {
		"tierlab sweep [<options>] <spec.yaml> [--<axis> <v1,v2,...>]...",
		NULL
	};
	const struct option common[] = {
		RUN_OPTIONS(o),
	};
	const size_t ncommon = ARRAY_SIZE(common);
	struct option options[ARRAY_SIZE(common) + TL_AXIS__COUNT + 2];
	size_t n = 0;
	int ret;

	for (size_t i = 0; i < ncommon; i++)
		options[n++] = common[i];
	options[n++] = (struct option)OPT_GROUP("axes (each replaces the spec's matrix axis; comma-separated values)");
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		options[n++] = (struct option)OPT_STRING(0, tl_axes[a].name, &lists[a], "list", tl_axis_help(a));
	options[n] = (struct option)OPT_END();

	o.command_line = invocation(argc, argv);
	argc = parse_options(argc, argv, options, usage);
	if (argc != 1) {
		error(argc ? "expected one spec, got %d arguments" : "no spec given%.0d", argc);
		usage_with_options(usage, options);
	}
	ret = run_spec(argv[0], &o, lists);
	free(o.command_line);
	return ret;
}
