/*
 * The Arm SPE packet decoder (perf-spe.h). Headers, from the Arm ARM and
 * tools/perf/util/arm-spe-decoder: 0x00 padding, 0x01 End, 0x71
 * Timestamp; 0b001xxxxx an extended header whose second byte is the
 * packet's own header (its index gets bits 4:3 from the first byte's bits
 * 1:0; the architecture uses 0b001000xx, perf's decoder accepts the rest);
 * 0b10110iii an address packet (index 0 the PC, 2 the data virtual
 * address); 0b011001xx a context packet; 0b010010cc an op type packet
 * (class 1: load/store, payload bit 0 set for a store). Any other header
 * with bits 7:6 not both zero is a packet of 1 << bits 5:4 payload bytes.
 */
#include "tiermem/perf-spe.h"

#include <errno.h>
#include <string.h>

#define HDR_PAD 0x00
#define HDR_END 0x01
#define HDR_TIMESTAMP 0x71
#define HDR_EXTENDED_MASK 0xe0
#define HDR_EXTENDED 0x20
#define HDR_ADDRESS_MASK 0xf8
#define HDR_ADDRESS 0xb0
#define HDR_CONTEXT_MASK 0xfc
#define HDR_CONTEXT 0x64
#define HDR_OP_TYPE_LDST 0x49	/* op type, class 1 */
#define ADDR_INDEX_PC 0
#define ADDR_INDEX_DATA_VA 2

void tlrt_spe_reader_init(struct tlrt_spe_reader *r, const void *data, uint64_t size, uint64_t start,
			  uint64_t len)
{
	*r = (struct tlrt_spe_reader){ .data = data, .size = size, .pos = start, .end = start + len };
}

static uint8_t byte_at(const struct tlrt_spe_reader *r, uint64_t at)
{
	return r->data[at & (r->size - 1)];
}

/* Bits 55:0 of an address packet, sign-extended from bit 55 (the top byte holds tags and levels). */
static uint64_t address(uint64_t payload)
{
	uint64_t a = payload & ((1ULL << 56) - 1);

	return a & (1ULL << 55) ? a | (0xffULL << 56) : a;
}

int tlrt_spe_next(struct tlrt_spe_reader *r, struct tlrt_spe_record *rec)
{
	int have_va = 0;

	memset(rec, 0, sizeof(*rec));
	while (r->pos < r->end) {
		uint8_t h = byte_at(r, r->pos), kind = h;
		unsigned hlen = 1, index = h & 7, plen;
		uint64_t payload = 0;

		if (h == HDR_PAD) {
			r->pos++;
			continue;
		}
		if ((h & HDR_EXTENDED_MASK) == HDR_EXTENDED) {
			if (r->end - r->pos < 2)
				break;
			kind = byte_at(r, r->pos + 1);
			hlen = 2;
			index = (unsigned)(h & 3) << 3 | (kind & 7);
			if (kind == HDR_PAD) {
				/* an alignment packet: what follows it up to a multiple of 2^(h[3:0]+1) is padding */
				uint64_t align = 2ULL << (h & 0xf);

				r->pos = (r->pos + 2 + align - 1) & ~(align - 1);
				continue;
			}
		} else if (h == HDR_END) {
			r->pos++;
			if (have_va)
				return 1;
			memset(rec, 0, sizeof(*rec));
			continue;
		} else if (!(h & 0xc0)) {
			return -EPROTO;
		}
		plen = 1u << ((kind >> 4) & 3);
		if (r->end - r->pos < hlen + plen)
			break;
		for (unsigned i = 0; i < plen; i++)
			payload |= (uint64_t)byte_at(r, r->pos + hlen + i) << (8 * i);
		r->pos += hlen + plen;
		if ((kind & HDR_ADDRESS_MASK) == HDR_ADDRESS) {
			if (index == ADDR_INDEX_PC) {
				rec->pc = address(payload);
			} else if (index == ADDR_INDEX_DATA_VA) {
				rec->vaddr = address(payload);
				have_va = 1;
			}
		} else if (hlen == 1 && (h & HDR_CONTEXT_MASK) == HDR_CONTEXT) {
			rec->context = (uint32_t)payload;
		} else if (hlen == 1 && h == HDR_OP_TYPE_LDST) {
			rec->store = (int)(payload & 1);
		} else if (hlen == 1 && h == HDR_TIMESTAMP) {
			if (have_va)
				return 1;
			memset(rec, 0, sizeof(*rec));
		}
	}
	r->pos = r->end;
	return 0;
}
