/*
 * Arm SPE records, as the arm_spe PMU writes them into a perf AUX area:
 * packets (a header byte, or two for the extended form, then a payload of
 * 1, 2, 4 or 8 bytes, as the header's bits 5:4 say), a record ending at an
 * End or a Timestamp packet (ARM DDI 0487, "Statistical Profiling
 * Extension protocol packet headers"). Only what the perf sampler needs is
 * decoded: the data virtual address, the PC, the op type's store bit and
 * the context (CONTEXTIDR: the thread id when the kernel writes it there).
 * Every other packet is skipped by its size. No allocation, no stdio.
 */
#ifndef TLRT_PERF_SPE_H
#define TLRT_PERF_SPE_H

#include <stdint.h>

struct tlrt_spe_record {
	uint64_t vaddr;		/* the data access's virtual address */
	uint64_t pc;		/* 0 when the record has none */
	uint32_t context;	/* 0 when the record has none */
	int store;		/* a load/store op that stored */
};

/* Reads [start, start + len) of a ring of size bytes (a power of two), across its end. */
struct tlrt_spe_reader {
	const uint8_t *data;
	uint64_t size;
	uint64_t pos, end;
};

void tlrt_spe_reader_init(struct tlrt_spe_reader *r, const void *data, uint64_t size, uint64_t start,
			  uint64_t len);

/*
 * The next record that has a data virtual address (records without one,
 * branches and other ops, are passed over): 1, 0 at the end (a record cut
 * by the end is dropped), or -EPROTO at a header that is not a packet
 * (nothing after it is read).
 */
int tlrt_spe_next(struct tlrt_spe_reader *r, struct tlrt_spe_record *rec);

#endif
