/*
 * The unit tests' scratch directory, paths in it, and stderr captured
 * while a call runs (to read the error line it wrote). Include after
 * cmocka.h; one test file is one program, so the state is per test file.
 */
#ifndef TL_TESTS_SCRATCH_H
#define TL_TESTS_SCRATCH_H

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static inline int scratch_rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

/* A fresh /tmp/tierlab-NAME.XXXXXX as dir: 0, or -1. */
static inline int scratch_make(const char *name)
{
	snprintf(dir, sizeof(dir), "/tmp/tierlab-%s.XXXXXX", name);
	return mkdtemp(dir) ? 0 : -1;
}

static inline int scratch_remove(void)
{
	return nftw(dir, scratch_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A path in dir; a test may hold up to 16 at once. */
static inline char *path_in(const char *name)
{
	static char buf[16][256];
	static int next;
	char *p = buf[next++ % 16];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static int saved_stderr = -1;
static char captured[4096], capture_path[256];

static inline void capture_begin(void)
{
	int fd;

	snprintf(capture_path, sizeof(capture_path), "%s/stderr.txt", dir);
	fd = open(capture_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

/* What was written to stderr since capture_begin(), which it ends. */
static inline const char *capture_end(void)
{
	FILE *f;
	size_t n;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	f = fopen(capture_path, "r");
	assert_non_null(f);
	n = fread(captured, 1, sizeof(captured) - 1, f);
	captured[n] = '\0';
	fclose(f);
	return captured;
}

#endif
