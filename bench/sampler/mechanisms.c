/*
 * bench/sampler-mechanisms: the ways a user-space fault sampler can arm
 * memory, measured side by side on one program whose access distribution
 * is known. A thread reads a 128 MiB arena at random, 90% of its reads in
 * the first 8 MiB (4 of 64 blocks); a ticker arms at a rate, the first
 * fault after each arming is the sample, and everything goes back. Per
 * mechanism: the time to arm and to restore, the share of samples in the
 * hot blocks (truth 0.90; a sampler blind to access frequency gives
 * 4/64 = 0.06), the achieved sampling rate, and the program's reads per
 * second against an unarmed round, rounds interleaved.
 *
 *   block     one 2 MiB block per tick in address order, UFFDIO_MOVE
 *             (the fault sampler before 2026-12)
 *   move-all  every block moved out with one UFFDIO_MOVE of the arena
 *   mremap    mremap(MREMAP_DONTUNMAP) of the arena, a userfaultfd
 *             without EVENT_REMAP (Linux 6.13+ then moves entry by entry)
 *   mremap-pud  the same with UFFD_FEATURE_EVENT_REMAP: whole PUD entries
 *             (the fault sampler since 2026-12)
 *
 *   build/bench/sampler-mechanisms [--rate HZ] [--seconds S] [--rounds N] [--thp 0|1]
 *
 * Needs userfaultfd with kernel-mode faults (root here) and Linux 6.8 for
 * UFFDIO_MOVE; a mechanism the kernel refuses is reported as such.
 */
#include "tiermem/sampler-uffd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

#define GIB (1UL << 30)
#define BLK (2UL << 20)
#define ARENA_USED (128UL << 20)
#define NBLK (ARENA_USED / BLK)
#define HOT (8UL << 20)
#define HOT_AT (80UL << 20)	/* not at the front: moves in address order must not favour it */
#define HOT_SHARE 0.9

enum mech { M_NONE, M_BLOCK, M_MOVE_ALL, M_MREMAP, M_MREMAP_PUD, M__COUNT };
static const char *const mech_names[M__COUNT] = { "none", "block", "move-all", "mremap", "mremap-pud" };

static struct {
	uintptr_t arena, stash;
	int fd;
	enum mech mech;
	pthread_mutex_t lock;
	int armed;		/* 0 idle, 1 arming, 2 armed */
	uintptr_t block;	/* M_BLOCK: the armed block */
	uint64_t hist[NBLK], nsamples, arm_ns, restore_ns, narm, nrestore;
	_Atomic int stop;
	_Atomic uint64_t reads;
} S = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uintptr_t reserve_aligned(size_t len)
{
	char *p = mmap(NULL, len + GIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	return ((uintptr_t)p + GIB - 1) & ~(GIB - 1);
}

static int map_rw(uintptr_t at, size_t len, int thp)
{
	if (mmap((void *)at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		return -1;
	madvise((void *)at, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return 0;
}

static int uffd_move(uintptr_t dst, uintptr_t src, size_t len)
{
	struct uffdio_move mv = { .dst = dst, .src = src, .len = len, .mode = UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES };

	return ioctl(S.fd, UFFDIO_MOVE, &mv) ? -errno : 0;
}

static int remap(uintptr_t to, uintptr_t from, size_t len)
{
	return mremap((void *)from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, (void *)to) ==
	       MAP_FAILED ? -errno : 0;
}

/* Lock held, state armed: everything back where the program has it. */
static void restore(void)
{
	uint64_t t = now_ns();

	switch (S.mech) {
	case M_BLOCK:
		uffd_move(S.block, S.stash, BLK);
		tlrt_uffd_unregister(S.fd, S.block, BLK);
		break;
	case M_MOVE_ALL:
		uffd_move(S.arena, S.stash, GIB);
		tlrt_uffd_unregister(S.fd, S.arena, GIB);
		break;
	case M_MREMAP:
	case M_MREMAP_PUD:
		remap(S.arena, S.stash, GIB);
		break;
	default:
		break;
	}
	S.restore_ns += now_ns() - t;
	S.nrestore++;
	S.armed = 0;
}

static void *handler(void *arg)
{
	struct pollfd p = { .fd = S.fd, .events = POLLIN };
	struct uffd_msg m;

	(void)arg;
	while (!atomic_load(&S.stop)) {
		uintptr_t a;

		if (poll(&p, 1, 50) <= 0 || read(S.fd, &m, sizeof(m)) != sizeof(m) || m.event != UFFD_EVENT_PAGEFAULT)
			continue;
		a = (uintptr_t)m.arg.pagefault.address;
		pthread_mutex_lock(&S.lock);
		if (S.armed == 2) {
			if (a - S.arena < ARENA_USED) {
				S.hist[(a - S.arena) / BLK]++;
				S.nsamples++;
			}
			restore();
		}
		pthread_mutex_unlock(&S.lock);
		ioctl(S.fd, UFFDIO_WAKE, &(struct uffdio_range){ .start = S.arena, .len = GIB });
	}
	return NULL;
}

/* Arms per the mechanism; the moves run without the lock (mremap may wait for a handler to read its event). */
static void arm(void)
{
	static size_t next;
	uint64_t t;
	int err = 0;

	pthread_mutex_lock(&S.lock);
	if (S.armed) {
		pthread_mutex_unlock(&S.lock);
		return;
	}
	S.armed = 1;
	pthread_mutex_unlock(&S.lock);
	t = now_ns();
	switch (S.mech) {
	case M_BLOCK:
		S.block = S.arena + (next++ % NBLK) * BLK;
		if (!(err = tlrt_uffd_register(S.fd, S.block, BLK, UFFDIO_REGISTER_MODE_MISSING, NULL)))
			err = uffd_move(S.stash, S.block, BLK);
		break;
	case M_MOVE_ALL:
		if (!(err = tlrt_uffd_register(S.fd, S.arena, GIB, UFFDIO_REGISTER_MODE_MISSING, NULL)))
			err = uffd_move(S.stash, S.arena, GIB);
		break;
	case M_MREMAP:
	case M_MREMAP_PUD:
		if (!(err = tlrt_uffd_register(S.fd, S.arena, GIB, UFFDIO_REGISTER_MODE_MISSING, NULL)))
			err = remap(S.stash, S.arena, GIB);
		if (!err)
			tlrt_uffd_unregister(S.fd, S.stash, GIB);
		break;
	default:
		break;
	}
	pthread_mutex_lock(&S.lock);
	S.arm_ns += now_ns() - t;
	S.narm++;
	S.armed = err ? 0 : 2;
	pthread_mutex_unlock(&S.lock);
	if (err) {
		fprintf(stderr, "sampler-mechanisms: %s: arming failed: %s\n", mech_names[S.mech], strerror(-err));
		exit(1);
	}
}

static void *reader(void *arg)
{
	uint64_t x = 88172645463325252ULL, n = 0, sum = 0;
	const volatile uint8_t *p = (const volatile uint8_t *)S.arena;

	(void)arg;
	while (!atomic_load(&S.stop)) {
		for (int k = 0; k < 4096; k++) {
			double u;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			u = (double)(x >> 11) * (1.0 / 9007199254740992.0);
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			size_t off = u < HOT_SHARE ? HOT_AT + x % HOT : x % (ARENA_USED - HOT);

			sum += p[off < HOT_AT ? off : u < HOT_SHARE ? off : off + HOT];
		}
		n += 4096;
		atomic_store(&S.reads, n);
	}
	return (void *)(uintptr_t)(sum & 1);
}

struct result {
	double reads_per_s, hot_share, rate, arm_us, restore_us;
};

static int run(enum mech m, double hz, double seconds, struct result *r)
{
	uint64_t t0, t_end, r0, got, hot = 0;
	pthread_t th, rd;
	char why[160] = "";

	S.mech = m;
	memset(S.hist, 0, sizeof(S.hist));
	S.nsamples = S.arm_ns = S.restore_ns = S.narm = S.nrestore = 0;
	atomic_store(&S.stop, 0);
	atomic_store(&S.reads, 0);
	/* the features are fixed when the userfaultfd is opened: each mechanism gets its own */
	S.fd = tlrt_uffd_open(UFFD_FEATURE_EXACT_ADDRESS | (m == M_MREMAP_PUD ? UFFD_FEATURE_EVENT_REMAP : 0) |
				      (m == M_BLOCK || m == M_MOVE_ALL ? UFFD_FEATURE_MOVE : 0),
			      0, &got, why, sizeof(why));
	if (S.fd < 0) {
		fprintf(stderr, "sampler-mechanisms: %s: %s\n", mech_names[m], why);
		return S.fd;
	}
	/* UFFDIO_MOVE needs its target registered: the stash, write-protect mode, never faulted on */
	if ((m == M_BLOCK || m == M_MOVE_ALL) &&
	    tlrt_uffd_register(S.fd, S.stash, GIB, UFFDIO_REGISTER_MODE_WP, NULL)) {
		fprintf(stderr, "sampler-mechanisms: %s: cannot register the stash\n", mech_names[m]);
		return -1;
	}
	pthread_create(&th, NULL, handler, NULL);
	pthread_create(&rd, NULL, reader, NULL);
	usleep(100000);
	t0 = now_ns();
	r0 = atomic_load(&S.reads);
	t_end = t0 + (uint64_t)(seconds * 1e9);
	for (uint64_t next = t0; now_ns() < t_end;) {
		struct timespec ts;

		next += hz > 0 ? (uint64_t)(1e9 / hz) : 10000000ULL;
		ts.tv_sec = (time_t)(next / 1000000000ULL);
		ts.tv_nsec = (long)(next % 1000000000ULL);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (m != M_NONE)
			arm();
	}
	r->reads_per_s = (double)(atomic_load(&S.reads) - r0) / ((double)(now_ns() - t0) / 1e9);
	pthread_mutex_lock(&S.lock);
	if (S.armed == 2)
		restore();
	pthread_mutex_unlock(&S.lock);
	atomic_store(&S.stop, 1);
	pthread_join(rd, NULL);
	pthread_join(th, NULL);
	if (S.fd >= 0)
		close(S.fd);
	for (size_t b = HOT_AT / BLK; b < (HOT_AT + HOT) / BLK; b++)
		hot += S.hist[b];
	(void)got;
	r->hot_share = S.nsamples ? (double)hot / (double)S.nsamples : 0;
	r->rate = (double)S.nsamples / seconds;
	r->arm_us = S.narm ? (double)S.arm_ns / (double)S.narm / 1e3 : 0;
	r->restore_us = S.nrestore ? (double)S.restore_ns / (double)S.nrestore / 1e3 : 0;
	return 0;
}

int main(int argc, char **argv)
{
	double hz = 100, seconds = 2;
	int rounds = 3, thp = 1, c;
	struct result res[M__COUNT][16];
	static const struct option opts[] = {
		{ "rate", required_argument, NULL, 'r' }, { "seconds", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'n' }, { "thp", required_argument, NULL, 't' }, { 0 }
	};

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'r')
			hz = atof(optarg);
		else if (c == 's')
			seconds = atof(optarg);
		else if (c == 'n')
			rounds = atoi(optarg);
		else if (c == 't')
			thp = atoi(optarg);
		else
			return 2;
	}
	if (hz <= 0 || seconds <= 0 || rounds < 1 || rounds > 16) {
		fprintf(stderr, "usage: sampler-mechanisms [--rate HZ] [--seconds S] [--rounds 1..16] [--thp 0|1]\n");
		return 2;
	}
	S.arena = reserve_aligned(GIB);
	S.stash = reserve_aligned(GIB);
	if (!S.arena || !S.stash || map_rw(S.arena, GIB, thp) || map_rw(S.stash, GIB, thp)) {
		perror("sampler-mechanisms: mmap");
		return 1;
	}
	for (size_t i = 0; i < ARENA_USED; i += 64)
		((uint8_t *)S.arena)[i] = (uint8_t)(i >> 6);
	for (int round = 0; round < rounds; round++)
		for (int m = 0; m < M__COUNT; m++)
			if (run((enum mech)m, hz, seconds, &res[m][round]))
				return 1;
	for (size_t i = 0; i < ARENA_USED; i += 64)
		if (((uint8_t *)S.arena)[i] != (uint8_t)(i >> 6)) {
			fprintf(stderr, "sampler-mechanisms: data lost at offset %zu\n", i);
			return 1;
		}
	printf("# %g Hz, %g s x %d rounds, THP %s; hot share truth %.2f, a frequency-blind sampler %.3f\n", hz,
	       seconds, rounds, thp ? "on" : "off", HOT_SHARE, (double)(HOT / BLK) / NBLK);
	printf("%-11s %9s %9s %9s %11s %10s\n", "mechanism", "arm_us", "back_us", "hot", "samples/s", "reads/none");
	for (int m = 0; m < M__COUNT; m++) {
		struct result a = { 0 };
		double ratio = 0;

		for (int round = 0; round < rounds; round++) {
			a.arm_us += res[m][round].arm_us / rounds;
			a.restore_us += res[m][round].restore_us / rounds;
			a.hot_share += res[m][round].hot_share / rounds;
			a.rate += res[m][round].rate / rounds;
			ratio += res[m][round].reads_per_s / res[M_NONE][round].reads_per_s / rounds;
		}
		printf("%-11s %9.1f %9.1f %9.3f %11.1f %10.3f\n", mech_names[m], a.arm_us, a.restore_us, a.hot_share,
		       a.rate, ratio);
	}
	return 0;
}
