/*
 * A stable 64-bit hash (FNV-1a) for run keys and spec hashes. Not
 * cryptographic: keys only need to be stable and rarely collide.
 */
#ifndef TL_HASH_H
#define TL_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t tl_hash64(const void *data, size_t len);
/* 16 lowercase hex digits and a NUL into out[17]. */
void tl_hash_hex(const void *data, size_t len, char out[17]);

#endif
