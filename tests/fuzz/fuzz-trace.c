/*
 * Fuzz target: the trace loader (lib/simulate/trace.c) on any text, and
 * the replay (lib/simulate/replay.c) of whatever it loaded, through lru
 * at two chunk sizes, thinned in time, and at its P record's chunk size. A trace comes from files users
 * pass around (tierlab simulate --trace, --import). Besides the
 * sanitizers, it checks what the replay promises: hits + misses = samples
 * in managed memory <= samples, the fast tier never above the budget, no
 * promotion refused (lru demotes first), and the same figures twice.
 */
#include "fuzz.h"
#include "policies/policies.h"
#include "simulate/replay.h"

static void replay(const struct tl_trace *t, uint64_t chunk, double rate)
{
	struct tl_sim_config c = { .pol = tlp_policy_find("lru"), .chunk_size = chunk, .budget_chunks = 3,
				   .window = 16, .rate_hz = rate, .seed = 7 };
	struct tl_sim_result a, b;
	char why[256];

	if (tl_sim_replay(t, &c, NULL, &a, why, sizeof(why)))
		return;
	FUZZ_CHECK(a.hits + a.misses == a.samples_managed);
	FUZZ_CHECK(a.samples_managed <= a.samples);
	FUZZ_CHECK(a.samples <= tl_trace_samples(t));
	FUZZ_CHECK(a.fast_peak_bytes <= 3 * chunk);
	FUZZ_CHECK(a.refused == 0);
	FUZZ_CHECK(!tl_sim_replay(t, &c, NULL, &b, why, sizeof(why)));
	FUZZ_CHECK(!memcmp(&a, &b, sizeof(a)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tl_trace t = { 0 };
	char why[256];

	/* size cap: a replay sizes its map by the allocations' chunks, and a fuzzer's sizes are large */
	if (size > 1 << 16)
		return 0;
	if (!tl_trace_add_log(&t, 1, (const char *)data, size, why, sizeof(why))) {
		uint64_t chunks = 0;

		for (uint32_t i = 0; i < t.procs[0].nallocs; i++)
			chunks += t.procs[0].allocs[i].bytes / 4096 + 1;
		/* a replay with millions of chunk ids is fine, but slow for a fuzzer: bound the work */
		if (chunks < (1u << 22)) {
			replay(&t, 1 << 21, 0);
			replay(&t, 1 << 12, 100);
			/* the trace's own chunk size, as simulate --verify replays it (a P of chunk size 0 was SIGFPE) */
			if (t.procs[0].p.known)
				replay(&t, t.procs[0].p.chunk_size, 0);
		}
	}
	tl_trace_release(&t);
	return 0;
}
