/*
 * The `uffd-wp` sampler: finds pages the program wrote, with no fault ever
 * reaching the program. All managed memory is registered for userfaultfd
 * write-protection in async mode (UFFD_FEATURE_WP_ASYNC, Linux 6.7): a
 * write to a protected page is resolved inside the kernel, which only
 * clears the page's protection. Each tick one PAGEMAP_SCAN on
 * /proc/self/pagemap (PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC) lists
 * the pages written since the last tick and protects them again in the
 * same call, and one of them, drawn uniformly, is the tick's sample:
 * address, flag RT_SAMPLE_WRITE, no PC, no thread.
 *
 * Its bias, stated in docs/samplers.md with the measured figure: it sees
 * writes only (memory that is only read is invisible), and a page written
 * once in a tick counts as much as one written a million times, so at low
 * rates it samples the written footprint rather than the write frequency.
 *
 * Protection stays on through the core's frees and migrations (the kernel
 * keeps it across both, and the program never notices it), so
 * release_range() has nothing to undo. Whole 2 MiB THPs are protected as
 * one PMD and never split.
 */
#include "tiermem/keepfd.h"
#include "tiermem/rt-sampler.h"
#include "tiermem/sampler-uffd.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL

static struct {
	const struct rt_sampler_env *env;
	pthread_mutex_t lock;
	int fd;			/* userfaultfd, -1 when off */
	int pagemap;
	struct tlrt_fdid fd_id, pm_id;	/* what they name: the program may close and reuse the numbers (keepfd.h) */
	int paused;
	int restart;
	struct rt_block watched;	/* registered and protected; len 0 = nothing */
	uint64_t rng;
} W = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
	.pagemap = -1,
	.rng = 0x9e3779b97f4a7c15ULL,
};

static uint64_t next_random(void)
{
	W.rng ^= W.rng << 13;
	W.rng ^= W.rng >> 7;
	W.rng ^= W.rng << 17;
	return W.rng;
}

/* Register and protect the whole span; its first scan reports nothing. */
static int watch(const struct rt_block *b)
{
	struct uffdio_writeprotect wp = { .range = { .start = b->addr, .len = b->len },
					  .mode = UFFDIO_WRITEPROTECT_MODE_WP };

	if (tlrt_uffd_register(W.fd, b->addr, b->len, UFFDIO_REGISTER_MODE_WP, NULL))
		return -1;
	if (ioctl(W.fd, UFFDIO_WRITEPROTECT, &wp)) {
		tlrt_uffd_unregister(W.fd, b->addr, b->len);
		return -1;
	}
	W.watched = *b;
	return 0;
}

/* The pages written since the last scan, protected again; one drawn uniformly, or 0. */
static uintptr_t scan_draw(const struct rt_block *b)
{
	struct page_region v[64];
	struct pm_scan_arg arg = {
		.size = sizeof(arg),
		.flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
		.start = b->addr,
		.end = b->addr + b->len,
		.vec = (uintptr_t)v,
		.vec_len = 64,
		.category_mask = PAGE_IS_WRITTEN,
		.return_mask = PAGE_IS_WRITTEN,
	};
	uint64_t seen = 0;
	uintptr_t pick = 0;
	int n;

	/* walk_end says where a full vector stopped: go on from there */
	while (arg.start < arg.end && (n = ioctl(W.pagemap, PAGEMAP_SCAN, &arg)) > 0) {
		for (int i = 0; i < n; i++) {
			uint64_t pages = (v[i].end - v[i].start) / PAGE;

			/* reservoir of one over runs of pages: each written page equally likely */
			seen += pages;
			if (next_random() % seen < pages)
				pick = v[i].start + (next_random() % pages) * PAGE;
		}
		arg.start = arg.walk_end;
	}
	return pick;
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
	W.fd = tlrt_fd_keep(W.fd, &W.fd_id);
	W.pagemap = tlrt_fd_keep(open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC), &W.pm_id);
	if (W.fd < 0 || W.pagemap < 0) {
		err = -errno;
		tlrt_fmt_str(why, whylen, 0, "cannot open /proc/self/pagemap");
		tlrt_fd_drop(&W.fd, &W.fd_id);
		tlrt_fd_drop(&W.pagemap, &W.pm_id);
		return err;
	}
	W.watched.len = 0;
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

static int wp_tick(void)
{
	struct rt_block b;
	struct rt_sample smp = { .flags = RT_SAMPLE_WRITE };
	int saved = errno;

	pthread_mutex_lock(&W.lock);
	if (W.restart) {
		char why[128];

		W.restart = 0;
		wp_start_locked(why, sizeof(why));
	}
	if (W.fd < 0 || W.paused || W.env->span(&b))
		goto out;
	if (!tlrt_fd_is(W.fd, &W.fd_id) || !tlrt_fd_is(W.pagemap, &W.pm_id)) {
		static const char msg[] = "tiermem: uffd-wp sampler: the program closed its descriptors (or reused "
					  "the numbers): sampling stops\n";

		/* the numbers are the program's now: never used or closed again */
		W.fd = W.pagemap = -1;
		W.watched.len = 0;
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
			/* nowhere to say it */
		}
		goto out;
	}
	/* the span grew (or is new): its new part was never protected, so nothing to report yet */
	if (b.addr != W.watched.addr || b.len != W.watched.len) {
		watch(&b);
		goto out;
	}
	smp.t_ns = rt_now_ns();
	if ((smp.addr = scan_draw(&b)))
		W.env->deliver(&smp);
out:
	pthread_mutex_unlock(&W.lock);
	errno = saved;
	return 0;
}

static void wp_release_range(uintptr_t addr, size_t len)
{
	(void)addr, (void)len;
}

static void wp_stop(void)
{
	int saved = errno;

	pthread_mutex_lock(&W.lock);
	W.restart = 0;
	if (W.fd >= 0) {
		/* unregistering also clears the protection of every page */
		if (W.watched.len)
			tlrt_uffd_unregister(W.fd, W.watched.addr, W.watched.len);
		W.watched.len = 0;
		tlrt_fd_drop(&W.fd, &W.fd_id);
		tlrt_fd_drop(&W.pagemap, &W.pm_id);
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
		tlrt_fd_drop(&W.fd, &W.fd_id);
		tlrt_fd_drop(&W.pagemap, &W.pm_id);
	}
	W.fd = W.pagemap = -1;
	W.watched.len = 0;
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
