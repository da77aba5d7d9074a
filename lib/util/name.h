/*
 * Names from outside that become directories and keys: an experiment's
 * (its results directory, the store's key), a machine profile's. One rule
 * wherever a name enters (a spec, a merged shard, a trace's file name
 * under simulate --import, the command line, the store's writer), so
 * nothing a spec would refuse arrives another way.
 */
#ifndef TL_NAME_H
#define TL_NAME_H

#include "util/error.h"

#define TL_NAME_MAX 255

/*
 * 0 when name has letters, digits, '.', '_' and '-' only, is not only dots
 * ("." and ".." name directories already there) and has at most
 * TL_NAME_MAX of them; else -EINVAL with err set to "WHAT: 'NAME' may only
 * hold letters, digits and . _ -" (or the dots, or the length).
 */
int tl_name_check(const char *what, const char *name, struct tl_error *err);

/*
 * 0 when path, a directory stored relative to a database's, stays under
 * it: not empty, not absolute, no ".." component; else -EINVAL with err
 * set to "WHAT: 'PATH' ...".
 */
int tl_relpath_check(const char *what, const char *path, struct tl_error *err);

#endif
