/*
 * The `uffd-wp` sampler: finds pages the program wrote, with no fault ever
 * reaching the program. Managed blocks are registered for userfaultfd
 * write-protection in async mode (UFFD_FEATURE_WP_ASYNC, Linux 6.7): a
 * write to a protected page is resolved inside the kernel, which only
 * clears the page's protection. Each tick PAGEMAP_SCAN on
 * /proc/self/pagemap (PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC) lists
 * the pages written since the last scan of that block and protects them
 * again in the same call. Each written page is a sample: address, flag
 * RT_SAMPLE_WRITE, no PC, no thread. It sees writes only: a block that is
 * only read is invisible to it.
 *
 * Work per tick is bounded: a window of WINDOW blocks, taken round-robin
 * from env->next_block, and at most MAX_SAMPLES samples. Whole 2 MiB
 * blocks are scanned and protected, so THPs are protected as one PMD and
 * never split.
 */
#include "tiermem/rt-sampler.h"
#include "tiermem/sampler-uffd.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK TLRT_UFFD_BLOCK
#define WINDOW 8		/* blocks scanned per tick */
#define MAX_SAMPLES 1024	/* per tick: the core's ring holds 4096 */
#define MAX_BLOCKS 16384	/* registered at once (32 GiB) */
#define PAGE 4096UL

static struct {
	const struct rt_sampler_env *env;
	pthread_mutex_t lock;
	int fd;			/* userfaultfd, -1 when off */
	int pagemap;
	int paused;
	int restart;
	unsigned nblocks;
	uintptr_t blocks[MAX_BLOCKS];	/* registered and protected */
} W = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
	.pagemap = -1,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int known(uintptr_t a)
{
	for (unsigned i = 0; i < W.nblocks; i++)
		if (W.blocks[i] == a)
			return 1;
	return 0;
}

/* Register and protect a block not seen before; its first scan reports nothing. */
static int watch(uintptr_t a)
{
	struct uffdio_writeprotect wp = { .range = { .start = a, .len = BLOCK }, .mode = UFFDIO_WRITEPROTECT_MODE_WP };

	if (W.nblocks == MAX_BLOCKS || tlrt_uffd_register(W.fd, a, BLOCK, UFFDIO_REGISTER_MODE_WP, NULL))
		return -1;
	if (ioctl(W.fd, UFFDIO_WRITEPROTECT, &wp)) {
		tlrt_uffd_unregister(W.fd, a, BLOCK);
		return -1;
	}
	W.blocks[W.nblocks++] = a;
	return 0;
}

static unsigned scan(uintptr_t a, unsigned budget)
{
	struct page_region v[32];
	struct pm_scan_arg arg = {
		.size = sizeof(arg),
		.flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
		.start = a,
		.end = a + BLOCK,
		.vec = (uintptr_t)v,
		.vec_len = 32,
		.category_mask = PAGE_IS_WRITTEN,
		.return_mask = PAGE_IS_WRITTEN,
	};
	uint64_t t = now_ns();
	unsigned sent = 0;
	int n;

	/* walk_end says where a full vector stopped: go on from there */
	while (arg.start < arg.end && (n = ioctl(W.pagemap, PAGEMAP_SCAN, &arg)) > 0) {
		for (int i = 0; i < n; i++)
			for (uint64_t p = v[i].start; p < v[i].end; p += PAGE) {
				struct rt_sample s = { .t_ns = t, .addr = p, .flags = RT_SAMPLE_WRITE };

				if (sent < budget) {
					W.env->deliver(&s);
					sent++;
				}
			}
		arg.start = arg.walk_end;
	}
	return sent;
}

static int wp_start_locked(char *why, size_t whylen)
{
	int err;

	W.fd = tlrt_uffd_open(UFFD_FEATURE_PAGEFAULT_FLAG_WP | UFFD_FEATURE_WP_ASYNC,
			      UFFD_FEATURE_WP_UNPOPULATED, NULL, why, whylen);
	if (W.fd < 0) {
		err = W.fd;
		W.fd = -1;
		return err;
	}
	if ((W.pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0) {
		err = -errno;
		tlrt_fmt_str(why, whylen, 0, "cannot open /proc/self/pagemap");
		close(W.fd);
		W.fd = -1;
		return err;
	}
	W.nblocks = 0;
	W.paused = 0;
	return 0;
}

static int wp_start(const struct rt_sampler_env *env, char *why, size_t whylen)
{
	int saved = errno, err = 0;

	pthread_mutex_lock(&W.lock);
	W.env = env;
	W.restart = 0;
	if (W.fd < 0)
		err = wp_start_locked(why, whylen);
	pthread_mutex_unlock(&W.lock);
	errno = saved;
	return err;
}

static void wp_tick(void)
{
	unsigned sent = 0;
	int saved = errno;

	pthread_mutex_lock(&W.lock);
	if (W.restart) {
		char why[128];

		W.restart = 0;
		wp_start_locked(why, sizeof(why));
	}
	if (W.fd < 0 || W.paused)
		goto out;
	for (int i = 0; i < WINDOW && sent < MAX_SAMPLES; i++) {
		struct rt_block b;

		if (W.env->next_block(&b) || b.addr % BLOCK || b.len != BLOCK)
			break;
		if (!known(b.addr))
			watch(b.addr);
		else
			sent += scan(b.addr, MAX_SAMPLES - sent);
	}
out:
	pthread_mutex_unlock(&W.lock);
	errno = saved;
}

/* Unregistering also clears the protection of every page in the range. Lock held. */
static void unwatch_range(uintptr_t addr, size_t len)
{
	for (unsigned i = 0; i < W.nblocks;)
		if (W.blocks[i] < addr + len && addr < W.blocks[i] + BLOCK) {
			tlrt_uffd_unregister(W.fd, W.blocks[i], BLOCK);
			W.blocks[i] = W.blocks[--W.nblocks];
		} else {
			i++;
		}
}

static void wp_release_range(uintptr_t addr, size_t len)
{
	int saved = errno;

	pthread_mutex_lock(&W.lock);
	if (W.fd >= 0)
		unwatch_range(addr, len);
	pthread_mutex_unlock(&W.lock);
	errno = saved;
}

static void wp_stop(void)
{
	int saved = errno;

	pthread_mutex_lock(&W.lock);
	W.restart = 0;
	if (W.fd >= 0) {
		unwatch_range(0, UINTPTR_MAX);
		close(W.fd);
		close(W.pagemap);
		W.fd = W.pagemap = -1;
	}
	pthread_mutex_unlock(&W.lock);
	errno = saved;
}

static void wp_atfork_prepare(void)
{
	/* async protection needs no help to fork: only keep ticks off the fd meanwhile */
	pthread_mutex_lock(&W.lock);
	W.paused = 1;
	pthread_mutex_unlock(&W.lock);
}

static void wp_atfork_parent(void)
{
	pthread_mutex_lock(&W.lock);
	W.paused = 0;
	pthread_mutex_unlock(&W.lock);
}

static void wp_atfork_child(void)
{
	int was_on = W.fd >= 0;

	/* the fd names the parent's address space; the child's VMAs lost the registration */
	pthread_mutex_init(&W.lock, NULL);
	if (was_on) {
		close(W.fd);
		close(W.pagemap);
	}
	W.fd = W.pagemap = -1;
	W.nblocks = 0;
	W.paused = 0;
	W.restart = was_on;
}

const struct rt_sampler_ops rt_sampler_uffd_wp = {
	.name = "uffd-wp",
	.start = wp_start,
	.tick = wp_tick,
	.release_range = wp_release_range,
	.stop = wp_stop,
	.atfork_prepare = wp_atfork_prepare,
	.atfork_parent = wp_atfork_parent,
	.atfork_child = wp_atfork_child,
};
