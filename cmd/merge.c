/*
 * tierlab merge: fold shard databases (what the tasks of a Slurm array
 * wrote, one each) into the main database. What the merge job of
 * `tierlab run --slurm` runs, and what a user runs by hand after tasks
 * failed or the merge job was cancelled; merging again adds nothing twice
 * (store.h, tl_store_merge).
 */
#include <stdio.h>
#include <string.h>
#include "builtin.h"
#include "util/error.h"
#include "util/name.h"
#include "parse-options.h"
#include "util/paths.h"
#include "store/store.h"

int cmd_merge(int argc, const char **argv)
{
	const char *db = NULL, *experiment = NULL, *spec_hash = NULL;
	int quiet = 0;
	static const char *const usage[] = {
		"tierlab merge [<options>] <shard.db>...",
		NULL
	};
	const struct option options[] = {
		OPT_DB(&db, "the main database"),
		OPT_STRING(0, "experiment", &experiment, "name", "refuse shards of another experiment (default: the first shard's)"),
		OPT_STRING(0, "spec-hash", &spec_hash, "hash", "refuse shards written from another spec"),
		OPT_BOOL('q', "quiet", &quiet, "print only errors"),
		OPT_END(),
	};
	struct tl_merge_expect want;
	struct tl_error bad;
	struct tl_store *st = NULL;
	size_t added = 0, present = 0, refused = 0;

	memset(&want, 0, sizeof(want));

	argc = parse_options(argc, argv, options, usage);
	if (!argc) {
		error("no shard given");
		usage_with_options(usage, options);
	}
	if (experiment && tl_name_check("--experiment", experiment, &bad))
		die("%s", bad.msg);
	if (experiment)
		snprintf(want.name, sizeof(want.name), "%s", experiment);
	if (spec_hash)
		snprintf(want.spec_hash, sizeof(want.spec_hash), "%s", spec_hash);
	if (spec_hash && !experiment)
		die("--spec-hash needs --experiment");
	if (!db)
		db = tl_path_default_db();
	if (tl_store_open(db, &st))
		return 2;
	for (int i = 0; i < argc; i++) {
		struct tl_merge_stats s;

		if (tl_store_merge(st, argv[i], &want, &s)) {
			refused++;
			continue;
		}
		added += s.added;
		present += s.present;
		if (!quiet)
			printf("%s: %zu run%s added, %zu already stored\n", argv[i], s.added,
			       s.added == 1 ? "" : "s", s.present);
	}
	tl_store_close(st);
	if (!quiet)
		printf("merged %d shard%s into %s: %zu run%s added, %zu already stored, %zu refused\n",
		       argc - (int)refused, argc - refused == 1 ? "" : "s", db, added, added == 1 ? "" : "s",
		       present, refused);
	return refused ? 1 : 0;
}
