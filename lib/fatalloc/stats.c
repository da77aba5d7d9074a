/*
 * Counters and the status file tierlab reads back.
 *
 * The counters are one list (FAT_STATS in fatalloc.h) that makes the enum,
 * the names and the status file's lines. Threads count allocations and
 * frees in their own cache and publish them every few thousand operations
 * and on every slow path, so the fast path touches no shared cache line;
 * bytes_allocated_peak is therefore the peak of what was published, exact
 * to within a few thousand blocks per thread.
 *
 * The status file $TIERLAB_OUT/fatalloc-PID.txt is the interface to
 * tierlab's ingest (docs/fatalloc.md lists its keys). It is written when a
 * pool is reserved, at the first fallback, and at exit, each time whole
 * (a temporary file renamed over it), so a reader never sees half of one
 * and a process killed early still leaves the backing it got. All of it is
 * formatted on the stack and written with system calls: it runs inside
 * malloc and must not allocate.
 */
#include "fatalloc/fatalloc.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *const fat_stat_names[FAT_STAT__COUNT] = {
#define FAT_STAT_NAME(name, help) #name,
	FAT_STATS(FAT_STAT_NAME)
#undef FAT_STAT_NAME
};

_Atomic int64_t fat_stats[FAT_STAT__COUNT];
static _Atomic int verbose_said;

void fat_stats_flush(struct fat_tcache *tc)
{
	int64_t live, peak;

	if (tc->mallocs)
		fat_stat_add(FAT_STAT_mallocs, (int64_t)tc->mallocs);
	if (tc->frees)
		fat_stat_add(FAT_STAT_frees, (int64_t)tc->frees);
	tc->mallocs = tc->frees = tc->ops = 0;
	if (!tc->live_delta)
		return;
	live = atomic_fetch_add_explicit(&fat_stats[FAT_STAT_bytes_allocated], tc->live_delta,
					 memory_order_relaxed) + tc->live_delta;
	tc->live_delta = 0;
	peak = atomic_load_explicit(&fat_stats[FAT_STAT_bytes_allocated_peak], memory_order_relaxed);
	while (live > peak &&
	       !atomic_compare_exchange_weak_explicit(&fat_stats[FAT_STAT_bytes_allocated_peak], &peak, live,
						      memory_order_relaxed, memory_order_relaxed))
		;
}

struct buf {
	char text[4096];
	size_t len;
};

__attribute__((format(printf, 2, 3)))
static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len >= sizeof(b->text) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->text + b->len, sizeof(b->text) - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n < sizeof(b->text) - b->len ? (size_t)n : sizeof(b->text) - 1 - b->len;
}

static void format_status(struct buf *b)
{
	unsigned n = atomic_load_explicit(&fat_npools, memory_order_acquire);

	put(b, "allocator: fat\n");
	put(b, "pid: %d\n", (int)getpid());
	put(b, "backing: %s\n", fat_backing_names[fat_pool_backing()]);
	put(b, "backing_note: %s\n", fat_pool_note()[0] ? fat_pool_note() : "-");
	put(b, "pool_size: %zu\n", fat_opt.pool_size);
	put(b, "pools: %u\n", n);
	put(b, "max_pools: %u\n", fat_opt.max_pools);
	put(b, "pool_backings:");
	for (unsigned i = 0; i < n; i++)
		put(b, "%s%s", i ? "," : " ", fat_backing_names[fat_pools[i].backing]);
	put(b, "%s\n", n ? "" : " -");
	for (int s = 0; s < FAT_STAT__COUNT; s++)
		put(b, "%s: %lld\n", fat_stat_names[s],
		    (long long)atomic_load_explicit(&fat_stats[s], memory_order_relaxed));
}

void fat_status_update(void)
{
	char path[sizeof(fat_opt.out) + 64], tmp[sizeof(path)];
	struct buf b = { .len = 0 };
	int fd, pid = (int)getpid();
	bool ok;

	if (!fat_opt.out[0])
		return;
	fat_stats_flush(&fat_tc);
	format_status(&b);
	snprintf(path, sizeof(path), "%s/fatalloc-%d.txt", fat_opt.out, pid);
	snprintf(tmp, sizeof(tmp), "%s/.fatalloc-%d.txt.tmp", fat_opt.out, pid);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	ok = write(fd, b.text, b.len) == (ssize_t)b.len;
	ok = !close(fd) && ok;
	if (!ok || rename(tmp, path))
		unlink(tmp);
}

void fat_verbose_once(void)
{
	char line[512];
	int n;

	if (!fat_opt.verbose || atomic_exchange(&verbose_said, 1))
		return;
	n = snprintf(line, sizeof(line), "fatalloc: pool of %zu MiB at %p backed by %s%s%s%s\n",
		     fat_pools[0].size >> 20, (void *)fat_pools[0].base, fat_backing_names[fat_pools[0].backing],
		     fat_pool_note()[0] ? " (" : "", fat_pool_note(), fat_pool_note()[0] ? ")" : "");
	if (n > 0)
		(void)!write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

TL_EXPORT void fat_status_write(void)
{
	pthread_mutex_lock(&fat_pool_lock);
	fat_init_locked();
	fat_status_update();
	pthread_mutex_unlock(&fat_pool_lock);
}

TL_EXPORT const char *fat_backing_name(void)
{
	return fat_backing_names[fat_pool_backing()];
}

TL_EXPORT int fat_owns(const void *p)
{
	return fat_in_pool(p);
}

TL_EXPORT long long fat_stat_get(const char *name)
{
	if (!name)
		return -1;
	if (!strcmp(name, "pools"))
		return atomic_load_explicit(&fat_npools, memory_order_acquire);
	fat_stats_flush(&fat_tc);
	for (int s = 0; s < FAT_STAT__COUNT; s++)
		if (!strcmp(name, fat_stat_names[s]))
			return atomic_load_explicit(&fat_stats[s], memory_order_relaxed);
	return -1;
}

/* The last word at exit (a process that never allocated still says backing: none). */
__attribute__((destructor)) static void status_at_exit(void)
{
	fat_status_write();
}
