/*
 * Fuzz target: ingest of what the runtime and the FAT allocator leave in a
 * run's directory (lib/measure/ingest.c), through its real entry points on
 * real files. The input holds three files:
 *
 *   2 bytes     n, little-endian: the length of the counters file
 *   n bytes     tiermem-1.counters (binary, rt-stats.h)
 *   the rest    tiermem-1.log, then, after a line "%%fat%%", fatalloc-2.txt
 *
 * (tests/fuzz/seed-ingest.sh makes seeds of that form from a real run.)
 * Besides the sanitizers, it checks that a log yields at most one row a
 * line and that rows hold what the schema's CHECKs allow.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"
#include "measure/ingest.h"

static char dir[64];
static const char fat_mark[] = "\n%%fat%%\n";

static void remove_dir(void)
{
	static const char *const files[] = { "tiermem-1.counters", "tiermem-1.log", "fatalloc-2.txt" };
	char path[128];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "/dev/shm/tierlab-fuzz-ingest.XXXXXX");
	if (!mkdtemp(dir)) {
		snprintf(dir, sizeof(dir), "/tmp/tierlab-fuzz-ingest.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	atexit(remove_dir);
	return 0;
}

/* Writes [p, p + n) as dir/name, or removes it when p is NULL. */
static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!p) {
		unlink(path);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, p, n) == (ssize_t)n);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *log, *fat = NULL;
	size_t ncounters, nlog, nfat = 0, lines = 1;
	struct tl_ingest ing;
	struct tl_run_record r = { 0 };

	if (size < 2)
		return 0;
	ncounters = (size_t)data[0] | (size_t)data[1] << 8;
	if (ncounters > size - 2)
		ncounters = size - 2;
	log = data + 2 + ncounters;
	nlog = size - 2 - ncounters;
	fat = memmem(log, nlog, fat_mark, sizeof(fat_mark) - 1);
	if (fat) {
		nfat = nlog - (size_t)(fat - log) - (sizeof(fat_mark) - 1);
		nlog = (size_t)(fat - log);
		fat += sizeof(fat_mark) - 1;
	}
	for (size_t i = 0; i < nlog; i++)
		lines += log[i] == '\n';
	put("tiermem-1.counters", ncounters ? data + 2 : NULL, ncounters);
	put("tiermem-1.log", log, nlog);
	put("fatalloc-2.txt", fat, nfat);

	if (tl_ingest_scan(dir, &ing) == 0) {
		FUZZ_CHECK(ing.nprocs <= 2);
		if (tl_ingest_record(&ing, dir, &r) == 0) {
			FUZZ_CHECK(r.allocations.n + r.samples.n + r.migrations.n <= lines);
			for (size_t i = 0; i < r.samples.n; i++)
				FUZZ_CHECK(r.samples.v[i].hit == 0 || r.samples.v[i].hit == 1);
			for (size_t i = 0; i < r.migrations.n; i++)
				FUZZ_CHECK(r.migrations.v[i].direction < TL_DIR__COUNT &&
					   (r.migrations.v[i].ok == 0 || r.migrations.v[i].ok == 1));
		}
		tl_record_release(&r);
	}
	tl_ingest_release(&ing);
	return 0;
}
