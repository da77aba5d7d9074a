/*
 * The journal of changed kernel settings (see journal.h). Everything here
 * is ordinary file I/O: the journal's own file and the one-line files of
 * /proc/sys and /sys it names. An entry reaches the disk (fsync) before
 * the setting it protects is written, so no state exists in which the
 * kernel was changed and nobody knows what it was.
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
#include "util/fs.h"

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
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, whylen, "cannot open the settings journal %s: %s", path, strerror(errno));
		return rc;
	}
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

/* Replays the journal open at fd, last entry first. */
static int replay_fd(int fd, const char *jpath, char *why, size_t whylen)
{
	struct stat st;
	char *text, *lines[256];
	size_t n = 0;
	bool damon_done = false;
	int first = 0;

	if (fstat(fd, &st))
		return -errno;
	if (!st.st_size)
		return 0;
	text = malloc((size_t)st.st_size + 1);
	if (!text)
		return -ENOMEM;
	if (pread(fd, text, (size_t)st.st_size, 0) != st.st_size) {
		free(text);
		snprintf(why, whylen, "cannot read the settings journal %s", jpath);
		return -EIO;
	}
	text[st.st_size] = '\0';
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && n < 256; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	while (n--) {
		char *kind = lines[n], *path = strchr(kind, ' '), *value, w[512];
		int rc = 0;

		if (!path)
			continue;
		*path++ = '\0';
		value = strchr(path, ' ');
		if (!value)
			continue;
		*value++ = '\0';
		if (!strcmp(kind, "W")) {
			rc = tl_ktier_write(path, value);
			if (rc)
				snprintf(w, sizeof(w), "cannot put '%s' back into %s: %s", value, path, strerror(-rc));
		} else if (!strcmp(kind, "D") && !damon_done) {
			damon_done = true;	/* the entry with the pid comes last: it decides */
			rc = restore_kdamond(path, strtol(value, NULL, 10), w, sizeof(w));
		}
		if (rc && !first) {
			first = rc;
			snprintf(why, whylen, "%s", w);
		}
	}
	free(text);
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

	if ((rc = tl_ktier_read(path, old, sizeof(old)))) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(-rc));
		return rc;
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

	if (stat(path, &st) || !st.st_size)
		return 0;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "cannot open the settings journal %s: %s", path, strerror(errno));
		return -errno;
	}
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
