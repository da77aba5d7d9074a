/*
 * Files and directories.
 */
#ifndef TL_FS_H
#define TL_FS_H

#include <stddef.h>

/*
 * Makes directory `path` and whatever parents it lacks (mkdir -p), mode
 * 0777 before the umask. Tries the whole path first, so a directory whose
 * parents exist costs one mkdir. 0 (also when it exists), or -errno
 * (-ENOTDIR when a part is a file, -ENAMETOOLONG).
 */
int tl_mkdir_p(const char *path);

/*
 * Makes a new, empty directory at path (its parents as tl_mkdir_p does).
 * Where path is taken (a directory of another database's runs: the
 * experiment ids of a new database start again from 1), it makes
 * "path.2", "path.3", ... instead and writes the name it made back into
 * path (len bytes). Nothing there is ever removed or reused: a run's
 * files never mix with another's. 0, or -errno.
 */
int tl_mkdir_new(char *path, size_t len);

/*
 * The absolute directory of path (".": the working directory's, NULL
 * path likewise), which must exist: relative names in a spec or beside a
 * database are found from there whatever the working directory later is.
 * Malloc'd, or NULL with errno set.
 */
char *tl_dir_of(const char *path);

#endif
