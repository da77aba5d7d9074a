/*
 * The perf ring reader (perf-ring.h): a sample record's layout from
 * attr.sample_type, in the order perf_event.h documents, and records taken
 * one by one out of the data area, copied out when they wrap around its
 * end. Only the records the perf sampler acts on are decoded (SAMPLE,
 * LOST, THROTTLE/UNTHROTTLE, AUX); any other type is returned with its
 * header so the caller can skip it by its size.
 */
#include "tiermem/perf-ring.h"

#include <errno.h>
#include <string.h>

#define VARIABLE_FIELDS                                                                               \
	(PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |     \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX)
#define BODY_MAX 256		/* more than every fixed-size field together */

int tlrt_perf_layout_init(struct tlrt_perf_layout *l, uint64_t st)
{
	/* the fixed-size fields, in record order; `at` is where the next one goes */
	static const struct {
		uint64_t bit;
		size_t member;		/* offsetof the int32_t in the layout, or 0: skipped */
	} order[] = {
		{ PERF_SAMPLE_IDENTIFIER, 0 },
		{ PERF_SAMPLE_IP, offsetof(struct tlrt_perf_layout, ip) },
		{ PERF_SAMPLE_TID, offsetof(struct tlrt_perf_layout, tid) },
		{ PERF_SAMPLE_TIME, offsetof(struct tlrt_perf_layout, time) },
		{ PERF_SAMPLE_ADDR, offsetof(struct tlrt_perf_layout, addr) },
		{ PERF_SAMPLE_ID, 0 },
		{ PERF_SAMPLE_STREAM_ID, 0 },
		{ PERF_SAMPLE_CPU, 0 },
		{ PERF_SAMPLE_PERIOD, 0 },
		{ PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, 0 },
		{ PERF_SAMPLE_DATA_SRC, offsetof(struct tlrt_perf_layout, data_src) },
		{ PERF_SAMPLE_TRANSACTION, 0 },
		{ PERF_SAMPLE_PHYS_ADDR, 0 },
		{ PERF_SAMPLE_CGROUP, 0 },
		{ PERF_SAMPLE_DATA_PAGE_SIZE, 0 },
		{ PERF_SAMPLE_CODE_PAGE_SIZE, 0 },
	};
	int32_t at = 0;

	if (st & VARIABLE_FIELDS || st & ~((uint64_t)PERF_SAMPLE_MAX - 1))
		return -EINVAL;
	*l = (struct tlrt_perf_layout){ .sample_type = st, .ip = -1, .tid = -1, .time = -1, .addr = -1,
					.data_src = -1 };
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(st & order[i].bit))
			continue;
		if (order[i].member)
			*(int32_t *)((char *)l + order[i].member) = at;
		at += 8;
	}
	l->size = (uint32_t)at;
	return 0;
}

int tlrt_perf_reader_init(struct tlrt_perf_reader *r, const void *data, uint64_t size, uint64_t tail,
			  uint64_t head, const struct tlrt_perf_layout *l)
{
	*r = (struct tlrt_perf_reader){ .data = data, .size = size, .pos = tail, .head = head, .layout = l };
	if (head - tail > size) {
		r->pos = head;	/* nothing readable */
		return -EPROTO;
	}
	return 0;
}

void tlrt_perf_ring_copy(void *dst, const uint8_t *data, uint64_t size, uint64_t at, size_t len)
{
	uint64_t off = at & (size - 1);
	size_t first = len < size - off ? len : (size_t)(size - off);

	memcpy(dst, data + off, first);
	memcpy((uint8_t *)dst + first, data, len - first);
}

static uint64_t u64_at(const uint8_t *body, int32_t off)
{
	uint64_t v = 0;

	if (off >= 0)
		memcpy(&v, body + off, sizeof(v));
	return v;
}

int tlrt_perf_next(struct tlrt_perf_reader *r, struct tlrt_perf_record *rec)
{
	const struct tlrt_perf_layout *l = r->layout;
	struct perf_event_header h;
	uint64_t left = r->head - r->pos;
	uint8_t body[BODY_MAX];
	size_t need;

	if (!left)
		return 0;
	if (left < sizeof(h))
		return -EPROTO;
	tlrt_perf_ring_copy(&h, r->data, r->size, r->pos, sizeof(h));
	if (h.size < sizeof(h) || h.size > left)
		return -EPROTO;
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		need = l->size;
		break;
	case PERF_RECORD_LOST:
		need = sizeof(rec->u.lost);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		need = sizeof(rec->u.throttle);
		break;
	case PERF_RECORD_AUX:
		need = sizeof(rec->u.aux);
		break;
	default:
		need = 0;
		break;
	}
	if (h.size - sizeof(h) < need)
		return -EPROTO;
	tlrt_perf_ring_copy(body, r->data, r->size, r->pos + sizeof(h), need);
	memset(rec, 0, sizeof(*rec));
	rec->type = h.type;
	rec->misc = h.misc;
	rec->size = h.size;
	if (h.type == PERF_RECORD_SAMPLE) {
		uint64_t pid_tid = u64_at(body, l->tid);

		rec->u.sample.ip = u64_at(body, l->ip);
		rec->u.sample.time = u64_at(body, l->time);
		rec->u.sample.addr = u64_at(body, l->addr);
		rec->u.sample.data_src = u64_at(body, l->data_src);
		/* { u32 pid, tid; } in memory order */
		memcpy(&rec->u.sample.pid, &pid_tid, 4);
		memcpy(&rec->u.sample.tid, (uint8_t *)&pid_tid + 4, 4);
	} else if (need) {
		memcpy(&rec->u, body, need);
	}
	r->pos += h.size;
	return 1;
}

uint64_t tlrt_perf_data_head(const struct perf_event_mmap_page *pg)
{
	return __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
}

void tlrt_perf_data_tail(struct perf_event_mmap_page *pg, uint64_t tail)
{
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

void tlrt_perf_aux_tail(struct perf_event_mmap_page *pg, uint64_t tail)
{
	__atomic_store_n(&pg->aux_tail, tail, __ATOMIC_RELEASE);
}
