/*
 * The `perf` sampler: the PMU's precise memory-access samples, read from
 * perf_event ring buffers. Each record is one data access the hardware
 * picked out (on Intel a load of 128 cycles or more, PEBS load latency;
 * on AMD an IBS op, one that missed the L3 where IBS can tell; on Arm an
 * SPE load or store; perf-pmu.c chooses), with its data address, PC,
 * thread and a CLOCK_MONOTONIC time (use_clockid). The hardware samples
 * every Nth qualifying access, so where records land is proportional to
 * where such accesses happen, and nothing in the program faults, waits or
 * changes: the PMU interrupt is the whole cost.
 *
 * Threads. An event follows one task, and a per-task event that inherits
 * cannot be mmap'ed (perf_mmap refuses cpu == -1 with inherit: every
 * descendant would write into one buffer from every CPU). So, as `perf
 * record -p` does, each thread gets one event per CPU of the PMU (pid =
 * tid, cpu = c), with inherit and inherit_thread (Linux 5.13): every
 * thread a sampled thread creates later gets copies in the kernel, at
 * clone(), before it runs an instruction, and their records go to the
 * same per-CPU buffer (the first event on each CPU owns it, the others
 * write there through PERF_EVENT_IOC_SET_OUTPUT); inherit_thread keeps
 * fork()ed children out. The threads are listed from /proc/self/task at
 * the first tick, by the runtime thread (the caller, left out: it never
 * touches managed memory), and listed again until no new one appears, so
 * a thread created during the listing is not missed (one created by a
 * thread already opened is then sampled twice: inherited, and opened;
 * both need a thread born in the milliseconds this takes). Rejected: one
 * non-inherited event per thread with a periodic rescan, which misses
 * each new thread until the next rescan and short-lived ones entirely,
 * and needs a buffer per thread. The price: (threads at the first tick)
 * x (CPUs) file descriptors, and one buffer per CPU.
 *
 * Each tick drains every buffer (data_head read with acquire, data_tail
 * written with release; records across the end of the ring; LOST and
 * THROTTLE counted; unknown types skipped by size) and draws one record
 * uniformly among those in the managed span since the last tick
 * (perf-draw.h): that is the tick's sample. SPE writes packets to an AUX
 * area, announced by PERF_RECORD_AUX records and decoded by perf-spe.c.
 *
 * fork(): the child closes its copies of the descriptors (the buffers'
 * mappings are VM_DONTCOPY: the child has none) and starts afresh at its
 * next tick. exec(): the descriptors are close-on-exec, which removes the
 * events. release_range() has nothing to do: nothing is armed.
 */
#include "tiermem/rt-sampler.h"
#include "tiermem/perf-draw.h"
#include "tiermem/perf-pmu.h"
#include "tiermem/perf-ring.h"
#include "tiermem/perf-spe.h"
#include "tiermem/sampler-perf.h"
#include "tiermem/sampler-uffd.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC)
#define DATA_PAGES 16		/* per CPU: 64 KiB, about 1300 records */
#define AUX_PAGES 64		/* per CPU, SPE only: 256 KiB of packets */
#define SCAN_ROUNDS 8
/* frequency mode: about this many records per tick and thread, within perf's usual range */
#define RECORDS_PER_TICK 16
#define FREQ_MIN 1000
#define FREQ_MAX 4000

int tlrt_perf_test_page_faults;

struct ring {
	int fd;			/* the event whose buffer this is, -1 when none yet */
	struct perf_event_mmap_page *pg;
	size_t len;
	uint8_t *aux;
	size_t aux_len;
};

static struct {
	const struct rt_sampler_env *env;
	pthread_mutex_t lock;
	struct tlrt_perf_pmu pmu;
	struct perf_event_attr attr;
	struct tlrt_perf_layout layout;
	int ncpus;
	int *cpus;
	struct ring *rings;	/* one per entry of cpus */
	int *fds;		/* every event open, ring owners included */
	size_t nfds, capfds;
	pid_t *tids;		/* threads listed so far */
	size_t ntids, captids;
	pid_t pid;
	int started;		/* start() succeeded: the attr works here */
	int opened;		/* the first tick listed the threads */
	int paused;		/* a fork is under way */
	int restart;		/* forked child: start afresh at the next tick */
	int said;
	uint64_t rng;
	struct tlrt_perf_counts c;
} P = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.rng = 0x9e3779b97f4a7c15ULL,
};

static int event_open(pid_t tid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, &P.attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Something the program's user must know, once, from the runtime thread: no stdio. */
static void say_once(const char *what, pid_t tid, int err)
{
	char line[256];
	size_t at;

	if (P.said++)
		return;
	at = tlrt_fmt_str(line, sizeof(line), 0, "tiermem: perf sampler: ");
	at = tlrt_fmt_str(line, sizeof(line), at, what);
	if (tid) {
		at = tlrt_fmt_str(line, sizeof(line), at, " ");
		at = tlrt_fmt_ulong(line, sizeof(line), at, (unsigned long)tid);
	}
	if (err) {
		at = tlrt_fmt_str(line, sizeof(line), at, ": ");
		at = tlrt_fmt_str(line, sizeof(line), at, strerror(-err));
	}
	at = tlrt_fmt_str(line, sizeof(line), at, "\n");
	if (write(STDERR_FILENO, line, at) < 0) {
		/* nowhere to say it */
	}
}

static uint64_t sample_freq(double rate_hz)
{
	double f = rate_hz * RECORDS_PER_TICK;
	long max;

	f = f < FREQ_MIN ? FREQ_MIN : f > FREQ_MAX ? FREQ_MAX : f;
	/* above the kernel's limit, perf_event_open fails with EINVAL */
	if (!tlrt_perf_sysctl("perf_event_max_sample_rate", &max) && max > 0 && f > max)
		f = (double)max;
	return (uint64_t)f;
}

static void fill_attr(double rate_hz)
{
	struct perf_event_attr *a = &P.attr;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = P.pmu.type;
	a->config = P.pmu.config;
	a->config1 = P.pmu.config1;
	a->config2 = P.pmu.config2;
	a->sample_type = SAMPLE_TYPE;
	if (P.pmu.period) {
		a->sample_period = P.pmu.period;
	} else {
		a->freq = 1;
		a->sample_freq = sample_freq(rate_hz);
	}
	a->precise_ip = P.pmu.precise & 3;
	a->exclude_kernel = a->exclude_hv = P.pmu.exclude_kernel ? 1 : 0;
	a->inherit = 1;
	a->inherit_thread = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	/* nobody polls: wake-ups only when a buffer is nearly full */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(DATA_PAGES * sysconf(_SC_PAGESIZE) / 4 * 3);
}

/*
 * One event on this thread, as the first tick will open them, closed at
 * once: start() fails here with the kernel's reason rather than sampling
 * nothing later. A precise level the PMU refuses is lowered, as perf does.
 */
static int probe(char *why, size_t whylen)
{
	int fd, err, n;
	long paranoid;

	for (;;) {
		if ((fd = event_open(0, P.cpus[0])) >= 0) {
			close(fd);
			return 0;
		}
		err = errno;
		if ((err != EOPNOTSUPP && err != EINVAL) || P.attr.precise_ip <= 1)
			break;
		P.attr.precise_ip--;
	}
	n = snprintf(why, whylen, "perf: %s: %s", P.pmu.event, strerror(err));
	if (n < 0 || (size_t)n >= whylen)
		return -err;
	if ((err == EACCES || err == EPERM) && !tlrt_perf_sysctl("perf_event_paranoid", &paranoid)) {
		snprintf(why + n, whylen - (size_t)n, " (kernel.perf_event_paranoid is %ld: needs %d or less, or CAP_PERFMON)",
			 paranoid, P.attr.exclude_kernel ? 2 : 1);
	} else if (err == EINVAL) {
		P.attr.inherit_thread = 0;
		if ((fd = event_open(0, P.cpus[0])) >= 0) {
			close(fd);
			snprintf(why + n, whylen - (size_t)n, " (no inherit_thread: needs Linux 5.13)");
		}
		P.attr.inherit_thread = 1;
	}
	return -err;
}

static int start_locked(char *why, size_t whylen)
{
	int n, err;

	if (tlrt_perf_test_page_faults)
		tlrt_perf_pmu_page_faults(&P.pmu);
	else if ((err = tlrt_perf_pmu_find(&P.pmu, TLRT_PERF_DEVICES, why, whylen)))
		return err;
	free(P.cpus);
	free(P.rings);
	P.cpus = NULL;
	P.rings = NULL;
	P.ncpus = 0;
	if ((n = tlrt_perf_pmu_cpus(&P.pmu, TLRT_PERF_DEVICES, &P.cpus)) < 0) {
		snprintf(why, whylen, "perf: cannot list the CPUs of %s", P.pmu.event);
		return n;
	}
	if (!(P.rings = calloc((size_t)n, sizeof(*P.rings)))) {
		snprintf(why, whylen, "perf: out of memory");
		return -ENOMEM;
	}
	P.ncpus = n;
	for (int i = 0; i < n; i++)
		P.rings[i].fd = -1;
	if ((err = tlrt_perf_layout_init(&P.layout, SAMPLE_TYPE)))
		return err;
	fill_attr(P.env->rate_hz);
	if ((err = probe(why, whylen)))
		return err;
	P.pid = getpid();
	P.started = 1;
	P.opened = 0;
	P.said = 0;
	return 0;
}

static int perf_start(const struct rt_sampler_env *env, char *why, size_t whylen)
{
	int saved = errno, err = 0;

	pthread_mutex_lock(&P.lock);
	P.env = env;
	P.restart = 0;
	if (!P.started)
		err = start_locked(why, whylen);
	pthread_mutex_unlock(&P.lock);
	errno = saved;
	return err;
}

/* The buffer of CPU slot i, owned by event fd: the data area and, for SPE, the AUX area. */
static int ring_map(struct ring *g, int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (1 + DATA_PAGES) * page;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int err;

	if (p == MAP_FAILED)
		return -errno;
	g->pg = p;
	g->len = len;
	if (P.pmu.aux) {
		g->pg->aux_offset = len;
		g->pg->aux_size = AUX_PAGES * page;
		p = mmap(NULL, AUX_PAGES * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)len);
		if (p == MAP_FAILED) {
			err = -errno;
			munmap(g->pg, len);
			g->pg = NULL;
			return err;
		}
		g->aux = p;
		g->aux_len = AUX_PAGES * page;
	}
	g->fd = fd;
	return 0;
}

static void ring_unmap(struct ring *g)
{
	if (g->aux)
		munmap(g->aux, g->aux_len);
	if (g->pg)
		munmap(g->pg, g->len);
	*g = (struct ring){ .fd = -1 };
}

static int grow(void **v, size_t *cap, size_t n, size_t elem)
{
	void *p;

	if (n < *cap)
		return 0;
	if (!(p = realloc(*v, (*cap ? *cap * 2 : 64) * elem)))
		return -ENOMEM;
	*v = p;
	*cap = *cap ? *cap * 2 : 64;
	return 0;
}

/*
 * One event per CPU on thread tid. A thread sampled on some CPUs only
 * would skew the draw: on any failure its events are all closed again
 * (and a buffer it had just created unmapped).
 */
static int open_thread(pid_t tid)
{
	size_t first = P.nfds;
	int err = 0;

	for (int i = 0; i < P.ncpus; i++) {
		int fd = event_open(tid, P.cpus[i]);

		if (fd < 0) {
			err = -errno;
			break;
		}
		if ((err = grow((void **)&P.fds, &P.capfds, P.nfds, sizeof(int)))) {
			close(fd);
			break;
		}
		P.fds[P.nfds++] = fd;
		if (P.rings[i].fd < 0)
			err = ring_map(&P.rings[i], fd);
		else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, P.rings[i].fd))
			err = -errno;
		if (err)
			break;
	}
	if (!err)
		return 0;
	while (P.nfds > first) {
		int fd = P.fds[--P.nfds];

		for (int i = 0; i < P.ncpus; i++)
			if (P.rings[i].fd == fd)
				ring_unmap(&P.rings[i]);
		close(fd);
	}
	return err;
}

static int known(pid_t tid)
{
	for (size_t i = 0; i < P.ntids; i++)
		if (P.tids[i] == tid)
			return 1;
	return 0;
}

/* Opens the threads of /proc/self/task not seen before: how many were new, or -errno. */
static int scan_threads(pid_t self)
{
	char buf[4096];
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), added = 0, err;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t at = 0; at < n;) {
			struct dirent64 *e = (struct dirent64 *)(buf + at);
			pid_t tid = (pid_t)strtol(e->d_name, NULL, 10);

			at += e->d_reclen;
			if (tid <= 0 || tid == self || known(tid))
				continue;
			if (grow((void **)&P.tids, &P.captids, P.ntids, sizeof(pid_t)))
				break;
			P.tids[P.ntids++] = tid;
			added++;
			/* ESRCH: it exited meanwhile, nothing to sample */
			if ((err = open_thread(tid)) && err != -ESRCH)
				say_once("cannot sample thread", tid, err);
		}
	}
	close(fd);
	return added;
}

static void open_all(void)
{
	pid_t self = gettid();
	int added, round = 0;

	P.opened = 1;
	do
		added = scan_threads(self);
	while (added > 0 && ++round < SCAN_ROUNDS);
	if (added < 0)
		say_once("cannot list /proc/self/task", 0, added);
	else if (!P.nfds)
		say_once("no thread of the program could be sampled", 0, 0);
}

static void offer(struct tlrt_perf_draw *d, const struct rt_sample *s)
{
	P.c.records++;
	P.c.in_span += (uint64_t)tlrt_perf_draw_offer(d, s);
}

static void offer_sample(const struct tlrt_perf_record *rec, struct tlrt_perf_draw *d)
{
	union perf_mem_data_src src = { .val = rec->u.sample.data_src };
	struct rt_sample s = {
		.t_ns = rec->u.sample.time,
		.addr = (uintptr_t)rec->u.sample.addr,
		.pc = (uintptr_t)rec->u.sample.ip,
		.tid = (pid_t)rec->u.sample.tid,
	};

	if ((pid_t)rec->u.sample.pid != P.pid) {
		P.c.foreign++;
		return;
	}
	if ((rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		s.flags |= RT_SAMPLE_KERNEL;
	if (src.mem_op & PERF_MEM_OP_STORE)
		s.flags |= RT_SAMPLE_WRITE;
	offer(d, &s);
}

/* SPE: the packets of one PERF_RECORD_AUX, then their space handed back. No thread in the records but CONTEXTIDR's, no time: the tick's. */
static void drain_aux(struct ring *g, const struct tlrt_perf_record *rec, struct tlrt_perf_draw *d, uint64_t now)
{
	struct tlrt_spe_reader sr;
	struct tlrt_spe_record sp;
	int r;

	if (!g->aux)
		return;
	if (rec->u.aux.flags & PERF_AUX_FLAG_TRUNCATED)
		P.c.lost++;
	if (rec->u.aux.size > g->aux_len) {
		P.c.malformed++;
	} else {
		tlrt_spe_reader_init(&sr, g->aux, g->aux_len, rec->u.aux.offset, rec->u.aux.size);
		while ((r = tlrt_spe_next(&sr, &sp)) > 0) {
			struct rt_sample s = { .t_ns = now, .addr = (uintptr_t)sp.vaddr, .pc = (uintptr_t)sp.pc,
					       .tid = (pid_t)sp.context, .flags = sp.store ? RT_SAMPLE_WRITE : 0 };

			offer(d, &s);
		}
		if (r < 0)
			P.c.malformed++;
	}
	tlrt_perf_aux_tail(g->pg, rec->u.aux.offset + rec->u.aux.size);
}

static void drain_ring(struct ring *g, struct tlrt_perf_draw *d, uint64_t now)
{
	struct perf_event_mmap_page *pg = g->pg;
	uint64_t head = tlrt_perf_data_head(pg);
	struct tlrt_perf_reader rd;
	struct tlrt_perf_record rec;
	int r;

	if (tlrt_perf_reader_init(&rd, (uint8_t *)pg + pg->data_offset, pg->data_size, pg->data_tail, head,
				  &P.layout)) {
		P.c.malformed++;
		goto done;
	}
	while ((r = tlrt_perf_next(&rd, &rec)) > 0) {
		switch (rec.type) {
		case PERF_RECORD_SAMPLE:
			offer_sample(&rec, d);
			break;
		case PERF_RECORD_LOST:
			P.c.lost += rec.u.lost.lost;
			break;
		case PERF_RECORD_THROTTLE:
			P.c.throttled++;
			break;
		case PERF_RECORD_AUX:
			drain_aux(g, &rec, d, now);
			break;
		default:
			/* UNTHROTTLE, and whatever else the kernel adds: skipped by size */
			break;
		}
	}
	if (r < 0)
		P.c.malformed++;
done:
	/* everything up to head is read, or beyond repair: the space goes back */
	tlrt_perf_data_tail(pg, head);
}

/* Every buffer emptied; one record of the span drawn among them. Without a span they are only emptied. */
static void drain_and_draw(void)
{
	struct tlrt_perf_draw d;
	struct rt_block b;
	uint64_t now = rt_now_ns();

	if (P.env->span(&b))
		b.addr = b.len = 0;
	tlrt_perf_draw_begin(&d, b.addr, b.addr + b.len, &P.rng);
	for (int i = 0; i < P.ncpus; i++)
		if (P.rings[i].pg)
			drain_ring(&P.rings[i], &d, now);
	if (d.eligible) {
		P.c.delivered++;
		P.env->deliver(&d.pick);
	}
}

static int perf_tick(void)
{
	int saved = errno;

	pthread_mutex_lock(&P.lock);
	if (P.restart) {
		char why[256];

		P.restart = 0;
		if (start_locked(why, sizeof(why)))
			say_once(why, 0, 0);
	}
	if (P.started && !P.paused) {
		if (!P.opened)
			open_all();
		drain_and_draw();
	}
	pthread_mutex_unlock(&P.lock);
	errno = saved;
	return 0;
}

/* unmap: 0 in a forked child, whose buffers' mappings were not copied. */
static void close_all(int unmap)
{
	for (int i = 0; P.rings && i < P.ncpus; i++) {
		if (unmap)
			ring_unmap(&P.rings[i]);
		else
			P.rings[i] = (struct ring){ .fd = -1 };
	}
	for (size_t i = 0; i < P.nfds; i++)
		close(P.fds[i]);
	P.nfds = 0;
	P.ntids = 0;
	P.opened = 0;
}

static void perf_stop(void)
{
	int saved = errno;

	pthread_mutex_lock(&P.lock);
	P.restart = 0;
	close_all(1);
	P.started = 0;
	pthread_mutex_unlock(&P.lock);
	errno = saved;
}

static void perf_atfork_prepare(void)
{
	/* inherit_thread keeps the events out of the child: only keep ticks off the buffers meanwhile */
	pthread_mutex_lock(&P.lock);
	P.paused = 1;
	pthread_mutex_unlock(&P.lock);
}

static void perf_atfork_parent(void)
{
	pthread_mutex_lock(&P.lock);
	P.paused = 0;
	pthread_mutex_unlock(&P.lock);
}

static void perf_atfork_child(void)
{
	int was_on = P.started;

	/* the descriptors name the parent's threads: drop them, start afresh at the next tick */
	pthread_mutex_init(&P.lock, NULL);
	close_all(0);
	P.started = 0;
	P.paused = 0;
	P.restart = was_on;
	memset(&P.c, 0, sizeof(P.c));
}

void tlrt_sampler_perf_counts(struct tlrt_perf_counts *out)
{
	pthread_mutex_lock(&P.lock);
	*out = P.c;
	out->threads = P.ntids;
	out->events = P.nfds;
	pthread_mutex_unlock(&P.lock);
}

static size_t perf_counts(struct rt_sampler_count *out, size_t max)
{
	struct tlrt_perf_counts c;

	tlrt_sampler_perf_counts(&c);
	const struct rt_sampler_count all[] = {
		RT_SAMPLER_COUNT(c, threads), RT_SAMPLER_COUNT(c, events), RT_SAMPLER_COUNT(c, records),
		RT_SAMPLER_COUNT(c, in_span), RT_SAMPLER_COUNT(c, foreign), RT_SAMPLER_COUNT(c, lost),
		RT_SAMPLER_COUNT(c, throttled), RT_SAMPLER_COUNT(c, malformed), RT_SAMPLER_COUNT(c, delivered),
	};
	return rt_sampler_counts_copy(out, max, all, sizeof(all) / sizeof(all[0]));
}

const struct rt_sampler_ops rt_sampler_perf = {
	.name = "perf",
	.start = perf_start,
	.tick = perf_tick,
	.stop = perf_stop,
	.atfork_prepare = perf_atfork_prepare,
	.atfork_parent = perf_atfork_parent,
	.atfork_child = perf_atfork_child,
	.counts = perf_counts,
};
