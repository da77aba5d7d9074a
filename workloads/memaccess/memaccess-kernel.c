/*
 * The memaccess list: building it, chasing it, and checking it.
 *
 * The random order is one cycle through every node (Sattolo's variant of
 * the Fisher-Yates shuffle, applied to the next pointers in place, so no
 * side array is needed even for a 4 GiB working set). The checker walks
 * the list the plain way and trusts nothing in it: every pointer must land
 * on a node of the block before it is followed.
 */
#include "memaccess.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int ma_parse_size(const char *s, uint64_t *bytes)
{
	static const struct { const char *name; unsigned shift; } units[] = {
		{ "", 0 }, { "B", 0 },
		{ "K", 10 }, { "KiB", 10 }, { "M", 20 }, { "MiB", 20 },
		{ "G", 30 }, { "GiB", 30 }, { "T", 40 }, { "TiB", 40 },
	};
	uint64_t v = 0;
	const char *p = s;

	if (!s || *p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].name))
			continue;
		if (units[i].shift && v > (UINT64_MAX >> units[i].shift))
			return -EINVAL;
		*bytes = v << units[i].shift;
		return 0;
	}
	return -EINVAL;
}

void ma_build(struct ma_node *nodes, size_t n, enum ma_order order, uint64_t seed)
{
	uint64_t state = seed;

	/*
	 * In address order first: touches every page before anything is
	 * timed. The random order starts from the identity (every node its own
	 * successor), which Sattolo's shuffle needs.
	 */
	for (size_t i = 0; i < n; i++) {
		if (order == MA_RANDOM)
			nodes[i].next = &nodes[i];
		else
			nodes[i].next = &nodes[i + 1 < n ? i + 1 : 0];
		nodes[i].payload = ma_payload(seed, i);
		memset(nodes[i].pad, 0, sizeof(nodes[i].pad));
	}
	if (order != MA_RANDOM)
		return;
	/*
	 * Sattolo: swapping next[i] with next[j] for a j strictly below i
	 * turns the identity into a single cycle, uniform over all (n-1)!
	 * cycles.
	 */
	for (size_t i = n - 1; i > 0; i--) {
		uint64_t r = ma_mix(state++);
		size_t j = (size_t)(((unsigned __int128)r * i) >> 64);   /* uniform in [0, i) */
		struct ma_node *t = nodes[i].next;

		nodes[i].next = nodes[j].next;
		nodes[j].next = t;
	}
}

uint64_t ma_expected_sum(size_t n, uint64_t seed)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += ma_payload(seed, i);
	return s;
}

__attribute__((noinline))
uint64_t ma_chase(const struct ma_node *head, uint64_t steps)
{
	const struct ma_node *p = head;
	uint64_t sum = 0;

	while (steps--) {
		sum += p->payload;
		p = p->next;
	}
	return sum;
}

static char msg[200];

const char *ma_check(const struct ma_node *nodes, size_t n, uint64_t seed)
{
	const char *base = (const char *)nodes;
	const struct ma_node *p = nodes;
	uint64_t sum = 0, want;

	for (size_t count = 1; count <= n; count++) {
		const char *next;

		sum += p->payload;
		next = (const char *)p->next;
		if (next < base || next >= base + n * sizeof(*nodes) ||
		    (size_t)(next - base) % sizeof(*nodes)) {
			snprintf(msg, sizeof(msg), "node %zu links outside the list (to %p)",
				 (size_t)((const char *)p - base) / sizeof(*nodes), (const void *)next);
			return msg;
		}
		p = (const struct ma_node *)next;
		if (p == nodes && count < n) {
			snprintf(msg, sizeof(msg),
				 "the list returns to its head after %zu of %zu nodes", count, n);
			return msg;
		}
	}
	if (p != nodes) {
		snprintf(msg, sizeof(msg), "the list does not return to its head after %zu nodes", n);
		return msg;
	}
	want = ma_expected_sum(n, seed);
	if (sum != want) {
		snprintf(msg, sizeof(msg), "payload checksum %#llx, expected %#llx",
			 (unsigned long long)sum, (unsigned long long)want);
		return msg;
	}
	return NULL;
}
