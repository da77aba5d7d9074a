/*
 * Capturing a run's output through a pipe (see capture.h). The pipe is
 * made as large as an unprivileged process may (1 MiB by default) so that
 * a program printing in bursts rarely waits for tierlab, which reads it
 * between its ticks.
 */
#include "run/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PIPE_BYTES (1 << 20)

/* fd moved above 2 (the child moves its stdio onto 0-2), close-on-exec; -1 with errno on failure */
static int above_stdio(int fd)
{
	int high;

	if (fd < 0 || fd > 2)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return high;
}

int tl_capture_open(struct tl_capture *c, const char *dir, const char *name, int *child_fd, char *why,
		    size_t whylen)
{
	int p[2], e;

	*c = (struct tl_capture){ .rd = -1, .file = -1 };
	*child_fd = -1;
	if (snprintf(c->path, sizeof(c->path), "%s/%s", dir, name) >= (int)sizeof(c->path)) {
		snprintf(why, whylen, "cannot create '%s/%s': %s", dir, name, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	c->file = above_stdio(open(c->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
	if (c->file < 0)
		goto fail;
	if (pipe2(p, O_CLOEXEC))
		goto fail;
	c->rd = above_stdio(p[0]);
	*child_fd = above_stdio(p[1]);
	if (c->rd < 0 || *child_fd < 0 || fcntl(c->rd, F_SETFL, O_NONBLOCK))
		goto fail;
	fcntl(c->rd, F_SETPIPE_SZ, PIPE_BYTES);	/* a smaller pipe only costs the program some waits */
	return 0;
fail:
	e = errno;
	snprintf(why, whylen, "cannot capture '%s': %s", c->path, strerror(e));
	if (*child_fd >= 0)
		close(*child_fd);
	*child_fd = -1;
	return -e;
}

int tl_capture_fd(const struct tl_capture *c)
{
	return c->rd;
}

/* All of buf into the file, or the first error (a write that makes no progress is EIO). */
static void put(struct tl_capture *c, const char *buf, size_t n)
{
	size_t done = 0;

	while (!c->err && done < n) {
		ssize_t w = write(c->file, buf + done, n - done);

		if (w > 0)
			done += (size_t)w;
		else if (w < 0 && errno == EINTR)
			continue;
		else
			c->err = w < 0 ? errno : EIO;
	}
	c->written += done;
	c->lost += n - done;
}

void tl_capture_pump(struct tl_capture *c)
{
	char buf[65536];

	while (c->rd >= 0) {
		ssize_t n = read(c->rd, buf, sizeof(buf));

		if (n > 0) {
			put(c, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		close(c->rd);	/* end of file (every writer gone) or a broken pipe: nothing more will come */
		c->rd = -1;
	}
}

void tl_capture_close(struct tl_capture *c)
{
	tl_capture_pump(c);
	if (c->rd >= 0) {
		/* a writer outside the run still holds the pipe: what it writes later is not the run's */
		close(c->rd);
		c->rd = -1;
	}
	if (c->file >= 0) {
		if (close(c->file) && !c->err && errno != EINTR)
			c->err = errno;
		c->file = -1;
	}
}

bool tl_capture_failed(const struct tl_capture *c, char *buf, size_t len)
{
	const char *name = strrchr(c->path, '/'), *hint = "";
	int e = c->err ? c->err : EIO;

	if (!c->err && !c->lost)
		return false;
	if (e == ENOSPC)
		hint = ": the file system is full";
	else if (e == EDQUOT)
		hint = ": the disk quota is used up";
	snprintf(buf, len, "output not captured whole: %s: %s%s (%llu bytes written, %llu lost; in %.*s)",
		 name ? name + 1 : c->path, strerror(e), hint, (unsigned long long)c->written,
		 (unsigned long long)c->lost, name ? (int)(name - c->path) : 1, name ? c->path : ".");
	return true;
}
