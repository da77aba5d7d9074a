/*
 * The figure of merit of a finished run, read from what it wrote.
 */
#ifndef TL_FOM_H
#define TL_FOM_H

#include <stddef.h>
#include "util/error.h"

/*
 * Extracts a figure of merit: the first capture group of the last match of
 * `regex` (POSIX ERE) in stdout.txt of out_dir, or in the files matching
 * `file_glob` (relative to dir) when given. Returns 0 and *value, -ENOENT
 * when nothing matched (the reason in err), -EINVAL for a bad regex.
 */
int tl_fom_extract(const char *out_dir, const char *dir, const char *file_glob,
		   const char *regex, double *value, struct tl_error *err);

/*
 * The same for a run started as MPI ranks by launcher ("mpirun" with
 * --tag-output, "srun" with --label; NULL: not ranked): in stdout.txt
 * only rank 0's lines count, their labels stripped.
 */
int tl_fom_extract_ranked(const char *out_dir, const char *dir, const char *file_glob, const char *regex,
			  const char *launcher, double *value, struct tl_error *err);

#endif
