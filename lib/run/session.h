/*
 * The session of an invocation of run, sweep or simulate: what a report
 * takes a row's baseline from (store/result.h, docs/schema.md). Its key is
 * TIERLAB_SESSION when set, so that the tasks of one Slurm array (each
 * its own process and shard) are one session, as the submission was;
 * else a fresh one.
 */
#ifndef TL_SESSION_H
#define TL_SESSION_H

#include <stdint.h>
#include "store/store.h"

/* The variable that names the session of an invocation (a key, 1-64 of [0-9A-Za-z_-]). */
#define TL_SESSION_VAR "TIERLAB_SESSION"

/* A fresh key: 16 hex digits from getrandom(), or the time and pid when it has none. */
void tl_session_key(char key[17]);

/* TIERLAB_SESSION unset, empty or a key: 0; else -EINVAL with an error line (checked before anything is stored). */
int tl_session_check(void);

/*
 * Stores the session (TIERLAB_SESSION's, else a fresh one) with the
 * command line and this host, and returns its id. 0, or -EINVAL with an
 * error line for a malformed TIERLAB_SESSION, or the store's -errno.
 */
int tl_session_begin(struct tl_store *st, const char *command_line, int64_t *id);

#endif
