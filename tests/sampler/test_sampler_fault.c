/*
 * The fault sampler against a fake runtime (harness.h): samples carry the
 * right address, PC, thread and flags; the first access anywhere after a
 * tick is the one sample; the program's errno and system calls are
 * exactly as without sampling; fork, holes, COW-shared pages, split
 * mappings, racing threads and THPs are handled; so is a program that
 * closes every descriptor and reuses the numbers.
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
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define NBLOCKS 8

static const struct rt_sampler_ops *ops = &rt_sampler_fault;
static _Atomic int tick_in_deliver, tick_rc_in_deliver = -1;
static void deliver_then_tick(const struct rt_sample *s);

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
	/* before any arming: the handlers read it under the sampler's lock, taken after this */
	H.env.deliver = deliver_then_tick;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ops->stop();
	munmap((void *)H.base, H_ARENA);
	return 0;
}

/* Arms all of the arena; asserts that it did. */
static void arm(void)
{
	struct tlrt_fault_counts c0, c1;

	tlrt_sampler_fault_counts(&c0);
	ops->tick();
	tlrt_sampler_fault_counts(&c1);
	assert_int_equal(c1.armed, c0.armed + 1);
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
	size_t b = 5, off = 123457;
	volatile uint8_t *p;
	uint8_t v;

	(void)state;
	h_reset_samples();
	arm();
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
	for (size_t i = 0; i < NBLOCKS; i++)
		assert_true(h_check(i));
}

/*
 * The handler delivers before it wakes the sampled thread: a tick here
 * comes before its access is made. Only at the first delivery after the
 * test asks: were that tick to arm, every retry would be sampled and tick
 * again, for ever.
 */
static void deliver_then_tick(const struct rt_sample *s)
{
	h_deliver(s);
	if (atomic_exchange(&tick_in_deliver, 0))
		atomic_store(&tick_rc_in_deliver, ops->tick());
}

/*
 * One access, one sample: a tick between the sample and the moment the
 * stopped thread has run again does not arm (an arming then would stop
 * the same access once more and sample it twice); once the thread has
 * run, the next tick arms, and its sample is a new access.
 */
static void no_arming_before_the_access(void **state)
{
	struct tlrt_fault_counts c0, c1;
	volatile uint8_t *p = (volatile uint8_t *)(H.base + 3 * H_BLOCK + 4097);
	volatile uint8_t *q = (volatile uint8_t *)(H.base + 6 * H_BLOCK + 77);

	(void)state;
	h_reset_samples();
	arm();
	tlrt_sampler_fault_counts(&c0);
	atomic_store(&tick_in_deliver, 1);
	touch_read(p);
	wait_samples(1);
	tlrt_sampler_fault_counts(&c1);
	assert_int_equal(atomic_load(&tick_rc_in_deliver), RT_TICK_NOT_YET);
	assert_int_equal(c1.armed, c0.armed);
	assert_int_equal(c1.not_yet, c0.not_yet + 1);
	/* this thread has run since: the tick arms, and the next access is the one sample */
	arm();
	touch_read(q);
	wait_samples(2);
	usleep(2000);
	assert_int_equal(h_nsamples(), 2);
	assert_int_equal(H.samples[0].addr, (uintptr_t)p);
	assert_int_equal(H.samples[1].addr, (uintptr_t)q);
}

/*
 * One arming covers every block at once: the first access anywhere is the
 * sample, wherever it lands, and later accesses until the next tick are
 * not samples.
 */
static void first_access_wins(void **state)
{
	(void)state;
	for (size_t round = 0; round < 2 * NBLOCKS; round++) {
		size_t first = (round * 5 + 3) % NBLOCKS, second = (first + 1) % NBLOCKS;
		size_t off = 4096 * round + 64 * round + 1;

		h_reset_samples();
		arm();
		touch_read((volatile uint8_t *)(H.base + first * H_BLOCK + off));
		touch_read((volatile uint8_t *)(H.base + second * H_BLOCK + 7));
		wait_samples(1);
		usleep(2000);
		assert_int_equal(h_nsamples(), 1);
		assert_int_equal(H.samples[0].addr, H.base + first * H_BLOCK + off);
	}
	for (size_t i = 0; i < NBLOCKS; i++)
		assert_true(h_check(i));
}

static void sample_from_read(void **state)
{
	int fds[2];
	char msg[64] = "written by the pipe into armed memory";
	size_t b = 2;
	uint8_t *dst;
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	h_reset_samples();
	arm();
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

/* Never-touched parts of the arena read as zero and allocate on first touch, armed or not. */
static void holes(void **state)
{
	uintptr_t hole = H.base + (NBLOCKS + 3) * H_BLOCK;
	int fds[2];

	(void)state;
	h_reset_samples();
	arm();
	assert_int_equal(((volatile uint8_t *)hole)[40960], 0);
	wait_samples(1);
	assert_int_equal(h_nsamples(), 1);
	((uint8_t *)hole)[40960] = 9;
	assert_int_equal(((uint8_t *)hole)[40960], 9);
	/* armed again, a hole written inside a system call */
	arm();
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "xyz", 3), 3);
	assert_int_equal(read(fds[0], (void *)(hole + 81920), 3), 3);
	assert_memory_equal((void *)(hole + 81920), "xyz", 3);
	close(fds[0]);
	close(fds[1]);
	assert_int_equal(((uint8_t *)hole)[40960], 9);
	assert_int_equal(madvise((void *)hole, H_BLOCK, MADV_DONTNEED), 0);
}

/* Whether the mapping holding addr is registered for missing faults ("um" in its VmFlags); -1: not found. */
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
 * Released (the core frees or migrates inside it), the memory is back and
 * unregistered; a release outside the span leaves the arming alone.
 */
static void release_restores(void **state)
{
	struct tlrt_fault_counts c0, c1;

	(void)state;
	h_reset_samples();
	tlrt_sampler_fault_counts(&c0);
	arm();
	assert_int_equal(registered_missing(H.base), 1);
	ops->release_range(H.base + H_ARENA, H_BLOCK);
	tlrt_sampler_fault_counts(&c1);
	assert_int_equal(c1.expired, c0.expired);
	ops->release_range(H.base + 3 * H_BLOCK, H_BLOCK);
	tlrt_sampler_fault_counts(&c1);
	assert_int_equal(c1.expired, c0.expired + 1);
	assert_int_equal(registered_missing(H.base), 0);
	for (size_t i = 0; i < NBLOCKS; i++)
		assert_true(h_check(i));
	assert_int_equal(h_nsamples(), 0);
}

/* Memory moved out and back stays in huge pages: the moves are whole page-table entries. */
static void thp_kept(void **state)
{
	(void)state;
	if (tlrt_block_is_huge(H.base) != 1)
		skip();		/* no THP here: nothing to keep */
	for (int round = 0; round < 50; round++) {
		h_reset_samples();
		arm();
		touch_read((volatile uint8_t *)H.base + (size_t)round * 40961 % (NBLOCKS * H_BLOCK));
		wait_samples(1);
		assert_int_equal(h_nsamples(), 1);
	}
	for (size_t i = 0; i < NBLOCKS; i++) {
		assert_int_equal(tlrt_block_is_huge(H.base + i * H_BLOCK), 1);
		assert_true(h_check(i));
	}
}

static void fork_while_armed(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	arm();
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

/* Pages still shared with a child move like any other: both sides keep their contents. */
static void cow_shared(void **state)
{
	int go[2], st;
	pid_t pid;
	char c;

	(void)state;
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		ssize_t r = read(go[0], &c, 1);	/* keeps the pages shared until told */

		for (size_t b = 0; b < NBLOCKS; b++)
			if (!h_check(b))
				_exit(2);
		_exit(r == 1 ? 0 : 1);
	}
	h_reset_samples();
	arm();
	touch_read((volatile uint8_t *)H.base + 3 * H_BLOCK + 11);
	wait_samples(1);
	assert_int_equal(h_nsamples(), 1);
	assert_int_equal(write(go[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(go[0]);
	close(go[1]);
	for (size_t b = 0; b < NBLOCKS; b++)
		assert_true(h_check(b));
}

/*
 * The program split managed memory into two mappings (mprotect of one
 * page): the tick cannot arm it, says so, counts it and leaves it as it
 * was; once one mapping again, it arms.
 */
static void split_mapping_not_armed(void **state)
{
	struct tlrt_fault_counts c0, c1;
	uintptr_t page = H.base + 5 * H_BLOCK + 4096;

	(void)state;
	assert_int_equal(mprotect((void *)page, 4096, PROT_READ), 0);
	tlrt_sampler_fault_counts(&c0);
	ops->tick();
	tlrt_sampler_fault_counts(&c1);
	assert_int_equal(c1.armed, c0.armed);
	assert_int_equal(c1.skipped_other, c0.skipped_other + 1);
	assert_int_equal(registered_missing(H.base), 0);
	assert_int_equal(touch_read((volatile uint8_t *)page + 1), (uint8_t)((4097 * 7 + 5) & 0xff));
	assert_int_equal(mprotect((void *)page, 4096, PROT_READ | PROT_WRITE), 0);
	h_reset_samples();
	arm();
	touch_read((volatile uint8_t *)page);
	wait_samples(1);
	assert_int_equal(h_nsamples(), 1);
	for (size_t b = 0; b < NBLOCKS; b++)
		assert_true(h_check(b));
}

struct toucher {
	_Atomic int *stop;
	unsigned seed;
	uint64_t sum;
};

static void *touch_loop(void *arg)
{
	struct toucher *t = arg;
	unsigned x = t->seed;

	while (!atomic_load(t->stop)) {
		x = x * 1103515245u + 12345u;
		t->sum += ((volatile uint8_t *)H.base)[(x >> 4) % (NBLOCKS * H_BLOCK)];
	}
	return NULL;
}

/* Several threads racing into armed memory at 5 kHz: one sample per arming, every byte intact. */
static void threads_race(void **state)
{
	struct toucher t[4];
	pthread_t th[4];
	_Atomic int stop = 0;
	struct tlrt_fault_counts c0, c1;

	(void)state;
	tlrt_sampler_fault_counts(&c0);
	h_reset_samples();
	for (int i = 0; i < 4; i++) {
		t[i] = (struct toucher){ &stop, (unsigned)i * 7919u + 1, 0 };
		assert_int_equal(pthread_create(&th[i], NULL, touch_loop, &t[i]), 0);
	}
	h_ticker_start(5000);
	/* enough samples, however loaded the machine: no time is asserted */
	for (int i = 0; i < 1000 && h_nsamples() <= 100; i++)
		usleep(10000);
	h_ticker_stop();
	atomic_store(&stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	ops->release_range(H.base, H_ARENA);
	tlrt_sampler_fault_counts(&c1);
	assert_true(c1.samples - c0.samples > 100);
	assert_int_equal(c1.samples - c0.samples, h_nsamples());
	assert_int_equal(c1.armed - c0.armed, (c1.samples - c0.samples) + (c1.expired - c0.expired));
	for (size_t i = 0; i < h_nsamples(); i++)
		assert_true(H.samples[i].addr - H.base < NBLOCKS * H_BLOCK);
	for (size_t b = 0; b < NBLOCKS; b++)
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
	for (int c = 0; c < CPU_SETSIZE; c++) {
		size_t b = (size_t)c % NBLOCKS;

		if (!CPU_ISSET(c, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
		h_reset_samples();
		arm();
		touch_read((volatile uint8_t *)(H.base + b * H_BLOCK + 4096 * (size_t)(c % 500) + 1));
		wait_samples(1);
		assert_int_equal(h_nsamples(), 1);
		assert_int_equal(H.samples[0].tid, gettid());
		assert_int_equal(sched_getcpu(), c);
		assert_true(h_check(b));
	}
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
}

/* The program fills 3..1023 with copies of its own pipe's write end (p[0] apart), as a daemon's next opens would. */
static void take_every_number(const int *p)
{
	for (int fd = 3; fd < 1024; fd++)
		if (fd != p[0] && fd != p[1])
			assert_true(dup2(p[1], fd) == fd);
}

/* Every number 3..1023 is still the program's pipe, and nothing but the program wrote into it. */
static void numbers_untouched(const int *p)
{
	struct stat want, st;
	char c;

	assert_int_equal(fstat(p[1], &want), 0);
	for (int fd = 3; fd < 1024; fd++) {
		assert_int_equal(fstat(fd, &st), 0);
		assert_true(st.st_ino == want.st_ino);
	}
	assert_int_equal(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(read(p[0], &c, 1), -1);
	assert_int_equal(errno, EAGAIN);
}

/*
 * Issue 27: a program that closes every descriptor from 3 up (a daemon)
 * and reuses the numbers. Armed at that moment, its next access is still
 * a sample and its memory comes back (the handlers wait in a descriptor
 * table of their own); a release from the program's table has a handler
 * put the memory back; no arming follows (said once); stop() returns at
 * once instead of waiting for ever on handlers polling a closed
 * descriptor; and no number of the program's is read, written or closed.
 */
static void program_closes_descriptors(void **state)
{
	struct tlrt_fault_counts c0, c1;
	struct timespec t0, t1;
	char why[256];
	int p[2];

	(void)state;
	/* armed, then everything closed and taken: the access is a sample all the same */
	h_reset_samples();
	arm();
	assert_int_equal(close_range(3, ~0U, 0), 0);
	assert_int_equal(pipe(p), 0);
	take_every_number(p);
	touch_read((volatile uint8_t *)(H.base + 2 * H_BLOCK + 5));
	wait_samples(1);
	assert_int_equal(h_nsamples(), 1);
	for (size_t b = 0; b < NBLOCKS; b++)
		assert_true(h_check(b));
	/* no arming any more: the tick finds the userfaultfd gone from the program's table */
	tlrt_sampler_fault_counts(&c0);
	assert_int_equal(ops->tick(), 0);
	tlrt_sampler_fault_counts(&c1);
	assert_int_equal(c1.armed, c0.armed);
	assert_int_equal(c1.fd_lost, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ops->stop();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 2);
	numbers_untouched(p);

	/* again, armed when the program closes everything, and released from its table */
	assert_int_equal(close_range(3, ~0U, 0), 0);
	assert_int_equal(ops->start(&H.env, why, sizeof(why)), 0);
	arm();
	assert_int_equal(close_range(3, ~0U, 0), 0);
	assert_int_equal(pipe(p), 0);
	take_every_number(p);
	tlrt_sampler_fault_counts(&c0);
	ops->release_range(H.base, H_ARENA);
	tlrt_sampler_fault_counts(&c1);
	assert_int_equal(c1.expired, c0.expired + 1);
	for (size_t b = 0; b < NBLOCKS; b++)
		assert_true(h_check(b));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ops->stop();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 2);
	numbers_untouched(p);
	assert_int_equal(close_range(3, ~0U, 0), 0);
	/* for teardown's stop */
	assert_int_equal(ops->start(&H.env, why, sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sample_fields),
		cmocka_unit_test(first_access_wins),
		cmocka_unit_test(no_arming_before_the_access),
		cmocka_unit_test(sample_from_read),
		cmocka_unit_test(holes),
		cmocka_unit_test(release_restores),
		cmocka_unit_test(thp_kept),
		cmocka_unit_test(fork_while_armed),
		cmocka_unit_test(cow_shared),
		cmocka_unit_test(split_mapping_not_armed),
		cmocka_unit_test(threads_race),
		cmocka_unit_test(every_cpu),
		cmocka_unit_test(program_closes_descriptors),	/* last: it closes the process's descriptors */
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
