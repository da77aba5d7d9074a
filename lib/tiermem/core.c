/*
 * The core of the runtime: its state, the two-step start (variables at the
 * first malloc, everything else at the first managed allocation), managed
 * allocation and free, and applying a policy's decisions under the
 * fast-tier budget. Memory mechanics live in region.c and chunks.c,
 * moving pages in migrate.c, the background thread in thread.c, files in
 * record.c; this file decides what happens in which order.
 */
#include "tiermem/rt.h"
#include "policies/core-rules.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct tlrt_rt tlrt = { .lock = PTHREAD_MUTEX_INITIALIZER };
__thread int tlrt_in_rt __attribute__((tls_model("initial-exec")));
static uint64_t early_stats[RT_STAT__COUNT];
uint64_t *_Atomic tlrt_stats = early_stats;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t tlrt_now_ns(void)
{
	return rt_now_ns();
}

void tlrt_say(const char *fmt, ...)
{
	char buf[640];
	int saved = errno, n;
	va_list ap;

	memcpy(buf, "tiermem: ", 9);
	va_start(ap, fmt);
	n = vsnprintf(buf + 9, sizeof(buf) - 10, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	n += 9;
	if (n > (int)sizeof(buf) - 1)
		n = (int)sizeof(buf) - 1;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, (size_t)n) < 0) {
		/* nowhere to say it */
	}
	errno = saved;
}

static void stand_aside(const char *why)
{
	if (why && *why)
		tlrt_say("%s", why);
	if (tlrt.opt.strict)
		_exit(2);
	atomic_store(&tlrt.state, TLRT_PASSIVE);
}

int tlrt_setup(char *const *envp)
{
	char why[1024];
	int r;

	if (atomic_load(&tlrt.state) != TLRT_UNINIT)
		return atomic_load(&tlrt.state) == TLRT_PASSIVE ? 1 : 0;
	r = tlrt_options_parse(&tlrt.opt, envp, why, sizeof(why));
	if (r < 0) {
		stand_aside(why);
		return r;
	}
	if (r > 0) {
		atomic_store(&tlrt.state, TLRT_PASSIVE);
		return 1;
	}
	tlrt.budget_chunks = tlrt.opt.dynamic_fraction > 0 ? 0 : tlrt.opt.budget_chunks;
	atomic_store(&tlrt.state, TLRT_READY);
	return 0;
}

int tlrt_open_files(void)
{
	char why[1024];

	if (atomic_load(&tlrt.state) != TLRT_READY)
		return 0;
	if (tlrt_record_open()) {
		snprintf(why, sizeof(why), "TIERLAB_OUT='%s': cannot create files there (%s)",
			 tlrt.opt.out[0] ? tlrt.opt.out : ".", strerror(errno));
		stand_aside(why);
		return -1;
	}
	tlrt_atfork_register();
	return 0;
}

int tlrt_state(void)
{
	return atomic_load(&tlrt.state);
}

uint64_t tlrt_threshold(void)
{
	return tlrt.opt.threshold;
}

/* No placement policy: under TIERLAB_MEMPOLICY the kernel places managed memory (region.c). */
static void no_decisions(void *st, const struct tlp_alloc *a, struct tlp_decisions *out)
{
	(void)st, (void)a, (void)out;
}

static struct tlp_policy mempolicy_policy = {
	.size = sizeof(struct tlp_policy),
	.abi_version = TLP_ABI_VERSION,
	.on_alloc = no_decisions,
};

/*
 * TIERLAB_MEMPOLICY: the policy the kernel will take on managed memory,
 * tried on the reserved range before the arena is used, so a mode this
 * kernel does not have (weighted interleave before 6.9) stands the runtime
 * aside with the reason rather than leave the memory unplaced.
 */
static int mempolicy_start(char *why, size_t len)
{
	uintptr_t base = atomic_load_explicit(&tlrt.base, memory_order_relaxed);
	const char *mode;
	int rc = tlrt_region_mempolicy(base, TL_UNIT, &mode);

	if (rc) {
		snprintf(why, len, "%s='%s': mbind(%s) on managed memory: %s%s",
			 tlrt_option_table[TLRT_OPT_MEMPOLICY].name, tlrt_mempolicy_names[tlrt.opt.mempolicy], mode,
			 strerror(-rc), tlrt.opt.mempolicy == TLRT_MEMPOLICY_WEIGHTED ? " (needs Linux 6.9)" :
			 tlrt.opt.mempolicy == TLRT_MEMPOLICY_PREFERRED ? " (needs Linux 5.15)" : "");
		return -1;
	}
	mempolicy_policy.name = tlrt_mempolicy_names[tlrt.opt.mempolicy];
	return tlrt_policy_start(&mempolicy_policy, why, len);
}

/* Everything that may allocate, at the first managed allocation. init_lock held. */
static void activate(void)
{
	char why[1024] = "";

	if (tlrt_nodes_init(why, sizeof(why)))
		goto aside;
	if (tlrt_region_reserve(why, sizeof(why)))
		goto aside;
	if (tlrt_chunks_init()) {
		tlrt_region_explain(errno ? errno : ENOMEM, why, sizeof(why));
		goto aside;
	}
	tlrt_cache_init();
	if (tlrt_record_open()) {
		snprintf(why, sizeof(why), "TIERLAB_OUT='%s': cannot create files there (%s)",
			 tlrt.opt.out[0] ? tlrt.opt.out : ".", strerror(errno));
		goto aside;
	}
	if (tlrt.opt.mempolicy ? mempolicy_start(why, sizeof(why)) : tlrt_policy_load(why, sizeof(why)))
		goto aside;
	if (tlrt_sampler_setup(why, sizeof(why)))
		goto unload;
	tlrt_record_header();
	tlrt_log_params();
	tlrt_atfork_register();
	tlrt.start_ns = tlrt_now_ns();
	atomic_store(&tlrt.state, TLRT_ACTIVE);
	if (tlrt.opt.verbose) {
		char budget[64], cache[64];

		if (tlrt.opt.dynamic_fraction > 0)
			snprintf(budget, sizeof(budget), "%g%% of the managed chunks", tlrt.opt.dynamic_fraction * 100);
		else if (tlrt.budget_chunks == TLP_UNLIMITED)
			snprintf(budget, sizeof(budget), "unlimited");
		else
			snprintf(budget, sizeof(budget), "%u chunks", tlrt.budget_chunks);
		if (tlrt.opt.cache_fraction > 0)
			snprintf(cache, sizeof(cache), "%g%% of the managed peak", tlrt.opt.cache_fraction * 100);
		else
			snprintf(cache, sizeof(cache), "%llu bytes", (unsigned long long)tlrt.opt.cache_bytes);
		tlrt_say("managing allocations >= %llu bytes: policy '%s', chunk %llu bytes, budget %s, sampler '%s' at %g Hz, cache of freed regions %s",
			 (unsigned long long)tlrt.opt.threshold, tlrt.pol->name ? tlrt.pol->name : tlrt.opt.policy,
			 (unsigned long long)tlrt.opt.chunk_size, budget, tlrt.sampler->name, tlrt.opt.rate_hz, cache);
	}
	return;
unload:
	tlrt_policy_unload();
aside:
	tlrt_record_discard();
	stand_aside(why);
}

static int ensure_active(void)
{
	int st = atomic_load(&tlrt.state);

	if (st == TLRT_ACTIVE && (tlrt.thread_running || tlrt.finished))
		return 1;
	if (st != TLRT_ACTIVE && st != TLRT_READY)
		return 0;
	pthread_mutex_lock(&init_lock);
	if (atomic_load(&tlrt.state) == TLRT_READY)
		activate();
	/* also after fork: the child restarts its runtime thread here, lazily */
	if (atomic_load(&tlrt.state) == TLRT_ACTIVE && !tlrt.thread_running && !tlrt.finished)
		tlrt_thread_start();
	pthread_mutex_unlock(&init_lock);
	return atomic_load(&tlrt.state) == TLRT_ACTIVE;
}

/* The fast-tier capacity, recomputed when it follows the footprint. Lock held. */
void tlrt_budget_update(void)
{
	void (*on_budget)(void *, uint32_t, struct tlp_decisions *);
	struct tlp_decisions d;
	uint32_t nb, cap;

	if (!(tlrt.opt.dynamic_fraction > 0))
		return;
	nb = tlp_core_dynamic_budget(tlrt.opt.dynamic_fraction, tlrt.live_chunks);
	if (nb == tlrt.budget_chunks)
		return;
	/* a free can shrink the budget by many chunks at once: room to demote them all now */
	cap = tlp_core_budget_room(tlrt.budget_chunks, nb, tlrt.moves_cap);
	tlrt.budget_chunks = nb;
	tlrt.params.budget_chunks = nb;
	if (!(on_budget = TLRT_POL_FN(on_budget)))
		return;
	d = (struct tlp_decisions){ tlrt.moves, 0, cap };
	on_budget(tlrt.pol_state, nb, &d);
	tlrt_apply(d.v, d.n, 0);
}

/*
 * Decisions in order; a promotion beyond the budget is refused and
 * counted. With `initial`, chunks not yet placed get their first placement
 * (counted as initial-fast/slow); others are migrations. Lock held.
 */
void tlrt_apply(const struct tlp_move *v, uint32_t n, int initial)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = v[i].chunk;
		enum tlp_tier to = v[i].tier == TLP_FAST ? TLP_FAST : TLP_SLOW;
		struct tlrt_chunk *c;
		int first;

		if (id >= tlrt.max_chunks)
			continue;
		c = &tlrt.chunks[id];
		switch (tlp_core_step(c->live, c->placed, c->tier, to, initial, tlrt.fast_chunks,
				      tlrt.budget_chunks, &first)) {
		case TLP_STEP_SKIP:
			continue;
		case TLP_STEP_REFUSED:
			tlrt_stat_add(RT_STAT_budget_refused, 1);
			continue;
		case TLP_STEP_MOVE:
			break;
		}
		if (!first)
			c->tier_before = c->tier;
		if (tlrt_migrate(id, to, first) && !first)
			continue;	/* the kernel refused: the chunk stays where it was */
		c->placed = 1;
		if (c->tier != to) {
			if (to == TLP_FAST)
				tlrt.fast_chunks++;
			else
				tlrt.fast_chunks--;
			c->tier = (uint8_t)to;
		}
	}
}

static struct tlp_alloc alloc_desc(const struct tlrt_region *r)
{
	return (struct tlp_alloc){ sizeof(struct tlp_alloc), r->seq, r->first_chunk, r->nchunks, r->bytes };
}

/*
 * A region from the cache of freed ones (cache.c) or fresh from the
 * arena. Log mode names the caller's module; dladdr takes the loader's
 * lock, so not under ours.
 */
static void *managed_alloc(size_t bytes, size_t align, uintptr_t callsite, int zero)
{
	struct tlp_decisions d;
	struct tlp_alloc a;
	struct tlrt_region *r;
	uint64_t t = tlrt_now_ns();
	const char *module = "-";
	uintptr_t off = 0;

	if (tlrt_log_enabled())
		tlrt_log_callsite(callsite, &module, &off);
	pthread_mutex_lock(&tlrt.lock);
	r = tlrt_cache_take(bytes, align);
	if (!r && !(r = tlrt_region_alloc(bytes, align)) && tlrt.cache_bytes) {
		/* cached regions may be what fills the reservation */
		tlrt_cache_trim(0);
		r = tlrt_region_alloc(bytes, align);
	}
	if (!r)
		goto fail;
	/* the region may lie inside memory a sampler has armed: released before anything touches it */
	tlrt_sampler_release(r->addr, r->maplen);
	if (tlrt_chunks_alloc(r)) {
		tlrt_region_free(r);
		goto fail;
	}
	r->seq = tlrt.seq++;
	r->callsite = callsite;
	tlrt_stat_add(RT_STAT_allocs, 1);
	tlrt.cur_bytes += bytes;
	tlrt_stat_max(RT_STAT_managed_bytes_peak, tlrt.cur_bytes);
	tlrt_budget_update();
	tlrt_log_alloc(r, t, module, off);

	if (tlrt.opt.mempolicy) {
		/* nothing to place: the arena's memory policy does at first touch; kept pages stay */
		for (uint32_t i = 0; i < r->nchunks; i++) {
			struct tlrt_chunk *c = &tlrt.chunks[r->first_chunk + i];

			c->placed = 1;
			c->kept = c->addr - r->addr < r->held;
		}
		goto ready;
	}
	for (uint32_t i = 0; i < r->nchunks; i++)
		tlrt.chunks[r->first_chunk + i].placed = 0;
	a = alloc_desc(r);
	d = (struct tlp_decisions){ tlrt.moves, 0, tlp_core_alloc_room(r->nchunks, tlrt.moves_cap) };
	tlrt.pol->on_alloc(tlrt.pol_state, &a, &d);
	tlrt_apply(d.v, d.n, 1);
	/* chunks the policy left undecided (or whose promotion was refused) go slow */
	for (uint32_t i = 0; i < r->nchunks; i++) {
		struct tlrt_chunk *c = &tlrt.chunks[r->first_chunk + i];

		if (!c->placed) {
			tlrt_migrate(r->first_chunk + i, TLP_SLOW, 1);
			c->placed = 1;
		}
	}
ready:
	if (r->held)
		tlrt_cache_ready(r, zero);
	else
		tlrt_region_populate(r);	/* fresh: zero already */
	pthread_mutex_unlock(&tlrt.lock);
	return (void *)r->addr;
fail:
	pthread_mutex_unlock(&tlrt.lock);
	return NULL;
}

static void *alloc_entry(size_t bytes, size_t align, uintptr_t callsite, int zero)
{
	int saved = errno;
	void *p = NULL;

	if (ensure_active())
		p = managed_alloc(bytes, align, callsite, zero);
	errno = saved;
	return p;
}

void *tlrt_alloc(size_t bytes, size_t align, uintptr_t callsite)
{
	return alloc_entry(bytes, align, callsite, 0);
}

void *tlrt_alloc_zeroed(size_t bytes, uintptr_t callsite)
{
	return alloc_entry(bytes, 0, callsite, 1);
}

uint64_t tlrt_cache_held(void)
{
	uint64_t n;

	pthread_mutex_lock(&tlrt.lock);
	n = tlrt.cache_bytes;
	pthread_mutex_unlock(&tlrt.lock);
	return n;
}

int tlrt_owns(const void *p)
{
	return tlrt_managed(p);
}

void tlrt_free(void *p)
{
	void (*on_free)(void *, const struct tlp_alloc *);
	struct tlrt_region *r;
	struct tlp_alloc a;
	int saved = errno, kept;

	pthread_mutex_lock(&tlrt.lock);
	r = tlrt_region_of((uintptr_t)p);
	if (!r || r->addr != (uintptr_t)p) {
		pthread_mutex_unlock(&tlrt.lock);
		/* as glibc does for a pointer it never handed out */
		tlrt_say("free(): invalid pointer %p", p);
		abort();
	}
	tlrt_sampler_release(r->addr, r->maplen);
	tlrt_log_free(r, tlrt_now_ns());
	a = alloc_desc(r);
	tlrt.cur_bytes -= r->bytes;
	/* kept with its pages, or given back; the cache reads the chunks' tiers first */
	kept = tlrt_cache_put(r);
	tlrt_chunks_free(r);
	if ((on_free = TLRT_POL_FN(on_free)))
		on_free(tlrt.pol_state, &a);
	tlrt_stat_add(RT_STAT_frees, 1);
	if (!kept)
		tlrt_region_free(r);
	tlrt_budget_update();
	pthread_mutex_unlock(&tlrt.lock);
	errno = saved;
}

size_t tlrt_usable_size(const void *p)
{
	struct tlrt_region *r;
	size_t n = 0;

	pthread_mutex_lock(&tlrt.lock);
	r = tlrt_region_of((uintptr_t)p);
	if (r && r->addr == (uintptr_t)p)
		n = (size_t)((r->bytes + TLRT_PAGE - 1) / TLRT_PAGE * TLRT_PAGE);
	pthread_mutex_unlock(&tlrt.lock);
	return n;
}

/*
 * In place only when the page-rounded length stays the same: then every
 * chunk keeps its range and its memory policy. Anything else moves.
 */
void *tlrt_resize(void *p, size_t bytes)
{
	struct tlrt_region *r;
	void *ret = NULL;

	pthread_mutex_lock(&tlrt.lock);
	r = tlrt_region_of((uintptr_t)p);
	if (r && r->addr == (uintptr_t)p && bytes >= tlrt.opt.threshold &&
	    (bytes + TLRT_PAGE - 1) / TLRT_PAGE == (r->bytes + TLRT_PAGE - 1) / TLRT_PAGE) {
		tlrt.cur_bytes = tlrt.cur_bytes - r->bytes + bytes;
		tlrt_stat_max(RT_STAT_managed_bytes_peak, tlrt.cur_bytes);
		r->bytes = bytes;
		ret = p;
	}
	pthread_mutex_unlock(&tlrt.lock);
	return ret;
}

void tlrt_count_realloc(void)
{
	tlrt_stat_add(RT_STAT_reallocs, 1);
}

/*
 * Where the chunk was when the sample was taken, which may be before the
 * drain that handles it (several samples of one drain, a perf ring):
 * after its last move, its tier; before it, the tier it left; during it,
 * nowhere a machine would call fast (an access to a page in migration
 * waits for it), so a miss.
 */
static int hit_at(const struct tlrt_chunk *c, uint64_t t)
{
	if (t >= c->move_end_ns)
		return c->tier == TLP_FAST;
	if (t >= c->move_start_ns) {
		tlrt_stat_add(RT_STAT_samples_in_motion, 1);
		return 0;
	}
	return c->tier_before == TLP_FAST;
}

/* One sample: hit or miss as the chunk was at the sample's time, then the policy. Lock held. */
void tlrt_process_sample(const struct rt_sample *s)
{
	void (*on_sample)(void *, uint32_t, struct tlp_decisions *);
	uint32_t chunk = tlrt_chunk_of(s->addr);
	struct tlp_decisions d;
	int hit = 0;

	if (chunk != TLRT_NO_CHUNK) {
		hit = hit_at(&tlrt.chunks[chunk], s->t_ns);
		tlrt_stat_add(RT_STAT_samples_managed, 1);
		tlrt_stat_add(hit ? RT_STAT_hits : RT_STAT_misses, 1);
	}
	tlrt_log_sample(s, chunk, hit);
	if (chunk == TLRT_NO_CHUNK || !(on_sample = TLRT_POL_FN(on_sample)))
		return;
	d = (struct tlp_decisions){ tlrt.moves, 0, TLP_SAMPLE_DECISIONS };
	on_sample(tlrt.pol_state, chunk, &d);
	tlrt_apply(d.v, d.n, 0);
}

void tlrt_deliver(const struct rt_sample *s)
{
	tlrt_ring_push(s);
}

void tlrt_process_pending(void)
{
	if (atomic_load(&tlrt.state) == TLRT_ACTIVE)
		tlrt_drain();
}

int tlrt_tier_of(const void *p)
{
	uint32_t c;
	int tier = -1;

	if (!tlrt_managed(p))
		return -1;
	pthread_mutex_lock(&tlrt.lock);
	if ((c = tlrt_chunk_of((uintptr_t)p)) != TLRT_NO_CHUNK)
		tier = tlrt.chunks[c].tier;
	pthread_mutex_unlock(&tlrt.lock);
	return tier;
}

uint64_t tlrt_stat(enum rt_stat s)
{
	return s < RT_STAT__COUNT ? __atomic_load_n(&atomic_load(&tlrt_stats)[s], __ATOMIC_RELAXED) : 0;
}

static uint32_t read_locked(const uint32_t *v)
{
	uint32_t n;

	pthread_mutex_lock(&tlrt.lock);
	n = *v;
	pthread_mutex_unlock(&tlrt.lock);
	return n;
}

uint32_t tlrt_fast_chunks(void)
{
	return read_locked(&tlrt.fast_chunks);
}

uint32_t tlrt_budget(void)
{
	return read_locked(&tlrt.budget_chunks);
}

/*
 * At exit: stop sampling and the thread, complete the files. Managed
 * memory keeps working afterwards (later destructors may still free it).
 */
void tlrt_finish(void)
{
	int locked = 0;

	if (atomic_load(&tlrt.state) != TLRT_ACTIVE || tlrt.finished)
		goto files;
	tlrt.finished = 1;
	tlrt_thread_stop();
	tlrt_sampler_stop();
	/* nothing places first touches any more: later allocations are populated (region.c) */
	atomic_store(&tlrt.watched, 0);
	tlrt_drain();
files:
	/* a thread of the program may hold the lock as exit() runs: don't wait long */
	for (int i = 0; i < 100 && !locked; i++) {
		locked = !pthread_mutex_trylock(&tlrt.lock);
		if (!locked)
			usleep(1000);
	}
	tlrt_record_close(1);
	if (locked)
		pthread_mutex_unlock(&tlrt.lock);
}
