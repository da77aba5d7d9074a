/*
 * First touch under the fault sampler on two tiers. The sampler needs the
 * arena as one VMA (sampler-fault.c), so chunks cannot keep a NUMA policy
 * of their own, and a page the program touches first would land wherever
 * the arena's policy lets the kernel put it: on the toucher's node, often
 * the wrong tier. Populating every allocation at malloc placed it right
 * but made untouched memory cost RSS (barnes: 8.7x glibc's peak).
 *
 * Instead the sampler keeps the arena registered for MISSING faults and
 * hands each first touch here, in its handler thread, while the toucher
 * waits. The page, with its neighbours (the unit under THP; without, 64
 * KiB, or the rest of the unit when the touch before was in the same
 * unit, as when a program fills an array), is faulted into a staging
 * mapping bound to the chunk's tier, then moved into place with
 * UFFDIO_MOVE, a huge page as one PMD. The kernel's own first touch would
 * have zeroed the same memory; what this adds is one round trip to the
 * handler per unit (two without THP).
 *
 * Runs with the sampler's lock held, so one caller at a time, and never
 * takes the runtime's lock: the runtime may itself be waiting on a first
 * touch (zeroing a reused region) while holding it. So it reads the tier a
 * chunk's first touches go to, which a migration sets before it moves the
 * chunk's pages: a page first touched during the move lands where the
 * chunk is going.
 */
#include "tiermem/rt.h"
#include "tiermem/sampler-uffd.h"

#include <errno.h>
#include <numaif.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define SMALL_WINDOW (64UL << 10)

static struct {
	uintptr_t stage[2];	/* per tier (enum tlp_tier), one unit, unit-aligned; 0 until first used */
	size_t window;		/* bytes placed per first touch */
	uintptr_t last_unit;	/* where the last first touch was */
	int said;
} FT;

/*
 * The unit under THP (the kernel would fault a huge page), 64 KiB without.
 * Read with read(2): the handler must not take stdio's locks, which a
 * program thread waiting on a first touch may hold.
 */
static size_t window(void)
{
	char mode[128] = "";
	int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC), huge;
	ssize_t n = fd >= 0 ? read(fd, mode, sizeof(mode) - 1) : -1;

	if (fd >= 0)
		close(fd);
	mode[n > 0 ? n : 0] = '\0';
	huge = strstr(mode, "[always]") ? tlrt.opt.thp != 0 : strstr(mode, "[madvise]") ? tlrt.opt.thp > 0 : 0;
	return huge ? TL_UNIT : SMALL_WINDOW;
}

/* A unit of address space bound to tier t's nodes, with the arena's huge-page advice. */
static uintptr_t stage(enum tlp_tier t)
{
	const unsigned long *mask = t == TLP_FAST ? tlrt.fast_mask : tlrt.slow_mask;
	uintptr_t a;

	if (FT.stage[t])
		return FT.stage[t];
	if (!(a = tlrt_map_aligned(TL_UNIT, TL_UNIT, PROT_READ | PROT_WRITE)))
		return 0;
	if (tlrt.opt.thp >= 0)
		tlrt_madvise((void *)a, TL_UNIT, tlrt.opt.thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	if (mbind((void *)a, TL_UNIT, MPOL_BIND, mask, TLRT_NODE_WORDS * 64 + 1, 0)) {
		munmap((void *)a, TL_UNIT);
		return 0;
	}
	if (!FT.window)
		FT.window = window();
	return FT.stage[t] = a;
}

static void say_once(const char *what)
{
	if (!FT.said++)
		tlrt_say("first touch: %s (%s); pages go where the kernel puts them", what, strerror(errno));
}

void tlrt_first_touch(int uffd, uintptr_t addr)
{
	uint32_t chunk = tlrt_chunk_of(addr);
	enum tlp_tier t = chunk == TLRT_NO_CHUNK ? TLP_SLOW
			  : (enum tlp_tier)__atomic_load_n(&tlrt.chunks[chunk].touch_tier, __ATOMIC_ACQUIRE);
	uintptr_t s, at, off;
	size_t moved = 0;
	unsigned char in = 0;

	/* another thread's touch of the same page was served first: nothing to place */
	if (!mincore((void *)(addr & ~(uintptr_t)(TLRT_PAGE - 1)), TLRT_PAGE, &in) && (in & 1))
		return;
	if ((s = stage(t))) {
		uintptr_t unit = addr & ~(uintptr_t)(TL_UNIT - 1);
		size_t len = unit == FT.last_unit ? TL_UNIT : FT.window;

		FT.last_unit = unit;
		at = addr & ~(uintptr_t)(len - 1);
		off = at & (TL_UNIT - 1);
		/* fresh zeroes on the tier's nodes; pages left from an earlier window are reused */
		if (tlrt_madvise((void *)(s + off), len, MADV_POPULATE_WRITE))
			say_once("cannot fault pages in on the chunk's tier");
		if (tlrt_uffd_move(uffd, at, s + off, len, TLRT_MOVE_SKIP_PRESENT, &moved))
			say_once("cannot move pages into managed memory");
	} else {
		say_once("cannot map a staging unit bound to the tier");
	}
	tlrt_stat_add(RT_STAT_first_touch_bytes, moved);
	/* whatever happened, the toucher must get a page: a zero page, copied on write by the kernel */
	if (!moved) {
		struct uffdio_zeropage z = { .range = { .start = addr & ~(uintptr_t)(TLRT_PAGE - 1), .len = TLRT_PAGE } };

		ioctl(uffd, UFFDIO_ZEROPAGE, &z);
	}
}
