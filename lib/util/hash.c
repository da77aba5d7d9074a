/*
 * FNV-1a, 64 bit: its output is fixed by its definition, which is what
 * stable run keys need.
 */
#include "util/hash.h"

#include <stdio.h>

uint64_t tl_hash64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void tl_hash_hex(const void *data, size_t len, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)tl_hash64(data, len));
}
