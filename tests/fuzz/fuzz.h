/*
 * Shared by the fuzz targets (tests/fuzz/fuzz-*.c): each defines
 * LLVMFuzzerTestOneInput() and is linked either with libFuzzer (clang,
 * `make fuzz`) or with replay.c (any compiler, `make test`), which feeds
 * it the kept inputs. FUZZ_CHECK states a property a target promises
 * beyond "no crash": a violation aborts, which both drivers report.
 */
#ifndef TL_FUZZ_H
#define TL_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                        \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                \
		}                                                                               \
	} while (0)

/* The input as a C string, up to its first NUL (the parsers take strings); NULL when out of memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#endif
