/*
 * The Arm SPE decoder (lib/tiermem/perf-spe.c) on records built packet by
 * packet from the architecture's encodings (no SPE here: these are the
 * only records it can be tested on): address, op type, context, counter,
 * events and timestamp packets, extended headers, padding and alignment,
 * records ending at End or at Timestamp, records without a data address,
 * a record across the end of the AUX ring, a cut record, a bad header.
 */
#include "tiermem/perf-spe.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#define RING 128

struct buf {
	uint8_t data[RING];
	uint64_t at;		/* free-running */
};

static void b1(struct buf *b, uint8_t v)
{
	b->data[b->at++ % RING] = v;
}

static void packet(struct buf *b, uint8_t hdr, uint64_t payload, unsigned len)
{
	b1(b, hdr);
	for (unsigned i = 0; i < len; i++)
		b1(b, (uint8_t)(payload >> (8 * i)));
}

/* A load or store at va from pc, with the packets a real record has around them. */
static void record(struct buf *b, uint64_t pc, uint64_t va, int store, uint32_t ctx, int end_with_timestamp)
{
	packet(b, 0xb0, pc | 2ULL << 61, 8);		/* PC, EL0 bits in the top byte */
	packet(b, 0x49, store ? 1 : 0, 1);		/* op type: load/store */
	packet(b, 0x52, 0x0106, 2);			/* events, 2 bytes */
	packet(b, 0xb2, va | 0x5aULL << 56, 8);		/* data VA, a tag in the top byte */
	packet(b, 0x98, 300, 2);			/* total latency */
	packet(b, 0x65, ctx, 4);			/* context, EL2 */
	if (end_with_timestamp)
		packet(b, 0x71, 123456789, 8);
	else
		b1(b, 0x01);
}

static void records_and_fields(void **state)
{
	struct buf b = { .at = 0 };
	struct tlrt_spe_reader r;
	struct tlrt_spe_record rec;

	(void)state;
	record(&b, 0x400100, 0x7f1234567890, 0, 4242, 0);
	b1(&b, 0x00);
	b1(&b, 0x00);
	record(&b, 0x400200, 0xffff800012345678, 1, 0, 1);	/* a kernel address: sign-extended */
	tlrt_spe_reader_init(&r, b.data, RING, 0, b.at);
	assert_int_equal(tlrt_spe_next(&r, &rec), 1);
	assert_int_equal(rec.pc, 0x400100);
	assert_int_equal(rec.vaddr, 0x7f1234567890);
	assert_int_equal(rec.store, 0);
	assert_int_equal(rec.context, 4242);
	assert_int_equal(tlrt_spe_next(&r, &rec), 1);
	assert_int_equal(rec.pc, 0x400200);
	assert_int_equal(rec.vaddr, 0xffff800012345678);
	assert_int_equal(rec.store, 1);
	assert_int_equal(rec.context, 0);
	assert_int_equal(tlrt_spe_next(&r, &rec), 0);
}

/* A branch (no data address) is passed over; its PC does not leak into the next record. */
static void records_without_address_skipped(void **state)
{
	struct buf b = { .at = 0 };
	struct tlrt_spe_reader r;
	struct tlrt_spe_record rec;

	(void)state;
	packet(&b, 0xb0, 0x500000, 8);
	packet(&b, 0x4a, 0x01, 1);		/* op type: branch */
	packet(&b, 0xb1, 0x500400, 8);		/* branch target */
	b1(&b, 0x01);
	packet(&b, 0xb2, 0x7000, 8);		/* a record with a VA and no PC */
	b1(&b, 0x01);
	tlrt_spe_reader_init(&r, b.data, RING, 0, b.at);
	assert_int_equal(tlrt_spe_next(&r, &rec), 1);
	assert_int_equal(rec.vaddr, 0x7000);
	assert_int_equal(rec.pc, 0);
	assert_int_equal(tlrt_spe_next(&r, &rec), 0);
}

/* The extended header (0b001000xx + header): address index 2 as 0 << 3 | 2, alignment padding. */
static void extended_headers(void **state)
{
	struct buf b = { .at = 0 };
	struct tlrt_spe_reader r;
	struct tlrt_spe_record rec;

	(void)state;
	b1(&b, 0x20);
	packet(&b, 0xb2, 0x9000, 8);			/* extended data VA */
	b1(&b, 0x20);
	packet(&b, 0x98, 7, 2);				/* extended counter */
	b1(&b, 0x01);
	b1(&b, 0x22);					/* alignment to 8 bytes... */
	b1(&b, 0x00);
	while (b.at % 8)
		b1(&b, 0xee);				/* ...over bytes that are not packets */
	packet(&b, 0xb2, 0xa000, 8);
	b1(&b, 0x01);
	tlrt_spe_reader_init(&r, b.data, RING, 0, b.at);
	assert_int_equal(tlrt_spe_next(&r, &rec), 1);
	assert_int_equal(rec.vaddr, 0x9000);
	assert_int_equal(tlrt_spe_next(&r, &rec), 1);
	assert_int_equal(rec.vaddr, 0xa000);
	assert_int_equal(tlrt_spe_next(&r, &rec), 0);
}

static void across_the_end(void **state)
{
	struct buf b = { .at = RING - 20 };
	struct tlrt_spe_reader r;
	struct tlrt_spe_record rec;
	uint64_t start = b.at;

	(void)state;
	record(&b, 0x400300, 0x7f00000abcd0, 1, 9, 0);
	tlrt_spe_reader_init(&r, b.data, RING, start, b.at - start);
	assert_int_equal(tlrt_spe_next(&r, &rec), 1);
	assert_int_equal(rec.pc, 0x400300);
	assert_int_equal(rec.vaddr, 0x7f00000abcd0);
	assert_int_equal(rec.context, 9);
	assert_int_equal(tlrt_spe_next(&r, &rec), 0);
}

/* Cut inside a packet or before its End: no record; a header that is no packet: -EPROTO. */
static void cut_and_bad(void **state)
{
	struct buf b = { .at = 0 };
	struct tlrt_spe_reader r;
	struct tlrt_spe_record rec;

	(void)state;
	record(&b, 0x400100, 0x7f0000001000, 0, 1, 0);
	tlrt_spe_reader_init(&r, b.data, RING, 0, b.at - 1);		/* no End */
	assert_int_equal(tlrt_spe_next(&r, &rec), 0);
	tlrt_spe_reader_init(&r, b.data, RING, 0, 20);			/* inside the VA packet */
	assert_int_equal(tlrt_spe_next(&r, &rec), 0);
	b.at = 0;
	record(&b, 0x400100, 0x7f0000001000, 0, 1, 0);
	b1(&b, 0x05);							/* bits 7:6 zero: not a header */
	record(&b, 0x400100, 0x7f0000002000, 0, 1, 0);
	tlrt_spe_reader_init(&r, b.data, RING, 0, b.at);
	assert_int_equal(tlrt_spe_next(&r, &rec), 1);
	assert_int_equal(rec.vaddr, 0x7f0000001000);
	assert_int_equal(tlrt_spe_next(&r, &rec), -EPROTO);
	tlrt_spe_reader_init(&r, b.data, RING, 0, 0);
	assert_int_equal(tlrt_spe_next(&r, &rec), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records_and_fields),
		cmocka_unit_test(records_without_address_skipped),
		cmocka_unit_test(extended_headers),
		cmocka_unit_test(across_the_end),
		cmocka_unit_test(cut_and_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
