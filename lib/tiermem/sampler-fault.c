/*
 * The `fault` sampler: each tick makes all managed memory fault on its
 * next access; the first access after the tick, from any thread, in user
 * mode or inside a system call, is the sample (address, PC, thread, time),
 * and everything is put back at once. This is what SHAMBLES does by
 * clearing the one page-directory entry over its sampled range, and it is
 * what makes the samples follow the program's accesses: a block is
 * sampled in proportion to how often it is accessed, and the position
 * within a block is wherever the program was (docs/samplers.md measures
 * both against programs whose access distribution is known).
 *
 * Mechanism (userfaultfd, no signals, no kernel patch). All managed memory
 * is one read-write VMA whose start and length are whole GiBs (region.c).
 * Arming registers it for MISSING faults and moves its page tables out to
 * a stash reservation with mremap(MREMAP_DONTUNMAP): the kernel moves
 * whole page-upper-directory entries, one per GiB, with one TLB flush
 * each, whatever is mapped below them (THPs or 4 KiB pages), so arming
 * costs the same for 1 GiB as for 2 MiB, and every page goes at once.
 * The range left behind is the same VMA, empty and registered: the next
 * access blocks in the kernel - never EFAULT, never a signal - until a
 * handler thread has read the event, read the faulting thread's PC from
 * /proc/self/task/TID/syscall ("-1 SP PC" in a page fault, a syscall
 * number when a system call touched the memory), and moved the page
 * tables back with a second mremap, which wakes every waiting thread.
 *
 * Two kernel rules shape the order of those calls. mremap moves whole
 * page-table entries out of a userfaultfd-registered VMA only when the
 * userfaultfd asked for UFFD_FEATURE_EVENT_REMAP (Linux 6.13 and later
 * move it entry by entry otherwise, a TLB flush per 2 MiB); with it, the
 * mremap waits until a handler has read the REMAP event, so the ticking
 * thread never holds the sampler's lock across the move (state ARMING).
 * The moved-out VMA carries the registration to the stash; it is
 * unregistered there at once, so the move back is an event-free move of
 * an unregistered VMA that any single handler can do alone. The memory
 * comes back unregistered: nothing faults into us between samples, unless
 * the core asked us to watch it (watch()), when it is registered again
 * and a first touch between samples goes to env->first_touch.
 *
 * Descriptors. The program owns its descriptor table and may close any
 * number (a daemon closes 3 and up after its first large allocation, then
 * takes the lowest numbers for its own pipe). The handlers therefore wait
 * in a descriptor table of their own (unshare(CLONE_FILES)) that holds
 * only the userfaultfd and the wake pipe's read end: whatever the program
 * closes, they still read faults and put memory back, and they never
 * touch a descriptor of the program's. What threads of the program's
 * table use (the ticking thread's ioctls, the wake pipe's write end, the
 * /proc files it rereads) is moved high and checked before each use
 * (keepfd.h); once the program has closed the userfaultfd there, arming
 * stops (said once on stderr), and what is armed is put back by a handler.
 */
#include "tiermem/keepfd.h"
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
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

#define GIB (1UL << 30)
#define STASH_MIN (64UL << 30)	/* address space only; doubled when the span outgrows it */
#define NTIDFD 16
/*
 * One handler thread per CPU of the process's mask, pinned there, when the
 * mask is this small; one unpinned handler otherwise. See handlers_start().
 */
#define MAX_PINNED 8
/*
 * How long an arming waits for the thread of the last sample to make the
 * access that sample stopped (see sampled_thread_ran()): a thread stopped
 * by a signal or a debugger after its wake-up would otherwise hold
 * sampling for as long as it stays stopped.
 */
#define RETRY_GIVE_UP_NS 50000000ULL
/* Without schedstat (CONFIG_SCHED_INFO off) a wake-up is taken as made good after this. */
#define RETRY_GRACE_NS 1000000ULL
/* Handlers look at `stopping` and `restore_asked` at least this often, should the wake pipe be gone. */
#define WAKE_MS 100

enum arm_state {
	IDLE,		/* nothing armed; the memory is where the program left it */
	ARMING,		/* the ticking thread is moving it out, without the lock */
	ARMED,		/* moved out: the next access is the sample */
};

/* An open /proc/self/task/TID file. */
struct tid_fd {
	pid_t tid;
	int fd;
	struct tlrt_fdid id;
};

/*
 * The /proc files open in one descriptor table: the program's (0, for the
 * ticking thread and the program's threads) or a handler's own (1 + its
 * index). A number means something only in its table.
 */
struct fdcache {
	struct tid_fd sys[NTIDFD];	/* TID/syscall, for the PC */
	unsigned next;
	struct tid_fd sched;		/* TID/schedstat of the last sampled thread */
};

/* Which table this thread's descriptors live in (see struct fdcache). */
static __thread int my_table __attribute__((tls_model("initial-exec")));

static struct {
	const struct rt_sampler_env *env;
	pthread_mutex_t lock;
	pthread_cond_t settled;	/* signalled when ARMING ends */
	int fd;			/* the userfaultfd; -1 when off */
	struct tlrt_fdid fd_id;
	int wake_rd, wake_wr;	/* a pipe to wake the handlers; its read end is in their tables only */
	struct tlrt_fdid wake_id;
	int lost;		/* the program closed (or reused) F.fd in its table: no more arming */
	int said_lost;
	int restore_asked;	/* a thread of the program's table needs the armed memory back */
	pthread_cond_t ready;	/* signalled as each handler has its own table (or could not) */
	int handlers_up, handlers_own;
	pthread_t threads[MAX_PINNED];
	int nthreads;		/* handler threads running */
	_Atomic int stopping;
	uintptr_t stash;	/* 1 GiB-aligned reservation the memory moves to */
	size_t stash_len;
	enum arm_state state;
	struct rt_block armed;	/* the span while ARMING or ARMED */
	struct rt_block watch;	/* registered between samples: first touches go to env->first_touch */
	int can_move;		/* UFFDIO_MOVE (Linux 6.8), which first touches need */
	int have_pending;	/* a fault came while ARMING: the sample, once ARMED */
	struct uffd_msg pending;
	/*
	 * The thread the last sample stopped, until it has run again (and so
	 * made the access): its tid, its schedstat file, how often it had
	 * been scheduled in when the sample was taken, and when.
	 */
	struct {
		pid_t tid;
		int waiting;
		uint64_t runs, t_ns;
	} last;
	int schedstat;		/* /proc/self/task/TID/schedstat counts switches in (CONFIG_SCHED_INFO) */
	int paused;		/* between fork prepare and parent */
	int restart;		/* forked child: start afresh at the next tick */
	int said;		/* the span could not be armed: said once */
	struct fdcache caches[1 + MAX_PINNED];
	struct tlrt_fault_counts c;
} F = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.settled = PTHREAD_COND_INITIALIZER,
	.ready = PTHREAD_COND_INITIALIZER,
	.fd = -1,
	.wake_rd = -1,
	.wake_wr = -1,
};

/*
 * The slowest way back, should moving refuse: copy each present stash
 * page into the registered range, then drop the stash pages. Holes stay
 * holes.
 */
static void copy_back(uintptr_t dst, uintptr_t src, size_t len)
{
	static unsigned char vec[512];
	size_t pg = 4096, n = len / pg, i = 0;

	while (i < n) {
		if (i % 512 == 0 && mincore((void *)(src + i * pg), (n - i < 512 ? n - i : 512) * pg, vec))
			memset(vec, 1, sizeof(vec));
		size_t j = i;
		struct uffdio_copy cp;

		if (!(vec[i % 512] & 1)) {
			i++;
			continue;
		}
		while (j < n && j / 512 == i / 512 && (vec[j % 512] & 1))
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

/*
 * Lock held. The open /proc/self/task/TID/<leaf> of this thread's table
 * in *e, opened afresh when e holds another thread's, when asked
 * (`fresh`), or when the number is no longer ours (the program closed it).
 */
static int task_file(struct tid_fd *e, pid_t tid, const char *leaf, int fresh)
{
	char path[64];
	size_t at;

	if (!fresh && e->tid == tid && e->fd >= 0 && tlrt_fd_is(e->fd, &e->id))
		return e->fd;
	tlrt_fd_drop(&e->fd, &e->id);
	at = tlrt_fmt_str(path, sizeof(path), 0, "/proc/self/task/");
	at = tlrt_fmt_ulong(path, sizeof(path), at, (unsigned long)tid);
	tlrt_fmt_str(path, sizeof(path), at, leaf);
	e->tid = tid;
	e->fd = tlrt_fd_keep(open(path, O_RDONLY | O_CLOEXEC), &e->id);
	return e->fd;
}

static int tid_fd(pid_t tid, int fresh)
{
	struct fdcache *c = &F.caches[my_table];
	unsigned i;

	for (i = 0; i < NTIDFD; i++)
		if (c->sys[i].tid == tid && c->sys[i].fd >= 0)
			break;
	if (i == NTIDFD) {
		i = c->next;
		c->next = (i + 1) % NTIDFD;
	}
	return task_file(&c->sys[i], tid, "/syscall", fresh);
}

/*
 * Lock held. Closes a table's files: the program's (checked: a number the
 * program took over stays its own), or only forgets those of a handler's
 * table, which went with the handler.
 */
static void cache_reset(struct fdcache *c, int close_them)
{
	for (unsigned i = 0; i < NTIDFD; i++) {
		if (close_them)
			tlrt_fd_drop(&c->sys[i].fd, &c->sys[i].id);
		c->sys[i] = (struct tid_fd){ .tid = 0, .fd = -1 };
	}
	if (close_them)
		tlrt_fd_drop(&c->sched.fd, &c->sched.id);
	c->sched = (struct tid_fd){ .tid = 0, .fd = -1 };
	c->next = 0;
}

static void tid_fds_close(void)
{
	cache_reset(&F.caches[0], 1);
	F.last.tid = 0;
	F.last.waiting = 0;
}

/*
 * The blocked thread's PC. In a page fault the file reads "-1 SP PC"; in
 * a system call "NR ARG1..ARG6 SP PC" (the access came from the kernel on
 * the program's behalf); "running" when it is not blocked any more. 1 when
 * the file said the thread is off its CPU (the kernel waits for that
 * before it answers), 0 otherwise.
 */
static int read_pc(pid_t tid, struct rt_sample *s)
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
		return 0;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	p = strrchr(buf, ' ');
	if (!p || p[1] != '0' || p[2] != 'x')
		return 1;
	for (p += 3; *p; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;

		if (d < 0)
			return 1;
		pc = pc << 4 | (uintptr_t)d;
	}
	s->pc = pc;
	if (buf[0] != '-')
		s->flags |= RT_SAMPLE_KERNEL;
	return 1;
}

/*
 * How many times the thread has been scheduled in (the third field of
 * its schedstat file, which the kernel counts at every switch in), or -1
 * when the thread is gone. The file of the last sampled thread stays open.
 */
static int64_t sched_runs(pid_t tid)
{
	char buf[96], *p;
	ssize_t n;
	int field = 0, fd;
	uint64_t v = 0;

	fd = task_file(&F.caches[my_table].sched, tid, "/schedstat", 0);
	if (fd < 0 || (n = pread(fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return -1;
	buf[n] = '\0';
	for (p = buf; *p && field < 2; p++)
		field += *p == ' ';
	for (; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return (int64_t)v;
}

/*
 * Lock held. Whether the thread the last sample stopped has run since it
 * was woken: the first thing it does then is the access that faulted, so
 * until it has, an arming would stop that same access again and sample it
 * twice (one access event, two samples). A thread scheduled in has made
 * it: its fault is retried in the kernel before it returns to its code.
 */
static int sampled_thread_ran(uint64_t now)
{
	int64_t runs;

	if (!F.last.waiting)
		return 1;
	if (F.schedstat) {
		runs = sched_runs(F.last.tid);
		if (runs < 0 || (uint64_t)runs > F.last.runs)
			goto ran;
	} else if (now - F.last.t_ns >= RETRY_GRACE_NS) {
		goto ran;
	}
	if (now - F.last.t_ns < RETRY_GIVE_UP_NS)
		return 0;
	F.c.gave_up++;
ran:
	F.last.waiting = 0;
	return 1;
}


/* Wakes every thread waiting on a fault in [addr, addr + len). */
static void wake_range(int fd, uintptr_t addr, size_t len)
{
	struct uffdio_range r = { .start = addr & ~4095UL, .len = (len + 4095) & ~4095UL };

	ioctl(fd, UFFDIO_WAKE, &r);
}

static int move_vma(uintptr_t to, uintptr_t from, size_t len)
{
	void *p = mremap((void *)from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, (void *)to);

	return p == MAP_FAILED ? -errno : 0;
}

/* One line on stderr, in the program's table (a handler's has no stderr). */
static void say(const char *what, const char *detail)
{
	char line[256];
	size_t at;

	at = tlrt_fmt_str(line, sizeof(line), 0, "tiermem: fault sampler: ");
	at = tlrt_fmt_str(line, sizeof(line), at, what);
	at = tlrt_fmt_str(line, sizeof(line), at, detail);
	at = tlrt_fmt_str(line, sizeof(line), at, "\n");
	if (write(STDERR_FILENO, line, at) < 0) {
		/* nowhere to say it */
	}
}

/*
 * Lock held. Whether this thread may use F.fd: a handler always (its own
 * table holds the userfaultfd); a thread of the program's table only while
 * the number still names it there. Once the program has closed it (or
 * reused the number), never again: arming stops, said once.
 */
static int fd_usable(void)
{
	char num[24];

	if (my_table)
		return 1;
	if (F.fd < 0 || F.lost)
		return 0;
	if (tlrt_fd_is(F.fd, &F.fd_id))
		return 1;
	F.lost = 1;
	F.c.fd_lost++;
	if (!F.said_lost++) {
		tlrt_fmt_ulong(num, sizeof(num), 0, (unsigned long)F.fd);
		say("the program closed its userfaultfd (or reused the number) and sampling stops: descriptor ", num);
	}
	return 0;
}

/* Wakes the handlers, through the pipe while its write end is still ours; else their WAKE_MS timeout will. */
static void kick(void)
{
	char one = 1;

	if (F.wake_wr >= 0 && tlrt_fd_is(F.wake_wr, &F.wake_id) && write(F.wake_wr, &one, 1) < 0) {
		/* a full pipe wakes them just as well */
	}
}

/*
 * The memory back where the program has it. Lock held, state ARMED. The
 * move leaves an empty VMA behind in the stash, so the reservation stays
 * ours. Should the kernel refuse (it has no reason to), the pages go back
 * one by one into the still-registered range: nothing is ever lost.
 */
static void restore(void)
{
	struct rt_block b = F.armed;
	size_t moved;

	/*
	 * The stash took the arena's registration with it; unregistered, the
	 * move back raises no event and needs no other handler. Done here, not
	 * at the arming: then it waited for the mmap lock while the first
	 * access's fault was still allocating (and zeroing) a 2 MiB page it
	 * drops before it reaches us, 80 us a tick with two GiB or more.
	 */
	if (tlrt_uffd_unregister(F.fd, F.stash, b.len) || move_vma(b.addr, F.stash, b.len)) {
		F.c.fallback++;
		if (tlrt_uffd_move(F.fd, b.addr, F.stash, b.len, 0, &moved))
			copy_back(b.addr + moved, F.stash + moved, b.len - moved);
		if (!F.watch.len)
			tlrt_uffd_unregister(F.fd, b.addr, b.len);
	} else if (F.watch.len) {
		/* the memory came back unregistered; a first touch before this line is the kernel's to place */
		tlrt_uffd_register(F.fd, F.watch.addr, F.watch.len, UFFDIO_REGISTER_MODE_MISSING, NULL);
	}
	F.state = IDLE;
}

/*
 * Lock held. Waits out an arming in progress; 1 if the memory was armed
 * and is now back, for the caller to wake whoever waits on it. A thread
 * whose table lost the userfaultfd has a handler put it back and wake
 * them (0).
 */
static int disarm(void)
{
	while (F.state == ARMING)
		pthread_cond_wait(&F.settled, &F.lock);
	if (F.state != ARMED)
		return 0;
	if (!fd_usable()) {
		F.restore_asked = 1;
		kick();
		while (F.state == ARMED && F.nthreads)
			pthread_cond_wait(&F.settled, &F.lock);
		return 0;
	}
	restore();
	F.c.expired++;
	return 1;
}

/* A stash at least len long, 1 GiB-aligned as page-upper-directory moves need. Lock held. */
static int stash_fit(size_t len)
{
	size_t want = F.stash_len ? F.stash_len : STASH_MIN;
	uintptr_t a;

	if (len <= F.stash_len)
		return 0;
	while (want < len)
		want *= 2;
	if (!(a = tlrt_map_aligned(want, GIB, PROT_NONE)))
		return -errno;
	if (F.stash)
		munmap((void *)F.stash, F.stash_len);
	F.stash = a;
	F.stash_len = want;
	return 0;
}

/*
 * The sample: the faulting thread is still blocked. Lock held on entry,
 * released on return; the thread is woken last, with nothing of ours held.
 */
static void take_sample(const struct uffd_msg *m, uint32_t flags)
{
	struct rt_sample s = {
		.t_ns = rt_now_ns(),
		.addr = (uintptr_t)m->arg.pagefault.address,
		.tid = (pid_t)m->arg.pagefault.feat.ptid,
	};
	struct rt_block b = F.armed;
	int fd = F.fd;
	int64_t runs;

	s.flags = flags;
	if (m->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE)
		s.flags |= RT_SAMPLE_WRITE;
	/*
	 * While the thread is still blocked: once woken, the file says
	 * "running". Off its CPU, its count of runs holds until it is woken.
	 */
	F.last.waiting = 0;
	if (read_pc(s.tid, &s) && s.tid && (runs = F.schedstat ? sched_runs(s.tid) : 0) >= 0) {
		F.last.tid = s.tid;
		F.last.runs = (uint64_t)runs;
		F.last.t_ns = s.t_ns;
		F.last.waiting = 1;
	}
	restore();
	F.c.samples++;
	if (s.flags & RT_SAMPLE_KERNEL)
		F.c.kernel++;
	pthread_mutex_unlock(&F.lock);
	F.env->deliver(&s);
	wake_range(fd, b.addr, b.len);
}

static void on_fault(const struct uffd_msg *m)
{
	uintptr_t a = (uintptr_t)m->arg.pagefault.address;

	pthread_mutex_lock(&F.lock);
	if (F.fd >= 0 && F.state != IDLE && a - F.armed.addr < F.armed.len) {
		if (F.state == ARMED) {
			take_sample(m, 0);
			return;
		}
		/* still moving out: the first such fault is the sample once the move is done */
		if (!F.have_pending) {
			F.pending = *m;
			F.have_pending = 1;
		} else {
			F.c.stray++;
		}
		pthread_mutex_unlock(&F.lock);
		return;
	}
	if (F.fd >= 0 && F.watch.len && a - F.watch.addr < F.watch.len) {
		/* a first touch (or a later thread of a sample, whose page may be missing too) */
		F.env->first_touch(F.fd, a);
		F.c.first_touch++;
		pthread_mutex_unlock(&F.lock);
		/* other threads waiting in the pages just placed have their own events: each wakes its own */
		wake_range(F.fd, a, 4096);
		return;
	}
	/* a later thread of the same tick, read after the memory went back: it only needs waking */
	F.c.stray++;
	if (F.fd >= 0)
		wake_range(F.fd, a, 4096);
	pthread_mutex_unlock(&F.lock);
}

/*
 * In a handler's own table: everything closed but the userfaultfd and the
 * wake pipe's read end, so that it holds no file of the program's open
 * (a pipe the program closes must reach its end of file).
 */
static int own_table(void)
{
	unsigned a = (unsigned)(F.fd < F.wake_rd ? F.fd : F.wake_rd);
	unsigned b = (unsigned)(F.fd < F.wake_rd ? F.wake_rd : F.fd);

	if (unshare(CLONE_FILES))
		return 0;
	if ((a > 0 && close_range(0, a - 1, 0)) || (b > a + 1 && close_range(a + 1, b - 1, 0)) ||
	    close_range(b + 1, ~0U, 0))
		return 0;
	return 1;
}

/* Lock held, in a handler. A thread of the program's table lost the userfaultfd there and needs the memory back. */
static void restore_for_them(void)
{
	struct rt_block b = F.armed;

	F.restore_asked = 0;
	if (F.state != ARMED)
		return;
	restore();
	F.c.expired++;
	pthread_cond_broadcast(&F.settled);
	pthread_mutex_unlock(&F.lock);
	wake_range(F.fd, b.addr, b.len);
	pthread_mutex_lock(&F.lock);
}

static void *handler(void *arg)
{
	struct uffd_msg msgs[16];
	struct pollfd p[2] = { { .fd = F.fd, .events = POLLIN }, { .fd = F.wake_rd, .events = POLLIN } };
	int cpu = (int)((intptr_t)arg & 0xffff) - 1, table = (int)((intptr_t)arg >> 16), own;

	if (cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		/* refused (a cpuset changed meanwhile): it still works, only not locally */
		sched_setaffinity(0, sizeof(one), &one);
	}
	own = own_table();
	pthread_mutex_lock(&F.lock);
	F.handlers_up++;
	F.handlers_own += own;
	pthread_cond_broadcast(&F.ready);
	pthread_mutex_unlock(&F.lock);
	if (!own)
		return NULL;	/* a handler in the program's table could read the program's descriptors */
	my_table = table;
	while (!atomic_load(&F.stopping)) {
		ssize_t n;
		int r = poll(p, 2, WAKE_MS);
		char drain[64];

		if (atomic_load(&F.stopping))
			break;
		if (r > 0 && (p[1].revents & POLLIN))
			while (read(p[1].fd, drain, sizeof(drain)) > 0)
				;
		pthread_mutex_lock(&F.lock);
		if (F.restore_asked)
			restore_for_them();
		pthread_mutex_unlock(&F.lock);
		if (r <= 0 || !(p[0].revents & POLLIN))
			continue;
		/*
		 * Every handler is woken; those not on the faulting CPU mostly
		 * find nothing. Reading a REMAP event is all it needs: the read
		 * lets the ticking thread's mremap return.
		 */
		if ((n = read(p[0].fd, msgs, sizeof(msgs))) <= 0)
			continue;
		for (size_t i = 0; i < (size_t)n / sizeof(msgs[0]); i++)
			if (msgs[i].event == UFFD_EVENT_PAGEFAULT)
				on_fault(&msgs[i]);
	}
	return NULL;
}

/* Lock held on entry and return (released while joining); `stopping` set. */
static void handlers_join(void)
{
	kick();
	pthread_mutex_unlock(&F.lock);
	for (int i = F.nthreads; i > 0; i--)
		pthread_join(F.threads[i - 1], NULL);
	pthread_mutex_lock(&F.lock);
	F.nthreads = 0;
	/* their tables went with them, and the files in them */
	for (int t = 1; t <= MAX_PINNED; t++)
		cache_reset(&F.caches[t], 0);
}

/*
 * A sample stops the faulting thread until a handler has put the memory
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
	F.handlers_up = F.handlers_own = 0;
	/* arg: its table (1 + index) above 16 bits, its CPU + 1 (0: unpinned) below */
	if (n < 2 || n > MAX_PINNED) {
		if (!(err = pthread_create(&F.threads[0], &attr, handler, (void *)(intptr_t)(1 << 16))))
			F.nthreads = 1;
	} else {
		for (int c = 0; c < CPU_SETSIZE && F.nthreads < n && !err; c++)
			if (CPU_ISSET(c, &cpus) &&
			    !(err = pthread_create(&F.threads[F.nthreads], &attr, handler,
						   (void *)(intptr_t)((F.nthreads + 1) << 16 | (c + 1)))))
				F.nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	for (int i = 0; i < F.nthreads; i++)
		pthread_setname_np(F.threads[i], "tiermem-fault");
	/* each copies the table as it is now: the read end leaves ours only once all have theirs */
	while (F.handlers_up < F.nthreads)
		pthread_cond_wait(&F.ready, &F.lock);
	if (F.wake_rd >= 0)
		close(F.wake_rd);
	if (F.nthreads && !F.handlers_own) {
		atomic_store(&F.stopping, 1);
		handlers_join();
		return -ENOSYS;
	}
	/* short of threads, those running serve every CPU, only not locally */
	return F.nthreads ? 0 : -err;
}

/* Lock held. What is open in the program's table, checked: a number the program took over stays its own. */
static void close_all(void)
{
	tlrt_fd_drop(&F.fd, &F.fd_id);
	tlrt_fd_drop(&F.wake_wr, &F.wake_id);
	F.wake_rd = -1;		/* only the handlers' tables had it */
	tid_fds_close();
}

/* Lock held. */
static int start_locked(char *why, size_t whylen)
{
	uint64_t got;
	int err;

	int p[2];

	F.fd = tlrt_uffd_open(UFFD_FEATURE_THREAD_ID | UFFD_FEATURE_EVENT_REMAP,
			      UFFD_FEATURE_EXACT_ADDRESS | UFFD_FEATURE_MOVE, &got, why, whylen);
	if (F.fd < 0) {
		err = F.fd;
		F.fd = -1;
		return err;
	}
	F.fd = tlrt_fd_keep(F.fd, &F.fd_id);
	F.lost = F.said_lost = F.restore_asked = 0;
	F.can_move = !!(got & UFFD_FEATURE_MOVE);
	tid_fds_close();
	for (int t = 1; t <= MAX_PINNED; t++)
		cache_reset(&F.caches[t], 0);
	/* the calling thread has been scheduled in at least once: a count of 0 means none is kept */
	F.schedstat = sched_runs((pid_t)gettid()) > 0;
	tid_fds_close();
	F.state = IDLE;
	F.have_pending = 0;
	F.paused = 0;
	/* a pipe, not an eventfd: its inode is its own, so a number the program reused is told apart */
	if (F.fd < 0 || pipe2(p, O_CLOEXEC | O_NONBLOCK)) {
		err = -errno;
		tlrt_fmt_str(why, whylen, 0, "cannot make the fault handler's wake pipe");
		goto fail;
	}
	F.wake_rd = tlrt_fd_keep(p[0], &F.wake_id);
	F.wake_wr = tlrt_fd_keep(p[1], &F.wake_id);
	if (F.wake_rd < 0 || F.wake_wr < 0) {
		err = -EBADF;
		tlrt_fmt_str(why, whylen, 0, "cannot make the fault handler's wake pipe");
		goto fail;
	}
	atomic_store(&F.stopping, 0);
	if ((err = handlers_start())) {
		tlrt_fmt_str(why, whylen, 0, err == -ENOSYS ? "unshare(CLONE_FILES) refused: the fault handler "
				     "cannot have a descriptor table of its own" : "cannot start the fault handler thread");
		goto fail;
	}
	return 0;
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

/* Why a span could not be armed, once: a run whose sampler takes no samples must say why. */
static void say_once(const char *what, int err)
{
	char line[200];
	size_t at;

	if (F.said++)
		return;
	at = tlrt_fmt_str(line, sizeof(line), 0, what);
	at = tlrt_fmt_str(line, sizeof(line), at, ": ");
	tlrt_fmt_str(line, sizeof(line), at, strerror(-err));
	say(line, "");
}

/*
 * Arms the whole span. The move out runs without the lock: it waits for a
 * handler to read its REMAP event, and a handler may need the lock for a
 * fault meanwhile (it then leaves the fault pending, see on_fault()).
 */
static int fault_tick(void)
{
	struct rt_block b;
	int saved = errno, err;

	pthread_mutex_lock(&F.lock);
	if (F.restart) {
		char why[128];

		F.restart = 0;
		/* a child inherits no registration: watch its arena again */
		if (!start_locked(why, sizeof(why)) && F.watch.len &&
		    tlrt_uffd_register(F.fd, F.watch.addr, F.watch.len, UFFDIO_REGISTER_MODE_MISSING, NULL))
			F.watch.len = 0;
	}
	/* still armed from an earlier tick: the program has not touched its memory since */
	if (F.fd < 0 || F.paused || F.state != IDLE || atomic_load(&F.stopping) || !fd_usable())
		goto out;
	if (!sampled_thread_ran(rt_now_ns())) {
		F.c.not_yet++;
		pthread_mutex_unlock(&F.lock);
		errno = saved;
		return RT_TICK_NOT_YET;
	}
	if (F.env->span(&b))
		goto out;
	if (b.addr % GIB || b.len % GIB || !b.len || (err = stash_fit(b.len))) {
		F.c.skipped_other++;
		goto out;
	}
	if ((err = tlrt_uffd_register(F.fd, b.addr, b.len, UFFDIO_REGISTER_MODE_MISSING, NULL))) {
		F.c.skipped_other++;
		say_once("cannot register managed memory", err);
		goto out;
	}
	F.state = ARMING;
	F.armed = b;
	F.have_pending = 0;
	pthread_mutex_unlock(&F.lock);

	err = move_vma(F.stash, b.addr, b.len);

	pthread_mutex_lock(&F.lock);
	if (err) {
		/* EFAULT: the program split managed memory into several mappings (mprotect, mlock) */
		F.state = IDLE;
		if (!F.watch.len)
			tlrt_uffd_unregister(F.fd, b.addr, b.len);
		F.c.skipped_other++;
		say_once("cannot move managed memory out (it is no longer one mapping)", err);
		pthread_cond_broadcast(&F.settled);
		pthread_mutex_unlock(&F.lock);
		wake_range(F.fd, b.addr, b.len);
		errno = saved;
		return 0;
	}
	F.state = ARMED;
	F.c.armed++;
	pthread_cond_broadcast(&F.settled);
	if (F.have_pending) {
		F.have_pending = 0;
		if (fd_usable()) {
			take_sample(&F.pending, RT_SAMPLE_ARMING);
			errno = saved;
			return 0;
		}
		/* lost meanwhile: a handler puts the memory back and wakes the thread */
		F.restore_asked = 1;
		kick();
	}
out:
	pthread_mutex_unlock(&F.lock);
	errno = saved;
	return 0;
}

static void fault_release_range(uintptr_t addr, size_t len)
{
	int saved = errno, woke = 0, fd;
	struct rt_block b;

	pthread_mutex_lock(&F.lock);
	b = F.armed;
	fd = F.fd;
	if (fd >= 0 && F.state != IDLE && addr < b.addr + b.len && b.addr < addr + len)
		woke = disarm();
	pthread_mutex_unlock(&F.lock);
	if (woke)
		wake_range(fd, b.addr, b.len);
	errno = saved;
}

static void fault_stop(void)
{
	int saved = errno;
	struct rt_block b;

	pthread_mutex_lock(&F.lock);
	F.restart = 0;
	if (F.fd < 0) {
		pthread_mutex_unlock(&F.lock);
		return;
	}
	b = F.armed;
	if (disarm())
		wake_range(F.fd, b.addr, b.len);
	/* lost: the registration goes with the userfaultfd, when the handlers' tables close it */
	if (F.watch.len && fd_usable())
		tlrt_uffd_unregister(F.fd, F.watch.addr, F.watch.len);
	F.watch.len = 0;
	atomic_store(&F.stopping, 1);
	handlers_join();
	if (F.stash)
		munmap((void *)F.stash, F.stash_len);
	F.stash = 0;
	F.stash_len = 0;
	close_all();
	pthread_mutex_unlock(&F.lock);
	errno = saved;
}

static void fault_atfork_prepare(void)
{
	int saved = errno;
	struct rt_block b;

	/* the child must get complete memory: nothing may sit in the stash */
	pthread_mutex_lock(&F.lock);
	b = F.armed;
	if (F.fd >= 0 && disarm())
		wake_range(F.fd, b.addr, b.len);
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
	 * threads do not exist here: drop both, start afresh at the next
	 * tick. The stash reservation was inherited and stays ours.
	 */
	pthread_mutex_init(&F.lock, NULL);
	pthread_cond_init(&F.settled, NULL);
	pthread_cond_init(&F.ready, NULL);
	close_all();
	for (int t = 1; t <= MAX_PINNED; t++)
		cache_reset(&F.caches[t], 0);	/* the handlers' tables are not the child's */
	F.nthreads = 0;
	F.state = IDLE;
	F.have_pending = 0;
	F.paused = 0;
	F.restart = was_on;
	memset(&F.c, 0, sizeof(F.c));
}

/* The core's whole arena (one mapping), after it grew; nothing is armed (the core released it). */
static int fault_watch(uintptr_t addr, size_t len)
{
	int err = -1;

	pthread_mutex_lock(&F.lock);
	if (F.fd >= 0 && fd_usable() && F.env->first_touch && F.can_move && F.state == IDLE &&
	    !(err = tlrt_uffd_register(F.fd, addr, len, UFFDIO_REGISTER_MODE_MISSING, NULL))) {
		F.watch = (struct rt_block){ addr, len };
	} else if (F.fd >= 0 && F.watch.len && fd_usable()) {
		/* watching only part of a grown arena would split it at the next restore: watch none */
		tlrt_uffd_unregister(F.fd, addr, len);
		F.watch.len = 0;
	}
	pthread_mutex_unlock(&F.lock);
	return err;
}

void tlrt_sampler_fault_counts(struct tlrt_fault_counts *out)
{
	pthread_mutex_lock(&F.lock);
	*out = F.c;
	pthread_mutex_unlock(&F.lock);
}

static size_t fault_counts(struct rt_sampler_count *out, size_t max)
{
	struct tlrt_fault_counts c;

	tlrt_sampler_fault_counts(&c);
	const struct rt_sampler_count all[] = {
		RT_SAMPLER_COUNT(c, armed), RT_SAMPLER_COUNT(c, samples), RT_SAMPLER_COUNT(c, kernel),
		RT_SAMPLER_COUNT(c, expired), RT_SAMPLER_COUNT(c, skipped_other), RT_SAMPLER_COUNT(c, fallback),
		RT_SAMPLER_COUNT(c, stray), RT_SAMPLER_COUNT(c, first_touch), RT_SAMPLER_COUNT(c, not_yet),
		RT_SAMPLER_COUNT(c, gave_up), RT_SAMPLER_COUNT(c, fd_lost),
	};
	return rt_sampler_counts_copy(out, max, all, sizeof(all) / sizeof(all[0]));
}

/* armed, all managed memory is one mapping: chunks are placed at first touch */
static const struct rt_sampler_placement fault_placement = {
	.watch = fault_watch,
};

const struct rt_sampler_ops rt_sampler_fault = {
	.name = "fault",
	.placement = &fault_placement,
	.start = fault_start,
	.tick = fault_tick,
	.release_range = fault_release_range,
	.counts = fault_counts,
	.stop = fault_stop,
	.atfork_prepare = fault_atfork_prepare,
	.atfork_parent = fault_atfork_parent,
	.atfork_child = fault_atfork_child,
};
