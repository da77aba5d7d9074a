/*
 * The sample ring: samplers deliver from signal handlers and from their
 * own threads, the runtime thread drains. A bounded lock-free queue where
 * each slot carries a sequence number (the Vyukov scheme): a producer
 * claims a position with one compare-and-swap, writes the slot, then
 * publishes it; the single consumer takes slots in order. Nothing blocks
 * and nothing allocates, so delivering is async-signal-safe. A full ring
 * drops the sample, counted (samples_dropped): a sampler outrunning the
 * runtime thread loses samples, never the program's time.
 */
#include "tiermem/rt.h"

#define RING_SIZE 4096	/* a power of two */

struct slot {
	_Atomic uint64_t seq;
	struct rt_sample s;
};

static struct slot ring[RING_SIZE];
static _Atomic uint64_t ring_head, ring_tail;
static _Atomic int ring_ready;

void tlrt_ring_reset(void)
{
	for (uint64_t i = 0; i < RING_SIZE; i++)
		atomic_store_explicit(&ring[i].seq, i, memory_order_relaxed);
	atomic_store_explicit(&ring_head, 0, memory_order_relaxed);
	atomic_store_explicit(&ring_tail, 0, memory_order_relaxed);
	atomic_store_explicit(&ring_ready, 1, memory_order_release);
}

void tlrt_ring_push(const struct rt_sample *s)
{
	uint64_t pos;
	struct slot *sl;

	if (!atomic_load_explicit(&ring_ready, memory_order_acquire))
		return;
	pos = atomic_load_explicit(&ring_head, memory_order_relaxed);
	for (;;) {
		int64_t dif;

		sl = &ring[pos & (RING_SIZE - 1)];
		dif = (int64_t)(atomic_load_explicit(&sl->seq, memory_order_acquire) - pos);
		if (dif == 0) {
			if (atomic_compare_exchange_weak_explicit(&ring_head, &pos, pos + 1,
								  memory_order_relaxed, memory_order_relaxed))
				break;
		} else if (dif < 0) {
			tlrt_stat_add(RT_STAT_samples_dropped, 1);	/* full */
			return;
		} else {
			pos = atomic_load_explicit(&ring_head, memory_order_relaxed);
		}
	}
	sl->s = *s;
	atomic_store_explicit(&sl->seq, pos + 1, memory_order_release);
}

int tlrt_ring_pop(struct rt_sample *s)
{
	uint64_t pos = atomic_load_explicit(&ring_tail, memory_order_relaxed);
	struct slot *sl = &ring[pos & (RING_SIZE - 1)];

	if (!atomic_load_explicit(&ring_ready, memory_order_acquire) ||
	    atomic_load_explicit(&sl->seq, memory_order_acquire) != pos + 1)
		return 0;
	*s = sl->s;
	atomic_store_explicit(&sl->seq, pos + RING_SIZE, memory_order_release);
	atomic_store_explicit(&ring_tail, pos + 1, memory_order_relaxed);
	return 1;
}
