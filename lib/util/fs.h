/*
 * Files and directories.
 */
#ifndef TL_FS_H
#define TL_FS_H

/*
 * Makes directory `path` and whatever parents it lacks (mkdir -p), mode
 * 0777 before the umask. Tries the whole path first, so a directory whose
 * parents exist costs one mkdir. 0 (also when it exists), or -errno
 * (-ENOTDIR when a part is a file, -ENAMETOOLONG).
 */
int tl_mkdir_p(const char *path);

#endif
