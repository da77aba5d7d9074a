/*
 * Files and directories (see fs.h). mkdir -p makes the leaf first, the
 * parents only when it says they are missing, as a run's directory is
 * made once per run.
 */
#include "util/fs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int make(char *path)
{
	struct stat sb;
	char *slash;
	int rc;

	if (!mkdir(path, 0777))
		return 0;
	if (errno == EEXIST)
		return stat(path, &sb) || S_ISDIR(sb.st_mode) ? 0 : -ENOTDIR;
	if (errno != ENOENT)
		return -errno;
	slash = strrchr(path, '/');
	while (slash && slash > path && slash[-1] == '/')
		slash--;
	if (!slash || slash == path)
		return -ENOENT;
	*slash = '\0';
	rc = make(path);
	*slash = '/';
	if (rc)
		return rc;
	return mkdir(path, 0777) && errno != EEXIST ? -errno : 0;
}

int tl_mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	return n ? make(buf) : -ENOENT;
}

int tl_mkdir_new(char *path, size_t len)
{
	char base[PATH_MAX];
	char *slash;
	int rc;

	if (strlen(path) >= sizeof(base))
		return -ENAMETOOLONG;
	strcpy(base, path);
	slash = strrchr(base, '/');
	if (slash && slash > base) {
		*slash = '\0';
		rc = tl_mkdir_p(base);
		*slash = '/';
		if (rc)
			return rc;
	}
	for (unsigned n = 2; n < 100000; n++) {
		if (!mkdir(path, 0777))
			return 0;
		if (errno != EEXIST)
			return -errno;
		if ((size_t)snprintf(path, len, "%s.%u", base, n) >= len)
			return -ENAMETOOLONG;
	}
	return -EEXIST;
}

char *tl_dir_of(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	char *abs = dir ? realpath(dir, NULL) : NULL;

	free(dir);
	return abs;
}
