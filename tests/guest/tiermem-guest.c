/*
 * The tiering runtime in a 2-node guest (tests/cli/tiermem-guest.sh runs it
 * with tests/guest/run-in-guest.sh): the only place where a chunk the
 * runtime calls fast can be checked to really sit on another node than a
 * slow one. Node 0 is the slow tier (CPUs), node 1 the fast tier
 * (CPU-less); the LRU policy has a budget of 6 chunks of 2 MiB.
 *
 * The core objects are linked in directly (no LD_PRELOAD: the guest has no
 * loader), configured through tlrt_setup() with the same variables a user
 * sets, and driven through tlrt_alloc/tlrt_deliver. Two phases:
 *   1. real samples: the fault sampler (userfaultfd + UFFDIO_MOVE) runs
 *      while the program touches a hot set that starts in the slow tier,
 *      until LRU has promoted all of it (skipped, and said, when the guest
 *      kernel lacks UFFDIO_MOVE);
 *   2. delivered samples on another set of exactly budget size, so the
 *      final fast set is known: exactly those chunks;
 *   3. (after the checks below) that set's array freed and allocated again:
 *      the cache of freed regions gives it back, each chunk's pages on its
 *      new tier's node (phase_reuse).
 * Then, with the runtime finished (nothing moves any more): every page of
 * every chunk is on the node of the tier the runtime reports (move_pages
 * status, a -EBUSY page asked again), the fast tier within the budget, the
 * counters consistent (both directions, bytes migrated as the kernel
 * counted them, fast chunks =
 * initial + promoted - demoted, no failed migration, the counters file
 * saying the same) and every word of the data as written.
 *
 * The guest has no dynamic loader, so the policy comes from libpolicies.a:
 * this file provides tlrt_policy_load/unload in place of policy-load.c
 * (which dlopens a plugin), handing the policy the same parameters.
 *
 * With the argument "first-touch" it checks instead that nothing is
 * populated at malloc and every page comes at first touch on its chunk's
 * tier, before and after promotions (first_touch()): with sampler none,
 * where chunks keep their own policy, and with "first-touch-fault" under
 * the fault sampler, whose handler places each first touch.
 *
 * Output: lines "TIERMEM-GUEST: ..." on stdout, "FAIL: ..." per failed
 * check, "TIERMEM-GUEST: PASS" and exit 0, or exit 1; exit 77 with
 * "SKIP: ..." when there are not two memory nodes.
 */
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "measure/vmstat.h"
#include "policies/policies.h"
#include "tiermem/rt.h"
#include "tiermem/sampler-fault.h"
#include "tiermem/sampler-uffd.h"

#define MiB (1UL << 20)
#define CHUNK (2 * MiB)
#define NARR 3
#define ARR_BYTES (16 * MiB)
#define ARR_CHUNKS (ARR_BYTES / CHUNK)
#define BUDGET 6
#define SLOW_NODE 0
#define FAST_NODE 1
#define PAGE 4096UL
#define HOT_A 2				/* phase 1: array 2, chunks 0..3 */
#define HOT_N 4
#define SET_B 1				/* phase 2: array 1, chunks 2..7 */
#define SET_B_FIRST 2
#define PHASE1_SECONDS 20
#define DRAIN_SECONDS 10

static int failures;
static uint64_t *arr[NARR];
static volatile uint64_t sink;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures++;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	printf("TIERMEM-GUEST: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static double now_s(void)
{
	return (double)tlrt_now_ns() / 1e9;
}

/* ---- the policy, statically (stands in for policy-load.c: no dlopen in the guest) ---- */

int tlrt_policy_load(char *why, size_t whylen)
{
	const struct tlp_policy *pol = tlp_policy_find(tlrt.opt.policy);

	if (!pol) {
		snprintf(why, whylen, "policy '%s': not linked into this program", tlrt.opt.policy);
		return -1;
	}
	if (tlrt_policy_start(pol, why, whylen))
		return -1;
	tlrt.dl = NULL;
	return 0;
}

void tlrt_policy_unload(void)
{
	tlrt_policy_stop();
}

/* ---- the machine ---- */

/* Whether the guest kernel gives userfaultfd with UFFDIO_MOVE (the fault sampler's mechanism). */
static int uffd_move_works(char *why, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_MOVE };
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	int ok;

	if (fd < 0) {
		snprintf(why, len, "userfaultfd: %s", strerror(errno));
		return 0;
	}
	ok = !ioctl(fd, UFFDIO_API, &api) && (api.features & UFFD_FEATURE_MOVE);
	if (!ok)
		snprintf(why, len, "UFFDIO_API with UFFD_FEATURE_MOVE: %s", strerror(errno));
	close(fd);
	return ok;
}

static int check_nodes(void)
{
	struct bitmask *cpus;
	int ncpu1;

	if (numa_available() < 0) {
		printf("SKIP: libnuma says NUMA is unavailable here\n");
		return 0;
	}
	if (numa_num_configured_nodes() < 2 || numa_node_size64(FAST_NODE, NULL) <= 0) {
		printf("SKIP: needs memory nodes 0 and 1 (run it in the guest: tests/cli/tiermem-guest.sh)\n");
		return 0;
	}
	cpus = numa_allocate_cpumask();
	ncpu1 = numa_node_to_cpus(FAST_NODE, cpus) ? -1 : (int)numa_bitmask_weight(cpus);
	numa_free_cpumask(cpus);
	note("nodes %d, node 1: %lld MiB, %d CPUs", numa_num_configured_nodes(),
	     numa_node_size64(FAST_NODE, NULL) >> 20, ncpu1);
	return 1;
}

/* ---- data ---- */

static uint64_t word(int a, size_t i)
{
	return ((uint64_t)(a + 1) << 56) ^ ((uint64_t)i * 0x9E3779B97F4A7C15ULL);
}

static void fill(int a)
{
	for (size_t i = 0; i < ARR_BYTES / 8; i++)
		arr[a][i] = word(a, i);
}

static size_t bad_words(int a, size_t *first)
{
	size_t bad = 0;

	for (size_t i = 0; i < ARR_BYTES / 8; i++)
		if (arr[a][i] != word(a, i) && !bad++)
			*first = i;
	return bad;
}

static void *chunk_addr(int a, int c)
{
	return (char *)arr[a] + (size_t)c * CHUNK;
}

/* Reads every cache line and rewrites one word per page of the chunk (same value). */
static void touch_chunk(int a, int c)
{
	volatile uint64_t *p = chunk_addr(a, c);
	uint64_t sum = 0;

	for (size_t i = 0; i < CHUNK / 8; i += 8)
		sum += p[i];
	for (size_t i = 0; i < CHUNK / 8; i += PAGE / 8)
		p[i] = p[i];
	sink += sum;
}

static int count_fast(void)
{
	int n = 0;

	for (int a = 0; a < NARR; a++)
		for (int c = 0; c < (int)ARR_CHUNKS; c++)
			n += tlrt_tier_of(chunk_addr(a, c)) == TLP_FAST;
	return n;
}

static void check_budget(const char *when)
{
	uint32_t f = tlrt_fast_chunks(), b = tlrt_budget();

	if (f > b || b != BUDGET)
		fail("%s: %u fast chunks, budget %u (configured %d)", when, f, b, BUDGET);
}

/* ---- placement ---- */

/*
 * Pages of [p, p+len) not on `node` (move_pages status query, no move).
 * A page reported -EBUSY (seen right after a THP move) is asked again
 * before it counts. *busy: pages that needed asking again.
 */
static unsigned long pages_off_node(void *p, size_t len, int node, int *first_status, unsigned long *busy)
{
	enum { N = CHUNK / PAGE };
	static void *pages[N];
	static int status[N];
	unsigned long n = len / PAGE, off = 0;

	for (unsigned long i = 0; i < n; i++)
		pages[i] = (char *)p + i * PAGE;
	if (move_pages(0, n, pages, NULL, status, 0)) {
		*first_status = -errno;
		return n;
	}
	for (unsigned long i = 0; i < n; i++) {
		for (int k = 0; status[i] == -EBUSY && k < 20; k++) {
			if (!k)
				(*busy)++;
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
			if (move_pages(0, 1, &pages[i], NULL, &status[i], 0))
				status[i] = -errno;
		}
		if (status[i] != node && !off++)
			*first_status = status[i];
	}
	return off;
}

/* Every chunk: the tier the runtime reports, and every page on that tier's node. */
static void check_placement(int *nfast)
{
	unsigned long busy = 0;

	*nfast = 0;
	for (int a = 0; a < NARR; a++) {
		char line[ARR_CHUNKS + 1];

		for (int c = 0; c < (int)ARR_CHUNKS; c++) {
			int tier = tlrt_tier_of(chunk_addr(a, c)), node, st = 0;
			unsigned long off;

			if (tier != TLP_FAST && tier != TLP_SLOW) {
				fail("array %d chunk %d: the runtime reports tier %d", a, c, tier);
				line[c] = '?';
				continue;
			}
			*nfast += tier == TLP_FAST;
			node = tier == TLP_FAST ? FAST_NODE : SLOW_NODE;
			line[c] = tier == TLP_FAST ? 'F' : 's';
			off = pages_off_node(chunk_addr(a, c), CHUNK, node, &st, &busy);
			if (off)
				fail("array %d chunk %d is %s: %lu of %lu pages not on node %d (first status %d)",
				     a, c, tier == TLP_FAST ? "fast" : "slow", off, CHUNK / PAGE, node, st);
		}
		line[ARR_CHUNKS] = '\0';
		note("array %d tiers %s (F fast on node %d, s slow on node %d)", a, line, FAST_NODE, SLOW_NODE);
	}
	note("placement checked: %d x %lu pages, %lu page(s) reported -EBUSY first and asked again",
	     NARR * (int)ARR_CHUNKS, CHUNK / PAGE, busy);
}

/* kB of transparent huge pages in the process (THP moves differ: see ../shared/guest/README.md); -1 unknown */
static long anon_huge_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* pgmigrate_success now (the guest runs nothing else that migrates), -1 if unread. */
static long long pages_migrated(void)
{
	struct tl_vmstat snap = { 0 };
	uint64_t v;
	long long r = -1;

	if (!tl_vmstat_snapshot(&snap, NULL) && !tl_vmstat_get(&snap, "pgmigrate_success", &v))
		r = (long long)v;
	tl_vmstat_release(&snap);
	return r;
}

/* ---- phases ---- */

static void phase_real(void)
{
	double t0 = now_s(), deadline = t0 + PHASE1_SECONDS;
	uint64_t s0 = tlrt_stat(RT_STAT_samples_managed);
	int hot_fast = 0, rounds = 0;

	while (now_s() < deadline) {
		for (int c = 0; c < HOT_N; c++)
			touch_chunk(HOT_A, c);
		rounds++;
		/*
		 * Idle time between rounds, as most programs have. Measured without
		 * it (THP never): arming a block of 512 base pages took ~1.3 s per
		 * tick while this thread spun, against ~9 ms idle - presumably one
		 * TLB-shootdown IPI per moved page, each waiting for the busy vCPU's
		 * turn under single-threaded TCG - so the round robin reached the hot
		 * set only after ~20 s. With THP one PMD moves per block.
		 */
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		check_budget("phase 1");
		hot_fast = 0;
		for (int c = 0; c < HOT_N; c++)
			hot_fast += tlrt_tier_of(chunk_addr(HOT_A, c)) == TLP_FAST;
		if (hot_fast == HOT_N && tlrt_stat(RT_STAT_mig_fast_to_slow) > 0)
			break;
	}
	note("phase 1 (fault sampler): %d rounds over %d hot chunks in %.1f s, %llu samples in managed memory, "
	     "%d/%d hot chunks fast", rounds, HOT_N, now_s() - t0,
	     (unsigned long long)(tlrt_stat(RT_STAT_samples_managed) - s0), hot_fast, HOT_N);
	{
		struct tlrt_fault_counts fc;

		tlrt_sampler_fault_counts(&fc);
		note("fault sampler: %llu ticks taking %.3f s, armed %llu times, %llu samples taken, %llu expired, "
		     "%llu skipped, %llu fallbacks, %llu stray",
		     (unsigned long long)tlrt_stat(RT_STAT_ticks), (double)tlrt_stat(RT_STAT_sample_ns_total) / 1e9,
		     (unsigned long long)fc.armed, (unsigned long long)fc.samples, (unsigned long long)fc.expired,
		     (unsigned long long)fc.skipped_other, (unsigned long long)fc.fallback, (unsigned long long)fc.stray);
	}
	if (tlrt_stat(RT_STAT_samples_managed) == s0)
		fail("phase 1: the fault sampler delivered no sample in %d s of access", PHASE1_SECONDS);
	else if (hot_fast != HOT_N)
		fail("phase 1: after %d s of access only %d of %d hot chunks are fast", PHASE1_SECONDS, hot_fast, HOT_N);
}

static void deliver(void *p, uintptr_t pc)
{
	struct rt_sample s = { .t_ns = tlrt_now_ns(), .addr = (uintptr_t)p + 64, .pc = pc, .tid = (pid_t)getpid() };

	tlrt_deliver(&s);
}

/* Samples on chunks 2..7 of array 1, the size of the budget: they end up exactly the fast set. */
static void phase_delivered(void)
{
	uint64_t before = tlrt_stat(RT_STAT_samples), want = before + BUDGET + 1;
	double t0 = now_s();

	for (int c = SET_B_FIRST; c < SET_B_FIRST + BUDGET; c++)
		deliver(chunk_addr(SET_B, c), 0x1000 + (uintptr_t)c);
	/* a hit on a chunk just promoted */
	deliver(chunk_addr(SET_B, SET_B_FIRST + BUDGET - 1), 0x2000);
	/* the runtime thread drains at its tick; nothing touches managed memory meanwhile */
	while (tlrt_stat(RT_STAT_samples) < want && now_s() < t0 + DRAIN_SECONDS)
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	note("phase 2 (delivered): %llu of %d samples drained by the runtime thread in %.2f s",
	     (unsigned long long)(tlrt_stat(RT_STAT_samples) - before), BUDGET + 1, now_s() - t0);
	if (tlrt_stat(RT_STAT_samples) < want)
		fail("phase 2: the runtime thread drained %llu of %d delivered samples in %d s",
		     (unsigned long long)(tlrt_stat(RT_STAT_samples) - before), BUDGET + 1, DRAIN_SECONDS);
}

/* ---- counters ---- */

/* A counter from the counters file tlrt wrote, by name; -1 when absent. */
static long long file_counter(const char *dir, const char *name, uint32_t *complete)
{
	char path[256], buf[8192];
	struct rt_counters_header h;
	const char *s, *end;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tiermem-%d.counters", dir, (int)getpid());
	if (!(f = fopen(path, "rb")))
		return -1;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n < sizeof(h))
		return -1;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, RT_COUNTERS_MAGIC, 8) || h.header_size + (size_t)h.nstats * 8 > n)
		return -1;
	*complete = h.complete;
	s = buf + h.header_size + (size_t)h.nstats * 8;
	end = buf + n;
	for (uint32_t i = 0; i < h.nstats && s < end; i++, s += strnlen(s, (size_t)(end - s)) + 1)
		if (strnlen(s, (size_t)(end - s)) < (size_t)(end - s) && !strcmp(s, name)) {
			uint64_t v;

			memcpy(&v, buf + h.header_size + (size_t)i * 8, 8);
			return (long long)v;
		}
	return -1;
}

static void check_counters(const char *outdir, int nfast, long long migrated0)
{
	static const struct {
		enum rt_stat st;
		const char *name;
	} files[] = {
		{ RT_STAT_mig_initial_fast, "mig_initial_fast" }, { RT_STAT_mig_initial_slow, "mig_initial_slow" },
		{ RT_STAT_mig_slow_to_fast, "mig_slow_to_fast" }, { RT_STAT_mig_fast_to_slow, "mig_fast_to_slow" },
		{ RT_STAT_bytes_slow_to_fast, "bytes_slow_to_fast" }, { RT_STAT_bytes_fast_to_slow, "bytes_fast_to_slow" },
		{ RT_STAT_mig_failed, "mig_failed" }, { RT_STAT_samples_managed, "samples_managed" },
	};
	uint64_t ifast = tlrt_stat(RT_STAT_mig_initial_fast), islow = tlrt_stat(RT_STAT_mig_initial_slow);
	uint64_t s2f = tlrt_stat(RT_STAT_mig_slow_to_fast), f2s = tlrt_stat(RT_STAT_mig_fast_to_slow);
	uint64_t hits = tlrt_stat(RT_STAT_hits), misses = tlrt_stat(RT_STAT_misses);
	uint64_t moved;
	long long kernel;
	uint32_t complete = 0;

	note("counters: initial fast %llu, initial slow %llu, slow->fast %llu (%llu bytes), fast->slow %llu (%llu bytes), "
	     "failed %llu, budget refused %llu, samples %llu (managed %llu: %llu hits, %llu misses), ticks %llu",
	     (unsigned long long)ifast, (unsigned long long)islow, (unsigned long long)s2f,
	     (unsigned long long)tlrt_stat(RT_STAT_bytes_slow_to_fast), (unsigned long long)f2s,
	     (unsigned long long)tlrt_stat(RT_STAT_bytes_fast_to_slow), (unsigned long long)tlrt_stat(RT_STAT_mig_failed),
	     (unsigned long long)tlrt_stat(RT_STAT_budget_refused), (unsigned long long)tlrt_stat(RT_STAT_samples),
	     (unsigned long long)tlrt_stat(RT_STAT_samples_managed), (unsigned long long)hits,
	     (unsigned long long)misses, (unsigned long long)tlrt_stat(RT_STAT_ticks));
	if (tlrt_stat(RT_STAT_allocs) != NARR)
		fail("counters: %llu managed allocations, expected %d", (unsigned long long)tlrt_stat(RT_STAT_allocs), NARR);
	/* LRU places the first chunks fast until the budget is full */
	if (ifast != BUDGET || islow != NARR * ARR_CHUNKS - BUDGET)
		fail("counters: initial placement %llu fast + %llu slow, expected %d + %lu", (unsigned long long)ifast,
		     (unsigned long long)islow, BUDGET, NARR * ARR_CHUNKS - BUDGET);
	if (!s2f || !f2s)
		fail("counters: migrations in one direction only (slow->fast %llu, fast->slow %llu)",
		     (unsigned long long)s2f, (unsigned long long)f2s);
	if (tlrt_stat(RT_STAT_bytes_initial_fast) != ifast * CHUNK || tlrt_stat(RT_STAT_bytes_initial_slow) != islow * CHUNK)
		fail("counters: placed bytes are not chunks x %lu bytes", CHUNK);
	/*
	 * A move counts the pages it found to move: at most its chunk (a chunk
	 * promoted while the program first fills it moves the pages touched so
	 * far; the rest come on the new tier), and together what the kernel
	 * says it migrated, but for compaction's own (a margin of 5%).
	 */
	moved = tlrt_stat(RT_STAT_bytes_slow_to_fast) + tlrt_stat(RT_STAT_bytes_fast_to_slow);
	kernel = (pages_migrated() - migrated0) * 4096;
	note("migrated: the runtime counted %llu bytes, the kernel %lld (pgmigrate_success)", (unsigned long long)moved,
	     kernel);
	if (tlrt_stat(RT_STAT_bytes_slow_to_fast) > s2f * CHUNK || tlrt_stat(RT_STAT_bytes_fast_to_slow) > f2s * CHUNK ||
	    !moved)
		fail("counters: migrated bytes %llu up, %llu down, for %llu and %llu chunks of %lu bytes",
		     (unsigned long long)tlrt_stat(RT_STAT_bytes_slow_to_fast),
		     (unsigned long long)tlrt_stat(RT_STAT_bytes_fast_to_slow), (unsigned long long)s2f,
		     (unsigned long long)f2s, CHUNK);
	if (migrated0 < 0 || kernel < (long long)moved || kernel - (long long)moved > (long long)moved / 20)
		fail("counters: the runtime counted %llu bytes migrated, the kernel %lld", (unsigned long long)moved, kernel);
	if (ifast + s2f - f2s != (uint64_t)nfast)
		fail("counters: %llu initial fast + %llu promoted - %llu demoted != %d fast chunks now",
		     (unsigned long long)ifast, (unsigned long long)s2f, (unsigned long long)f2s, nfast);
	if (tlrt_stat(RT_STAT_mig_failed))
		fail("counters: %llu failed migrations", (unsigned long long)tlrt_stat(RT_STAT_mig_failed));
	if (hits + misses != tlrt_stat(RT_STAT_samples_managed) || !hits || !misses)
		fail("counters: %llu hits + %llu misses vs %llu managed samples (both expected)", (unsigned long long)hits,
		     (unsigned long long)misses, (unsigned long long)tlrt_stat(RT_STAT_samples_managed));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		long long v = file_counter(outdir, files[i].name, &complete);

		if (v != (long long)tlrt_stat(files[i].st))
			fail("counters file: %s = %lld, the runtime says %llu", files[i].name, v,
			     (unsigned long long)tlrt_stat(files[i].st));
	}
	if (!complete)
		fail("counters file: not marked complete after tlrt_finish()");
}

/*
 * Phase 3, after tlrt_finish (nothing samples or migrates any more): array
 * SET_B freed goes to the cache of freed regions with its pages (chunks
 * 0-1 slow on node 0, 2-7 fast on node 1), and the next allocation of its
 * size gets it back. No chunk is fast then, so LRU places chunks 0-5 fast
 * and 6-7 slow: chunks 0-1 and 6-7 had their pages on the other node and
 * must have been dropped and faulted afresh on their new one (zeros), 2-5
 * keep their pages and data; every page is on its chunk's node, and the
 * reuse counts no migration.
 */
static void phase_reuse(void)
{
	uint64_t s2f = tlrt_stat(RT_STAT_mig_slow_to_fast), f2s = tlrt_stat(RT_STAT_mig_fast_to_slow);
	uint64_t replaced = tlrt_stat(RT_STAT_cache_chunks_replaced), reuses = tlrt_stat(RT_STAT_cache_reuses);
	uint64_t *old = arr[SET_B];
	unsigned long busy = 0;
	char line[ARR_CHUNKS + 1];

	tlrt_free(arr[SET_B]);
	arr[SET_B] = tlrt_alloc(ARR_BYTES, 0, 0x4100);
	if (arr[SET_B] != old || tlrt_stat(RT_STAT_cache_reuses) != reuses + 1) {
		fail("reuse: array %d came back at %p (freed %p), %llu reuses", SET_B, (void *)arr[SET_B], (void *)old,
		     (unsigned long long)(tlrt_stat(RT_STAT_cache_reuses) - reuses));
		return;
	}
	for (int c = 0; c < (int)ARR_CHUNKS; c++) {
		int fast = c < BUDGET, kept = c >= SET_B_FIRST && c < BUDGET, st = 0;
		const uint64_t *w = chunk_addr(SET_B, c);
		size_t bad = 0, i0 = (size_t)c * CHUNK / 8;
		unsigned long off;

		if (tlrt_tier_of(w) != (fast ? TLP_FAST : TLP_SLOW))
			fail("reuse: chunk %d is %s, expected %s", c, tlrt_tier_of(w) == TLP_FAST ? "fast" : "slow",
			     fast ? "fast" : "slow");
		off = pages_off_node((void *)w, CHUNK, fast ? FAST_NODE : SLOW_NODE, &st, &busy);
		if (off)
			fail("reuse: chunk %d is %s: %lu of %lu pages not on node %d (first status %d)", c,
			     fast ? "fast" : "slow", off, CHUNK / PAGE, fast ? FAST_NODE : SLOW_NODE, st);
		for (size_t i = 0; i < CHUNK / 8; i++)
			bad += w[i] != (kept ? word(SET_B, i0 + i) : 0);
		if (bad)
			fail("reuse: chunk %d: %zu words not %s", c, bad, kept ? "as written before the free" : "zero");
		line[c] = fast ? (kept ? 'F' : 'f') : 's';
	}
	line[ARR_CHUNKS] = '\0';
	if (tlrt_stat(RT_STAT_cache_chunks_replaced) != replaced + 4)
		fail("reuse: %llu chunks replaced, expected 4 (0, 1, 6, 7)",
		     (unsigned long long)(tlrt_stat(RT_STAT_cache_chunks_replaced) - replaced));
	if (tlrt_stat(RT_STAT_mig_slow_to_fast) != s2f || tlrt_stat(RT_STAT_mig_fast_to_slow) != f2s)
		fail("reuse: counted as a migration");
	note("reuse: array %d tiers %s (F kept on node %d, f and s faulted afresh on nodes %d and %d), %lu page(s) asked again",
	     SET_B, line, FAST_NODE, FAST_NODE, SLOW_NODE, busy);
}

/* The runtime set up as a user would: LRU, fast node 1, slow node 0, BUDGET chunks of 2 MiB, plus extra (NULL-ended). */
static int runtime_setup(const char *const *extra)
{
	static char out[64] = "TIERLAB_OUT=/tmp", chunks[64];
	char *env[16];
	int n = 0;

	snprintf(chunks, sizeof(chunks), "TIERLAB_CHUNKS=%d", BUDGET);
	env[n++] = "TIERLAB_POLICY=lru";
	env[n++] = "TIERLAB_FAST_NODES=1";
	env[n++] = "TIERLAB_SLOW_NODES=0";
	env[n++] = chunks;
	env[n++] = "TIERLAB_CHUNK_SIZE=2MiB";
	env[n++] = "TIERLAB_THRESHOLD=1MiB";
	env[n++] = "TIERLAB_RATE=100Hz";
	env[n++] = "TIERLAB_STRICT=1";
	env[n++] = out;
	while (*extra && n < 15)
		env[n++] = (char *)*extra++;
	env[n] = NULL;
	if (tlrt_setup(env) != 0) {
		fail("tlrt_setup refused the variables");
		return -1;
	}
	return 0;
}

/* ---- first touch: sampler none, chunks keep their own policy ---- */

#define FT_BYTES (64 * MiB)
#define FT_CHUNKS (FT_BYTES / CHUNK)

/* Pages of [p, p + n) in memory (mincore). */
static size_t resident_pages(const void *p, size_t n)
{
	static unsigned char vec[FT_BYTES / PAGE];
	size_t in = 0;

	if (n > FT_BYTES || mincore((void *)p, n, vec))
		return (size_t)-1;
	for (size_t i = 0; i < n / PAGE; i++)
		in += vec[i] & 1;
	return in;
}

/*
 * Chunk c's first page of ft is on the node of the tier the runtime
 * reports. With the runtime's lock held no tick arms the memory (its span
 * is busy), and what an earlier tick armed is put back first.
 */
/* Returns 1 when the page is on the other node: a failure, unless the caller tolerates it (*off counts). */
static int check_first_page(char *ft, int c, const char *when, char *line, int *off)
{
	int tier, node, st = 0, wrong;
	unsigned long busy = 0;

	pthread_mutex_lock(&tlrt.lock);
	tlrt_sampler_release((uintptr_t)ft, FT_BYTES);
	tier = tlrt.chunks[tlrt_chunk_of((uintptr_t)(ft + (size_t)c * CHUNK))].tier;
	node = tier == TLP_FAST ? FAST_NODE : SLOW_NODE;
	line[c] = tier == TLP_FAST ? 'F' : 's';
	wrong = pages_off_node(ft + (size_t)c * CHUNK, PAGE, node, &st, &busy) != 0;
	if (wrong && !off)
		fail("first touch, %s: chunk %d is %s, its touched page is not on node %d (status %d)", when, c,
		     tier == TLP_FAST ? "fast" : "slow", node, st);
	if (wrong && off)
		++*off;
	pthread_mutex_unlock(&tlrt.lock);
	return wrong;
}

#define FT_THREADS 4

struct toucher {
	pthread_t t;
	char *ft;
	int id;
	int started;
};

/* Byte id of the first page of every odd chunk. */
static void *touch_odd(void *arg)
{
	const struct toucher *w = arg;

	for (int c = 1; c < (int)FT_CHUNKS; c += 2)
		w->ft[(size_t)c * CHUNK + (size_t)w->id] = 1;
	return NULL;
}

/*
 * The odd chunks' first touches come from FT_THREADS threads at once, all
 * on the same pages, each writing its own byte: a placement that put a
 * fresh page over one a thread had already written would lose a byte.
 */
static void touch_odd_chunks(char *ft)
{
	struct toucher w[FT_THREADS];

	for (int i = 0; i < FT_THREADS; i++) {
		w[i] = (struct toucher){ .ft = ft, .id = i };
		w[i].started = !pthread_create(&w[i].t, NULL, touch_odd, &w[i]);
		if (!w[i].started)
			touch_odd(&w[i]);
	}
	for (int i = 0; i < FT_THREADS; i++)
		if (w[i].started)
			pthread_join(w[i].t, NULL);
	for (int c = 1; c < (int)FT_CHUNKS; c += 2)
		for (int i = 0; i < FT_THREADS; i++)
			if (ft[(size_t)c * CHUNK + (size_t)i] != 1)
				fail("first touch: chunk %d lost thread %d's byte", c, i);
}

/*
 * Nothing is populated at malloc, and a page comes at the program's first
 * touch on its chunk's tier, also after the chunk has been promoted or
 * demoted. Without the fault sampler chunks keep their NUMA policy; under
 * it the arena is one mapping and the sampler's handler places each first
 * touch, with its neighbours (the unit under THP always, 64 KiB
 * otherwise). Even chunks are touched before the delivered samples move
 * six chunks, odd ones only after.
 */
static int first_touch(int fault)
{
	const char *const extra[] = { fault ? "TIERLAB_SAMPLER=fault" : "TIERLAB_SAMPLER=none", NULL };
	char line[FT_CHUNKS + 1];
	int thp, gap = 0;
	size_t in, most;
	char *ft;
	uint64_t before;
	double t0;
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char mode[128] = "";

	if (f) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = '\0';
		fclose(f);
	}
	thp = strstr(mode, "[always]") != NULL;
	if (runtime_setup(extra))
		return 1;
	ft = tlrt_alloc(FT_BYTES, 0, 0x5000);
	if (!ft || tlrt_state() != TLRT_ACTIVE) {
		fail("tlrt_alloc(%lu): %p, runtime state %d", FT_BYTES, (void *)ft, tlrt_state());
		return 1;
	}
	if ((in = resident_pages(ft, FT_BYTES)) != 0)
		fail("first touch: %zu of %lu pages resident before any touch (populated at malloc)", in, FT_BYTES / PAGE);
	for (int c = 0; c < (int)FT_CHUNKS; c += 2)
		ft[(size_t)c * CHUNK] = 1;
	memset(line, '.', FT_CHUNKS);
	line[FT_CHUNKS] = '\0';
	for (int c = 0; c < (int)FT_CHUNKS; c += 2)
		check_first_page(ft, c, "before the samples", line, NULL);
	note("first touch: tiers of the touched even chunks %s, %zu pages resident before the touch", line, in);

	/* six slow chunks at the end, three touched and three not, sampled: LRU promotes them */
	before = tlrt_stat(RT_STAT_samples);
	for (int c = (int)FT_CHUNKS - BUDGET; c < (int)FT_CHUNKS; c++)
		deliver(ft + (size_t)c * CHUNK, 0x5100 + (uintptr_t)c);
	for (t0 = now_s(); tlrt_stat(RT_STAT_samples) < before + BUDGET && now_s() < t0 + DRAIN_SECONDS;)
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	if (tlrt_stat(RT_STAT_samples) < before + BUDGET)
		fail("first touch: %llu of %d delivered samples drained",
		     (unsigned long long)(tlrt_stat(RT_STAT_samples) - before), BUDGET);
	for (int c = (int)FT_CHUNKS - BUDGET; c < (int)FT_CHUNKS; c++)
		if (tlrt_tier_of(ft + (size_t)c * CHUNK) != TLP_FAST)
			fail("first touch: chunk %d was sampled last but is slow", c);
	touch_odd_chunks(ft);
	tlrt_finish();
	for (int c = 0; c < (int)FT_CHUNKS; c++)
		check_first_page(ft, c, c % 2 ? "touched after the samples" : "moved by the samples", line,
				 fault && c % 2 ? &gap : NULL);
	/*
	 * Under the fault sampler a page first touched by a running thread in
	 * the microseconds between a sample's restore and the re-registration
	 * is the kernel's to place (docs/runtime.md); with four threads
	 * touching at once some can be. Most must not be.
	 */
	if (gap > (int)FT_CHUNKS / 8)
		fail("first touch: %d of %lu chunks touched by 4 threads have their page on the wrong node", gap,
		     FT_CHUNKS / 2);
	/* one page a chunk was touched; with THP always, the kernel may fault the chunk's huge page whole */
	in = resident_pages(ft, FT_BYTES);
	most = FT_CHUNKS * (thp ? CHUNK / PAGE : fault ? 16 : 1);
	if (fault && tlrt_stat(RT_STAT_first_touch_bytes) < FT_CHUNKS * PAGE)
		fail("first touch: the fault handler placed %llu bytes, at least %lu touched",
		     (unsigned long long)tlrt_stat(RT_STAT_first_touch_bytes), FT_CHUNKS * PAGE);
	if (in < FT_CHUNKS || in > most)
		fail("first touch: %zu pages resident after %lu touched pages (THP %s: expected %lu to %zu)", in,
		     FT_CHUNKS, thp ? "always" : "not always", FT_CHUNKS, most);
	if (tlrt_stat(RT_STAT_mig_failed))
		fail("first touch: %llu failed migrations", (unsigned long long)tlrt_stat(RT_STAT_mig_failed));
	note("first touch (sampler %s): tiers %s after the samples (F fast on node %d, s slow on node %d), %zu of %lu pages resident, %d of the threads' pages on the other node, %llu promotions, %llu bytes placed by the handler",
	     fault ? "fault" : "none", line, FAST_NODE, SLOW_NODE, in, FT_BYTES / PAGE, gap,
	     (unsigned long long)tlrt_stat(RT_STAT_mig_slow_to_fast),
	     (unsigned long long)tlrt_stat(RT_STAT_first_touch_bytes));
	tlrt_free(ft);
	if (failures) {
		printf("TIERMEM-GUEST: FAIL (%d failed checks)\n", failures);
		return 1;
	}
	printf("TIERMEM-GUEST: PASS\n");
	return 0;
}

int main(int argc, char **argv)
{
	char why[256] = "", sampler[64];
	const char *extra[] = { "TIERLAB_LOG=counters", "TIERLAB_VERBOSE=1", sampler, NULL };
	int fault_ok, nfast;
	long long migrated0;
	double t0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!check_nodes())
		return 77;
	if (argc > 1 && !strcmp(argv[1], "first-touch"))
		return first_touch(0);
	if (argc > 1 && !strcmp(argv[1], "first-touch-fault")) {
		if (!uffd_move_works(why, sizeof(why))) {
			printf("SKIP: %s\n", why);
			return 77;
		}
		return first_touch(1);
	}
	fault_ok = uffd_move_works(why, sizeof(why));
	if (fault_ok)
		note("userfaultfd with UFFDIO_MOVE works: phase 1 uses the fault sampler");
	else
		note("no fault sampler here (%s): phase 1 skipped, delivered samples only", why);
	snprintf(sampler, sizeof(sampler), "TIERLAB_SAMPLER=%s", fault_ok ? "fault" : "none");
	if (runtime_setup(extra))
		return 1;

	migrated0 = pages_migrated();
	t0 = now_s();
	for (int a = 0; a < NARR; a++) {
		arr[a] = tlrt_alloc(ARR_BYTES, 0, 0x4000 + (uintptr_t)a);
		if (!arr[a] || !tlrt_owns(arr[a]) || tlrt_state() != TLRT_ACTIVE) {
			fail("tlrt_alloc(%lu) of array %d: %p, runtime state %d", ARR_BYTES, a, (void *)arr[a], tlrt_state());
			return 1;
		}
		fill(a);
	}
	note("3 x %lu MiB allocated and filled in %.2f s, %u fast chunks of budget %u, AnonHugePages %ld kB",
	     ARR_BYTES >> 20, now_s() - t0, tlrt_fast_chunks(), tlrt_budget(), anon_huge_kb());
	check_budget("after allocation");

	if (fault_ok)
		phase_real();
	phase_delivered();
	check_budget("phase 2");

	/* stop the thread and the sampler: from here on nothing moves */
	tlrt_finish();

	check_placement(&nfast);
	if (nfast > BUDGET)
		fail("%d chunks fast, budget %d", nfast, BUDGET);
	for (int c = 0; c < (int)ARR_CHUNKS; c++) {
		int want = c >= SET_B_FIRST && c < SET_B_FIRST + BUDGET;

		if ((tlrt_tier_of(chunk_addr(SET_B, c)) == TLP_FAST) != want)
			fail("array %d chunk %d: %s, expected %s after the delivered samples", SET_B, c,
			     want ? "slow" : "fast", want ? "fast" : "slow");
	}
	if (count_fast() != BUDGET)
		fail("%d fast chunks, expected exactly the %d sampled last", count_fast(), BUDGET);
	for (int a = 0; a < NARR; a++) {
		size_t first = 0, bad = bad_words(a, &first);

		if (bad)
			fail("array %d: %zu of %lu words changed (first at word %zu: %016llx, expected %016llx)", a, bad,
			     ARR_BYTES / 8, first, (unsigned long long)arr[a][first], (unsigned long long)word(a, first));
	}
	note("data checked: %d x %lu words", NARR, ARR_BYTES / 8);
	check_counters("/tmp", nfast, migrated0);
	phase_reuse();
	note("AnonHugePages at the end: %ld kB", anon_huge_kb());

	for (int a = 0; a < NARR; a++)
		tlrt_free(arr[a]);
	if (failures) {
		printf("TIERMEM-GUEST: FAIL (%d failed checks)\n", failures);
		return 1;
	}
	printf("TIERMEM-GUEST: PASS\n");
	return 0;
}
