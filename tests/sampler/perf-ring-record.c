/*
 * Records the fixture test_perf_ring parses: a real perf ring buffer from
 * this machine's software page-fault event (sample_period 1, sample_type
 * IP|TID|TIME|ADDR, this thread, user mode) while the program touches
 * known pages, saved with its head, tail and the touched addresses
 * (tests/sampler/perf-fixture.h). The data area is 2 pages; a first batch
 * of touches is read and released, so the second batch's records, the
 * ones saved, run across the end of the ring (retried with another first
 * batch until one record does straddle it).
 *
 *   build/tests-helpers/perf-ring-record tests/sampler/perf-ring-pagefaults.bin
 */
#include "perf-fixture.h"
#include "tiermem/perf-ring.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL
#define DATA_PAGES 2
#define SECOND 90		/* touches saved: fits in the ring with the first batch's leftover */
#define REGION_PAGES 1024

static void touch(uint8_t *region, size_t first, size_t n, uint64_t *addrs)
{
	for (size_t i = 0; i < n; i++) {
		/* a different byte of each page: the sample carries the exact address */
		volatile uint8_t *p = region + (first + i) * PAGE + (i * 72) % PAGE;

		*p = 1;
		if (addrs)
			addrs[i] = (uint64_t)(uintptr_t)p;
	}
}

/* Whether a record of [tail, head) runs across the end of the data area. */
static int straddles(const uint8_t *data, uint64_t size, uint64_t tail, uint64_t head,
		     const struct tlrt_perf_layout *l)
{
	struct tlrt_perf_reader r;
	struct tlrt_perf_record rec;
	uint64_t at = tail;

	tlrt_perf_reader_init(&r, data, size, tail, head, l);
	while (tlrt_perf_next(&r, &rec) > 0) {
		if ((at & (size - 1)) + rec.size > size)
			return 1;
		at = r.pos;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
	};
	struct tlrt_perf_layout l;
	uint64_t addrs[SECOND];
	FILE *out;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTPUT\n", argv[0]);
		return 2;
	}
	tlrt_perf_layout_init(&l, attr.sample_type);
	for (size_t first = 40; first < 120; first += 7) {
		int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		size_t len = (1 + DATA_PAGES) * PAGE;
		struct perf_event_mmap_page *pg;
		uint8_t *region, *data;
		uint64_t head, tail;

		if (fd < 0) {
			perror("perf_event_open(page-faults)");
			return 1;
		}
		pg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		region = mmap(NULL, REGION_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (pg == MAP_FAILED || region == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		madvise(region, REGION_PAGES * PAGE, MADV_NOHUGEPAGE);
		data = (uint8_t *)pg + pg->data_offset;

		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		touch(region, 0, first, NULL);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		tlrt_perf_data_tail(pg, tlrt_perf_data_head(pg));

		tail = pg->data_tail;
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		touch(region, first, SECOND, addrs);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		head = tlrt_perf_data_head(pg);

		if (head - tail < pg->data_size && straddles(data, pg->data_size, tail, head, &l)) {
			struct perf_fixture_header h = {
				.magic = PERF_FIXTURE_MAGIC,
				.sample_type = attr.sample_type,
				.data_size = pg->data_size,
				.tail = tail,
				.head = head,
				.pid = (uint64_t)getpid(),
				.tid = (uint64_t)gettid(),
				.region = (uint64_t)(uintptr_t)region,
				.region_len = REGION_PAGES * PAGE,
				.ntouched = SECOND,
			};

			if (!(out = fopen(argv[1], "wb")) || fwrite(&h, sizeof(h), 1, out) != 1 ||
			    fwrite(addrs, sizeof(addrs), 1, out) != 1 || fwrite(data, pg->data_size, 1, out) != 1 ||
			    fclose(out)) {
				perror(argv[1]);
				return 1;
			}
			printf("%s: %llu bytes of records from offset %llu of a %llu-byte ring\n", argv[1],
			       (unsigned long long)(head - tail), (unsigned long long)(tail % pg->data_size),
			       (unsigned long long)pg->data_size);
			return 0;
		}
		munmap(pg, len);
		munmap(region, REGION_PAGES * PAGE);
		close(fd);
	}
	fprintf(stderr, "no record straddled the end of the ring\n");
	return 1;
}
