/*
 * Pools: reserving them and bumping memory out of them.
 *
 * A pool is one mapping, backed by the best pages the machine will give:
 * 1 GiB hugetlb pages (the FAT paper's one huge page), else 2 MiB hugetlb
 * pages, else anonymous memory aligned to 2 MiB and advised for
 * transparent huge pages, else plain anonymous memory. The free counts in
 * sysfs are read first so the usual "none reserved" case costs no failed
 * mmap; the mmap can still fail (pages taken meanwhile, fragmentation),
 * and then the next backing is tried. A private hugetlb mapping reserves
 * its pages at mmap time, so a pool that got them cannot SIGBUS later.
 *
 * Nothing is reserved before the first allocation asks for memory (never
 * in a constructor): a program that never allocates maps nothing. For the
 * same reason the first 2 MiB of the first anonymous pool are not advised
 * for THP: a program whose heap stays that small would otherwise hold a
 * whole huge page for a few kilobytes, most of its resident memory (twice
 * glibc's for many small programs); its TLB gains nothing from it either.
 *
 * Bumping takes no lock: each pool's top moves by compare-and-swap, so
 * threads carving segments concurrently never share a block. The lock is
 * taken only to reserve a pool, which happens a handful of times per
 * process, and to bring a top down (a trim). Pools are never unmapped, so
 * fat_in_pool can read the table without a lock; what goes back to the
 * kernel is the free tail below a top, in whole pages of the backing
 * (MADV_DONTNEED: a THP or a hugetlb page whole, never split), and only
 * when large.c finds that tail longer than TIERLAB_FAT_TRIM. A private
 * hugetlb page given back keeps its reservation (the kernel restores it),
 * so faulting it again later cannot SIGBUS.
 */
#include "fatalloc/fatalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif
#ifndef MAP_HUGE_1GB
#define MAP_HUGE_1GB (30 << MAP_HUGE_SHIFT)
#endif

#define MiB2 ((size_t)2 << 20)
#define FRONT ((size_t)4096)	/* the ordinary page below a hugetlb pool's pages */
#define GiB1 ((size_t)1 << 30)

struct fat_pool fat_pools[FAT_POOLS_LIMIT];
_Atomic unsigned fat_npools;
static char first_note[256];

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) & ~(to - 1);
}

/* Reads a small sysfs file into buf (NUL-terminated); -1 when it cannot. */
static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static long read_count(const char *path)
{
	char buf[32];
	long v = 0;
	int digits = 0;

	if (read_small(path, buf, sizeof(buf)))
		return -1;
	for (char *p = buf; *p >= '0' && *p <= '9'; p++, digits++)
		v = v * 10 + (*p - '0');
	return digits ? v : -1;
}

long fat_hugetlb_available(unsigned long kb)
{
	char path[96];
	long free_pages, resv;

	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%lukB/free_hugepages", kb);
	free_pages = read_count(path);
	if (free_pages < 0)
		return -1;
	/* pages promised to other mappings are counted free but are not ours */
	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%lukB/resv_hugepages", kb);
	resv = read_count(path);
	return resv > 0 && resv <= free_pages ? free_pages - resv : free_pages;
}

static bool thp_disabled(void)
{
	char buf[128];

	return !read_small("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)) &&
	       strstr(buf, "[never]");
}

/* Appends "; <text>" to the note of why better backings were not had. */
__attribute__((format(printf, 3, 4)))
static void add_note(char *note, size_t len, const char *fmt, ...)
{
	size_t used = strlen(note);
	va_list ap;

	if (used + 3 >= len)
		return;
	if (used) {
		memcpy(note + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(note + used, len - used, fmt, ap);
	va_end(ap);
}

/*
 * Hugetlb pages, with one ordinary page right below them (the front): the
 * first block's header lies there, so a block of exactly N huge pages
 * (a program's 4 GiB array) takes N pages and not N + 1, a whole 1 GiB page
 * more for its 16-byte header. The pool starts at the front.
 */
static void *map_hugetlb(size_t *len, unsigned long kb, int flag, char *note, size_t notelen)
{
	size_t page = (size_t)kb << 10;
	size_t want = round_up(*len > FRONT ? *len - FRONT : 1, page);
	long avail = fat_hugetlb_available(kb);
	char *space, *base;
	void *p;

	if (avail < 0) {
		add_note(note, notelen, "hugetlb-%s: no such page size on this kernel", kb == 2048 ? "2M" : "1G");
		return NULL;
	}
	if ((unsigned long long)avail < want / page) {
		add_note(note, notelen, "hugetlb-%s: %zu pages needed, %ld free",
			 kb == 2048 ? "2M" : "1G", want / page, avail);
		return NULL;
	}
	/* address space for the front and an aligned run of pages, then each put in place */
	space = mmap(NULL, want + page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (space == MAP_FAILED) {
		add_note(note, notelen, "hugetlb-%s: no address space for %zu pages (%s)",
			 kb == 2048 ? "2M" : "1G", want / page, strerrorname_np(errno));
		return NULL;
	}
	base = (char *)round_up((uintptr_t)space + FRONT, page);
	p = mmap(base, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED | flag,
		 -1, 0);
	if (p == MAP_FAILED) {
		add_note(note, notelen, "hugetlb-%s: mmap of %zu pages failed (%s)",
			 kb == 2048 ? "2M" : "1G", want / page, strerrorname_np(errno));
		munmap(space, want + page);
		return NULL;
	}
	if (mmap(base - FRONT, FRONT, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
	    MAP_FAILED) {
		add_note(note, notelen, "hugetlb-%s: the front page could not be mapped (%s)",
			 kb == 2048 ? "2M" : "1G", strerrorname_np(errno));
		munmap(space, want + page);
		return NULL;
	}
	if (base - FRONT > space)
		munmap(space, (size_t)(base - FRONT - space));
	if (base + want < space + want + page)
		munmap(base + want, (size_t)(space + want + page - (base + want)));
	*len = want + FRONT;
	return base - FRONT;
}

/*
 * Anonymous memory on a 2 MiB boundary, so THP can back it from its first
 * byte, or from the second huge page on when small_head (the first pool).
 */
static void *map_anon(size_t *len, bool thp, bool small_head, bool *got_thp, char *note, size_t notelen)
{
	size_t want = round_up(*len, MiB2);
	char *p = mmap(NULL, want + MiB2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *start;

	if (p == MAP_FAILED) {
		add_note(note, notelen, "anonymous mmap of %zu bytes failed (%s)",
			 want, strerrorname_np(errno));
		return NULL;
	}
	start = (char *)round_up((uintptr_t)p, MiB2);
	if (start > p)
		munmap(p, (size_t)(start - p));
	if (start + want < p + want + MiB2)
		munmap(start + want, (size_t)(p + want + MiB2 - (start + want)));
	*got_thp = false;
	if (thp) {
		if (thp_disabled())
			add_note(note, notelen, "thp: transparent huge pages are off (never)");
		else if (small_head && want > MiB2 ? madvise(start + MiB2, want - MiB2, MADV_HUGEPAGE)
						 : madvise(start, want, MADV_HUGEPAGE))
			add_note(note, notelen, "thp: madvise(MADV_HUGEPAGE) failed (%s)", strerrorname_np(errno));
		else
			*got_thp = true;
	}
	*len = want;
	return start;
}

/* Maps a pool of at least len bytes with the best backing from first on; first_pool: see map_anon. */
static int reserve(struct fat_pool *pool, size_t len, enum fat_backing first, bool first_pool, char *note,
		   size_t notelen)
{
	void *p = NULL;
	bool thp = false;
	size_t got = len;

	note[0] = '\0';
	for (enum fat_backing b = first; b < FAT_BACKING__COUNT; b++) {
		got = len;
		switch (b) {
		case FAT_BACKING_HUGETLB_1G:
			/* a pool smaller than the page would waste most of it */
			if (len < GiB1) {
				add_note(note, notelen, "hugetlb-1G: pool smaller than a 1 GiB page");
				continue;
			}
			p = map_hugetlb(&got, 1048576, MAP_HUGE_1GB, note, notelen);
			break;
		case FAT_BACKING_HUGETLB_2M:
			p = map_hugetlb(&got, 2048, MAP_HUGE_2MB, note, notelen);
			break;
		case FAT_BACKING_THP:
			p = map_anon(&got, true, first_pool, &thp, note, notelen);
			if (p && !thp)
				b = FAT_BACKING_4K;
			break;
		case FAT_BACKING_4K:
			p = map_anon(&got, false, false, &thp, note, notelen);
			break;
		default:
			continue;
		}
		if (p) {
			pool->base = p;
			pool->size = got;
			atomic_store_explicit(&pool->top, 0, memory_order_relaxed);
			pool->backing = b;
			pool->page = b == FAT_BACKING_HUGETLB_1G ? GiB1 : b == FAT_BACKING_4K ? 4096 : MiB2;
			return 0;
		}
	}
	return -ENOMEM;
}

static void *carve_in(struct fat_pool *pool, size_t size, size_t align)
{
	size_t top = atomic_load_explicit(&pool->top, memory_order_relaxed);
	uintptr_t base = (uintptr_t)pool->base;

	for (;;) {
		size_t start = round_up(base + top, align) - base;

		if (start < top || start > pool->size || pool->size - start < size)
			return NULL;
		if (atomic_compare_exchange_weak_explicit(&pool->top, &top, start + size,
							  memory_order_relaxed, memory_order_relaxed)) {
			fat_stat_add(FAT_STAT_pool_bytes_used, (int64_t)(start + size - top));
			return pool->base + start;
		}
	}
}

static void *carve_any(size_t size, size_t align)
{
	unsigned n = atomic_load_explicit(&fat_npools, memory_order_acquire);
	void *r;

	/* newest first: older pools are usually full */
	for (unsigned i = n; i-- > 0;)
		if ((r = carve_in(&fat_pools[i], size, align)))
			return r;
	return NULL;
}

void *fat_pool_carve(size_t size, size_t align)
{
	char note[sizeof(first_note)];
	void *r = carve_any(size, align);
	size_t want;
	unsigned n;
	int saved = errno;

	if (r)
		goto out;
	if (size > FAT_MAX_ALIGN * 64 || align > FAT_MAX_ALIGN)
		return NULL;	/* more than the address space can hold: no mmap attempt */
	pthread_mutex_lock(&fat_pool_lock);
	fat_init_locked();
	if ((r = carve_any(size, align)))
		goto unlock;
	n = atomic_load_explicit(&fat_npools, memory_order_relaxed);
	if (n >= fat_opt.max_pools)
		goto unlock;
	want = size + (align > FAT_HDR ? align : 0);
	if (want < fat_opt.pool_size)
		want = fat_opt.pool_size;
	if (reserve(&fat_pools[n], want, fat_opt.first, !n, note, sizeof(note)))
		goto unlock;
	if (!n)
		memcpy(first_note, note, sizeof(first_note));
	fat_stat_add(FAT_STAT_pool_bytes_reserved, (int64_t)fat_pools[n].size);
	atomic_store_explicit(&fat_npools, n + 1, memory_order_release);
	r = carve_in(&fat_pools[n], size, align);
	fat_verbose_once();
	fat_status_update();
unlock:
	pthread_mutex_unlock(&fat_pool_lock);
	errno = saved;
out:
	return r;
}

bool fat_pool_extend(char *end, size_t extra)
{
	unsigned n = atomic_load_explicit(&fat_npools, memory_order_acquire);

	for (unsigned i = 0; i < n; i++) {
		struct fat_pool *pool = &fat_pools[i];
		size_t top, want;

		if (end <= pool->base || end > pool->base + pool->size)
			continue;
		/* only the block that ends at the top can grow: nothing lies after it */
		top = (size_t)(end - pool->base);
		if (__builtin_add_overflow(top, extra, &want) || want > pool->size)
			return false;
		if (!atomic_compare_exchange_strong_explicit(&pool->top, &top, want, memory_order_relaxed,
							     memory_order_relaxed))
			return false;
		fat_stat_add(FAT_STAT_pool_bytes_used, (int64_t)extra);
		return true;
	}
	return false;
}

struct fat_pool *fat_pool_of(const void *p)
{
	unsigned n = atomic_load_explicit(&fat_npools, memory_order_acquire);

	for (unsigned i = 0; i < n; i++)
		if ((uintptr_t)p - (uintptr_t)fat_pools[i].base < fat_pools[i].size)
			return &fat_pools[i];
	return NULL;
}

bool fat_pool_trim(struct fat_pool *pool, char *start, char *top)
{
	size_t t = (size_t)(top - pool->base), from = (size_t)(start - pool->base);
	bool done = false;
	int saved = errno;

	if (atomic_load_explicit(&pool->untrimmable, memory_order_relaxed))
		return false;
	pthread_mutex_lock(&fat_pool_lock);
	/*
	 * Claim the rest of the pool while its pages go: the page holding the
	 * top may reach above it, and nothing may be carved there meanwhile.
	 * A carver that finds the pool full waits on this lock, then finds the
	 * room again; a top that moved since the caller looked means a block
	 * now lies above the range, which is no tail any more.
	 */
	if (!atomic_compare_exchange_strong_explicit(&pool->top, &t, pool->size, memory_order_relaxed,
						     memory_order_relaxed))
		goto unlock;
	if (madvise(start, round_up((uintptr_t)top, pool->page) - (uintptr_t)start, MADV_DONTNEED)) {
		/* not zero, so not above a top: keep it (an old kernel refusing hugetlb) */
		atomic_store_explicit(&pool->untrimmable, true, memory_order_relaxed);
		atomic_store_explicit(&pool->top, t, memory_order_relaxed);
		goto unlock;
	}
	atomic_store_explicit(&pool->top, from, memory_order_relaxed);
	fat_stat_add(FAT_STAT_trims, 1);
	fat_stat_add(FAT_STAT_bytes_trimmed, (int64_t)(t - from));
	fat_stat_add(FAT_STAT_pool_bytes_used, -(int64_t)(t - from));
	done = true;
unlock:
	pthread_mutex_unlock(&fat_pool_lock);
	errno = saved;
	return done;
}

enum fat_backing fat_pool_backing(void)
{
	return atomic_load_explicit(&fat_npools, memory_order_acquire) ? fat_pools[0].backing
								       : FAT_BACKING_NONE;
}

const char *fat_pool_note(void)
{
	return first_note;
}

void fat_pool_reset(void)
{
	unsigned n = atomic_load(&fat_npools);

	for (unsigned i = 0; i < n; i++)
		munmap(fat_pools[i].base, fat_pools[i].size);
	memset(fat_pools, 0, sizeof(fat_pools));
	atomic_store(&fat_npools, 0);
	first_note[0] = '\0';
}
