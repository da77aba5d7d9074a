/*
 * A program whose dlsym allocates, as another C library's may: libtiermem
 * resolves the next allocator with dlsym, so an allocation made in its
 * first lookups comes from its bootstrap buffer, and one made after
 * malloc, free, calloc and realloc are known from the next allocator
 * (glibc here). Exported (-Wl,--export-dynamic-symbol=dlsym), this dlsym
 * is the one libtiermem calls; it answers RTLD_NEXT from libc.so.6, which
 * is what comes after libtiermem in this program. Both blocks are then
 * used and freed: a bootstrap block given to glibc's free would abort
 * ("free(): invalid pointer").
 */
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 100

static void *first, *late;

void *dlsym(void *restrict handle, const char *restrict name)
{
	static void *(*real)(void *, const char *);
	static void *libc;

	if (!real)
		real = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!real)
		real = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	if (handle != RTLD_NEXT)
		return real(handle, name);
	if (!first)
		first = malloc(BLOCK);
	if (!late && !strcmp(name, "memalign"))
		late = malloc(BLOCK);
	if (!libc)
		libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	return real(libc, name);
}

int main(void)
{
	void *p = malloc(10);	/* the runtime resolves the next allocator here, if nothing did before */

	if (!first || !late) {
		fprintf(stderr, "boot-dlsym: libtiermem's lookups did not come through this dlsym\n");
		return 1;
	}
	memset(first, 1, BLOCK);
	memset(late, 2, BLOCK);
	/* the bootstrap block is as asked; the later one is glibc's (its usable size is its own) */
	printf("first %zu late %zu\n", malloc_usable_size(first), malloc_usable_size(late));
	free(first);
	free(late);
	free(p);
	printf("ok\n");
	return 0;
}
