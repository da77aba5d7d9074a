/*
 * Descriptors the runtime keeps open in the program's descriptor table
 * (the fault sampler's userfaultfd and wake pipe, /proc files it rereads,
 * the log). The program owns that table: a daemon closes 3 and up after
 * its first large allocation, and its next pipe() takes the lowest numbers
 * free, maybe one of ours. So a kept descriptor is moved to the top of the
 * table, away from where the program's own opens land, and what it names
 * (device and inode) is noted; before using or closing the number the
 * runtime checks that it still names that, and once it does not, the
 * number is the program's: never read, written or closed by the runtime
 * again. Nothing here allocates; errno is kept.
 */
#ifndef TLRT_KEEPFD_H
#define TLRT_KEEPFD_H

#include <sys/types.h>

struct tlrt_fdid {
	dev_t dev;
	ino_t ino;
};

/*
 * fd moved high (close-on-exec; the old number closed) with its identity
 * in *id; the number to use from now on. A failed move keeps the number
 * (still checked); a failed fstat gives -1 with fd closed.
 */
int tlrt_fd_keep(int fd, struct tlrt_fdid *id);

/* 1 when fd still names what id noted (not closed, not reused for something else). */
int tlrt_fd_is(int fd, const struct tlrt_fdid *id);

/* Closes *fd if it is still ours, and sets it to -1 either way. */
void tlrt_fd_drop(int *fd, const struct tlrt_fdid *id);

#endif
