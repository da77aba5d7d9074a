/*
 * Locating tierlab's parts relative to the executable (see paths.h).
 */
#include "util/paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char prefix[PATH_MAX];

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *tl_path_prefix(void)
{
	const char *home;
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (prefix[0])
		return prefix;
	home = getenv("TIERLAB_HOME");
	if (home && *home) {
		snprintf(prefix, sizeof(prefix), "%s", home);
		return prefix;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	/* PREFIX/bin/tierlab: strip two components. */
	for (int i = 0; i < 2; i++) {
		slash = strrchr(exe, '/');
		if (!slash)
			return NULL;
		*slash = '\0';
	}
	snprintf(prefix, sizeof(prefix), "%s", exe[0] ? exe : "/");
	return prefix;
}

static const char *under_prefix(char *buf, size_t len, const char *sub)
{
	const char *p = tl_path_prefix();

	if (!p)
		return NULL;
	if (!buf[0])
		snprintf(buf, len, "%s/%s", p, sub);
	return is_dir(buf) ? buf : NULL;
}

const char *tl_path_libdir(void)
{
	static char buf[PATH_MAX];

	return under_prefix(buf, sizeof(buf), "lib/tierlab");
}

const char *tl_path_libexec(void)
{
	static char buf[PATH_MAX];

	return under_prefix(buf, sizeof(buf), "libexec/tierlab");
}

const char *tl_path_workloads(void)
{
	static char installed[PATH_MAX], source[PATH_MAX];
	const char *env = getenv("TIERLAB_WORKLOADS");
	const char *p;

	if (env && *env)
		return env;
	p = under_prefix(installed, sizeof(installed), "share/tierlab/workloads");
	if (p)
		return p;
	return under_prefix(source, sizeof(source), "../workloads");
}

char *tl_path_workload_descriptor(const char *dir, const char *name)
{
	char buf[PATH_MAX];
	struct stat st;

	/* a name is a file in dir: not a path, and not "." or ".." (nor a hidden file) */
	if (!dir || !name || !*name || *name == '.' || strchr(name, '/'))
		return NULL;
	snprintf(buf, sizeof(buf), "%s/%s.yaml", dir, name);
	if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
		return strdup(buf);
	snprintf(buf, sizeof(buf), "%s/%s/workload.yaml", dir, name);
	if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
		return strdup(buf);
	return NULL;
}

const char *tl_path_default_db(void)
{
	const char *env = getenv("TIERLAB_DB");

	return env && *env ? env : TL_DB_DEFAULT;
}

char *tl_path_lib(const char *name)
{
	const char *dir = tl_path_libdir();
	char *p;

	if (!dir || asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	if (access(p, R_OK)) {
		free(p);
		return NULL;
	}
	return p;
}

/*
 * A library ld.so finds by name (Debian's jemalloc), checked now rather
 * than by a failed run. Not by dlopen: jemalloc's static TLS cannot be
 * loaded into a running process, though a preload of it works.
 */
int tl_path_system_lib(const char *soname)
{
	static const char *const dirs[] = { "/usr/local/lib", "/usr/lib/x86_64-linux-gnu",
					    "/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					    "/lib/aarch64-linux-gnu", "/usr/lib64", "/lib64", "/usr/lib",
					    "/lib", NULL };
	char path[PATH_MAX];

	for (int i = 0; dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], soname);
		if (!access(path, R_OK))
			return 1;
	}
	return 0;
}
