/*
 * What the userfaultfd samplers share: the kernel ABI they need beyond
 * Debian 12's linux-libc-dev (6.1), which predates UFFDIO_MOVE (6.8),
 * UFFD_FEATURE_WP_ASYNC (6.7) and PAGEMAP_SCAN (6.7), and a few small
 * helpers. The values are the kernel's uapi ABI; each is only defined when
 * the installed headers lack it, so newer headers win.
 *
 * Everything here is hidden in libtiermem.so and safe to call from a
 * sampler's own thread: no allocation, no stdio.
 */
#ifndef TLRT_SAMPLER_UFFD_H
#define TLRT_SAMPLER_UFFD_H

#include <linux/fs.h>
#include <linux/types.h>
#include <linux/userfaultfd.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/types.h>

#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC_NEW _IO(0xAA, 0x00)
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE (1 << 16)
#endif

#ifndef UFFDIO_MOVE
#define _UFFDIO_MOVE (0x05)
struct uffdio_move {
	__u64 dst;
	__u64 src;
	__u64 len;
#define UFFDIO_MOVE_MODE_DONTWAKE ((__u64)1 << 0)
#define UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES ((__u64)1 << 1)
	__u64 mode;
	__s64 move;	/* bytes moved, or -errno when nothing moved */
};
#define UFFDIO_MOVE _IOWR(UFFDIO, _UFFDIO_MOVE, struct uffdio_move)
#endif

#ifndef PAGEMAP_SCAN
#define PAGE_IS_WPALLOWED (1 << 0)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_FILE (1 << 2)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)
#define PAGE_IS_PFNZERO (1 << 5)
#define PAGE_IS_HUGE (1 << 6)
#define PAGE_IS_SOFT_DIRTY (1 << 7)

struct page_region {
	__u64 start;
	__u64 end;
	__u64 categories;
};

#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)

struct pm_scan_arg {
	__u64 size;
	__u64 flags;
	__u64 start;
	__u64 end;
	__u64 walk_end;
	__u64 vec;
	__u64 vec_len;
	__u64 max_pages;
	__u64 category_inverted;
	__u64 category_mask;
	__u64 category_anyof_mask;
	__u64 return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

#define TLRT_UFFD_BLOCK (2UL << 20)	/* PMD size on x86-64: arm whole THPs only */

/*
 * A userfaultfd (O_CLOEXEC|O_NONBLOCK) that handles kernel-mode faults too
 * (never UFFD_USER_MODE_ONLY: a fault inside read() must block, not fail),
 * with at least `need` features; `want` are added when the kernel has
 * them. The fd, or -errno with a one-line reason in why.
 */
int tlrt_uffd_open(uint64_t need, uint64_t want, uint64_t *got, char *why, size_t whylen);
int tlrt_uffd_register(int fd, uintptr_t addr, size_t len, uint64_t mode, uint64_t *ioctls);
int tlrt_uffd_unregister(int fd, uintptr_t addr, size_t len);

#define TLRT_MOVE_WAKE 0x1		/* wake threads waiting on dst as their pages arrive */
#define TLRT_MOVE_SKIP_PRESENT 0x2	/* a page already at dst stays; go on after it */
/*
 * UFFDIO_MOVE of [src, src+len) to dst, holes in src left as holes, a page
 * that changed under the move (racing fault, migration) tried again a
 * bounded number of times. 0, or -errno where it stopped; *moved is the
 * bytes moved (without TLRT_MOVE_SKIP_PRESENT, also where it stopped).
 */
int tlrt_uffd_move(int fd, uintptr_t dst, uintptr_t src, size_t len, int flags, size_t *moved);
/* Anonymous private MAP_NORESERVE memory of len bytes aligned to align (a power of two); 0 with errno set on failure. */
uintptr_t tlrt_map_aligned(size_t len, size_t align, int prot);

/* Tiny formatting for paths and reasons without stdio. */
size_t tlrt_fmt_str(char *buf, size_t cap, size_t at, const char *s);
size_t tlrt_fmt_ulong(char *buf, size_t cap, size_t at, unsigned long v);

/*
 * Whether a PMD-sized block is mapped by one huge page (PAGEMAP_SCAN);
 * 1, 0, or -errno. Used by tests and the benchmark to check that sampling
 * never splits THPs.
 */
int tlrt_block_is_huge(uintptr_t addr);

#endif
