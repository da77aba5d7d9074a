/*
 * The cache of freed regions. A freed region given back to the kernel
 * (MADV_DONTNEED) makes the next allocation fault and zero every page again;
 * glibc reuses its freed large chunks instead, and a program that
 * allocates and frees large blocks in a loop ran twice as long under the
 * runtime for it. So a freed region stays in the arena with its pages, in a
 * cache bounded by TIERLAB_CACHE (bytes held: a size, or a fraction of the
 * peak of managed bytes), and the next allocation that fits takes it.
 * Regions are filed by size class (unit counts: one class per count up to
 * 8 units, then four per power of two); an allocation takes the best fit
 * of its class, else a region of a larger class, split (the rest stays
 * cached). Over the bound, and when the system is short of memory (PSI),
 * the least recently freed go back to the kernel.
 *
 * A reused region is a new allocation to everyone else: the policy heard
 * on_free when it was freed and hears on_alloc with fresh chunk ids, and
 * places the chunks as it likes. Its pages are where its old chunks were:
 * unit_state[] records, per 2 MiB unit, the tier its pages are on (or
 * MIXED, when chunks smaller than a unit differed). A new chunk whose old
 * pages are all on its new tier keeps them (counted as an initial placement,
 * as a fresh chunk's is: nothing moves); otherwise they are dropped and
 * faulted afresh on the new tier, which is what a fresh allocation costs.
 * Migrating them instead would copy data the program has freed across
 * tiers, and count it as traffic. calloc's memory is zeroed where pages
 * were kept; dropped and fresh pages are zero already.
 *
 * A cached region stays inside the arena, which stays one VMA (the fault
 * sampler arms it with the rest; a program touching freed memory is
 * sampled outside any chunk). tlrt_region_of() does not see it, so freeing
 * it again aborts, as a double free does under glibc.
 */
#include "tiermem/rt.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define POLL_NS 1000000000ULL
/* stalled on memory for more than 1/STALL_SHARE of the time since the last look */
#define STALL_SHARE 100

static uint64_t page_round(uint64_t n)
{
	return (n + TLRT_PAGE - 1) / TLRT_PAGE * TLRT_PAGE;
}

static uint32_t start_of(const struct tlrt_region *r)
{
	return (uint32_t)((r->addr - atomic_load_explicit(&tlrt.base, memory_order_relaxed)) >> TL_UNIT_SHIFT);
}

/* One class per unit count up to 8, then four per power of two (as mimalloc's bins). */
static unsigned bin_of(uint32_t units)
{
	unsigned b;

	if (units <= 8)
		return units - 1;
	b = 31 - (unsigned)__builtin_clz(units);
	return 8 + (b - 3) * 4 + ((units >> (b - 2)) & 3);
}
_Static_assert(8 + (31 - 3) * 4 + 3 < TLRT_CACHE_BINS, "a bin for every unit count");

void tlrt_cache_init(void)
{
	for (int i = 0; i < TLRT_CACHE_BINS; i++)
		tlrt.bin_head[i] = TLRT_NO_UNIT;
	tlrt.lru_head = tlrt.lru_tail = TLRT_NO_UNIT;
	tlrt.cache_bytes = 0;
}

/*
 * A fraction of the peak keeps the cache in proportion to the program; the
 * floor lets a small one reuse its blocks as glibc does below its largest
 * mmap threshold (32 MiB), where one block freed and allocated again in a
 * loop would otherwise never fit.
 */
uint64_t tlrt_cache_bound(void)
{
	uint64_t b;

	if (!(tlrt.opt.cache_fraction > 0))
		return tlrt.opt.cache_bytes;
	b = (uint64_t)(tlrt.opt.cache_fraction * (double)tlrt_stat(RT_STAT_managed_bytes_peak));
	return b > TLRT_CACHE_FLOOR ? b : TLRT_CACHE_FLOOR;
}

static void cache_link(struct tlrt_region *r)
{
	uint32_t at = start_of(r);
	unsigned b = bin_of(r->units);

	r->cached = 1;
	r->bin_prev = TLRT_NO_UNIT;
	r->bin_next = tlrt.bin_head[b];
	if (r->bin_next != TLRT_NO_UNIT)
		tlrt.regions[r->bin_next].bin_prev = at;
	tlrt.bin_head[b] = at;
	r->lru_prev = TLRT_NO_UNIT;
	r->lru_next = tlrt.lru_head;
	if (r->lru_next != TLRT_NO_UNIT)
		tlrt.regions[r->lru_next].lru_prev = at;
	else
		tlrt.lru_tail = at;
	tlrt.lru_head = at;
	tlrt.cache_bytes += r->held;
	tlrt_stat_max(RT_STAT_cache_bytes_peak, tlrt.cache_bytes);
}

static void cache_unlink(struct tlrt_region *r)
{
	if (r->bin_prev != TLRT_NO_UNIT)
		tlrt.regions[r->bin_prev].bin_next = r->bin_next;
	else
		tlrt.bin_head[bin_of(r->units)] = r->bin_next;
	if (r->bin_next != TLRT_NO_UNIT)
		tlrt.regions[r->bin_next].bin_prev = r->bin_prev;
	if (r->lru_prev != TLRT_NO_UNIT)
		tlrt.regions[r->lru_prev].lru_next = r->lru_next;
	else
		tlrt.lru_head = r->lru_next;
	if (r->lru_next != TLRT_NO_UNIT)
		tlrt.regions[r->lru_next].lru_prev = r->lru_prev;
	else
		tlrt.lru_tail = r->lru_prev;
	r->cached = 0;
	tlrt.cache_bytes -= r->held;
}

static void give_back(struct tlrt_region *r)
{
	uint64_t held = r->held;

	cache_unlink(r);
	/* armed memory is in the sampler's stash: a DONTNEED here would be undone by its move back */
	tlrt_sampler_release(r->addr, r->maplen);
	tlrt_region_free(r);
	tlrt_stat_add(RT_STAT_cache_bytes_returned, held);
}

void tlrt_cache_trim(uint64_t keep)
{
	while (tlrt.cache_bytes > keep && tlrt.lru_tail != TLRT_NO_UNIT)
		give_back(&tlrt.regions[tlrt.lru_tail]);
}

static uint8_t combine(uint8_t state, uint8_t with)
{
	return state == TLRT_UNIT_CLEAN || state == with ? with : TLRT_UNIT_MIXED;
}

int tlrt_cache_put(struct tlrt_region *r)
{
	uint64_t used = page_round(r->bytes), bound = tlrt_cache_bound();
	uint64_t held = r->held > used ? r->held : used;
	uint32_t at = start_of(r);
	uint32_t whole = (uint32_t)(used >> TL_UNIT_SHIFT);
	uint8_t *state = &tlrt.unit_state[at];

	if (held > bound)
		return 0;
	/*
	 * Units the chunks cover wholly hold only the chunks' pages now; a
	 * partly covered last one may also hold pages of an earlier, longer use.
	 */
	memset(state, TLRT_UNIT_CLEAN, whole);
	if (used % TL_UNIT && r->held <= used)
		state[whole] = TLRT_UNIT_CLEAN;
	for (uint32_t i = 0; i < r->nchunks; i++) {
		const struct tlrt_chunk *c = &tlrt.chunks[r->first_chunk + i];
		uint64_t off = c->addr - r->addr;

		for (uint64_t u = off >> TL_UNIT_SHIFT; u <= (off + c->len - 1) >> TL_UNIT_SHIFT; u++)
			state[u] = combine(state[u], (uint8_t)(c->tier == TLP_FAST ? TLRT_UNIT_FAST : TLRT_UNIT_SLOW));
	}
	/* room first, the least recently freed going back: the cache never holds more than the bound */
	while (tlrt.cache_bytes + held > bound)
		give_back(&tlrt.regions[tlrt.lru_tail]);
	r->held = held;
	cache_link(r);
	return 1;
}

/* The first n units stay r; the rest becomes a cached region of its own, or free units if it holds nothing. */
static void split(struct tlrt_region *r, uint32_t n)
{
	uint32_t at = start_of(r) + n;
	uint64_t len = (uint64_t)n << TL_UNIT_SHIFT;
	struct tlrt_region *rest = &tlrt.regions[at];

	memset(rest, 0, sizeof(*rest));
	rest->addr = r->addr + len;
	rest->units = r->units - n;
	rest->maplen = (uint64_t)rest->units << TL_UNIT_SHIFT;
	rest->held = r->held > len ? r->held - len : 0;
	r->units = n;
	r->maplen = len;
	if (r->held > len)
		r->held = len;
	if (!rest->held) {
		/* no pages beyond held (their unit states are clean): plain free units */
		tlrt_bitmap_free(&tlrt.units_map, at, rest->units);
		rest->units = 0;
		return;
	}
	for (uint32_t u = 0; u < rest->units; u++)
		tlrt.owner[at + u] = at;
	cache_link(rest);
}

struct tlrt_region *tlrt_cache_take(uint64_t bytes, size_t align)
{
	uint64_t units64 = (bytes + TL_UNIT - 1) >> TL_UNIT_SHIFT;
	struct tlrt_region *best = NULL, *r;
	uint32_t n;

	if (!bytes || !tlrt.cache_bytes || units64 > tlrt.nunits)
		return NULL;
	n = (uint32_t)units64;
	/* the best fit in the first class that has one: classes above n's hold only larger regions */
	for (unsigned b = bin_of(n); b < TLRT_CACHE_BINS && !best; b++)
		for (uint32_t at = tlrt.bin_head[b]; at != TLRT_NO_UNIT; at = r->bin_next) {
			r = &tlrt.regions[at];
			if (r->units < n || (align > TL_UNIT && r->addr % align))
				continue;
			if (!best || r->units < best->units)
				best = r;
			if (r->units == n)
				break;
		}
	if (!best)
		return NULL;
	cache_unlink(best);
	if (best->units > n)
		split(best, n);
	best->bytes = bytes;
	tlrt_stat_add(RT_STAT_cache_reuses, 1);
	return best;
}

void tlrt_cache_place(struct tlrt_chunk *c, enum tlp_tier to)
{
	const struct tlrt_region *r = &tlrt.regions[c->region];
	uint8_t want = to == TLP_FAST ? TLRT_UNIT_FAST : TLRT_UNIT_SLOW;
	uint64_t off = c->addr - r->addr, end;
	int stale = 0;

	c->kept = 0;
	if (off >= r->held)
		return;		/* fresh memory: nothing from earlier use */
	end = off + c->len < r->held ? off + c->len : r->held;
	for (uint64_t u = off >> TL_UNIT_SHIFT; u <= (end - 1) >> TL_UNIT_SHIFT; u++)
		stale |= tlrt.unit_state[c->region + u] != want;
	if (!stale) {
		c->kept = 1;
		return;
	}
	tlrt_madvise((void *)c->addr, end - off, MADV_DONTNEED);
	tlrt_stat_add(RT_STAT_cache_chunks_replaced, 1);
}

void tlrt_cache_ready(struct tlrt_region *r, int zero)
{
	uintptr_t from = 0, to = 0;	/* the run of ranges still to fault in */

	for (uint32_t i = 0; i < r->nchunks; i++) {
		const struct tlrt_chunk *c = &tlrt.chunks[r->first_chunk + i];
		uint64_t off = c->addr - r->addr;
		uintptr_t end = c->addr + c->len;
		uintptr_t kept_end = c->kept ? r->addr + (off + c->len < r->held ? off + c->len : r->held) : c->addr;

		if (zero && kept_end > c->addr)
			memset((void *)c->addr, 0, kept_end - c->addr);
		if (kept_end == end)
			continue;
		if (to != kept_end) {
			tlrt_populate(from, to - from);
			from = kept_end;
		}
		to = end;
	}
	tlrt_populate(from, to - from);
	tlrt_region_placed(r->addr, r->maplen);
}

int64_t tlrt_psi_some_total(const char *text)
{
	const char *line = strstr(text, "some "), *eol, *t;
	int64_t v = 0;

	if (!line)
		return -1;
	eol = strchr(line, '\n');
	t = strstr(line, " total=");
	if (!t || (eol && t > eol) || t[7] < '0' || t[7] > '9')
		return -1;
	for (t += 7; *t >= '0' && *t <= '9'; t++)
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *t - '0', &v))
			return -1;
	return v;
}

void tlrt_cache_poll(struct tlrt_pressure *p, uint64_t now_ns)
{
	char buf[512];
	int64_t total;
	ssize_t n = -1;
	int fd, err;

	if (p->last_ns && now_ns - p->last_ns < POLL_NS)
		return;
	fd = open(p->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		err = errno;
		close(fd);
	} else {
		err = errno;
	}
	if (n > 0)
		buf[n] = '\0';
	if (n <= 0 || (total = tlrt_psi_some_total(buf)) < 0) {
		if (!p->said && tlrt_cache_held()) {
			p->said = 1;
			tlrt_say("%s: %s: the cache of freed regions is given back only over its bound (TIERLAB_CACHE)",
				 p->path, n < 0 ? strerror(err) : "no PSI 'some ... total=' line");
		}
		p->last_ns = now_ns;
		return;
	}
	/* total counts microseconds some task stalled on memory */
	if (p->last_ns && p->last_total >= 0 && total > p->last_total &&
	    (uint64_t)(total - p->last_total) * 1000 * STALL_SHARE > now_ns - p->last_ns) {
		pthread_mutex_lock(&tlrt.lock);
		if (tlrt.cache_bytes) {
			tlrt_cache_trim(0);
			tlrt_stat_add(RT_STAT_cache_pressure_trims, 1);
		}
		pthread_mutex_unlock(&tlrt.lock);
	}
	p->last_total = total;
	p->last_ns = now_ns;
}
