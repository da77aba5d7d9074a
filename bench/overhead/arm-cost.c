/*
 * What the fault sampler's two page-table moves cost the kernel of this
 * machine, apart from everything else a sample does (lib/tiermem/
 * sampler-fault.c: each tick moves the whole 1 GiB-aligned arena out to a
 * stash with mremap(MREMAP_DONTUNMAP), the first access moves it back).
 * Each move changes page tables the process's other CPUs may have cached,
 * so it must flush their TLBs: an IPI to every CPU running the process
 * and a wait for its answer. This measures one move out and one back,
 * in variants that differ only in who else runs the process:
 *
 *   alone          no other thread: no CPU to tell
 *   peer-idle      a second thread, asleep: its CPU is lazy, skipped
 *   peer-running   a second thread busy on another CPU, as a program's
 *                  thread is at every tick: one IPI and wait per move
 *   uffd-remap     alone, but the arena registered as the sampler does it
 *                  (MISSING, UFFD_FEATURE_EVENT_REMAP, so the move out
 *                  waits until a handler thread has read its event)
 *
 * Variants run in interleaved rounds; each cell is the median over
 * rounds of the mean per move. The ratio peer-running / alone is the
 * price of a TLB shootdown here: on the 2-vCPU VM of docs/benchmarks.md
 * it is most of a sample's cost, on bare metal an IPI is a few us.
 *
 * A sample also wakes two sleeping threads: the handler when the program
 * faults, the program when the handler has moved the memory back. The
 * second table times a wake-up round trip (eventfd ping-pong between two
 * threads) with both threads on one CPU and on two: the cross-CPU one is
 * what a sample pays when its handler runs on another CPU than the
 * faulting thread.
 *
 *   arm-cost [--mib M] [--moves N] [--rounds R]
 *
 * Pins the main thread to the first CPU it may use and the peer to the
 * second; with one CPU the peer variants say so and are skipped. Never
 * asserts on time.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define GIB (1UL << 30)
#define NVAR 4

enum variant { ALONE, PEER_IDLE, PEER_RUNNING, UFFD_REMAP };
static const char *const var_name[NVAR] = { "alone", "peer-idle", "peer-running", "uffd-remap" };

static struct {
	uintptr_t arena, stash;
	int cpu[2];
	int uffd;
	_Atomic int peer_mode;	/* 0 stop, 1 sleep, 2 spin */
	_Atomic int handler_stop;
} G = { .uffd = -1 };

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

static uintptr_t gib_aligned(size_t len, int prot)
{
	char *p = mmap(NULL, len + GIB, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED) {
		perror("arm-cost: mmap");
		exit(1);
	}
	a = ((uintptr_t)p + GIB - 1) & ~(GIB - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	munmap((void *)(a + len), (uintptr_t)p + GIB - a);
	return a;
}

static void move(uintptr_t to, uintptr_t from)
{
	if (mremap((void *)from, GIB, GIB, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, (void *)to) ==
	    MAP_FAILED) {
		perror("arm-cost: mremap");
		exit(1);
	}
}

/* The program's other thread: asleep, or busy on its own memory (the arena may be out). */
static void *peer(void *arg)
{
	static volatile unsigned long work[512];

	(void)arg;
	pin(G.cpu[1]);
	while (atomic_load(&G.peer_mode)) {
		if (atomic_load(&G.peer_mode) == 1)
			usleep(1000);
		else
			for (int i = 0; i < 512; i++)
				work[i]++;
	}
	return NULL;
}

/* Reads the REMAP events the move out waits for, as the sampler's handler does. */
static void *handler(void *arg)
{
	struct uffd_msg m[16];
	struct pollfd p = { .fd = G.uffd, .events = POLLIN };

	(void)arg;
	while (!atomic_load(&G.handler_stop))
		if (poll(&p, 1, 50) > 0 && read(G.uffd, m, sizeof(m)) < 0 && errno != EAGAIN)
			break;
	return NULL;
}

static int uffd_open(void)
{
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_EVENT_REMAP };
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0 || ioctl(fd, UFFDIO_API, &api)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int ping_fd[2];	/* eventfds: main -> echo, echo -> main */
static _Atomic int ping_stop;

static void *echo(void *arg)
{
	uint64_t v;

	pin(*(int *)arg);
	while (read(ping_fd[0], &v, sizeof(v)) == sizeof(v) && !atomic_load(&ping_stop))
		if (write(ping_fd[1], &v, sizeof(v)) != sizeof(v))
			break;
	return NULL;
}

/* Mean us per wake-up round trip with the echoing thread on cpu, over n trips. */
static double wake_trip(int cpu, int n)
{
	uint64_t v = 1;
	pthread_t t;
	double t0;

	ping_fd[0] = eventfd(0, EFD_CLOEXEC);
	ping_fd[1] = eventfd(0, EFD_CLOEXEC);
	if (ping_fd[0] < 0 || ping_fd[1] < 0) {
		perror("arm-cost: eventfd");
		exit(1);
	}
	atomic_store(&ping_stop, 0);
	pthread_create(&t, NULL, echo, &cpu);
	usleep(20000);
	t0 = now_us();
	for (int i = 0; i < n; i++)
		if (write(ping_fd[0], &v, sizeof(v)) != sizeof(v) || read(ping_fd[1], &v, sizeof(v)) != sizeof(v))
			break;
	t0 = (now_us() - t0) / n;
	atomic_store(&ping_stop, 1);
	if (write(ping_fd[0], &v, sizeof(v)) != sizeof(v))
		perror("arm-cost: eventfd");
	pthread_join(t, NULL);
	close(ping_fd[0]);
	close(ping_fd[1]);
	return t0;
}

/* Mean us per move out and per move back over n pairs. */
static void pairs(enum variant v, int n, double *out_us, double *back_us)
{
	double out = 0, back = 0;

	for (int i = 0; i < n; i++) {
		double t0, t1, t2;

		if (v == UFFD_REMAP) {
			struct uffdio_register r = { .range = { G.arena, GIB }, .mode = UFFDIO_REGISTER_MODE_MISSING };

			ioctl(G.uffd, UFFDIO_REGISTER, &r);
		}
		t0 = now_us();
		move(G.stash, G.arena);
		t1 = now_us();
		if (v == UFFD_REMAP) {
			struct uffdio_range r = { G.stash, GIB };

			ioctl(G.uffd, UFFDIO_UNREGISTER, &r);
			t1 = now_us();	/* the unregistration is the sampler's too, but not a move */
		}
		move(G.arena, G.stash);
		t2 = now_us();
		out += t1 - t0;
		back += t2 - t1;
	}
	*out_us = out / n;
	*back_us = back / n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mib", required_argument, NULL, 'm' },
		{ "moves", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	long mib = 256, moves = 500, rounds = 5;
	cpu_set_t cpus;
	int ncpu = 0, c, have[NVAR] = { 1, 0, 0, 0 };
	double *res[NVAR][2], *wake[2];

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		char *end;
		long v;

		errno = 0;
		v = strtol(optarg, &end, 10);
		if (errno || *end || v <= 0 || (c == 'm' && v > 1024)) {
			fprintf(stderr, "arm-cost: --%s '%s': a positive integer%s\n",
				c == 'm' ? "mib" : c == 'n' ? "moves" : "rounds", optarg, c == 'm' ? " up to 1024" : "");
			return 2;
		}
		if (c == 'm')
			mib = v;
		else if (c == 'n')
			moves = v;
		else if (c == 'r')
			rounds = v;
		else
			return 2;
	}
	sched_getaffinity(0, sizeof(cpus), &cpus);
	for (int i = 0; i < CPU_SETSIZE && ncpu < 2; i++)
		if (CPU_ISSET(i, &cpus))
			G.cpu[ncpu++] = i;
	pin(G.cpu[0]);
	have[PEER_IDLE] = have[PEER_RUNNING] = ncpu > 1;
	G.arena = gib_aligned(GIB, PROT_READ | PROT_WRITE);
	G.stash = gib_aligned(GIB, PROT_NONE);
	madvise((void *)G.arena, GIB, MADV_HUGEPAGE);
	memset((void *)G.arena, 1, (size_t)mib << 20);
	if ((G.uffd = uffd_open()) >= 0)
		have[UFFD_REMAP] = 1;
	for (int v = 0; v < NVAR; v++)
		for (int k = 0; k < 2; k++)
			res[v][k] = calloc((size_t)rounds, sizeof(double));
	for (int k = 0; k < 2; k++)
		wake[k] = calloc((size_t)rounds, sizeof(double));

	for (long r = 0; r < rounds; r++)
		for (int i = 0; i < NVAR; i++) {
			int v = (int)((i + r) % NVAR);	/* rotated, so drift hits every variant alike */
			pthread_t t;

			if (!have[v])
				continue;
			if (v == PEER_IDLE || v == PEER_RUNNING) {
				atomic_store(&G.peer_mode, v == PEER_IDLE ? 1 : 2);
				pthread_create(&t, NULL, peer, NULL);
				usleep(20000);
			} else if (v == UFFD_REMAP) {
				atomic_store(&G.handler_stop, 0);
				pthread_create(&t, NULL, handler, NULL);
			}
			pairs((enum variant)v, (int)moves, &res[v][0][r], &res[v][1][r]);
			if (v != ALONE) {
				atomic_store(&G.peer_mode, 0);
				atomic_store(&G.handler_stop, 1);
				pthread_join(t, NULL);
			}
		}
	for (long r = 0; r < rounds; r++)
		for (int k = 0; k < 1 + (ncpu > 1); k++)
			wake[k][r] = wake_trip(G.cpu[k], (int)moves);

	printf("arm-cost: 1 GiB arena, %ld MiB touched (THP advised), %ld move pairs x %ld rounds, CPUs %d and %d\n\n",
	       mib, moves, rounds, G.cpu[0], ncpu > 1 ? G.cpu[1] : -1);
	printf("| variant | move out, us | move back, us | pair / alone |\n|---|---:|---:|---:|\n");
	double alone = median(res[ALONE][0], (int)rounds) + median(res[ALONE][1], (int)rounds);
	for (int v = 0; v < NVAR; v++) {
		double o, b;

		if (!have[v]) {
			printf("| %s | n/a | n/a | %s |\n", var_name[v],
			       v == UFFD_REMAP ? "no userfaultfd with EVENT_REMAP here" : "one CPU only");
			continue;
		}
		o = median(res[v][0], (int)rounds);
		b = median(res[v][1], (int)rounds);
		printf("| %s | %.1f | %.1f | %.2f |\n", var_name[v], o, b, (o + b) / alone);
	}
	printf("\n| wake-up round trip (two wake-ups), us | same CPU | other CPU |\n|---|---:|---:|\n");
	printf("| eventfd ping-pong | %.1f | ", median(wake[0], (int)rounds));
	if (ncpu > 1)
		printf("%.1f |\n", median(wake[1], (int)rounds));
	else
		printf("one CPU only |\n");
	return 0;
}
