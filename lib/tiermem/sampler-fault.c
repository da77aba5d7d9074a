/*
 * The `fault` sampler: each tick one 2 MiB block of managed memory is made
 * to fault on its next access; that one fault is taken, its address, PC,
 * thread and time become a sample, and the block is restored.
 *
 * Mechanism (userfaultfd, no signals): arming registers the block for
 * MISSING faults and moves its pages (whole THP PMDs included, no copy)
 * with UFFDIO_MOVE into a private stash the program never sees. The next
 * access from any thread, in user mode or inside a system call, blocks in
 * the kernel - never EFAULT, never a signal - until the handler thread
 * reads the event, reads the faulting thread's PC from
 * /proc/self/task/TID/syscall ("-1 SP PC" in a page fault, a syscall
 * number when the access came from a system call) and moves the pages
 * back, which wakes every thread waiting on the block. So the program's
 * signal handlers, errno and system calls see nothing.
 *
 * A block whose every page is present stays registered after it is
 * restored: registering and unregistering split and merge VMAs under the
 * mmap write lock, which waits for the program's page faults in flight
 * (measured ~120 us each with the program running on the other CPU, more
 * than the rest of a sample together); registering a range that is
 * already registered changes nothing and is cheap. A registered block
 * with all its pages present never faults. Should the program make one
 * missing again (MADV_DONTNEED), its next touch reaches the handler, which
 * unregisters the block and lets the fault retry the usual way. A block
 * with holes is unregistered when restored: its first touches must stay
 * the kernel's. Freeing or moving managed memory maps fresh VMAs over it,
 * which drops the registration with them.
 *
 * The stash is registered write-protect only (it is a UFFDIO_MOVE target,
 * which must be registered, and nobody ever faults on it). A PMD-level
 * move needs an empty PMD at the target, so stash slots are used in a ring
 * and a quarter of the ring is remapped (page tables freed) before reuse:
 * a slot that once held 4 KiB pages would otherwise split the next THP
 * moved into it. For the same reason an empty block is never moved at
 * all: UFFDIO_MOVE over an empty PMD leaves a page table there, and the
 * program's first touch would get 4 KiB pages, each later move 512 PTE
 * moves (~100 us instead of ~5 us per 2 MiB here).
 */
#include "tiermem/rt-sampler.h"
#include "tiermem/sampler-fault.h"
#include "tiermem/sampler-uffd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define BLOCK TLRT_UFFD_BLOCK
#define NARMED 8		/* blocks armed at once; the oldest untouched one is dropped */
#define STASH_SLOTS 64
#define STASH_PART 16		/* remapped a quarter at a time; > NARMED so none is in use */
#define NTIDFD 16
/*
 * One handler thread per CPU of the process's mask, pinned there, when the
 * mask is this small; one unpinned handler otherwise. See handlers_start().
 */
#define MAX_PINNED 8
#define MOVE_RETRIES 1000

_Static_assert(STASH_SLOTS == 4 * STASH_PART && STASH_PART > NARMED, "stash ring layout");

struct armed {
	uintptr_t addr;		/* 0: free */
	uintptr_t stash;
	uint64_t seq;
	int keep;		/* every page was present: stays registered when restored */
};

struct tid_fd {
	pid_t tid;
	int fd;
};

static struct {
	const struct rt_sampler_env *env;
	pthread_mutex_t lock;
	int fd;			/* the userfaultfd; -1 when off */
	int wake;		/* eventfd: stop the handler */
	pthread_t threads[MAX_PINNED];
	int nthreads;		/* handler threads running */
	_Atomic int stopping;
	uintptr_t stash;
	unsigned stash_next;
	struct armed armed[NARMED];
	unsigned narmed;
	uint64_t seq;
	int paused;		/* between fork prepare and parent */
	int restart;		/* forked child: start afresh at the next tick */
	struct tid_fd tids[NTIDFD];
	unsigned tid_next;
	struct tlrt_fault_counts c;
} F = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
	.wake = -1,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * All of [src, src+len) to dst, hole by hole; 0 or -errno with *moved set.
 * wake: let threads waiting on dst run as soon as their pages are there.
 */
static int move_range(uintptr_t dst, uintptr_t src, size_t len, size_t *moved, int wake)
{
	int tries = 0;

	*moved = 0;
	while (*moved < len) {
		struct uffdio_move mv = {
			.dst = dst + *moved,
			.src = src + *moved,
			.len = len - *moved,
			.mode = UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES | (wake ? 0 : UFFDIO_MOVE_MODE_DONTWAKE),
		};

		if (!ioctl(F.fd, UFFDIO_MOVE, &mv)) {
			*moved = len;
			break;
		}
		if (mv.move > 0) {
			*moved += (size_t)mv.move;
			continue;
		}
		/* a page changed under the move (racing fault, migration): try again */
		if (errno == EAGAIN && ++tries < MOVE_RETRIES)
			continue;
		return -errno;
	}
	return 0;
}

/*
 * The slow way back, when UFFDIO_MOVE refuses (the program mprotect-ed or
 * mlock-ed the block while it was armed): copy each present stash page
 * into the block, then drop the stash pages. Holes stay holes.
 */
static void copy_back(uintptr_t dst, uintptr_t src, size_t len)
{
	static unsigned char vec[BLOCK / 4096];
	size_t pg = 4096, n = len / pg, i = 0;

	if (mincore((void *)src, len, vec))
		memset(vec, 1, n);
	while (i < n) {
		size_t j = i;
		struct uffdio_copy cp;

		if (!(vec[i] & 1)) {
			i++;
			continue;
		}
		while (j < n && (vec[j] & 1))
			j++;
		cp = (struct uffdio_copy){
			.dst = dst + i * pg,
			.src = src + i * pg,
			.len = (j - i) * pg,
			.mode = UFFDIO_COPY_MODE_DONTWAKE,
		};
		if (!ioctl(F.fd, UFFDIO_COPY, &cp))
			i = j;
		else	/* stopped at a page it cannot fill (present, unmapped): skip it */
			i += cp.copy > 0 ? (size_t)cp.copy / pg : 1;
	}
	madvise((void *)src, len, MADV_DONTNEED);
}

static struct armed *find(uintptr_t a)
{
	for (unsigned i = 0; i < NARMED; i++)
		if (F.armed[i].addr && a - F.armed[i].addr < BLOCK)
			return &F.armed[i];
	return NULL;
}

/* Wakes every thread waiting on the block holding addr. */
static void wake_block(int fd, uintptr_t addr)
{
	struct uffdio_range r = { .start = addr & ~(BLOCK - 1), .len = BLOCK };

	ioctl(fd, UFFDIO_WAKE, &r);
}

/*
 * Pages back, which wakes whoever waits on the block when wake is set (a
 * sample wakes its thread later, with the lock released). Lock held. A
 * block with holes is also unregistered; that wakes its waiters too, and
 * lets their faults on the holes go to the kernel.
 */
static void restore(struct armed *s, int wake)
{
	size_t moved;

	/* a hole went out as nothing: a move would leave a page table in the block (no THP on first touch) */
	if (s->stash && move_range(s->addr, s->stash, BLOCK, &moved, wake)) {
		copy_back(s->addr + moved, s->stash + moved, BLOCK - moved);
		F.c.fallback++;
		s->keep = 0;	/* copying may have left holes behind */
	}
	if (!s->keep)
		tlrt_uffd_unregister(F.fd, s->addr, BLOCK);
	s->addr = 0;
	F.narmed--;
}

static void restore_all(void)
{
	for (unsigned i = 0; i < NARMED; i++)
		if (F.armed[i].addr) {
			restore(&F.armed[i], 1);
			F.c.expired++;
		}
}

/* A fresh stash part: unmapping frees its page tables, so every PMD in it is empty. */
static int stash_renew(uintptr_t at, size_t len, uint64_t *ioctls)
{
	void *p = mmap((void *)at, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	if (madvise(p, len, MADV_DONTFORK))
		return -errno;
	madvise(p, len, MADV_HUGEPAGE);
	return tlrt_uffd_register(F.fd, at, len, UFFDIO_REGISTER_MODE_WP, ioctls);
}

static uintptr_t stash_slot(void)
{
	unsigned i = F.stash_next;

	F.stash_next = (i + 1) % STASH_SLOTS;
	if (i % STASH_PART == 0) {
		/* the part two ahead was last used > STASH_PART arms ago */
		unsigned part = (i / STASH_PART + 2) % 4;
		uintptr_t at = F.stash + (uintptr_t)part * STASH_PART * BLOCK;

		/*
		 * A block armed so long ago that its slot is in this part has
		 * gone untouched for > STASH_PART arms: expire it rather than
		 * skip the renewal (a stale slot would split the next THP).
		 */
		for (unsigned k = 0; k < NARMED; k++)
			if (F.armed[k].addr && F.armed[k].stash && F.armed[k].stash - at < STASH_PART * BLOCK) {
				restore(&F.armed[k], 1);
				F.c.expired++;
			}
		if (stash_renew(at, STASH_PART * BLOCK, NULL))
			return 0;
	}
	return F.stash + (uintptr_t)i * BLOCK;
}

enum fill { FILL_EMPTY, FILL_PARTIAL, FILL_FULL };

/*
 * How many of the block's pages are mapped. Once registered, nothing can
 * fill a hole but us, so the answer holds until the block is restored.
 */
static enum fill block_fill(uintptr_t addr)
{
	static unsigned char vec[BLOCK / 4096];
	size_t present = 0;

	if (mincore((void *)addr, BLOCK, vec))
		return FILL_PARTIAL;
	for (size_t i = 0; i < sizeof(vec); i++)
		present += vec[i] & 1;
	return !present ? FILL_EMPTY : present == sizeof(vec) ? FILL_FULL : FILL_PARTIAL;
}

static void arm(uintptr_t addr)
{
	uintptr_t stash = 0;
	struct armed *s = NULL;
	size_t moved = 0;
	enum fill fill;
	int err = 0;

	/* a no-op when the block stayed registered from an earlier sample */
	if (tlrt_uffd_register(F.fd, addr, BLOCK, UFFDIO_REGISTER_MODE_MISSING, NULL)) {
		F.c.skipped_other++;
		return;
	}
	/*
	 * An empty block is armed by the registration alone: UFFDIO_MOVE over
	 * an empty PMD allocates a page table there, and the program's first
	 * touch would then get 4 KiB pages instead of a THP.
	 */
	if ((fill = block_fill(addr)) != FILL_EMPTY) {
		if (!(stash = stash_slot())) {
			tlrt_uffd_unregister(F.fd, addr, BLOCK);
			F.c.skipped_other++;
			return;
		}
		err = move_range(stash, addr, BLOCK, &moved, 0);
	}
	if (err) {
		/* partly moved (e.g. a COW-shared page stopped it): put back what went, never copy */
		size_t back;

		if (moved && move_range(addr, stash, moved, &back, 0))
			copy_back(addr + back, stash + back, moved - back);
		tlrt_uffd_unregister(F.fd, addr, BLOCK);
		if (err == -EBUSY)
			F.c.skipped_shared++;
		else
			F.c.skipped_other++;
		return;
	}
	for (unsigned i = 0; i < NARMED; i++)
		if (!F.armed[i].addr) {
			s = &F.armed[i];
			break;
		}
	*s = (struct armed){ .addr = addr, .stash = stash, .seq = ++F.seq, .keep = fill == FILL_FULL };
	F.narmed++;
	F.c.armed++;
}

static int tid_fd(pid_t tid, int fresh)
{
	char path[64];
	size_t at;
	unsigned i;

	for (i = 0; i < NTIDFD; i++)
		if (F.tids[i].tid == tid && F.tids[i].fd >= 0) {
			if (!fresh)
				return F.tids[i].fd;
			close(F.tids[i].fd);
			break;
		}
	if (i == NTIDFD) {
		i = F.tid_next;
		F.tid_next = (i + 1) % NTIDFD;
		if (F.tids[i].fd >= 0 && F.tids[i].tid)
			close(F.tids[i].fd);
	}
	at = tlrt_fmt_str(path, sizeof(path), 0, "/proc/self/task/");
	at = tlrt_fmt_ulong(path, sizeof(path), at, (unsigned long)tid);
	tlrt_fmt_str(path, sizeof(path), at, "/syscall");
	F.tids[i] = (struct tid_fd){ .tid = tid, .fd = open(path, O_RDONLY | O_CLOEXEC) };
	return F.tids[i].fd;
}

static void tid_fds_close(void)
{
	for (unsigned i = 0; i < NTIDFD; i++) {
		if (F.tids[i].tid && F.tids[i].fd >= 0)
			close(F.tids[i].fd);
		F.tids[i] = (struct tid_fd){ .tid = 0, .fd = -1 };
	}
}

/*
 * The blocked thread's PC. In a page fault the file reads "-1 SP PC"; in
 * a system call "NR ARG1..ARG6 SP PC" (the access came from the kernel on
 * the program's behalf); "running" when it is not blocked any more.
 */
static void read_pc(pid_t tid, struct rt_sample *s)
{
	char buf[256];
	ssize_t n = -1;
	int fd, tries;
	char *p;
	uintptr_t pc = 0;

	for (tries = 0; tries < 2 && n <= 0; tries++)
		if ((fd = tid_fd(tid, tries)) >= 0)
			n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0 || buf[0] == 'r')
		return;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	p = strrchr(buf, ' ');
	if (!p || p[1] != '0' || p[2] != 'x')
		return;
	for (p += 3; *p; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;

		if (d < 0)
			return;
		pc = pc << 4 | (uintptr_t)d;
	}
	s->pc = pc;
	if (buf[0] != '-')
		s->flags |= RT_SAMPLE_KERNEL;
}

static void on_fault(const struct uffd_msg *m)
{
	uintptr_t a = (uintptr_t)m->arg.pagefault.address;
	struct rt_sample s = { .addr = a, .tid = (pid_t)m->arg.pagefault.feat.ptid };
	struct armed *slot;
	int fd;

	pthread_mutex_lock(&F.lock);
	if (F.fd < 0 || !(slot = find(a))) {
		unsigned char present = 0;

		/*
		 * Restored meanwhile (a wake more is harmless), or a hole in a
		 * block that stayed registered: the program made a page missing
		 * again. The kernel must fill that, so the block goes back to it.
		 */
		F.c.stray++;
		if (F.fd >= 0) {
			if (mincore((void *)(a & ~4095UL), 4096, &present) || !(present & 1))
				tlrt_uffd_unregister(F.fd, a & ~(BLOCK - 1), BLOCK);
			wake_block(F.fd, a);
		}
		pthread_mutex_unlock(&F.lock);
		return;
	}
	s.t_ns = now_ns();
	if (m->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE)
		s.flags |= RT_SAMPLE_WRITE;
	/* while the thread is still blocked: once woken, the file says "running" */
	read_pc(s.tid, &s);
	restore(slot, 0);
	F.c.samples++;
	if (s.flags & RT_SAMPLE_KERNEL)
		F.c.kernel++;
	fd = F.fd;
	pthread_mutex_unlock(&F.lock);
	F.env->deliver(&s);
	/*
	 * The faulting thread runs again from here: nothing of ours is
	 * held, so however soon it takes the CPU back, nobody waits on us.
	 */
	wake_block(fd, a);
}

static void *handler(void *arg)
{
	struct uffd_msg msgs[16];
	struct pollfd p[2] = { { .fd = F.fd, .events = POLLIN }, { .fd = F.wake, .events = POLLIN } };
	int cpu = (int)(intptr_t)arg;

	if (cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		/* refused (a cpuset changed meanwhile): it still works, only not locally */
		sched_setaffinity(0, sizeof(one), &one);
	}
	while (!atomic_load(&F.stopping)) {
		ssize_t n;

		if (poll(p, 2, -1) < 0 || atomic_load(&F.stopping))
			continue;
		/* every handler is woken; those that were not on the faulting CPU mostly find nothing */
		if ((n = read(p[0].fd, msgs, sizeof(msgs))) <= 0)
			continue;
		for (size_t i = 0; i < (size_t)n / sizeof(msgs[0]); i++)
			if (msgs[i].event == UFFD_EVENT_PAGEFAULT)
				on_fault(&msgs[i]);
	}
	return NULL;
}

static void handlers_join(void)
{
	uint64_t one = 1;
	/* a full eventfd counter (EAGAIN) wakes the polls just as well */
	ssize_t w = write(F.wake, &one, sizeof(one));

	(void)w;
	while (F.nthreads > 0)
		pthread_join(F.threads[--F.nthreads], NULL);
}

/*
 * A sample stops the faulting thread until a handler has put the block
 * back. A handler woken on another CPU costs two cross-CPU wake-ups per
 * sample (~50 us each on the 2-vCPU VM of docs/benchmarks.md); one pinned
 * to every CPU the program may run on is runnable right there, on the CPU
 * the faulting thread leaves, and wakes it there. Every poller of the
 * userfaultfd is woken by each fault, so this pays one wake-up per other
 * CPU and sample: cheap on a few CPUs, not on a hundred, where one
 * unpinned handler is left to the scheduler.
 */
static int handlers_start(void)
{
	cpu_set_t cpus;
	sigset_t all, old;
	pthread_attr_t attr;
	int n = 0, err = 0;

	if (!sched_getaffinity(0, sizeof(cpus), &cpus))
		n = CPU_COUNT(&cpus);
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	/* the handlers inherit a full mask: no signal of the program lands on them */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (n < 2 || n > MAX_PINNED) {
		if (!(err = pthread_create(&F.threads[0], &attr, handler, (void *)(intptr_t)-1)))
			F.nthreads = 1;
	} else {
		for (int c = 0; c < CPU_SETSIZE && F.nthreads < n && !err; c++)
			if (CPU_ISSET(c, &cpus) &&
			    !(err = pthread_create(&F.threads[F.nthreads], &attr, handler, (void *)(intptr_t)c)))
				F.nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	for (int i = 0; i < F.nthreads; i++)
		pthread_setname_np(F.threads[i], "tiermem-fault");
	/* short of threads, those running serve every CPU, only not locally */
	return F.nthreads ? 0 : -err;
}

static void close_all(void)
{
	if (F.fd >= 0)
		close(F.fd);
	if (F.wake >= 0)
		close(F.wake);
	F.fd = F.wake = -1;
	tid_fds_close();
}

/* Lock held. */
static int start_locked(char *why, size_t whylen)
{
	size_t len = (STASH_SLOTS + 1) * BLOCK;
	uint64_t got, ioctls = 0;
	uintptr_t a;
	void *p;
	int err;

	F.fd = tlrt_uffd_open(UFFD_FEATURE_THREAD_ID | UFFD_FEATURE_MOVE, UFFD_FEATURE_EXACT_ADDRESS,
			      &got, why, whylen);
	if (F.fd < 0) {
		err = F.fd;
		F.fd = -1;
		return err;
	}
	tid_fds_close();
	if ((p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)) == MAP_FAILED) {
		err = -errno;
		tlrt_fmt_str(why, whylen, 0, "cannot reserve the stash");
		goto fail;
	}
	a = ((uintptr_t)p + BLOCK - 1) & ~(BLOCK - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	munmap((void *)(a + STASH_SLOTS * BLOCK), (uintptr_t)p + len - a - STASH_SLOTS * BLOCK);
	F.stash = a;
	if ((err = stash_renew(a, STASH_SLOTS * BLOCK, &ioctls)) ||
	    !(ioctls & (1ULL << _UFFDIO_MOVE))) {
		tlrt_fmt_str(why, whylen, 0, err ? "userfaultfd: cannot register the stash"
					       : "userfaultfd: UFFDIO_MOVE not allowed on anonymous memory");
		err = err ? err : -ENOTSUP;
		goto unmap;
	}
	F.stash_next = 0;
	memset(F.armed, 0, sizeof(F.armed));
	F.narmed = 0;
	F.paused = 0;
	if ((F.wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		err = -errno;
		tlrt_fmt_str(why, whylen, 0, "eventfd failed");
		goto unmap;
	}
	atomic_store(&F.stopping, 0);
	if ((err = handlers_start())) {
		tlrt_fmt_str(why, whylen, 0, "cannot start the fault handler thread");
		goto unmap;
	}
	return 0;
unmap:
	munmap((void *)F.stash, STASH_SLOTS * BLOCK);
	F.stash = 0;
fail:
	close_all();
	return err;
}

static int fault_start(const struct rt_sampler_env *env, char *why, size_t whylen)
{
	int saved = errno, err = 0;

	pthread_mutex_lock(&F.lock);
	F.env = env;
	F.restart = 0;
	if (F.fd < 0)
		err = start_locked(why, whylen);
	pthread_mutex_unlock(&F.lock);
	errno = saved;
	return err;
}

static void fault_tick(void)
{
	struct rt_block b;
	int saved = errno;

	pthread_mutex_lock(&F.lock);
	if (F.restart) {
		char why[128];

		F.restart = 0;
		start_locked(why, sizeof(why));
	}
	if (F.fd < 0 || F.paused)
		goto out;
	if (F.narmed == NARMED) {
		struct armed *old = NULL;

		for (unsigned i = 0; i < NARMED; i++)
			if (F.armed[i].addr && (!old || F.armed[i].seq < old->seq))
				old = &F.armed[i];
		restore(old, 1);
		F.c.expired++;
	}
	if (F.env->next_block(&b))
		goto out;
	if (b.addr % BLOCK || b.len != BLOCK) {
		F.c.skipped_other++;
		goto out;
	}
	if (!find(b.addr))
		arm(b.addr);
out:
	pthread_mutex_unlock(&F.lock);
	errno = saved;
}

static void fault_release_range(uintptr_t addr, size_t len)
{
	int saved = errno;

	pthread_mutex_lock(&F.lock);
	if (F.fd >= 0)
		for (unsigned i = 0; i < NARMED; i++)
			if (F.armed[i].addr && F.armed[i].addr < addr + len && addr < F.armed[i].addr + BLOCK) {
				restore(&F.armed[i], 1);
				F.c.expired++;
			}
	pthread_mutex_unlock(&F.lock);
	errno = saved;
}

static void fault_stop(void)
{
	int saved = errno;

	pthread_mutex_lock(&F.lock);
	F.restart = 0;
	if (F.fd < 0) {
		pthread_mutex_unlock(&F.lock);
		return;
	}
	restore_all();
	atomic_store(&F.stopping, 1);
	pthread_mutex_unlock(&F.lock);
	handlers_join();
	pthread_mutex_lock(&F.lock);
	munmap((void *)F.stash, STASH_SLOTS * BLOCK);
	F.stash = 0;
	close_all();
	pthread_mutex_unlock(&F.lock);
	errno = saved;
}

static void fault_atfork_prepare(void)
{
	int saved = errno;

	/* the child must get complete memory: nothing may sit in the (unforked) stash */
	pthread_mutex_lock(&F.lock);
	if (F.fd >= 0)
		restore_all();
	F.paused = 1;
	pthread_mutex_unlock(&F.lock);
	errno = saved;
}

static void fault_atfork_parent(void)
{
	pthread_mutex_lock(&F.lock);
	F.paused = 0;
	pthread_mutex_unlock(&F.lock);
}

static void fault_atfork_child(void)
{
	int was_on = F.fd >= 0;

	/*
	 * The fd still names the parent's address space and the handler
	 * thread does not exist here: drop both, start afresh at the next
	 * tick (the stash was MADV_DONTFORK, so it is not here either).
	 */
	pthread_mutex_init(&F.lock, NULL);
	close_all();
	F.nthreads = 0;
	F.stash = 0;
	F.narmed = 0;
	memset(F.armed, 0, sizeof(F.armed));
	F.paused = 0;
	F.restart = was_on;
	memset(&F.c, 0, sizeof(F.c));
}

void tlrt_sampler_fault_counts(struct tlrt_fault_counts *out)
{
	pthread_mutex_lock(&F.lock);
	*out = F.c;
	pthread_mutex_unlock(&F.lock);
}

const struct rt_sampler_ops rt_sampler_fault = {
	.name = "fault",
	.start = fault_start,
	.tick = fault_tick,
	.release_range = fault_release_range,
	.stop = fault_stop,
	.atfork_prepare = fault_atfork_prepare,
	.atfork_parent = fault_atfork_parent,
	.atfork_child = fault_atfork_child,
};
