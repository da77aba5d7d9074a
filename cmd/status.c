/*
 * tierlab status: how far a Slurm submission (`tierlab run --slurm`) has
 * got, from what needs no accounting database: the runs each array task
 * stored in its shard, squeue for the tasks still pending or running and
 * for the merge job, and the runs the main database holds.
 */
#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "builtin.h"
#include "util/error.h"
#include "parse-options.h"
#include "util/paths.h"
#include "slurm/slurm.h"
#include "store/query.h"

/* The runs of experiment stored in db: ok and not ok (latest row of each key). */
static int count_runs(const char *db, const char *experiment, size_t *ok, size_t *bad)
{
	struct tl_run_row *rows = NULL;
	struct tl_store *st;
	size_t n = 0;
	int rc;

	*ok = *bad = 0;
	if (tl_store_open_existing(db, &st))
		return -1;
	rc = tl_store_query_runs(st, experiment, &rows, &n);
	tl_store_close(st);
	for (size_t i = 0; !rc && i < n; i++) {
		if (rows[i].status == TL_STATUS_OK)
			(*ok)++;
		else
			(*bad)++;
	}
	tl_run_rows_free(rows, n);
	return rc;
}

static int show(const char *db, const char *experiment)
{
	char *dir = tl_slurm_shard_dir(db, experiment), path[4096], line[256];
	char array[64] = "", merge[64] = "", why[512];
	size_t ntasks = 0, nruns = 0, ok = 0, bad = 0, shards = 0;
	struct tl_slurm_queue q;
	glob_t g = { 0 };
	FILE *f;

	if (!dir)
		die("out of memory");
	snprintf(path, sizeof(path), "%s/jobs", dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))	/* the latest submission */
		sscanf(line, "%63s %63s %zu %zu", array, merge, &ntasks, &nruns);
	if (f)
		fclose(f);
	if (!array[0]) {
		error("no Slurm submission of '%s' is noted in '%s'", experiment, path);
		free(dir);
		return 1;
	}
	printf("%s: array job %s (%zu task%s, %zu run%s), merge job %s\n", experiment, array, ntasks,
	       ntasks == 1 ? "" : "s", nruns, nruns == 1 ? "" : "s", merge);
	snprintf(path, sizeof(path), "%s/%s_*/shard.db", dir, array);
	if (!glob(path, 0, NULL, &g)) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			size_t o, b;

			if (count_runs(g.gl_pathv[i], experiment, &o, &b))
				continue;
			shards++;
			ok += o;
			bad += b;
		}
	}
	globfree(&g);
	printf("  shards:   %zu of %zu tasks wrote one; %zu run%s stored ok, %zu not ok, %zu not stored\n",
	       shards, ntasks, ok, ok == 1 ? "" : "s", bad, nruns > ok + bad ? nruns - ok - bad : 0);
	if (tl_slurm_queue(array, merge, &q, why, sizeof(why)))
		printf("  queue:    unknown: %s\n", why);
	else
		printf("  queue:    %zu task%s pending, %zu running, %zu other; merge job %s\n", q.pending,
		       q.pending == 1 ? "" : "s", q.running, q.other,
		       q.merge_state[0] ? q.merge_state : "not queued (finished, or cancelled)");
	/* what the merge job said last, once it ran */
	snprintf(path, sizeof(path), "%s/slurm-%s-merge.out", dir, merge);
	f = fopen(path, "r");
	line[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		;
	if (f)
		fclose(f);
	if (line[0]) {
		line[strcspn(line, "\n")] = '\0';
		printf("  merge job %s: %s\n", merge, line);
	}
	if (!access(db, F_OK) && !count_runs(db, experiment, &ok, &bad))
		printf("  database: %zu run%s of %s stored ok, %zu not ok, in %s\n", ok, ok == 1 ? "" : "s",
		       experiment, bad, db);
	free(dir);
	return 0;
}

int cmd_status(int argc, const char **argv)
{
	const char *db = NULL;
	static const char *const usage[] = {
		"tierlab status [<options>] [<experiment>...]",
		NULL
	};
	const struct option options[] = {
		OPT_DB(&db, "the main database"),
		OPT_END(),
	};
	int ret = 0;

	argc = parse_options(argc, argv, options, usage);
	if (!db)
		db = tl_path_default_db();
	for (int i = 0; i < argc; i++)
		ret |= show(db, argv[i]);
	if (!argc) {
		/* every experiment submitted with this database */
		char *dir = tl_slurm_shard_dir(db, "");
		struct dirent *de;
		DIR *d = dir ? opendir(dir) : NULL;
		int seen = 0;

		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.')
				ret |= show(db, de->d_name), seen++;
		if (d)
			closedir(d);
		if (!seen) {
			error("no Slurm submission with database '%s' (none in '%s')", db, dir ? dir : "?");
			ret = 1;
		}
		free(dir);
	}
	return ret;
}
