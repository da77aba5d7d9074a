/*
 * A library that allocates a large block in its constructor, checked and
 * freed in its destructor. Loaded as a dependency of early-wrap.so (see
 * tests/tiermem/build.mk), it is initialised before libnuma, as libstdc++
 * is under jemalloc: the runtime must not start that early.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EARLY_BYTES (4 << 20)

static unsigned char *early;

__attribute__((constructor)) static void early_alloc(void)
{
	if ((early = malloc(EARLY_BYTES)))
		memset(early, 0x5a, EARLY_BYTES);
}

__attribute__((destructor)) static void early_check(void)
{
	if (!early)
		_exit(3);
	for (size_t i = 0; i < EARLY_BYTES; i += 4096)
		if (early[i] != 0x5a)
			_exit(4);
	free(early);
}
