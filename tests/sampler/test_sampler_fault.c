/*
 * The fault sampler against a fake runtime (harness.h): samples carry the
 * right address, PC, thread and flags; the program's errno, signal
 * handlers, crashes and system calls are exactly as without sampling;
 * the rate holds; fork, holes, COW-shared pages and THPs are handled.
 */
#include "harness.h"
#include "tiermem/sampler-fault.h"
#include "tiermem/sampler-uffd.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define NBLOCKS 8

static const struct rt_sampler_ops *ops = &rt_sampler_fault;

static int setup(void **state)
{
	char why[256] = "";

	(void)state;
	if (!h_map(NBLOCKS, 1))
		return -1;
	if (h_start(ops, 10000, why, sizeof(why))) {
		print_message("fault sampler unavailable: %s\n", why);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ops->stop();
	munmap((void *)H.base, NBLOCKS * H_BLOCK);
	return 0;
}

/* Arms the next block of the round robin; returns its index. */
static size_t arm_next(void)
{
	size_t b = atomic_load(&H.cursor) % H.nblocks;
	struct tlrt_fault_counts c0, c1;

	tlrt_sampler_fault_counts(&c0);
	ops->tick();
	tlrt_sampler_fault_counts(&c1);
	assert_int_equal(c1.armed, c0.armed + 1);
	return b;
}

static void wait_samples(size_t n)
{
	for (int i = 0; i < 2000 && h_nsamples() < n; i++)
		usleep(1000);
}

static __attribute__((noinline)) uint8_t touch_read(volatile uint8_t *p)
{
	return *p;
}

static void sample_fields(void **state)
{
	size_t b, off = 123457;
	volatile uint8_t *p;
	uint8_t v;

	(void)state;
	h_reset_samples();
	b = arm_next();
	p = (volatile uint8_t *)(H.base + b * H_BLOCK + off);
	errno = 4242;
	v = touch_read(p);
	assert_int_equal(errno, 4242);
	assert_int_equal(v, (uint8_t)((off * 7 + b) & 0xff));
	wait_samples(1);
	assert_int_equal(h_nsamples(), 1);
	assert_int_equal(H.samples[0].addr, (uintptr_t)p);
	assert_int_equal(H.samples[0].tid, gettid());
	assert_false(H.samples[0].flags & RT_SAMPLE_KERNEL);
	assert_true(H.samples[0].pc != 0);
	/* touch_read is a load and a return: its code is well under 64 bytes */
	assert_in_range(H.samples[0].pc, (uintptr_t)touch_read, (uintptr_t)touch_read + 63);
	assert_true(h_check(b));
}

static void sample_from_read(void **state)
{
	int fds[2];
	char msg[64] = "written by the pipe into armed memory";
	size_t b;
	uint8_t *dst;
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	h_reset_samples();
	b = arm_next();
	dst = (uint8_t *)(H.base + b * H_BLOCK + 8192 + 5);
	assert_int_equal(write(fds[1], msg, sizeof(msg)), (ssize_t)sizeof(msg));
	n = read(fds[0], dst, sizeof(msg));
	assert_int_equal(n, (ssize_t)sizeof(msg));
	assert_memory_equal(dst, msg, sizeof(msg));
	wait_samples(1);
	assert_int_equal(h_nsamples(), 1);
	assert_true(H.samples[0].flags & RT_SAMPLE_KERNEL);
	assert_true(H.samples[0].addr - (uintptr_t)dst < sizeof(msg));
	assert_true(H.samples[0].pc != 0);
	/* restore the pattern for later checks */
	for (size_t i = 0; i < sizeof(msg); i++)
		dst[i] = (uint8_t)(((8192 + 5 + i) * 7 + b) & 0xff);
	close(fds[0]);
	close(fds[1]);
}

/* A hole of an armed block reads as zero and allocates on first touch, as before. */
static void holes(void **state)
{
	uint8_t *p = mmap(NULL, 2 * H_BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a = ((uintptr_t)p + H_BLOCK - 1) & ~(H_BLOCK - 1);
	uintptr_t base = H.base;
	size_t nb = H.nblocks;

	(void)state;
	madvise((void *)a, H_BLOCK, MADV_NOHUGEPAGE);
	((uint8_t *)a)[0] = 1;			/* page 0 present, the rest holes */
	H.base = a;
	H.nblocks = 1;
	h_reset_samples();
	arm_next();
	assert_int_equal(((volatile uint8_t *)a)[40960], 0);	/* a hole */
	wait_samples(1);
	assert_int_equal(h_nsamples(), 1);
	assert_int_equal(((uint8_t *)a)[0], 1);
	((uint8_t *)a)[40960] = 9;
	assert_int_equal(((uint8_t *)a)[40960], 9);
	/* armed again with a hole written inside a system call */
	arm_next();
	{
		int fds[2];

		assert_int_equal(pipe(fds), 0);
		assert_int_equal(write(fds[1], "xyz", 3), 3);
		assert_int_equal(read(fds[0], (void *)(a + 81920), 3), 3);
		assert_memory_equal((void *)(a + 81920), "xyz", 3);
		close(fds[0]);
		close(fds[1]);
	}
	assert_int_equal(((uint8_t *)a)[0], 1);
	assert_int_equal(((uint8_t *)a)[40960], 9);
	H.base = base;
	H.nblocks = nb;
	munmap(p, 2 * H_BLOCK);
}

static void release_restores(void **state)
{
	struct tlrt_fault_counts c0, c1;
	size_t b;

	(void)state;
	h_reset_samples();
	tlrt_sampler_fault_counts(&c0);
	b = arm_next();
	ops->release_range(H.base + b * H_BLOCK, H_BLOCK);
	tlrt_sampler_fault_counts(&c1);
	assert_int_equal(c1.expired, c0.expired + 1);
	assert_true(h_check(b));
	assert_int_equal(h_nsamples(), 0);
}

/* Blocks moved out and back stay one huge page each, also after 4 KiB blocks used the stash. */
static void thp_kept(void **state)
{
	uint8_t *p = mmap(NULL, 2 * H_BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t small = ((uintptr_t)p + H_BLOCK - 1) & ~(H_BLOCK - 1);
	uintptr_t base = H.base;
	size_t nb = H.nblocks;
	int huge0;

	(void)state;
	madvise((void *)small, H_BLOCK, MADV_NOHUGEPAGE);
	memset((void *)small, 3, H_BLOCK);
	huge0 = tlrt_block_is_huge(base);
	if (huge0 != 1)
		skip();		/* no THP here: nothing to keep */
	for (int round = 0; round < 80; round++) {
		/* alternate a 4 KiB block and a huge one through the stash ring */
		H.base = (round & 1) ? base : small;
		H.nblocks = 1;
		atomic_store(&H.cursor, 0);
		arm_next();
		touch_read((volatile uint8_t *)H.base + 4096 * (size_t)round);
		wait_samples(0);
		for (int i = 0; i < 1000 && ({ struct tlrt_fault_counts c; tlrt_sampler_fault_counts(&c); c.armed != c.samples + c.expired; }); i++)
			usleep(100);
	}
	H.base = base;
	H.nblocks = nb;
	assert_int_equal(tlrt_block_is_huge(base), 1);
	assert_true(h_check(0));
	munmap(p, 2 * H_BLOCK);
}

static void fork_while_armed(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	for (int i = 0; i < NBLOCKS / 2; i++)
		arm_next();
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		for (size_t b = 0; b < NBLOCKS; b++)
			if (!h_check(b))
				_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	for (size_t b = 0; b < NBLOCKS; b++)
		assert_true(h_check(b));
}

/* Pages still shared with a child cannot move: the block is skipped and counted, never copied. */
static void cow_shared_skipped(void **state)
{
	struct tlrt_fault_counts c0, c1;
	int go[2];
	pid_t pid;
	char c;

	(void)state;
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		ssize_t r = read(go[0], &c, 1);	/* keeps the pages shared until told */

		_exit(r == 1 ? 0 : 1);
	}
	tlrt_sampler_fault_counts(&c0);
	ops->tick();
	tlrt_sampler_fault_counts(&c1);
	assert_int_equal(c1.skipped_shared, c0.skipped_shared + 1);
	assert_int_equal(c1.armed, c0.armed);
	assert_int_equal(write(go[1], "x", 1), 1);
	waitpid(pid, NULL, 0);
	close(go[0]);
	close(go[1]);
	for (size_t b = 0; b < NBLOCKS; b++)
		assert_true(h_check(b));
}

/* Whether the mapping holding addr is registered for missing faults ("um" in its VmFlags); -1: not found. */
/*
 * Written again: after the fork tests the pages are no longer marked the
 * parent's alone (until written), and UFFDIO_MOVE refuses those.
 */
static void rewrite(size_t b)
{
	uint8_t *p = (uint8_t *)(H.base + b * H_BLOCK);

	for (size_t i = 0; i < H_BLOCK; i++)
		p[i] = (uint8_t)((i * 7 + b) & 0xff);
}

static int registered_missing(uintptr_t addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0, r = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = addr >= lo && addr < hi;
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			r = strstr(line, " um") != NULL;
			break;
		}
	}
	fclose(f);
	return r;
}

/*
 * A block whose pages were all present stays registered after its sample
 * (so the next arm costs no VMA split); a page the program drops later is
 * filled by the kernel as before: zero on the next touch, no hang.
 */
static void full_block_stays_registered(void **state)
{
	struct tlrt_fault_counts c0, c1;
	uintptr_t blk, hole;
	size_t b;

	(void)state;
	atomic_store(&H.cursor, NBLOCKS - 1);	/* not block 0, which thp_kept checks */
	rewrite(NBLOCKS - 1);
	h_reset_samples();
	b = arm_next();
	blk = H.base + b * H_BLOCK;
	assert_int_equal(registered_missing(blk), 1);
	touch_read((volatile uint8_t *)blk + 777);
	wait_samples(1);
	assert_int_equal(h_nsamples(), 1);
	assert_int_equal(registered_missing(blk), 1);
	assert_true(h_check(b));

	hole = blk + 65536;
	tlrt_sampler_fault_counts(&c0);
	assert_int_equal(madvise((void *)hole, 4096, MADV_DONTNEED), 0);
	assert_int_equal(touch_read((volatile uint8_t *)hole + 5), 0);
	tlrt_sampler_fault_counts(&c1);
	assert_int_equal(c1.stray, c0.stray + 1);
	assert_int_equal(c1.samples, c0.samples);
	assert_int_equal(registered_missing(blk), 0);
	for (size_t i = 0; i < 4096; i++)
		((uint8_t *)hole)[i] = (uint8_t)((65536 + i) * 7 + b);
	assert_true(h_check(b));
}

static int handler_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	char path[300], comm[64];
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, "tiermem-fault\n"))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* Samples are taken on whichever CPU the program runs; a small CPU mask gets one handler per CPU. */
static void every_cpu(void **state)
{
	cpu_set_t all, one;
	int ncpu;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	ncpu = CPU_COUNT(&all);
	assert_int_equal(handler_threads(), ncpu >= 2 && ncpu <= 8 ? ncpu : 1);
	for (size_t b = 0; b < NBLOCKS; b++)
		rewrite(b);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		size_t b;

		if (!CPU_ISSET(c, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
		h_reset_samples();
		b = arm_next();
		touch_read((volatile uint8_t *)(H.base + b * H_BLOCK + 4096 * (size_t)(c % 500) + 1));
		wait_samples(1);
		assert_int_equal(h_nsamples(), 1);
		assert_int_equal(H.samples[0].tid, gettid());
		assert_int_equal(sched_getcpu(), c);
		assert_true(h_check(b));
	}
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sample_fields),
		cmocka_unit_test(sample_from_read),
		cmocka_unit_test(holes),
		cmocka_unit_test(release_restores),
		cmocka_unit_test(thp_kept),
		cmocka_unit_test(fork_while_armed),
		cmocka_unit_test(cow_shared_skipped),
		cmocka_unit_test(full_block_stays_registered),
		cmocka_unit_test(every_cpu),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
