/*
 * A small memory latency checker: for each node, a buffer bound to it
 * with mbind(MPOL_BIND) and touched before timing (first touch is slow in
 * VMs), then
 *   latency: a dependent pointer chase over cache lines linked in one
 *            random cycle (Sattolo), so neither the prefetcher nor
 *            out-of-order execution can overlap the loads; the buffer is
 *            meant to be much larger than the last-level cache;
 *   bandwidth: the best of a few passes of a streaming read (sum of
 *            64-bit words) and of a copy (memcpy of one half onto the
 *            other, counting bytes read plus written, as STREAM does).
 * The measuring thread is bound to the chosen CPU node with
 * numa_run_on_node. Where the pages landed is checked with move_pages:
 * a figure for the wrong node would be worse than none.
 */
#include "probe/probe.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "probe/probe-internal.h"
#include "util/error.h"

#define LINE 64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Up to 64 pages spread over the buffer must be on node. */
int tl_probe_check_placement(void *buf, uint64_t size, int node)
{
	enum { SAMPLES = 64 };
	void *pages[SAMPLES];
	int status[SAMPLES];
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t npages = size / (uint64_t)psz;
	unsigned n = npages < SAMPLES ? (unsigned)npages : SAMPLES;

	for (unsigned i = 0; i < n; i++)
		pages[i] = (char *)buf + (npages * i / n) * (uint64_t)psz;
	if (move_pages(0, n, pages, NULL, status, 0))
		return -errno;
	for (unsigned i = 0; i < n; i++)
		if (status[i] != node)
			return -EIO;
	return 0;
}

/* size bytes bound to node, touched, checked; NULL with *err set on failure. */
void *tl_probe_alloc_on(int node, uint64_t size, int *err)
{
	unsigned long mask[16] = { 0 };
	void *buf;

	if (node < 0 || node >= (int)(sizeof(mask) * 8)) {
		*err = -EINVAL;
		return NULL;
	}
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	mask[node / 64] = 1ul << (node % 64);
	if (mbind(buf, size, MPOL_BIND, mask, sizeof(mask) * 8, 0)) {
		*err = -errno;
		goto unmap;
	}
	memset(buf, 1, size);
	*err = tl_probe_check_placement(buf, size, node);
	if (*err)
		goto unmap;
	return buf;
unmap:
	munmap(buf, size);
	return NULL;
}

static uint64_t next_rand(uint64_t *s)
{
	/* xorshift64*: fast and good enough to scatter cache lines */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

int tl_probe_latency(int mem_node, uint64_t size, uint64_t loads, double *ns)
{
	uint64_t n = size / LINE, seed = 0x9E3779B97F4A7C15ull;
	uint32_t *order;
	void **p;
	char *buf;
	double t0, t1;
	int err;

	if (n < 2 || n > UINT32_MAX || !loads)
		return -EINVAL;
	order = malloc(n * sizeof(*order));
	if (!order)
		return -ENOMEM;
	buf = tl_probe_alloc_on(mem_node, size, &err);
	if (!buf) {
		free(order);
		return err;
	}
	for (uint64_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	/* Sattolo's shuffle: a single cycle through every line, so the chase visits them all. */
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = next_rand(&seed) % i;
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (uint64_t i = 0; i < n; i++)
		*(void **)(buf + (uint64_t)order[i] * LINE) = buf + (uint64_t)order[(i + 1) % n] * LINE;
	free(order);

	p = (void **)buf;
	/* warm the TLB and caches the same way for every node */
	for (uint64_t i = 0; i < loads / 8; i++)
		p = *p;
	t0 = now();
	for (uint64_t i = 0; i < loads; i++)
		p = *p;
	t1 = now();
	/* the chase's end is data the compiler cannot drop */
	__asm__ volatile("" : : "r"(p) : "memory");
	*ns = (t1 - t0) * 1e9 / (double)loads;
	munmap(buf, size);
	return 0;
}

static uint64_t sum_words(const uint64_t *w, uint64_t n)
{
	uint64_t a = 0, b = 0, c = 0, d = 0;
	uint64_t i = 0;

	/* four accumulators: the adds must not be the bottleneck */
	for (; i + 4 <= n; i += 4) {
		a += w[i];
		b += w[i + 1];
		c += w[i + 2];
		d += w[i + 3];
	}
	for (; i < n; i++)
		a += w[i];
	return a + b + c + d;
}

int tl_probe_bandwidth(int mem_node, uint64_t size, int passes, double *read_gbs, double *copy_gbs)
{
	uint64_t half = size / 2 & ~(uint64_t)(LINE - 1);
	double best_read = 0, best_copy = 0;
	volatile uint64_t sink;
	char *buf;
	int err;

	if (half < LINE || passes < 1)
		return -EINVAL;
	buf = tl_probe_alloc_on(mem_node, size, &err);
	if (!buf)
		return err;
	for (int i = 0; i < passes; i++) {
		double t0 = now(), t;

		sink = sum_words((const uint64_t *)buf, size / 8);
		t = now() - t0;
		if (t > 0 && (best_read == 0 || t < best_read))
			best_read = t;
	}
	(void)sink;
	for (int i = 0; i < passes; i++) {
		double t0 = now(), t;

		memcpy(buf + half, buf, half);
		__asm__ volatile("" : : "r"(buf) : "memory");
		t = now() - t0;
		if (t > 0 && (best_copy == 0 || t < best_copy))
			best_copy = t;
	}
	*read_gbs = best_read > 0 ? (double)(size / 8 * 8) / best_read / 1e9 : 0;
	*copy_gbs = best_copy > 0 ? (double)(2 * half) / best_copy / 1e9 : 0;
	munmap(buf, size);
	return 0;
}

static int skip(struct tl_probe_node *node, const char *what, int err)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "%s: %s", what,
		 err == -EIO ? "pages did not land on the node" : strerror(-err));
	free(node->skip_reason);
	node->skip_reason = strdup(msg);
	return node->skip_reason ? 0 : -ENOMEM;
}

int tl_probe_measure(struct tl_probe *p)
{
	uint64_t loads = p->quick ? 1u << 19 : 1u << 22;
	int passes = p->quick ? 2 : 5;
	bool cpu_ok = false;
	int rc = 0;

	for (size_t i = 0; i < p->nnodes; i++)
		if (p->nodes[i].id == p->cpu_node && p->nodes[i].ncpus > 0)
			cpu_ok = true;
	if (!cpu_ok)
		return error("--cpu-node %d: no such node with CPUs", p->cpu_node), -EINVAL;
	if (numa_run_on_node(p->cpu_node)) {
		rc = -errno;
		error("cannot run on node %d: %s", p->cpu_node, strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < p->nnodes && !rc; i++) {
		struct tl_probe_node *node = &p->nodes[i];
		int err;

		node->measured = false;
		if (!node->mem_total) {
			rc = skip(node, "no memory", -ENOMEM);
			continue;
		}
		if (node->mem_free && node->mem_free < p->size + p->size / 8) {
			rc = skip(node, "not enough free memory for the buffer", -ENOMEM);
			continue;
		}
		err = tl_probe_latency(node->id, p->size, loads, &node->latency_ns);
		if (!err)
			err = tl_probe_bandwidth(node->id, p->size, passes, &node->read_gbs, &node->copy_gbs);
		if (err)
			rc = skip(node, "measurement failed", err);
		else
			node->measured = true;
	}
	/* -1: every node again, as before the probe */
	numa_run_on_node(-1);
	return rc;
}
