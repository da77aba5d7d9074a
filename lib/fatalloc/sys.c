/*
 * The system allocator behind the pools: the next malloc in the link
 * chain (glibc's, unless another allocator is preloaded after this one),
 * found once with dlsym(RTLD_NEXT) the first time it is needed.
 *
 * dlsym may itself call calloc (for its error buffer). If that calloc came
 * back here (the pools cannot serve, so it falls back to the system
 * allocator being resolved), it would recurse; so while a thread resolves,
 * its allocations come from a small static buffer, bumped and never
 * reused, whose pointers free() recognises and ignores.
 */
#include "fatalloc/fatalloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

static struct {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	size_t (*malloc_usable_size)(void *);
} next;

static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;
static __thread int resolving __attribute__((tls_model("initial-exec")));

static _Alignas(64) char boot[64 * 1024];
static _Atomic size_t boot_used;

static void *boot_alloc(size_t n)
{
	size_t start, old = atomic_load(&boot_used);

	do {
		start = old + FAT_HDR;
		if (n > sizeof(boot) || start + n > sizeof(boot)) {
			errno = ENOMEM;
			return NULL;
		}
	} while (!atomic_compare_exchange_weak(&boot_used, &old, (start + n + 15) & ~(size_t)15));
	memcpy(boot + start - FAT_HDR, &n, sizeof(n));
	return boot + start;	/* static storage: zero, and never reused */
}

bool fat_sys_is_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

size_t fat_sys_boot_size(const void *p)
{
	size_t n;

	memcpy(&n, (const char *)p - FAT_HDR, sizeof(n));
	return n;
}

static void resolve(void)
{
	resolving = 1;
	next.malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	next.free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	next.calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	next.realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	next.posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	next.malloc_usable_size = (size_t (*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
	resolving = 0;
}

/* False while this thread is inside dlsym: the caller uses the buffer. */
static bool ready(void)
{
	if (resolving)
		return false;
	pthread_once(&resolve_once, resolve);
	return true;
}

void *fat_sys_malloc(size_t size)
{
	if (!ready())
		return boot_alloc(size);
	if (!next.malloc) {
		errno = ENOMEM;
		return NULL;
	}
	return next.malloc(size);
}

void *fat_sys_calloc(size_t n, size_t size)
{
	size_t total;

	if (!ready()) {
		if (__builtin_mul_overflow(n, size, &total)) {
			errno = ENOMEM;
			return NULL;
		}
		return boot_alloc(total);
	}
	if (!next.calloc) {
		errno = ENOMEM;
		return NULL;
	}
	return next.calloc(n, size);
}

void fat_sys_free(void *p)
{
	if (fat_sys_is_boot(p) || !ready() || !next.free)
		return;
	next.free(p);
}

void *fat_sys_realloc(void *p, size_t size)
{
	if (!ready() || !next.realloc) {
		errno = ENOMEM;
		return NULL;
	}
	return next.realloc(p, size);
}

int fat_sys_posix_memalign(void **out, size_t align, size_t size)
{
	if (!ready() || !next.posix_memalign)
		return ENOMEM;
	return next.posix_memalign(out, align, size);
}

size_t fat_sys_usable_size(void *p)
{
	if (!ready() || !next.malloc_usable_size)
		return 0;
	return next.malloc_usable_size(p);
}
