/*
 * The journal of kernel settings tierlab changed for a run: before a
 * setting is written, its previous value is appended to a file and synced,
 * so whoever restores (the run's end, or the next tierlab start after
 * tierlab died) knows exactly what to put back. The file is locked
 * (flock) while its run lasts: a journal whose lock can be taken belongs
 * to a tierlab that is gone.
 *
 * Entries, one a line, replayed last to first:
 *   W <path> <value>      write <value> back to <path>
 *   D <kdamonds-dir> <pid> a kdamond tierlab configured as <dir>/0 (pid 0
 *                         before it started): stopped only while it is the
 *                         one with that pid, then nr_kdamonds set back to 0
 */
#ifndef TL_KTIER_JOURNAL_H
#define TL_KTIER_JOURNAL_H

#include <stddef.h>

struct tl_journal {
	int fd;			/* open and locked while a run's settings are changed; -1 otherwise */
	char path[4096];
};

/*
 * Where the journal lives: $TIERLAB_STATE_DIR/ktier.journal, else
 * /var/lib/tierlab/ktier.journal (one per machine: the settings are the
 * machine's, whichever database a run goes to).
 */
const char *tl_journal_default_path(char *buf, size_t len);

/*
 * Takes the journal at `path` for a run: replays what a dead tierlab left
 * there first, then holds the lock. -EBUSY (with the reason) when another
 * tierlab holds it.
 */
int tl_journal_begin(struct tl_journal *j, const char *path, char *why, size_t whylen);

/* Writes `value` to `path` after journaling what it held. 0 or -errno, with the reason. */
int tl_journal_set(struct tl_journal *j, const char *path, const char *value, char *why, size_t whylen);

/* Appends an entry as it is (a D entry); synced before it returns. */
int tl_journal_note(struct tl_journal *j, const char *entry, char *why, size_t whylen);

/*
 * Puts back everything journaled, last first, then empties the journal
 * and lets it go. Every entry is tried; 0, or the first failure's -errno
 * with its reason (the journal is then kept for the next start).
 */
int tl_journal_end(struct tl_journal *j, char *why, size_t whylen);

/*
 * At a tierlab start: if a journal at `path` has entries and no live
 * tierlab holds it, replays it. 1 when something was restored, 0 when
 * there was nothing to do (or another tierlab holds it), -errno with the
 * reason when a value could not be put back.
 */
int tl_journal_replay(const char *path, char *why, size_t whylen);

/* Small file helpers the policies share: one line, without its newline. */
int tl_ktier_read(const char *path, char *buf, size_t len);
int tl_ktier_write(const char *path, const char *value);

#endif
