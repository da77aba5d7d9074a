/*
 * Helpers the userfaultfd samplers share: opening a userfaultfd that
 * handles kernel-mode faults (the syscall, or /dev/userfaultfd when the
 * syscall is refused to this process), range registration, moves, and
 * small formatters that keep the samplers' threads free of stdio.
 */
#include "tiermem/sampler-uffd.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MOVE_RETRIES 1000

size_t tlrt_fmt_str(char *buf, size_t cap, size_t at, const char *s)
{
	while (*s && at + 1 < cap)
		buf[at++] = *s++;
	if (cap)
		buf[at < cap ? at : cap - 1] = '\0';
	return at;
}

size_t tlrt_fmt_ulong(char *buf, size_t cap, size_t at, unsigned long v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && at + 1 < cap)
		buf[at++] = tmp[--n];
	if (cap)
		buf[at < cap ? at : cap - 1] = '\0';
	return at;
}

static int reason(char *why, size_t whylen, const char *what, int err)
{
	size_t at = tlrt_fmt_str(why, whylen, 0, what);

	at = tlrt_fmt_str(why, whylen, at, ": ");
	tlrt_fmt_str(why, whylen, at, strerror(err));
	return -err;
}

static int open_raw(void)
{
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	int dev, err;

	if (fd >= 0 || errno != EPERM)
		return fd;
	/*
	 * vm.unprivileged_userfaultfd=0 refuses kernel-mode fault handling to
	 * a process without CAP_SYS_PTRACE; access to /dev/userfaultfd grants
	 * it. Never fall back to UFFD_USER_MODE_ONLY: that fails kernel
	 * accesses with EFAULT, the very thing this sampler must prevent.
	 */
	err = errno;
	dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		errno = err;
		return -1;
	}
	fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
	close(dev);
	return fd;
}

int tlrt_uffd_open(uint64_t need, uint64_t want, uint64_t *got, char *why, size_t whylen)
{
	struct uffdio_api api = { .api = UFFD_API, .features = 0 };
	int fd = open_raw(), err;

	if (fd < 0)
		return reason(why, whylen, "userfaultfd", errno);
	/* features = 0 first: the kernel reports what it has without committing */
	if (ioctl(fd, UFFDIO_API, &api)) {
		err = errno;
		close(fd);
		return reason(why, whylen, "UFFDIO_API", err);
	}
	if ((api.features & need) != need) {
		close(fd);
		if (need & ~api.features & UFFD_FEATURE_MOVE)
			tlrt_fmt_str(why, whylen, 0, "userfaultfd: no UFFDIO_MOVE in this kernel (needs Linux 6.8)");
		else if (need & ~api.features & UFFD_FEATURE_WP_ASYNC)
			tlrt_fmt_str(why, whylen, 0, "userfaultfd: no async write-protect in this kernel (needs Linux 6.7)");
		else
			tlrt_fmt_str(why, whylen, 0, "userfaultfd: a needed feature is missing in this kernel");
		return -ENOTSUP;
	}
	/* the API handshake happens once per fd: a fresh one for the real request */
	close(fd);
	if ((fd = open_raw()) < 0)
		return reason(why, whylen, "userfaultfd", errno);
	api = (struct uffdio_api){ .api = UFFD_API, .features = need | (want & api.features) };
	if (ioctl(fd, UFFDIO_API, &api)) {
		err = errno;
		close(fd);
		return reason(why, whylen, "UFFDIO_API", err);
	}
	if (got)
		*got = api.features;
	return fd;
}

int tlrt_uffd_register(int fd, uintptr_t addr, size_t len, uint64_t mode, uint64_t *ioctls)
{
	struct uffdio_register r = { .range = { .start = addr, .len = len }, .mode = mode };

	if (ioctl(fd, UFFDIO_REGISTER, &r))
		return -errno;
	if (ioctls)
		*ioctls = r.ioctls;
	return 0;
}

int tlrt_uffd_unregister(int fd, uintptr_t addr, size_t len)
{
	struct uffdio_range r = { .start = addr, .len = len };

	return ioctl(fd, UFFDIO_UNREGISTER, &r) ? -errno : 0;
}

int tlrt_uffd_move(int fd, uintptr_t dst, uintptr_t src, size_t len, int flags, size_t *moved)
{
	size_t done = 0;
	int tries = 0;

	*moved = 0;
	while (done < len) {
		struct uffdio_move mv = {
			.dst = dst + done,
			.src = src + done,
			.len = len - done,
			.mode = UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES |
				(flags & TLRT_MOVE_WAKE ? 0 : UFFDIO_MOVE_MODE_DONTWAKE),
		};

		if (!ioctl(fd, UFFDIO_MOVE, &mv)) {
			*moved += len - done;
			return 0;
		}
		if (mv.move > 0) {
			done += (size_t)mv.move;
			*moved += (size_t)mv.move;
			continue;
		}
		if (errno == EAGAIN && ++tries < MOVE_RETRIES)
			continue;
		if (errno == EEXIST && (flags & TLRT_MOVE_SKIP_PRESENT)) {
			done += 4096;
			continue;
		}
		return -errno;
	}
	return 0;
}

uintptr_t tlrt_map_aligned(size_t len, size_t align, int prot)
{
	void *p = mmap(NULL, len + align, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		return 0;
	a = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	munmap((void *)(a + len), (uintptr_t)p + align - a);
	return a;
}

int tlrt_block_is_huge(uintptr_t addr)
{
	struct page_region v[4];
	struct pm_scan_arg a = {
		.size = sizeof(a),
		.start = addr,
		.end = addr + TLRT_UFFD_BLOCK,
		.vec = (uintptr_t)v,
		.vec_len = 4,
		.category_mask = PAGE_IS_HUGE,
		.return_mask = PAGE_IS_HUGE,
	};
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC), n, saved = errno;

	if (fd < 0)
		return -errno;
	n = ioctl(fd, PAGEMAP_SCAN, &a);
	if (n < 0)
		n = -errno;
	close(fd);
	errno = saved;
	if (n < 0)
		return n;
	return n == 1 && v[0].start == addr && v[0].end == addr + TLRT_UFFD_BLOCK;
}
