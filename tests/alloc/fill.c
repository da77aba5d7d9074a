/*
 * A helper for tests/cli/alloc-suite.sh: allocates COUNT blocks of SIZE
 * bytes, writes and checks every one, frees them, and prints what the
 * preloaded libfatalloc says about itself (pools, fallbacks, backing)
 * through its exported fat_* calls, found with dlsym so this program
 * runs, and says "not fat", under any allocator.
 *
 *   fill COUNT SIZE
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long long (*stat)(const char *) = (long long (*)(const char *))dlsym(RTLD_DEFAULT, "fat_stat_get");
	const char *(*backing)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "fat_backing_name");
	int (*owns)(const void *) = (int (*)(const void *))dlsym(RTLD_DEFAULT, "fat_owns");
	long count, in_pool = 0;
	size_t size;
	unsigned char **blk;

	if (argc != 3 || (count = atol(argv[1])) <= 0 || !(size = (size_t)atoll(argv[2]))) {
		fprintf(stderr, "usage: fill COUNT SIZE\n");
		return 2;
	}
	blk = calloc((size_t)count, sizeof(*blk));
	for (long i = 0; i < count; i++) {
		if (!(blk[i] = malloc(size))) {
			printf("malloc %ld of %zu bytes failed\n", i, size);
			return 1;
		}
		memset(blk[i], (int)(i & 0xff), size);
		in_pool += owns && owns(blk[i]);
	}
	for (long i = 0; i < count; i++) {
		for (size_t j = 0; j < size; j += 4093)
			if (blk[i][j] != (unsigned char)(i & 0xff)) {
				printf("block %ld byte %zu overwritten\n", i, j);
				return 1;
			}
		free(blk[i]);
	}
	free(blk);
	if (!stat) {
		printf("not fat\n");
		return 0;
	}
	printf("blocks: %ld\nin_pool: %ld\npools: %lld\nfallback_allocs: %lld\nbacking: %s\n", count, in_pool,
	       stat("pools"), stat("fallback_allocs"), backing());
	return 0;
}
