/*
 * A program whose access distribution is known, for tests/cli/tierlab-guest.sh:
 * one allocation of --chunks 2 MiB chunks (2 MiB-aligned, so its chunks are
 * the runtime's), and for --seconds random 8-byte reads, a --hot-share of
 * them (0.9) uniform over --hot chunks, the rest uniform over the others.
 * The hot chunks are spread over the second half of the allocation: lru and
 * window put the first chunks fast at allocation, so the hot set starts
 * slow and is fast at the end only if the samples moved it there.
 *
 * Before it exits, while its memory is still allocated, it asks the kernel
 * (move_pages) which node every page of its hot and cold chunks is on, then
 * checks that each page still holds the word it wrote there (a page lost
 * while the fault sampler held it away would read zero). It runs as a
 * tierlab workload, dynamically linked so LD_PRELOAD reaches it.
 *
 * Output: "figure-of-merit: N" (million reads per second), "hotcold: ..."
 * lines with the measured hot share, the hot chunks' addresses and the
 * placement. Exit 0, or 1 when the data changed or the memory cannot be had.
 *
 * Stand-in for bench/fidelity/accessgen.c (branch fidelity-work) until it
 * lands: the test needs only the figure of merit and the lines above.
 */
#include <errno.h>
#include <getopt.h>
#include <numa.h>
#include <numaif.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (2UL << 20)
#define PAGE 4096UL
#define WORDS (CHUNK / sizeof(uint64_t))
#define PAGES (CHUNK / PAGE)
#define PAGE_WORDS (PAGE / sizeof(uint64_t))
#define TRIES 100

static uint64_t *mem;

/*
 * Node 0's free memory and 2 MiB huge pages at the moment of the placement
 * above: with tierlab's reservation (huge pages) and the free memory at the
 * start, they say how much of the program's node-0 memory came from pages
 * of others that left the node during the run.
 */
static void print_node0(void)
{
	long long free_bytes = -1, huge = -1;
	FILE *f = fopen("/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", "r");

	if (f && fscanf(f, "%lld", &huge) != 1)
		huge = -1;
	if (f)
		fclose(f);
	if (numa_node_size64(0, &free_bytes) < 0)
		free_bytes = -1024;
	printf("hotcold: node0 free_kb %lld huge_pages %lld\n", free_bytes / 1024, huge);
}

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t pattern(uint64_t i)
{
	return i * 0x9e3779b97f4a7c15ULL + 1;
}

/* xorshift64*: fast, and plenty for picking chunks and offsets */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

struct where {
	long node0, node1, other, absent;
};

/*
 * Where the pages of the listed chunks are. A page the kernel has none for
 * (-ENOENT) may be one the fault sampler holds out of the way between a tick
 * and the next access: read each chunk, which brings all memory back, and
 * ask again. The same for a page busy in a huge-page move (-EBUSY).
 */
static int locate(const unsigned *chunks, unsigned n, struct where *w)
{
	size_t npages = (size_t)n * PAGES;
	void **pages = malloc(npages * sizeof(*pages));
	int *status = malloc(npages * sizeof(*status));
	int rc = -1;

	if (!pages || !status)
		goto out;
	for (unsigned i = 0; i < n; i++)
		for (size_t p = 0; p < PAGES; p++)
			pages[i * PAGES + p] = (char *)mem + chunks[i] * CHUNK + p * PAGE;
	for (int t = 0; t < TRIES; t++) {
		int again = 0;

		for (unsigned i = 0; i < n; i++)
			sink += mem[chunks[i] * WORDS];
		if (move_pages(0, npages, pages, NULL, status, 0)) {
			perror("hotcold: move_pages");
			goto out;
		}
		memset(w, 0, sizeof(*w));
		for (size_t p = 0; p < npages; p++) {
			if (status[p] == 0)
				w->node0++;
			else if (status[p] == 1)
				w->node1++;
			else if (status[p] >= 0)
				w->other++;
			else {
				w->absent++;
				again |= status[p] == -ENOENT || status[p] == -EBUSY;
			}
		}
		if (!again)
			break;
		usleep(1000);
	}
	rc = 0;
out:
	free(pages);
	free(status);
	return rc;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--chunks N] [--hot N] [--hot-share F] [--seconds S]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "chunks", required_argument, NULL, 'c' },
		{ "hot", required_argument, NULL, 'H' },
		{ "hot-share", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned nchunks = 32, nhot = 4, ncold, *hot, *cold;
	double share = 0.9, seconds = 2, start, elapsed;
	uint64_t seed = 0x1234567890abcdefULL, threshold, reads = 0, hot_reads = 0, bad = 0, sum = 0;
	struct where wh, wc;
	int opt;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c': nchunks = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'H': nhot = (unsigned)strtoul(optarg, NULL, 10); break;
		case 's': share = strtod(optarg, NULL); break;
		case 't': seconds = strtod(optarg, NULL); break;
		default: usage(argv[0]);
		}
	}
	if (optind != argc || nhot < 1 || nchunks < 2 * nhot || !(share >= 0 && share <= 1) || !(seconds > 0))
		usage(argv[0]);
	ncold = nchunks - nhot;
	mem = aligned_alloc(CHUNK, nchunks * CHUNK);
	hot = malloc(nhot * sizeof(*hot));
	cold = malloc(ncold * sizeof(*cold));
	if (!mem || !hot || !cold) {
		fprintf(stderr, "hotcold: out of memory for %u chunks\n", nchunks);
		return 1;
	}
	for (unsigned i = 0, h = 0, c = 0; i < nchunks; i++) {
		if (h < nhot && i == nchunks / 2 + h * (nchunks / 2 / nhot))
			hot[h++] = i;
		else
			cold[c++] = i;
	}
	/*
	 * One word per page: every page exists before the reads start, and
	 * the time outside the read loop, whose accesses are spread evenly
	 * over all chunks, stays a negligible share of the run (the runtime
	 * samples from the allocation to the exit; filling all 64 MiB took
	 * long enough under TCG to put a third of the samples in cold chunks).
	 */
	for (uint64_t i = 0; i < nchunks * PAGES; i++)
		mem[i * PAGE_WORDS] = pattern(i);

	threshold = (uint64_t)(share * 4294967296.0);
	start = now();
	do {
		for (int k = 0; k < 65536; k++) {
			uint64_t r = next(&seed), at = next(&seed) % WORDS;
			unsigned chunk;

			/* low half: hot or cold; high half: which chunk, scaled without bias */
			if ((r & 0xffffffff) < threshold) {
				chunk = hot[(r >> 32) * nhot >> 32];
				hot_reads++;
			} else {
				chunk = cold[(r >> 32) * ncold >> 32];
			}
			sum += mem[chunk * WORDS + at];
			reads++;
		}
		elapsed = now() - start;
	} while (elapsed < seconds);
	sink = sum;

	if (locate(hot, nhot, &wh) || locate(cold, ncold, &wc))
		return 1;
	printf("hotcold: %u chunks of 2 MiB at %p, %u hot\n", nchunks, (void *)mem, nhot);
	for (unsigned h = 0; h < nhot; h++)
		printf("hotcold: hot chunk %u at %p\n", hot[h], (void *)((char *)mem + hot[h] * CHUNK));
	printf("hotcold: %llu reads in %.2f s, hot share %.4f\n", (unsigned long long)reads, elapsed,
	       (double)hot_reads / (double)reads);
	printf("hotcold: hot pages node0 %ld node1 %ld other %ld absent %ld\n", wh.node0, wh.node1, wh.other, wh.absent);
	printf("hotcold: cold pages node0 %ld node1 %ld other %ld absent %ld\n", wc.node0, wc.node1, wc.other, wc.absent);
	print_node0();

	for (uint64_t i = 0; i < nchunks * PAGES; i++)
		bad += mem[i * PAGE_WORDS] != pattern(i);
	if (bad) {
		printf("hotcold: FAIL: %llu pages changed\n", (unsigned long long)bad);
		return 1;
	}
	printf("hotcold: data intact\n");
	printf("figure-of-merit: %.3f\n", (double)reads / elapsed / 1e6);
	free(mem);
	return 0;
}
