/*
 * Reading a perf_event ring buffer: the records the kernel writes into the
 * data area of an mmap'ed event between data_tail (the reader's) and
 * data_head (the kernel's), and the PERF_RECORD_SAMPLE layout that
 * attr.sample_type fixes. The reader sees only a ring's bytes, its size, a
 * tail and a head, so it is tested on recorded buffers; the two functions
 * that touch the mmap'ed control page carry the memory ordering the kernel
 * asks for. No allocation, no stdio, nothing that blocks.
 */
#ifndef TLRT_PERF_RING_H
#define TLRT_PERF_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* Where the fields the sampler reads sit in a sample record, after its header. */
struct tlrt_perf_layout {
	uint64_t sample_type;
	uint32_t size;		/* bytes of a sample record after its header */
	int32_t ip, tid, time, addr, data_src;	/* offsets; -1 when not asked for */
};

/*
 * 0, or -EINVAL when sample_type holds a field of variable size (READ,
 * CALLCHAIN, RAW, BRANCH_STACK, REGS_USER, STACK_USER, REGS_INTR, AUX) or a
 * bit this header does not know: every record must have the same layout.
 */
int tlrt_perf_layout_init(struct tlrt_perf_layout *l, uint64_t sample_type);

/* One record. Fields its type or the layout lacks are 0. */
struct tlrt_perf_record {
	uint32_t type;		/* PERF_RECORD_*, unknown types included (skip them) */
	uint16_t misc;
	uint16_t size;		/* the whole record, header included */
	union {
		struct {
			uint64_t ip, time, addr, data_src;
			uint32_t pid, tid;
		} sample;
		struct {
			uint64_t id, lost;
		} lost;
		struct {
			uint64_t time, id, stream_id;
		} throttle;	/* PERF_RECORD_THROTTLE and UNTHROTTLE */
		struct {
			uint64_t offset, size, flags;
		} aux;		/* PERF_RECORD_AUX: new data in the AUX area */
	} u;
};

struct tlrt_perf_reader {
	const uint8_t *data;
	uint64_t size;
	uint64_t pos;		/* the next record, free-running like data_tail */
	uint64_t head;
	const struct tlrt_perf_layout *layout;
};

/*
 * data: the ring's data area, size bytes (a power of two); tail and head
 * are the free-running offsets of the control page. -EPROTO when they do
 * not fit the ring (head before tail, or more than size bytes apart).
 */
int tlrt_perf_reader_init(struct tlrt_perf_reader *r, const void *data, uint64_t size, uint64_t tail,
			  uint64_t head, const struct tlrt_perf_layout *l);

/*
 * The next record, read across the end of the ring when it wraps: 1, 0
 * when pos reached head, or -EPROTO when what lies at pos is not a whole
 * record (a size of 0, a record running past head, a body shorter than its
 * type needs); pos then stays there and nothing after it can be read.
 */
int tlrt_perf_next(struct tlrt_perf_reader *r, struct tlrt_perf_record *rec);

/* len bytes at free-running offset at of a ring of size bytes (a power of two), across its end. */
void tlrt_perf_ring_copy(void *dst, const uint8_t *data, uint64_t size, uint64_t at, size_t len);

/*
 * The control page protocol: the head is read with acquire ordering, so
 * the records before it are visible; the tail is written with release
 * ordering, so the kernel reuses no byte still being read. The AUX area's
 * data is announced by PERF_RECORD_AUX records in the data area; its tail
 * is released the same way.
 */
uint64_t tlrt_perf_data_head(const struct perf_event_mmap_page *pg);
void tlrt_perf_data_tail(struct perf_event_mmap_page *pg, uint64_t tail);
void tlrt_perf_aux_tail(struct perf_event_mmap_page *pg, uint64_t tail);

#endif
