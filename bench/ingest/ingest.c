/*
 * bench/ingest: how fast the runtime's records reach the store. Writes a
 * run directory as the runtime leaves it (a counters file and a log of
 * allocations, samples and migrations, in record.c's line formats), then
 * times what tierlab does with it after a run: read the files into the
 * run record and write the record in its transaction. Prints rows per
 * second, best of the repetitions.
 *
 *   bench/ingest [-n SAMPLES] [-r REPETITIONS] [-d DIR]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "measure/ingest.h"
#include "store/store.h"
#include "tiermem/rt-stats.h"

static const char *const stat_names[] = {
#define N(name, unit, desc) #name,
	RT_STATS(N)
#undef N
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void write_counters(const char *dir, int pid, uint64_t samples, uint64_t migrations)
{
	struct rt_counters_header h = { 0 };
	uint64_t v[RT_STAT__COUNT] = { 0 };
	char path[4200];
	FILE *f;

	v[RT_STAT_samples] = v[RT_STAT_samples_managed] = samples;
	v[RT_STAT_hits] = samples / 2;
	v[RT_STAT_mig_slow_to_fast] = migrations;
	snprintf(path, sizeof(path), "%s/tiermem-%d.counters", dir, pid);
	f = fopen(path, "wb");
	if (!f)
		exit(1);
	memcpy(h.magic, RT_COUNTERS_MAGIC, 8);
	h.version = RT_COUNTERS_VERSION;
	h.nstats = RT_STAT__COUNT;
	h.header_size = sizeof(h);
	h.pid = pid;
	h.complete = 1;
	fwrite(&h, sizeof(h), 1, f);
	fwrite(v, 8, RT_STAT__COUNT, f);
	for (int i = 0; i < RT_STAT__COUNT; i++)
		fwrite(stat_names[i], 1, strlen(stat_names[i]) + 1, f);
	fclose(f);
}

/* The lines record.c writes: 16 allocations, then samples with a migration every 100. */
static size_t write_log(const char *dir, int pid, size_t samples)
{
	static const char *const dirs[] = { "slow-to-fast", "fast-to-slow" };
	uintptr_t base = 0x7f0000000000;
	char path[4200];
	size_t rows = 0;
	uint64_t t = 1000000;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tiermem-%d.log", dir, pid);
	f = fopen(path, "w");
	if (!f)
		exit(1);
	for (unsigned a = 0; a < 16; a++, rows++)
		fprintf(f, "A\t%" PRIu64 "\t%u\t0x%" PRIxPTR "\t%u\t%u\t%u\t0x%x\t/usr/bin/app+0x%x\n", t += 1000, a,
			base + ((uintptr_t)a << 30), 64u << 20, a * 32, 32u, 0x401000 + a, 0x1000 + a);
	for (size_t i = 0; i < samples; i++, rows++) {
		unsigned chunk = (unsigned)(i * 2654435761u % 512);

		fprintf(f, "S\t%" PRIu64 "\t0x%" PRIxPTR "\t0x%x\t%d\t%u\t%d\t%u\n", t += 100000,
			base + ((uintptr_t)chunk << 21) + (i & 0xfff) * 64, 0x401200 + (unsigned)(i % 97),
			pid + (int)(i % 4), chunk, (int)(i & 1), 0u);
		if (i % 100 == 99) {
			fprintf(f, "M\t%" PRIu64 "\t%u\t0x%" PRIxPTR "\t%u\t%s\t1\n", t += 10, chunk,
				base + ((uintptr_t)chunk << 21), 2u << 20, dirs[(i / 100) & 1]);
			rows++;
		}
	}
	fclose(f);
	return rows;
}

int main(int argc, char **argv)
{
	size_t samples = 100000;
	int reps = 3, opt;
	char dir[4096] = "", db[4200];
	struct tl_store *st;
	struct tl_experiment_record e = { .name = "bench-ingest" };
	int64_t exp;
	double best = 0;
	size_t rows;

	while ((opt = getopt(argc, argv, "n:r:d:")) != -1) {
		if (opt == 'n')
			samples = strtoull(optarg, NULL, 10);
		else if (opt == 'r')
			reps = atoi(optarg);
		else if (opt == 'd')
			snprintf(dir, sizeof(dir), "%s", optarg);
		else {
			fprintf(stderr, "usage: %s [-n SAMPLES] [-r REPETITIONS] [-d DIR]\n", argv[0]);
			return 2;
		}
	}
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/tierlab-bench-ingest.XXXXXX");
		if (!mkdtemp(dir))
			return 1;
	}
	write_counters(dir, 4242, samples, samples / 100);
	rows = write_log(dir, 4242, samples);
	snprintf(db, sizeof(db), "%s/bench.db", dir);
	unlink(db);
	if (tl_store_open(db, &st) || tl_store_add_experiment(st, &e, &exp))
		return 1;
	for (int r = 1; r <= reps; r++) {
		struct tl_run_result res = { .status = TL_STATUS_OK };
		char key[32];
		struct tl_run_record rec = { .experiment_id = exp, .run_key = key, .config_key = "k", .rep = r,
					     .result = &res };
		struct tl_ingest ing;
		int64_t id;
		double t0, t;

		snprintf(key, sizeof(key), "k-r%d", r);
		t0 = now();
		if (tl_ingest_scan(dir, &ing) || tl_ingest_record(&ing, dir, &rec) ||
		    tl_store_add_run(st, &rec, &id))
			return 1;
		t = now() - t0;
		tl_record_release(&rec);
		tl_ingest_release(&ing);
		printf("repetition %d: %zu log rows in %.3f s: %.0f rows/s\n", r, rows, t, rows / t);
		if (rows / t > best)
			best = rows / t;
	}
	tl_store_close(st);
	printf("ingest: %zu rows per run, best %.0f rows/s\n", rows, best);
	return 0;
}
