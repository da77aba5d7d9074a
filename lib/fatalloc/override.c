/*
 * The malloc API, all of it in one file (as mimalloc's alloc-override.c):
 * each entry point is exported from libfatalloc.so and maps onto the fat_*
 * calls, which serve from the pools and fall back to the system allocator.
 *
 * errno and return values follow glibc 2.36: ENOMEM on failure and on
 * overflow in calloc, reallocarray and pvalloc; realloc(p, 0) frees and
 * returns NULL; posix_memalign returns EINVAL for an alignment that is not
 * a power of two multiple of sizeof(void *); memalign and aligned_alloc
 * round other alignments up to a power of two, EINVAL above SIZE_MAX/2+1.
 */
#include "fatalloc/fatalloc.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>


TL_EXPORT void *malloc(size_t size)
{
	return fat_malloc(size);
}

TL_EXPORT void free(void *p)
{
	fat_free(p);
}

TL_EXPORT void *calloc(size_t n, size_t size)
{
	return fat_calloc(n, size);
}

TL_EXPORT void *realloc(void *p, size_t size)
{
	return fat_realloc(p, size);
}

TL_EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return fat_realloc(p, total);
}

TL_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	return fat_posix_memalign(out, align, size);
}

TL_EXPORT void *aligned_alloc(size_t align, size_t size)
{
	return fat_aligned_alloc(align, size);
}

TL_EXPORT void *memalign(size_t align, size_t size)
{
	return fat_memalign(align, size);
}

TL_EXPORT void *valloc(size_t size)
{
	return fat_memalign((size_t)getpagesize(), size);
}

TL_EXPORT void *pvalloc(size_t size)
{
	size_t page = (size_t)getpagesize(), rounded;

	if (__builtin_add_overflow(size, page - 1, &rounded)) {
		errno = ENOMEM;
		return NULL;
	}
	return fat_memalign(page, rounded & ~(page - 1));
}

TL_EXPORT size_t malloc_usable_size(void *p)
{
	return fat_malloc_usable_size(p);
}
