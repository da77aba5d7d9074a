/*
 * Call sites named by addr2line (see addr2line.h), run as a child with
 * its output read from a pipe. The offset is a return address: the call
 * is the instruction before it, so addr2line is asked for offset - 1,
 * which names the call's line rather than the next one.
 */
#include "util/addr2line.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Runs addr2line -f -i -C -e path addr; its stdout (up to len - 1 bytes) into buf. 0 or -errno. */
static int run(const char *path, const char *addr, char *buf, size_t len)
{
	char *argv[] = { "addr2line", "-f", "-i", "-C", "-e", (char *)path, (char *)addr, NULL };
	posix_spawn_file_actions_t fa;
	int fd[2], rc, status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC))
		return -errno;
	if ((rc = posix_spawn_file_actions_init(&fa))) {
		close(fd[0]);
		close(fd[1]);
		return -rc;
	}
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc) {
		close(fd[0]);
		return -rc;
	}
	while (got + 1 < len && ((n = read(fd[0], buf + got, len - 1 - got)) > 0 || (n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	buf[got] = '\0';
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ENOENT;
}

int tl_addr2line(const char *callsite, char *out, size_t len)
{
	const char *plus = callsite ? strrchr(callsite, '+') : NULL;
	char path[4096], addr[32], text[8192], *nl, *file, *slash;
	unsigned long long off;
	char *end;
	int rc;

	if (!plus || plus == callsite || strncmp(plus + 1, "0x", 2) || (size_t)(plus - callsite) >= sizeof(path))
		return -EINVAL;
	off = strtoull(plus + 3, &end, 16);
	if (*end || !off)
		return -EINVAL;
	memcpy(path, callsite, plus - callsite);
	path[plus - callsite] = '\0';
	if (access(path, R_OK))
		return -ENOENT;
	snprintf(addr, sizeof(addr), "0x%llx", off - 1);
	if ((rc = run(path, addr, text, sizeof(text))))
		return rc;
	/*
	 * pairs of lines, the function then file:line (?? when unknown), from the
	 * innermost inlined function out to the one that was compiled: joined
	 * "inner file:line < outer file:line"
	 */
	if (!strncmp(text, "??", 2))
		return -ENOENT;
	out[0] = '\0';
	for (char *p = text, *fn; p && *p;) {
		size_t used = strlen(out);

		fn = p;
		if (!(nl = strchr(fn, '\n')))
			break;
		*nl = '\0';
		file = nl + 1;
		p = (nl = strchr(file, '\n')) ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		if ((nl = strstr(file, " (discriminator")))
			*nl = '\0';
		slash = strrchr(file, '/');
		snprintf(out + used, len - used, "%s%s%s%s", used ? " < " : "", fn, strncmp(file, "??", 2) ? " " : "",
			 strncmp(file, "??", 2) ? (slash ? slash + 1 : file) : "");
	}
	return 0;
}
