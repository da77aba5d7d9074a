/*
 * A range allocator over a bitmap: the 2 MiB units of the reservation and
 * the chunk ids both need "the first run of n free slots", dense and
 * reused after free (so chunk ids stay small for the policies' arrays).
 * The bitmap is an anonymous mapping, so it allocates nothing from the
 * heap; callers hold the runtime lock. First fit from the lowest free slot
 * costs a scan, but each call stands for a large allocation that costs an
 * mmap anyway.
 */
#include "tiermem/rt.h"

#include <errno.h>
#include <sys/mman.h>

int tlrt_bitmap_init(struct tlrt_bitmap *b, size_t nbits)
{
	size_t bytes = (nbits + 63) / 64 * 8;
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -ENOMEM;
	b->w = p;
	b->nbits = nbits;
	b->lowest_free = 0;
	return 0;
}

int tlrt_bitmap_test(const struct tlrt_bitmap *b, size_t at)
{
	return at < b->nbits && (b->w[at / 64] >> (at % 64) & 1);
}

/* Index of the next used bit in [from, to), or `to`. */
static size_t next_used(const struct tlrt_bitmap *b, size_t from, size_t to)
{
	while (from < to) {
		uint64_t w = b->w[from / 64] >> (from % 64);

		if (w)
			return from + (size_t)__builtin_ctzll(w) < to ? from + (size_t)__builtin_ctzll(w) : to;
		from = (from / 64 + 1) * 64;
	}
	return to;
}

long tlrt_bitmap_next_set(const struct tlrt_bitmap *b, size_t from)
{
	size_t i = next_used(b, from, b->nbits);

	return i < b->nbits ? (long)i : -1;
}

static void set_range(struct tlrt_bitmap *b, size_t at, size_t n, int on)
{
	for (size_t i = at; i < at + n; i++) {
		if (on)
			b->w[i / 64] |= 1ULL << (i % 64);
		else
			b->w[i / 64] &= ~(1ULL << (i % 64));
	}
}

long tlrt_bitmap_alloc(struct tlrt_bitmap *b, size_t n, size_t first, size_t step)
{
	size_t at;

	if (!n || n > b->nbits || !step)
		return -1;
	at = first;
	if (at < b->lowest_free)
		at = first + (b->lowest_free - first + step - 1) / step * step;
	while (at + n <= b->nbits) {
		size_t used = next_used(b, at, at + n);

		if (used == at + n) {
			int was_lowest = at == b->lowest_free;

			set_range(b, at, n, 1);
			if (was_lowest) {
				b->lowest_free = at + n;
				while (b->lowest_free < b->nbits && tlrt_bitmap_test(b, b->lowest_free))
					b->lowest_free++;
			}
			return (long)at;
		}
		/* skip past the used bit to the next candidate on the step */
		at = first + (used + 1 - first + step - 1) / step * step;
	}
	return -1;
}

void tlrt_bitmap_free(struct tlrt_bitmap *b, size_t at, size_t n)
{
	set_range(b, at, n, 0);
	if (at < b->lowest_free)
		b->lowest_free = at;
}
