/*
 * How long folding shards into the main database takes: SHARDS shard
 * databases of RUNS runs each (every run with the metrics and environment
 * a real one has), as the tasks of a Slurm array leave them, merged into
 * a new main database in one process as `tierlab merge` does, then merged
 * again (which must add nothing). Prints the times; checks the counts.
 *
 *   build/bench/merge [DIR [SHARDS [RUNS]]]     (default: a temporary directory, 100, 100)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "store/store-internal.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int make_shard(const char *path, int shard, int runs)
{
	struct tl_experiment_record e = { .name = "bench", .spec_hash = "h" };
	struct tl_metric m[] = { { "hit_rate", 0.75, NULL }, { "migrated_bytes", 8192, "bytes" },
				 { "rt.samples", 1000, NULL }, { "rt.ticks", 1000, NULL } };
	struct tl_store *st;
	char key[64];
	int rc;

	if (tl_store_open(path, &st))
		return -1;
	/* a bench's shards, not results: no fsync per run */
	sqlite3_exec(tl_store_db(st), "PRAGMA synchronous = OFF", NULL, NULL, NULL);
	rc = tl_store_add_experiment(st, &e, NULL);
	for (int r = 0; !rc && r < runs; r++) {
		struct tl_run_result res = { .status = TL_STATUS_OK, .wall = 1, .started_at = r, .ended_at = r + 1 };
		struct tl_run_record rec = { .experiment_id = 1, .run_key = key, .config_key = key, .rep = 1,
					     .result = &res, .has_fom = true, .fom = 1, .fom_unit = "GF/s",
					     .metrics = { m, 4, 0 } };

		snprintf(key, sizeof(key), "%08x%08x-r1", shard, r);
		rec.values[TL_AXIS_POLICY] = "lru";
		rc = tl_env_put(&rec.env, "node", "n1");
		rc = rc ?: tl_store_add_run(st, &rec, NULL);
		tl_env_release(&rec.env);
	}
	tl_store_close(st);
	return rc;
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/tierlab-merge-bench.XXXXXX", path[4096];
	const char *dir = argc > 1 ? argv[1] : mkdtemp(tmp);
	int shards = argc > 2 ? atoi(argv[2]) : 100, runs = argc > 3 ? atoi(argv[3]) : 100;
	struct tl_store *main_db;
	double t0, t1;
	size_t added = 0, present = 0;

	if (!dir || shards < 1 || runs < 1) {
		fprintf(stderr, "usage: %s [DIR [SHARDS [RUNS]]]\n", argv[0]);
		return 2;
	}
	for (int s = 0; s < shards; s++) {
		snprintf(path, sizeof(path), "%s/shards/%d/shard.db", dir, s);
		if (make_shard(path, s, runs))
			return 1;
	}
	snprintf(path, sizeof(path), "%s/main.db", dir);
	if (tl_store_open(path, &main_db))
		return 1;
	for (int pass = 0; pass < 2; pass++) {
		struct tl_merge_expect want;

		memset(&want, 0, sizeof(want));
		t0 = now();
		for (int s = 0; s < shards; s++) {
			struct tl_merge_stats st;

			snprintf(path, sizeof(path), "%s/shards/%d/shard.db", dir, s);
			if (tl_store_merge(main_db, path, &want, &st))
				return 1;
			added += st.added;
			present += st.present;
		}
		t1 = now();
		printf("%s merge: %d shards x %d runs in %.2f s (%zu added, %zu already stored)\n",
		       pass ? "second" : "first", shards, runs, t1 - t0, added, present);
		if (added != (size_t)(pass ? 0 : shards * runs) || present != (size_t)(pass ? shards * runs : 0)) {
			fprintf(stderr, "merge: wrong counts\n");
			return 1;
		}
		added = present = 0;
	}
	tl_store_close(main_db);
	return 0;
}
