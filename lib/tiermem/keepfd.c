/*
 * Kept descriptors (keepfd.h). The top of the table: 64 below the soft
 * limit on open files, at most 1024 (the common default), so that the
 * program reaches our numbers only after nearly a thousand of its own.
 * Identity by device and inode: procfs files, pipes and userfaultfds
 * (a "secure" anonymous inode of its own since Linux 5.12) each have an
 * inode nobody else's descriptor can name; an eventfd shares one inode
 * with every other, so the runtime keeps none.
 */
#include "tiermem/keepfd.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static int high_base(void)
{
	struct rlimit rl;
	rlim_t lim = 1024;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < lim)
		lim = rl.rlim_cur;
	return lim > 128 ? (int)lim - 64 : (int)lim / 2;
}

int tlrt_fd_keep(int fd, struct tlrt_fdid *id)
{
	int saved = errno, high;
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		close(fd);
		errno = saved;
		return -1;
	}
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	high = fd < high_base() ? fcntl(fd, F_DUPFD_CLOEXEC, high_base()) : -1;
	if (high >= 0) {
		close(fd);
		fd = high;
	}
	errno = saved;
	return fd;
}

int tlrt_fd_is(int fd, const struct tlrt_fdid *id)
{
	int saved = errno, same;
	struct stat st;

	same = fd >= 0 && !fstat(fd, &st) && st.st_dev == id->dev && st.st_ino == id->ino;
	errno = saved;
	return same;
}

void tlrt_fd_drop(int *fd, const struct tlrt_fdid *id)
{
	int saved = errno;

	if (tlrt_fd_is(*fd, id))
		close(*fd);
	*fd = -1;
	errno = saved;
}
