/*
 * The fault sampler at 10 kHz against what a program does: system calls
 * into and out of sampled memory (read, pread, write, recv, readv, fread
 * of more than 1 MiB) never fail with EFAULT nor return short and move
 * the right bytes; the program's own SIGSEGV handler gets exactly its own
 * faults; a real invalid access still kills it with SIGSEGV; at 100 Hz
 * the sample count follows the tick count.
 */
#include "harness.h"
#include "tiermem/sampler-fault.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define NBLOCKS 4
#define CHUNK 20000		/* straddles pages and, at some offsets, blocks */

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
	return 0;
}

static uint8_t *at(size_t off)
{
	return (uint8_t *)(H.base + off % (NBLOCKS * H_BLOCK - CHUNK));
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 13 + seed);
}

static int same(const uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)(i * 13 + seed))
			return 0;
	return 1;
}

/*
 * A loaded machine arms less often than ticks come (each arming waits for
 * the handler thread to run): loops go on past their rounds until they
 * have at least the samples they assert on, for at most a minute.
 */
static int enough(const struct tlrt_fault_counts *c0, uint64_t samples, uint64_t kernel, time_t start)
{
	struct tlrt_fault_counts c;

	tlrt_sampler_fault_counts(&c);
	return (c.samples - c0->samples >= samples && c.kernel - c0->kernel >= kernel) || time(NULL) - start > 60;
}

static void syscalls_at_10khz(void **state)
{
	static uint8_t src[CHUNK], dst[CHUNK];
	char path[] = "/tmp/tierlab-sampler-XXXXXX";
	int file = mkstemp(path), p[2], sv[2], efault = 0, shorts = 0, bad = 0;
	struct tlrt_fault_counts c0, c1;
	uint64_t ticks;
	time_t start = time(NULL);
	unsigned it;

	(void)state;
	assert_true(file >= 0);
	unlink(path);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &(int){ 1 << 20 }, sizeof(int));
	tlrt_sampler_fault_counts(&c0);
	h_ticker_start(10000);
	for (it = 0; it < 3000 || !enough(&c0, 101, 11, start); it++) {
		size_t off = (size_t)it * 104729;
		uint8_t *m = at(off);
		ssize_t n;

#define CHECK(call, want) do { n = (call); \
	if (n < 0 && errno == EFAULT) efault++; \
	else if (n != (ssize_t)(want)) shorts++; } while (0)
		switch (it % 5) {
		case 0:	/* write() out of armed memory, pread() into it */
			fill(m, CHUNK, it);
			CHECK(pwrite(file, m, CHUNK, 0), CHUNK);
			memset(m, 0, CHUNK);
			CHECK(pread(file, m, CHUNK, 0), CHUNK);
			bad += !same(m, CHUNK, it);
			break;
		case 1:	/* pipe: write from memory, read into memory */
			fill(m, CHUNK, it);
			CHECK(write(p[1], m, CHUNK), CHUNK);
			memset(m, 0, CHUNK);
			CHECK(read(p[0], m, CHUNK), CHUNK);
			bad += !same(m, CHUNK, it);
			break;
		case 2:	/* socketpair: send from memory, recv into memory */
			fill(m, CHUNK, it);
			CHECK(send(sv[0], m, CHUNK, 0), CHUNK);
			memset(m, 0, CHUNK);
			CHECK(recv(sv[1], m, CHUNK, MSG_WAITALL), CHUNK);
			bad += !same(m, CHUNK, it);
			break;
		case 3: {	/* readv into two pieces in different blocks */
			uint8_t *m2 = at(off + H_BLOCK + 777);
			struct iovec iov[2] = { { m, CHUNK / 2 }, { m2, CHUNK / 2 } };

			fill(src, CHUNK, it);
			CHECK(pwrite(file, src, CHUNK, 0), CHUNK);
			assert_int_equal(lseek(file, 0, SEEK_SET), 0);
			CHECK(readv(file, iov, 2), CHUNK);
			bad += memcmp(m, src, CHUNK / 2) || memcmp(m2, src + CHUNK / 2, CHUNK / 2);
			break;
		}
		default:	/* read() from a file into memory, write it back out from memory */
			fill(src, CHUNK, it);
			CHECK(pwrite(file, src, CHUNK, 0), CHUNK);
			assert_int_equal(lseek(file, 0, SEEK_SET), 0);
			CHECK(read(file, m, CHUNK), CHUNK);
			bad += memcmp(m, src, CHUNK) != 0;
			CHECK(pwrite(file, m, CHUNK, CHUNK), CHUNK);
			CHECK(pread(file, dst, CHUNK, CHUNK), CHUNK);
			bad += memcmp(dst, src, CHUNK) != 0;
			break;
		}
#undef CHECK
	}
	h_ticker_stop();
	ticks = atomic_load(&H.ticks);
	tlrt_sampler_fault_counts(&c1);
	print_message("%u rounds: %llu ticks, %llu armed, %llu samples (%llu in system calls)\n",
		      it, (unsigned long long)ticks, (unsigned long long)(c1.armed - c0.armed),
		      (unsigned long long)(c1.samples - c0.samples), (unsigned long long)(c1.kernel - c0.kernel));
	assert_int_equal(efault, 0);
	assert_int_equal(shorts, 0);
	assert_int_equal(bad, 0);
	/* the memory was really being sampled, from system calls too */
	assert_true(c1.samples - c0.samples > 100);
	assert_true(c1.kernel - c0.kernel > 10);
	close(file);
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

/* glibc's fread of a large request reads straight into the buffer (no interposable call). */
static void fread_large(void **state)
{
	size_t len = (3UL << 20) / 2 + 4096, n = 0;
	char path[] = "/tmp/tierlab-sampler-XXXXXX";
	int fd = mkstemp(path);
	uint8_t *src = malloc(len), *m = (uint8_t *)H.base + 12345;
	struct tlrt_fault_counts c0, c1;
	FILE *f;

	(void)state;
	assert_true(fd >= 0 && src);
	fill(src, len, 77);
	assert_int_equal(write(fd, src, len), (ssize_t)len);
	close(fd);
	tlrt_sampler_fault_counts(&c0);
	h_ticker_start(10000);
	for (int round = 0; round < 30; round++) {
		memset(m, 0, len);
		/* wait for a tick to arm a block the fread will write into */
		for (uint64_t t = atomic_load(&H.ticks); atomic_load(&H.ticks) < t + 2;)
			usleep(50);
		assert_non_null(f = fopen(path, "r"));
		n = fread(m, 1, len, f);
		assert_int_equal(ferror(f), 0);
		fclose(f);
		assert_int_equal(n, len);
		assert_memory_equal(m, src, len);
	}
	h_ticker_stop();
	tlrt_sampler_fault_counts(&c1);
	print_message("fread: %llu samples in system calls\n", (unsigned long long)(c1.kernel - c0.kernel));
	assert_true(c1.kernel > c0.kernel);
	unlink(path);
	free(src);
}

static volatile int own_faults;
static uint8_t *own_page;
static sigjmp_buf own_jmp;

static void own_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGSEGV && si->si_addr == own_page + 100)
		own_faults++;
	else
		own_faults += 1000;	/* a fault that was not the program's own */
	siglongjmp(own_jmp, 1);
}

static void own_sigsegv_handler(void **state)
{
	struct sigaction sa = { .sa_sigaction = own_handler, .sa_flags = SA_SIGINFO };
	struct tlrt_fault_counts c0, c1;
	volatile uint64_t sum = 0;
	volatile int faults = 0;
	time_t start = time(NULL);

	(void)state;
	own_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(own_page != MAP_FAILED);
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGSEGV, &sa, NULL), 0);
	tlrt_sampler_fault_counts(&c0);
	h_ticker_start(10000);
	for (int i = 0; i < 2000 || atomic_load(&H.ticks) < 1000 || !enough(&c0, 101, 0, start); i++) {
		/* sampled memory, touched all over */
		for (size_t off = 0; off < NBLOCKS * H_BLOCK; off += 65536)
			sum += ((volatile uint8_t *)H.base)[off + (size_t)i % 4096];
		if (!sigsetjmp(own_jmp, 1)) {
			faults++;
			((volatile uint8_t *)own_page)[100] = 1;
		}
	}
	h_ticker_stop();
	tlrt_sampler_fault_counts(&c1);
	signal(SIGSEGV, SIG_DFL);
	print_message("armed %llu samples %llu expired %llu skipped %llu fallback %llu stray %llu\n",
		      (unsigned long long)(c1.armed - c0.armed), (unsigned long long)(c1.samples - c0.samples),
		      (unsigned long long)(c1.expired - c0.expired),
		      (unsigned long long)(c1.skipped_other - c0.skipped_other), (unsigned long long)(c1.fallback - c0.fallback),
		      (unsigned long long)(c1.stray - c0.stray));
	assert_int_equal(own_faults, faults);
	assert_true(c1.samples - c0.samples > 100);
	munmap(own_page, 4096);
}

static void real_segfault_kills(void **state)
{
	int st;
	pid_t pid;

	(void)state;
	h_ticker_start(10000);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* kept mapped with no access, so no later mapping (ASan's, a thread stack) can land there */
		volatile int *gone = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct tlrt_fault_counts c;

		signal(SIGSEGV, SIG_DFL);	/* cmocka's catcher is not the program's */
		/* the child samples at 10 kHz itself, then makes a real invalid access */
		h_ticker_start(10000);
		/*
		 * Writes: pages still shared with the parent cannot be moved (see
		 * cow_shared_skipped). Until the first sample, or 10 s: under TSan
		 * the sampler's threads start slowly in a forked child.
		 */
		for (int i = 0; i < 20000; i++) {
			for (size_t off = 0; off < NBLOCKS * H_BLOCK; off += 4096)
				((volatile uint8_t *)H.base)[off] = ((volatile uint8_t *)H.base)[off];
			tlrt_sampler_fault_counts(&c);
			if (c.samples)
				break;
			usleep(500);
		}
		if (!c.samples)
			_exit(3);	/* the sampler did not restart in the child */
		*gone = 1;
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	h_ticker_stop();
	if (!WIFSIGNALED(st))
		print_message("child exited %d\n", WEXITSTATUS(st));
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
}

/* 100 Hz over 100 ticks of a loop touching every block: about one sample per tick. */
static void rate_100hz(void **state)
{
	struct tlrt_fault_counts c0, c1;
	volatile uint64_t sum = 0;
	uint64_t ticks;

	(void)state;
	tlrt_sampler_fault_counts(&c0);
	h_ticker_start(100);
	while (atomic_load(&H.ticks) < 100)
		for (size_t off = 0; off < NBLOCKS * H_BLOCK; off += 4096)
			sum += ((volatile uint8_t *)H.base)[off];
	h_ticker_stop();
	ticks = atomic_load(&H.ticks);
	tlrt_sampler_fault_counts(&c1);
	print_message("%llu ticks, %llu samples\n", (unsigned long long)ticks,
		      (unsigned long long)(c1.samples - c0.samples));
	/*
	 * Every arming of memory the program keeps touching is sampled, at
	 * most once, and a tick never arms twice. How many ticks found the
	 * memory still armed (the program descheduled meanwhile) depends on
	 * the machine's load, so it is not asserted.
	 */
	assert_true(c1.armed - c0.armed <= ticks);
	assert_true(c1.samples - c0.samples + 1 >= c1.armed - c0.armed);
	assert_true(c1.samples - c0.samples <= c1.armed - c0.armed);
	assert_true(c1.samples - c0.samples >= 10);
	for (size_t b = 0; b < NBLOCKS; b++)
		assert_true(h_check(b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rate_100hz),	/* first: after a fork, pages read since stay shared */
		cmocka_unit_test(syscalls_at_10khz),
		cmocka_unit_test(fread_large),
		cmocka_unit_test(own_sigsegv_handler),
		cmocka_unit_test(real_segfault_kills),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
