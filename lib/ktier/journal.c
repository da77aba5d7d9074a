/*
 * The journal of changed kernel settings (see journal.h). Everything here
 * is ordinary file I/O: the journal's own file and the one-line files of
 * /proc/sys and /sys it names. An entry reaches the disk (fsync) before
 * the setting it protects is written, so no state exists in which the
 * kernel was changed and nobody knows what it was.
 *
 * The journal may sit in a shared state directory, and a replay runs as
 * root at every tierlab start: its file must be a regular file of this
 * user's that nobody else can write (never followed through a symbolic
 * link), and it is replayed only when every entry names a setting tierlab
 * changes (settings.h); otherwise nothing is written and it is kept.
 */
#include "ktier/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ktier/settings.h"
#include "util/fs.h"

#define MAX_ENTRIES 256
#define MAX_BYTES (64 << 10)	/* a run journals a dozen lines */

int tl_ktier_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int tl_ktier_write(const char *path, const char *value)
{
	/* O_TRUNC as a shell's > does: /proc/sys and /sys ignore it, a plain file (tests) needs it */
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t len = strlen(value);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

const char *tl_journal_default_path(char *buf, size_t len)
{
	const char *dir = getenv("TIERLAB_STATE_DIR");

	snprintf(buf, len, "%s/ktier.journal", dir && *dir ? dir : "/var/lib/tierlab");
	return buf;
}

static int append(struct tl_journal *j, const char *line, char *why, size_t whylen)
{
	size_t len = strlen(line);

	if (write(j->fd, line, len) != (ssize_t)len || fsync(j->fd)) {
		int rc = errno ? -errno : -EIO;

		snprintf(why, whylen, "cannot write the settings journal %s: %s", j->path, strerror(-rc));
		return rc;
	}
	return 0;
}

/*
 * Opens the journal's file (creating it when `create`) without following
 * a symbolic link, and checks it is a regular file of this user's with
 * one link that nobody else can write. why: "settings journal P: ...".
 */
static int open_journal(const char *path, bool create, int *fdp, char *why, size_t whylen)
{
	/* O_NONBLOCK: a FIFO or device put there must not stall the open; a regular file ignores it */
	int flags = O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | (create ? O_CREAT : 0);
	int fd = open(path, flags, 0600), rc;
	const char *what = NULL;
	char buf[96];
	struct stat st;

	if (fd < 0) {
		rc = -errno;
		if (rc == -ELOOP)
			what = "is a symbolic link";
		else
			snprintf(why, whylen, "cannot open the settings journal %s: %s", path, strerror(-rc));
	} else if (fstat(fd, &st)) {
		rc = -errno;
		snprintf(why, whylen, "cannot open the settings journal %s: %s", path, strerror(-rc));
	} else if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		what = "is not a regular file";
	} else if (st.st_uid != geteuid()) {
		rc = -EPERM;
		snprintf(buf, sizeof(buf), "is owned by uid %u, not by you (uid %u)", (unsigned)st.st_uid,
			 (unsigned)geteuid());
		what = buf;
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		rc = -EPERM;
		snprintf(buf, sizeof(buf), "is writable by others (mode %04o)", (unsigned)(st.st_mode & 07777));
		what = buf;
	} else if (st.st_nlink != 1) {
		rc = -EPERM;
		snprintf(buf, sizeof(buf), "has %lu links (another name for the same file)", (unsigned long)st.st_nlink);
		what = buf;
	} else {
		*fdp = fd;
		return 0;
	}
	if (what)
		snprintf(why, whylen, "settings journal %s %s; it must be a regular file of yours that only you can "
			 "write: not used (move it away)", path, what);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Opens (creating) and locks the journal; -EBUSY when a live tierlab holds it. */
static int open_locked(const char *path, int *fdp, char *why, size_t whylen)
{
	char dir[4096], *slash;
	int fd, rc;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if ((rc = tl_mkdir_p(dir))) {
			snprintf(why, whylen, "cannot create %s for the settings journal: %s", dir, strerror(-rc));
			return rc;
		}
	}
	if ((rc = open_journal(path, true, &fd, why, whylen)))
		return rc;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
		snprintf(why, whylen, "another tierlab holds the kernel's tiering settings (%s is locked)", path);
		close(fd);
		return rc;
	}
	*fdp = fd;
	return 0;
}

/*
 * A kdamond tierlab configured: stopped only if it still runs with the pid
 * journaled (pid 0: it was never seen running, so one running now is
 * someone else's), then the kdamond directories are removed.
 */
static int restore_kdamond(const char *dir, long pid, char *why, size_t whylen)
{
	char p[4200], v[64];
	int rc;

	snprintf(p, sizeof(p), "%s/0/state", dir);
	if (!tl_ktier_read(p, v, sizeof(v)) && !strcmp(v, "on")) {
		snprintf(p, sizeof(p), "%s/0/pid", dir);
		if (!pid || tl_ktier_read(p, v, sizeof(v)) || strtol(v, NULL, 10) != pid) {
			snprintf(why, whylen, "the kdamond at %s/0 is not the one tierlab started (pid %s, "
				 "tierlab's %ld): left alone", dir, v, pid);
			return -EBUSY;
		}
		snprintf(p, sizeof(p), "%s/0/state", dir);
		if ((rc = tl_ktier_write(p, "off"))) {
			snprintf(why, whylen, "cannot stop tierlab's kdamond (%.400s): %s", p, strerror(-rc));
			return rc;
		}
	}
	snprintf(p, sizeof(p), "%s/nr_kdamonds", dir);
	if (!tl_ktier_read(p, v, sizeof(v)) && strcmp(v, "0") && (rc = tl_ktier_write(p, "0"))) {
		snprintf(why, whylen, "cannot remove tierlab's kdamond (%.400s): %s", p, strerror(-rc));
		return rc;
	}
	return 0;
}

struct entry {
	char kind;		/* 'W' or 'D' */
	char *path, *value;
};

/* -EINVAL with "settings journal P: line N: <what>: not replayed ..." */
static int bad_entry(const char *jpath, size_t line, const char *what, const char *name, char *why, size_t whylen)
{
	snprintf(why, whylen, "settings journal %s: line %zu: %s%.200s%s: not replayed (check the kernel's tiering "
		 "settings, then remove the file)", jpath, line, name ? "'" : "", name ? name : "", what);
	return -EINVAL;
}

/* Splits text into entries and checks every one before anything is written. */
static int parse(char *text, const char *jpath, struct entry *e, size_t *n, char *why, size_t whylen)
{
	size_t line = 0;

	*n = 0;
	for (char *l = text, *next; l && *l; l = next) {
		char *sp1, *sp2;

		line++;
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		if (*n == MAX_ENTRIES)
			return bad_entry(jpath, line, "more than 256 entries", NULL, why, whylen);
		sp1 = strchr(l, ' ');
		sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
		if (!sp1 || !sp2 || sp1 - l != 1 || (*l != 'W' && *l != 'D'))
			return bad_entry(jpath, line, "not an entry (W path value, or D dir pid)", NULL, why, whylen);
		*sp1 = *sp2 = '\0';
		e[*n] = (struct entry){ *l, sp1 + 1, sp2 + 1 };
		if (*l == 'W' && !tl_ktier_setting_known(e[*n].path))
			return bad_entry(jpath, line, "' is not a kernel setting tierlab changes", e[*n].path, why, whylen);
		if (*l == 'W' && !tl_ktier_value_ok(e[*n].value))
			return bad_entry(jpath, line, "' is not a setting's value", e[*n].value, why, whylen);
		if (*l == 'D' && !tl_ktier_kdamonds_known(e[*n].path))
			return bad_entry(jpath, line, "' is not DAMON's kdamonds directory", e[*n].path, why, whylen);
		if (*l == 'D' && (strspn(e[*n].value, "0123456789") != strlen(e[*n].value) || !*e[*n].value ||
				  strlen(e[*n].value) > 9))
			return bad_entry(jpath, line, "' is not a pid", e[*n].value, why, whylen);
		(*n)++;
	}
	return 0;
}

/* Replays the journal open at fd, last entry first; nothing at all when an entry is not valid. */
static int replay_fd(int fd, const char *jpath, char *why, size_t whylen)
{
	struct stat st;
	struct entry *e;
	char *text;
	size_t n = 0;
	bool damon_done = false;
	int first = 0;

	if (fstat(fd, &st))
		return -errno;
	if (!st.st_size)
		return 0;
	if (st.st_size > MAX_BYTES) {
		snprintf(why, whylen, "settings journal %s: larger than 64 KiB, not tierlab's: not replayed (check the "
			 "kernel's tiering settings, then remove the file)", jpath);
		return -EINVAL;
	}
	text = malloc((size_t)st.st_size + 1);
	e = calloc(MAX_ENTRIES, sizeof(*e));
	if (!text || !e) {
		free(text);
		free(e);
		return -ENOMEM;
	}
	if (pread(fd, text, (size_t)st.st_size, 0) != st.st_size) {
		free(text);
		free(e);
		snprintf(why, whylen, "cannot read the settings journal %s", jpath);
		return -EIO;
	}
	text[st.st_size] = '\0';
	if (strlen(text) != (size_t)st.st_size)
		first = bad_entry(jpath, 1, "a NUL byte in the file", NULL, why, whylen);
	else
		first = parse(text, jpath, e, &n, why, whylen);
	while (!first && n--) {
		char w[512];
		int rc = 0;

		if (e[n].kind == 'W') {
			rc = tl_ktier_write(e[n].path, e[n].value);
			if (rc)
				snprintf(w, sizeof(w), "cannot put '%s' back into %s: %s", e[n].value, e[n].path,
					 strerror(-rc));
		} else if (!damon_done) {
			damon_done = true;	/* the entry with the pid comes last: it decides */
			rc = restore_kdamond(e[n].path, strtol(e[n].value, NULL, 10), w, sizeof(w));
		}
		if (rc && !first) {
			first = rc;
			snprintf(why, whylen, "%s", w);
		}
	}
	free(text);
	free(e);
	return first;
}

int tl_journal_begin(struct tl_journal *j, const char *path, char *why, size_t whylen)
{
	int rc;

	j->fd = -1;
	snprintf(j->path, sizeof(j->path), "%s", path);
	if ((rc = open_locked(path, &j->fd, why, whylen)))
		return rc;
	/* what a dead tierlab left */
	if ((rc = replay_fd(j->fd, path, why, whylen)) || ftruncate(j->fd, 0)) {
		rc = rc ?: -errno;
		close(j->fd);
		j->fd = -1;
		return rc;
	}
	return 0;
}

int tl_journal_note(struct tl_journal *j, const char *entry, char *why, size_t whylen)
{
	char line[4200];

	snprintf(line, sizeof(line), "%s\n", entry);
	return append(j, line, why, whylen);
}

int tl_journal_set(struct tl_journal *j, const char *path, const char *value, char *why, size_t whylen)
{
	char old[256], line[4500];
	int rc;

	/* a replay would refuse the entry: better not to change what could not be put back */
	if (!tl_ktier_setting_known(path) || !tl_ktier_value_ok(value)) {
		snprintf(why, whylen, "%s ('%s'): not a kernel setting tierlab changes", path, value);
		return -EINVAL;
	}
	if ((rc = tl_ktier_read(path, old, sizeof(old)))) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(-rc));
		return rc;
	}
	if (!tl_ktier_value_ok(old)) {
		snprintf(why, whylen, "%s holds '%.64s', which the journal could not put back: not changed", path, old);
		return -EINVAL;
	}
	if (!strcmp(old, value))
		return 0;	/* nothing changes, nothing to put back */
	snprintf(line, sizeof(line), "W %s %s\n", path, old);
	if ((rc = append(j, line, why, whylen)))
		return rc;
	if ((rc = tl_ktier_write(path, value)))
		snprintf(why, whylen, "cannot write '%s' to %s: %s", value, path, strerror(-rc));
	return rc;
}

int tl_journal_end(struct tl_journal *j, char *why, size_t whylen)
{
	int rc;

	if (j->fd < 0)
		return 0;
	rc = replay_fd(j->fd, j->path, why, whylen);
	if (!rc && ftruncate(j->fd, 0))
		rc = -errno;
	close(j->fd);
	j->fd = -1;
	return rc;
}

int tl_journal_replay(const char *path, char *why, size_t whylen)
{
	struct stat st;
	int fd, rc;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;	/* no kernel-policy run ever ran here: the usual case */
		rc = -errno;
		snprintf(why, whylen, "cannot look at the settings journal %s: %s", path, strerror(-rc));
		return rc;
	}
	if (S_ISREG(st.st_mode) && !st.st_size)
		return 0;
	if ((rc = open_journal(path, false, &fd, why, whylen)))
		return rc;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return 0;	/* a live tierlab's run: its settings are its own to restore */
	}
	rc = replay_fd(fd, path, why, whylen);
	if (!rc && ftruncate(fd, 0))
		rc = -errno;
	close(fd);
	return rc ?: 1;
}
