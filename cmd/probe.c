/*
 * tierlab probe: the machine's nodes, distances, memory tiers and HMAT
 * attributes, per-node latency and bandwidth measured from one CPU node,
 * which node set suits latency-bound and bandwidth-bound work, counter
 * availability, THP and hugetlb state; as text or JSON, optionally saved
 * as a machine profile a spec can name with `machine: NAME`.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "builtin.h"
#include "util/error.h"
#include "util/name.h"
#include "parse-options.h"
#include "util/paths.h"
#include "probe/probe.h"
#include "store/store.h"
#include "util/units.h"

int cmd_probe(int argc, const char **argv)
{
	const char *size_text = NULL, *save = NULL, *db = NULL;
	static const char *const formats[] = { "text", "json", NULL };
	static int (*const printers[])(const struct tl_probe *, FILE *) = { tl_probe_print_text, tl_probe_print_json };
	int cpu_node = 0, quick = 0, format = 0;
	static const char *const usage[] = {
		"tierlab probe [<options>]",
		NULL
	};
	const struct option options[] = {
		OPT_INTEGER(0, "cpu-node", &cpu_node, "n", "measure from the CPUs of this node (default 0)"),
		OPT_STRING(0, "size", &size_text, "size", "buffer per node (default 256M, 64M with --quick)"),
		OPT_FORMAT(&format, formats),
		OPT_STRING(0, "save", &save, "name", "store the result as machine profile <name>"),
		OPT_DB(&db, "results database for --save"),
		OPT_BOOL(0, "quick", &quick, "smaller buffer, fewer passes"),
		OPT_END(),
	};
	struct tl_store *st = NULL;
	struct tl_probe p;
	struct tl_error bad;
	int ret = 2, rc = 0;

	argc = parse_options(argc, argv, options, usage);
	if (argc) {
		error("unexpected argument '%s'", argv[0]);
		usage_with_options(usage, options);
	}
	tl_probe_init(&p);
	p.cpu_node = cpu_node;
	p.quick = quick;
	if (quick)
		p.size = 64ull << 20;
	if (size_text && (rc = tl_parse_size(size_text, &p.size)) == -ENODATA) {
		char expected[160];

		tl_units_expected(expected, sizeof(expected), "size", size_text);
		error("--size: '%s' has no unit (%s)", size_text, expected);
		return 2;
	}
	if (size_text && (rc || p.size < (1u << 20))) {
		error("--size: '%s' is not a size of at least 1MiB", size_text);
		return 2;
	}
	/* a spec names the profile by machine:, which takes names by util/name.h's rule */
	if (save && tl_name_check("--save", save, &bad)) {
		error("%s", bad.msg);
		return 2;
	}
	/* Open the database first: a bad --db should fail before a minute of measuring. */
	if (save && tl_store_open(db ? db : tl_path_default_db(), &st))
		goto out;
	if (tl_probe_topology(&p) || tl_probe_counters(&p) || tl_probe_measure(&p) ||
	    tl_probe_recommend(&p) || tl_probe_migration(&p))
		goto out;
	if (printers[format](&p, stdout))
		goto out;
	if (save) {
		if (tl_probe_profile_save(st, save, &p))
			goto out;
		/* beside JSON, a line of text would spoil it */
		fprintf(printers[format] == tl_probe_print_json ? stderr : stdout, "saved machine profile '%s' in '%s'\n", save,
			tl_store_path(st));
	}
	ret = 0;
out:
	tl_store_close(st);
	tl_probe_release(&p);
	return ret;
}
