/*
 * The perf ring reader (lib/tiermem/perf-ring.c) on a ring recorded on
 * this machine (perf-ring-record: the software page-fault event while 90
 * known pages were touched, records running across the end of the ring)
 * and on built ones: a record split across the end, LOST, THROTTLE and
 * AUX records, a type it does not know, a truncated buffer, a zero size,
 * an empty ring, an overrun; and sample layouts.
 */
#include "perf-fixture.h"
#include "tiermem/perf-draw.h"
#include "tiermem/perf-ring.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASIC (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR)

/* ---- the recorded ring ---- */

static void recorded_ring(void **state)
{
	struct perf_fixture_header h;
	struct tlrt_perf_layout l;
	struct tlrt_perf_reader r;
	struct tlrt_perf_record rec;
	uint64_t *touched, last_time = 0, at;
	uint8_t *data;
	size_t found = 0, others = 0;
	int straddled = 0, n;
	FILE *f = fopen(PERF_FIXTURE, "rb");

	(void)state;
	assert_non_null(f);
	assert_int_equal(fread(&h, sizeof(h), 1, f), 1);
	assert_memory_equal(h.magic, PERF_FIXTURE_MAGIC, 8);
	assert_int_equal(h.sample_type, BASIC);
	touched = calloc(h.ntouched, sizeof(*touched));
	data = malloc(h.data_size);
	assert_int_equal(fread(touched, sizeof(*touched), h.ntouched, f), h.ntouched);
	assert_int_equal(fread(data, 1, h.data_size, f), h.data_size);
	fclose(f);
	/* the fixture is only worth its bytes if its records wrap */
	assert_true(h.tail % h.data_size + (h.head - h.tail) > h.data_size);

	assert_int_equal(tlrt_perf_layout_init(&l, h.sample_type), 0);
	assert_int_equal(tlrt_perf_reader_init(&r, data, h.data_size, h.tail, h.head, &l), 0);
	at = h.tail;
	while ((n = tlrt_perf_next(&r, &rec)) > 0) {
		assert_int_equal(rec.type, PERF_RECORD_SAMPLE);
		assert_int_equal(rec.size, sizeof(struct perf_event_header) + l.size);
		if ((at & (h.data_size - 1)) + rec.size > h.data_size)
			straddled++;
		at = r.pos;
		assert_int_equal(rec.u.sample.pid, h.pid);
		assert_int_equal(rec.u.sample.tid, h.tid);
		assert_true(rec.u.sample.ip != 0);
		assert_true(rec.u.sample.time >= last_time);
		last_time = rec.u.sample.time;
		if (rec.u.sample.addr - h.region >= h.region_len) {
			others++;
			continue;
		}
		/* exactly the touched addresses, each once, in the order touched */
		assert_true(found < h.ntouched);
		assert_int_equal(rec.u.sample.addr, touched[found]);
		found++;
	}
	assert_int_equal(n, 0);
	assert_int_equal(r.pos, h.head);
	assert_int_equal(found, h.ntouched);
	assert_int_equal(straddled, 1);
	print_message("recorded ring: %zu touched pages found, %zu other faults\n", found, others);
	free(touched);
	free(data);
}

/*
 * The recorded ring read tick by tick, 8 records a tick, one drawn a tick
 * as the sampler draws: each pick is one of its own tick's records, so no
 * record is delivered twice, and two ticks' picks repeat an address only
 * as often as their records share one (never, in this fixture: every
 * touched page faulted once).
 */
static void recorded_ring_drawn_once(void **state)
{
	struct perf_fixture_header h;
	struct tlrt_perf_layout l;
	struct tlrt_perf_reader r;
	struct tlrt_perf_record rec;
	struct tlrt_perf_draw d;
	uint64_t *touched, rng = 7, prev = 0, batch[8];
	uint8_t *data;
	size_t ticks = 0, repeats = 0, k = 0;
	int n;
	FILE *f = fopen(PERF_FIXTURE, "rb");

	(void)state;
	assert_non_null(f);
	assert_int_equal(fread(&h, sizeof(h), 1, f), 1);
	touched = calloc(h.ntouched, sizeof(*touched));
	data = malloc(h.data_size);
	assert_int_equal(fread(touched, sizeof(*touched), h.ntouched, f), h.ntouched);
	assert_int_equal(fread(data, 1, h.data_size, f), h.data_size);
	fclose(f);
	assert_int_equal(tlrt_perf_layout_init(&l, h.sample_type), 0);
	assert_int_equal(tlrt_perf_reader_init(&r, data, h.data_size, h.tail, h.head, &l), 0);
	tlrt_perf_draw_begin(&d, h.region, h.region + h.region_len, &rng);
	while ((n = tlrt_perf_next(&r, &rec)) > 0 || k) {
		struct rt_sample s = { .addr = (uintptr_t)rec.u.sample.addr, .t_ns = rec.u.sample.time };

		if (n > 0 && tlrt_perf_draw_offer(&d, &s))
			batch[k++] = s.addr;
		if (n > 0 && k < 8)
			continue;
		/* a tick: its pick is one of its records */
		assert_true(d.eligible == k);
		for (n = 0; n < (int)k && batch[n] != d.pick.addr; n++)
			;
		assert_true(n < (int)k);
		repeats += d.pick.addr == prev;
		prev = d.pick.addr;
		ticks++;
		k = 0;
		tlrt_perf_draw_begin(&d, h.region, h.region + h.region_len, &rng);
	}
	assert_true(ticks >= h.ntouched / 8);
	assert_int_equal(repeats, 0);
	free(touched);
	free(data);
}

/* ---- built rings ---- */

#define RING 256

struct built {
	uint8_t data[RING];
	uint64_t head;
};

static void put(struct built *b, uint32_t type, uint16_t misc, const void *body, uint16_t len)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)(sizeof(h) + len) };
	uint8_t rec[128];

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), body, len);
	for (size_t i = 0; i < h.size; i++)
		b->data[(b->head + i) % RING] = rec[i];
	b->head += h.size;
}

static void put_sample(struct built *b, uint64_t ip, uint32_t pid, uint32_t tid, uint64_t time, uint64_t addr)
{
	uint64_t body[4] = { ip, (uint64_t)tid << 32 | pid, time, addr };

	put(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, body, sizeof(body));
}

static struct tlrt_perf_layout basic;

static int setup(void **state)
{
	(void)state;
	return tlrt_perf_layout_init(&basic, BASIC);
}

static void split_across_the_end(void **state)
{
	struct built b = { .head = RING - 16 };
	struct tlrt_perf_reader r;
	struct tlrt_perf_record rec;
	uint64_t tail = b.head;

	(void)state;
	/* the header fits before the end, the body wraps; then one wholly after it */
	put_sample(&b, 0x401000, 7, 8, 1000, 0x7f0000001234);
	put_sample(&b, 0x401004, 7, 9, 1001, 0x7f0000005678);
	assert_int_equal(tlrt_perf_reader_init(&r, b.data, RING, tail, b.head, &basic), 0);
	assert_int_equal(tlrt_perf_next(&r, &rec), 1);
	assert_int_equal(rec.type, PERF_RECORD_SAMPLE);
	assert_int_equal(rec.misc, PERF_RECORD_MISC_USER);
	assert_int_equal(rec.u.sample.ip, 0x401000);
	assert_int_equal(rec.u.sample.pid, 7);
	assert_int_equal(rec.u.sample.tid, 8);
	assert_int_equal(rec.u.sample.time, 1000);
	assert_int_equal(rec.u.sample.addr, 0x7f0000001234);
	assert_int_equal(tlrt_perf_next(&r, &rec), 1);
	assert_int_equal(rec.u.sample.tid, 9);
	assert_int_equal(rec.u.sample.addr, 0x7f0000005678);
	assert_int_equal(tlrt_perf_next(&r, &rec), 0);
	assert_int_equal(r.pos, b.head);
}

static void lost_throttle_aux(void **state)
{
	struct built b = { .head = 64 };
	uint64_t lost[2] = { 3, 17 }, thr[3] = { 5000, 3, 4 }, aux[3] = { 8192, 4096, PERF_AUX_FLAG_TRUNCATED };
	struct tlrt_perf_reader r;
	struct tlrt_perf_record rec;
	uint64_t tail = b.head;

	(void)state;
	put(&b, PERF_RECORD_LOST, 0, lost, sizeof(lost));
	put(&b, PERF_RECORD_THROTTLE, 0, thr, sizeof(thr));
	put(&b, PERF_RECORD_UNTHROTTLE, 0, thr, sizeof(thr));
	put(&b, PERF_RECORD_AUX, 0, aux, sizeof(aux));
	tlrt_perf_reader_init(&r, b.data, RING, tail, b.head, &basic);
	assert_int_equal(tlrt_perf_next(&r, &rec), 1);
	assert_int_equal(rec.type, PERF_RECORD_LOST);
	assert_int_equal(rec.u.lost.id, 3);
	assert_int_equal(rec.u.lost.lost, 17);
	assert_int_equal(tlrt_perf_next(&r, &rec), 1);
	assert_int_equal(rec.type, PERF_RECORD_THROTTLE);
	assert_int_equal(rec.u.throttle.time, 5000);
	assert_int_equal(rec.u.throttle.stream_id, 4);
	assert_int_equal(tlrt_perf_next(&r, &rec), 1);
	assert_int_equal(rec.type, PERF_RECORD_UNTHROTTLE);
	assert_int_equal(tlrt_perf_next(&r, &rec), 1);
	assert_int_equal(rec.type, PERF_RECORD_AUX);
	assert_int_equal(rec.u.aux.offset, 8192);
	assert_int_equal(rec.u.aux.size, 4096);
	assert_int_equal(rec.u.aux.flags, PERF_AUX_FLAG_TRUNCATED);
	assert_int_equal(tlrt_perf_next(&r, &rec), 0);
}

/* A type the reader does not decode comes back with its header, and what follows is read. */
static void unknown_type_skipped(void **state)
{
	struct built b = { .head = 200 };
	uint8_t odd[40];
	struct tlrt_perf_reader r;
	struct tlrt_perf_record rec;
	uint64_t tail = b.head;

	(void)state;
	memset(odd, 0xab, sizeof(odd));
	put(&b, 0x7123, 0, odd, sizeof(odd));
	put(&b, PERF_RECORD_MMAP, 0, odd, 24);
	put_sample(&b, 1, 2, 3, 4, 0x5000);
	tlrt_perf_reader_init(&r, b.data, RING, tail, b.head, &basic);
	assert_int_equal(tlrt_perf_next(&r, &rec), 1);
	assert_int_equal(rec.type, 0x7123);
	assert_int_equal(rec.size, 48);
	assert_int_equal(rec.u.sample.addr, 0);
	assert_int_equal(tlrt_perf_next(&r, &rec), 1);
	assert_int_equal(rec.type, PERF_RECORD_MMAP);
	assert_int_equal(tlrt_perf_next(&r, &rec), 1);
	assert_int_equal(rec.type, PERF_RECORD_SAMPLE);
	assert_int_equal(rec.u.sample.addr, 0x5000);
	assert_int_equal(tlrt_perf_next(&r, &rec), 0);
}

/* A head inside a record: what comes before is read, then -EPROTO, and the reader stays there. */
static void truncated(void **state)
{
	struct built b = { .head = 0 };
	struct tlrt_perf_reader r;
	struct tlrt_perf_record rec;
	uint64_t second;

	(void)state;
	put_sample(&b, 1, 2, 3, 4, 0x5000);
	second = b.head;
	put_sample(&b, 1, 2, 3, 5, 0x6000);
	tlrt_perf_reader_init(&r, b.data, RING, 0, b.head - 8, &basic);
	assert_int_equal(tlrt_perf_next(&r, &rec), 1);
	assert_int_equal(rec.u.sample.addr, 0x5000);
	assert_int_equal(tlrt_perf_next(&r, &rec), -EPROTO);
	assert_int_equal(r.pos, second);
	assert_int_equal(tlrt_perf_next(&r, &rec), -EPROTO);
	/* less than a header */
	tlrt_perf_reader_init(&r, b.data, RING, 0, 4, &basic);
	assert_int_equal(tlrt_perf_next(&r, &rec), -EPROTO);
}

static void malformed_sizes(void **state)
{
	struct built b = { .head = 0 };
	struct tlrt_perf_reader r;
	struct tlrt_perf_record rec;
	uint64_t short_body[1] = { 1 };

	(void)state;
	/* size 0 would never advance */
	memset(b.data, 0, sizeof(b.data));
	tlrt_perf_reader_init(&r, b.data, RING, 0, 64, &basic);
	assert_int_equal(tlrt_perf_next(&r, &rec), -EPROTO);
	assert_int_equal(r.pos, 0);
	/* a sample shorter than its layout, a LOST without its count */
	put(&b, PERF_RECORD_SAMPLE, 0, short_body, sizeof(short_body));
	tlrt_perf_reader_init(&r, b.data, RING, 0, b.head, &basic);
	assert_int_equal(tlrt_perf_next(&r, &rec), -EPROTO);
	b.head = 0;
	put(&b, PERF_RECORD_LOST, 0, short_body, sizeof(short_body));
	tlrt_perf_reader_init(&r, b.data, RING, 0, b.head, &basic);
	assert_int_equal(tlrt_perf_next(&r, &rec), -EPROTO);
}

static void empty_and_overrun(void **state)
{
	struct built b = { .head = 0 };
	struct tlrt_perf_reader r;
	struct tlrt_perf_record rec;

	(void)state;
	assert_int_equal(tlrt_perf_reader_init(&r, b.data, RING, 1000, 1000, &basic), 0);
	assert_int_equal(tlrt_perf_next(&r, &rec), 0);
	/* more unread bytes than the ring holds, or a head behind the tail */
	assert_int_equal(tlrt_perf_reader_init(&r, b.data, RING, 0, RING + 8, &basic), -EPROTO);
	assert_int_equal(tlrt_perf_next(&r, &rec), 0);
	assert_int_equal(tlrt_perf_reader_init(&r, b.data, RING, 16, 8, &basic), -EPROTO);
	assert_int_equal(tlrt_perf_next(&r, &rec), 0);
}

static void copy_wraps(void **state)
{
	uint8_t ring[16], out[10];

	(void)state;
	for (int i = 0; i < 16; i++)
		ring[i] = (uint8_t)i;
	tlrt_perf_ring_copy(out, ring, 16, 16 * 5 + 11, sizeof(out));
	for (int i = 0; i < 10; i++)
		assert_int_equal(out[i], (11 + i) % 16);
}

static void layouts(void **state)
{
	struct tlrt_perf_layout l;

	(void)state;
	assert_int_equal(basic.size, 32);
	assert_int_equal(basic.ip, 0);
	assert_int_equal(basic.tid, 8);
	assert_int_equal(basic.time, 16);
	assert_int_equal(basic.addr, 24);
	assert_int_equal(basic.data_src, -1);
	/* fields the sampler does not read still move the ones after them */
	assert_int_equal(tlrt_perf_layout_init(&l, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
							   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
							   PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
							   PERF_SAMPLE_PHYS_ADDR),
			 0);
	assert_int_equal(l.ip, 8);
	assert_int_equal(l.tid, -1);
	assert_int_equal(l.time, -1);
	assert_int_equal(l.addr, 16);
	assert_int_equal(l.data_src, 48);
	assert_int_equal(l.size, 64);
	assert_int_equal(tlrt_perf_layout_init(&l, BASIC | PERF_SAMPLE_CALLCHAIN), -EINVAL);
	assert_int_equal(tlrt_perf_layout_init(&l, BASIC | PERF_SAMPLE_READ), -EINVAL);
	assert_int_equal(tlrt_perf_layout_init(&l, BASIC | PERF_SAMPLE_RAW), -EINVAL);
	assert_int_equal(tlrt_perf_layout_init(&l, BASIC | (1ULL << 40)), -EINVAL);
}

/* The layout decides the fields: data_src read where a DATA_SRC layout puts it. */
static void sample_with_data_src(void **state)
{
	struct tlrt_perf_layout l;
	struct built b = { .head = 0 };
	uint64_t body[5] = { 0x10, (uint64_t)2 << 32 | 1, 99, 0xbeef000, 0x1234 };
	struct tlrt_perf_reader r;
	struct tlrt_perf_record rec;

	(void)state;
	tlrt_perf_layout_init(&l, BASIC | PERF_SAMPLE_DATA_SRC);
	put(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, body, sizeof(body));
	tlrt_perf_reader_init(&r, b.data, RING, 0, b.head, &l);
	assert_int_equal(tlrt_perf_next(&r, &rec), 1);
	assert_int_equal(rec.misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(rec.u.sample.addr, 0xbeef000);
	assert_int_equal(rec.u.sample.data_src, 0x1234);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recorded_ring),
		cmocka_unit_test(recorded_ring_drawn_once),
		cmocka_unit_test(split_across_the_end),
		cmocka_unit_test(lost_throttle_aux),
		cmocka_unit_test(unknown_type_skipped),
		cmocka_unit_test(truncated),
		cmocka_unit_test(malformed_sizes),
		cmocka_unit_test(empty_and_overrun),
		cmocka_unit_test(copy_wraps),
		cmocka_unit_test(layouts),
		cmocka_unit_test(sample_with_data_src),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
