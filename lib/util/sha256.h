/*
 * SHA-256 (FIPS 180-4), for naming a file by its content where it carries
 * no build id (a workload's program, tierlab show): hash.h's FNV-1a is
 * for keys, not for telling two binaries apart.
 */
#ifndef TL_SHA256_H
#define TL_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct tl_sha256 {
	uint32_t h[8];
	uint64_t len;		/* bytes hashed so far */
	unsigned char buf[64];
	size_t used;
};

void tl_sha256_init(struct tl_sha256 *s);
void tl_sha256_update(struct tl_sha256 *s, const void *data, size_t n);
/* The digest as 64 lowercase hex digits and a NUL into hex. */
void tl_sha256_hex(struct tl_sha256 *s, char hex[65]);
/* A file's digest: 0, or -errno when it cannot be read. */
int tl_sha256_file(const char *path, char hex[65]);

#endif
