/*
 * Recording: the counters file and the log, both mmap'd files, so what was
 * written is in the page cache even if the process dies by a signal; no
 * signal handler is needed and none of the program's dispositions change.
 *
 * Counters (modes counters and log): $TIERLAB_OUT/tiermem-<pid>.counters
 * in the rt-stats.h layout, created at start, updated with relaxed
 * atomics, complete=1 at exit.
 *
 * Log (mode log): $TIERLAB_OUT/tiermem-<pid>.log, one tab-separated record
 * per line (docs/runtime.md). Every record is written under the runtime
 * lock (allocations, frees, samples and migrations all happen there), so
 * the writer needs no lock of its own. The file grows in mapped windows;
 * at exit it is cut to its length. After a crash it ends in NUL bytes:
 * readers stop at the first NUL.
 */
#include "axis/log-format.h"
#include "tiermem/keepfd.h"
#include "tiermem/rt.h"
#include "tiermem/rt-rank.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define LOG_WINDOW (4UL << 20)

static const char *const stat_names[RT_STAT__COUNT] = {
#define RT_STAT_NAME(name, unit, desc) #name,
	RT_STATS(RT_STAT_NAME)
#undef RT_STAT_NAME
};

static struct rt_counters_header *hdr;
static size_t hdr_len;
static uint64_t own_stats[RT_STAT__COUNT];	/* after the file is closed */

static int log_fd = -1;
static struct tlrt_fdid log_id;	/* what log_fd names (keepfd.h) */
static char *log_win;
static uint64_t log_off;	/* file offset of the window */
static size_t log_pos;		/* within the window */

/* tiermem-PID.EXT, or tiermem-rankR-PID.EXT in an MPI rank (lib/measure/ingest.c reads both). */
static int out_path(char *buf, size_t len, const char *ext)
{
	const char *dir = tlrt.opt.out[0] ? tlrt.opt.out : ".";
	int rank = tlrt_mpi_rank();

	if (rank >= 0)
		return (size_t)snprintf(buf, len, "%s/tiermem-rank%d-%d.%s", dir, rank, (int)getpid(), ext) < len ?
			0 : -ENAMETOOLONG;
	return (size_t)snprintf(buf, len, "%s/tiermem-%d.%s", dir, (int)getpid(), ext) < len ? 0 : -ENAMETOOLONG;
}

static int open_counters(void)
{
	char path[640];
	size_t names = 0;
	uint64_t *vals;
	char *p;
	int fd;

	for (int i = 0; i < RT_STAT__COUNT; i++)
		names += strlen(stat_names[i]) + 1;
	size_t sampler_at = (sizeof(*hdr) + RT_STAT__COUNT * sizeof(uint64_t) + names + 7) & ~(size_t)7;

	hdr_len = sampler_at + RT_SAMPLER_COUNTS_MAX * sizeof(struct rt_counters_sampler);
	if (out_path(path, sizeof(path), "counters"))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)hdr_len)) {
		close(fd);
		return -errno;
	}
	p = mmap(NULL, hdr_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	hdr = (struct rt_counters_header *)p;
	memcpy(hdr->magic, RT_COUNTERS_MAGIC, sizeof(hdr->magic));
	hdr->version = RT_COUNTERS_VERSION;
	hdr->nstats = RT_STAT__COUNT;
	hdr->header_size = sizeof(*hdr);
	hdr->sampler_offset = (uint32_t)sampler_at;
	hdr->pid = (uint32_t)getpid();
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		hdr->start_time = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	}
	snprintf(hdr->policy, sizeof(hdr->policy), "%.63s", tlrt.opt.policy);
	snprintf(hdr->sampler, sizeof(hdr->sampler), "%.31s", tlrt_sampler_names[tlrt.opt.sampler]);
	hdr->rate_hz = tlrt.opt.rate_hz;
	hdr->chunk_size = tlrt.opt.chunk_size;
	p += sizeof(*hdr) + RT_STAT__COUNT * sizeof(uint64_t);
	for (int i = 0; i < RT_STAT__COUNT; i++) {
		size_t n = strlen(stat_names[i]) + 1;

		memcpy(p, stat_names[i], n);
		p += n;
	}
	vals = (uint64_t *)(hdr + 1);
	/* what was counted before the file existed moves in */
	for (int i = 0; i < RT_STAT__COUNT; i++)
		vals[i] = __atomic_load_n(&atomic_load(&tlrt_stats)[i], __ATOMIC_RELAXED);
	atomic_store(&tlrt_stats, vals);
	return 0;
}

/* After the sampler stopped: its own counts into their slots (names cut to fit, as they are [a-z_]). */
void tlrt_record_sampler_counts(const struct rt_sampler_count *c, size_t n)
{
	struct rt_counters_sampler *slot;

	if (!hdr)
		return;
	slot = (struct rt_counters_sampler *)((char *)hdr + hdr->sampler_offset);
	for (size_t i = 0; i < n && i < RT_SAMPLER_COUNTS_MAX; i++) {
		snprintf(slot[i].name, sizeof(slot[i].name), "%s", c[i].name);
		slot[i].value = c[i].value;
	}
	hdr->nsampler = (uint32_t)(n < RT_SAMPLER_COUNTS_MAX ? n : RT_SAMPLER_COUNTS_MAX);
}

static int open_log(void)
{
	char path[640];

	if (out_path(path, sizeof(path), "log"))
		return -ENAMETOOLONG;
	log_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log_fd < 0)
		return -errno;
	log_fd = tlrt_fd_keep(log_fd, &log_id);
	if (log_fd < 0)
		return -EBADF;
	log_win = NULL;
	log_off = 0;
	log_pos = 0;
	return 0;
}

int tlrt_record_open(void)
{
	int err;

	if (tlrt.opt.log == TLRT_LOG_NONE)
		return 0;
	if (!hdr && (err = open_counters()))
		return errno = -err, err;
	if (tlrt.opt.log == TLRT_LOG_LOG && log_fd < 0 && (err = open_log()))
		return errno = -err, err;
	return 0;
}

void tlrt_record_header(void)
{
	if (!hdr)
		return;
	if (tlrt.pol && tlrt.pol->name)
		snprintf(hdr->policy, sizeof(hdr->policy), "%.63s", tlrt.pol->name);
	if (tlrt.sampler)
		snprintf(hdr->sampler, sizeof(hdr->sampler), "%.31s", tlrt.sampler->name);
	hdr->chunk_size = tlrt.opt.chunk_size;
	hdr->budget_bytes = tlrt.budget_chunks == TLP_UNLIMITED ? 0 : (uint64_t)tlrt.budget_chunks * tlrt.opt.chunk_size;
	hdr->same_node = (uint32_t)tlrt.same_node;
}

/*
 * Whether log_fd still names the log. The program may have closed it (a
 * daemon closes 3 and up) and reused the number: then the log is opened
 * again by its name, if that is still the same file, and the old number,
 * the program's now, is left alone.
 */
static int log_fd_ok(void)
{
	char path[640];
	struct tlrt_fdid id;
	int fd;

	if (log_fd < 0)
		return 0;
	if (tlrt_fd_is(log_fd, &log_id))
		return 1;
	log_fd = -1;
	if (out_path(path, sizeof(path), "log") || (fd = tlrt_fd_keep(open(path, O_RDWR | O_CLOEXEC), &id)) < 0)
		return 0;
	if (id.dev != log_id.dev || id.ino != log_id.ino) {
		close(fd);	/* ours, just opened: another file of that name */
		return 0;
	}
	log_fd = fd;
	return 1;
}

static void log_write(const char *buf, size_t n)
{
	while (n) {
		size_t room;

		if (!log_win || log_pos == LOG_WINDOW) {
			void *w;

			if (log_win) {
				munmap(log_win, LOG_WINDOW);
				log_off += LOG_WINDOW;
				log_pos = 0;
				log_win = NULL;
			}
			if (!log_fd_ok() || ftruncate(log_fd, (off_t)(log_off + LOG_WINDOW)))
				return;
			w = mmap(NULL, LOG_WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED, log_fd, (off_t)log_off);
			if (w == MAP_FAILED)
				return;
			log_win = w;
		}
		room = LOG_WINDOW - log_pos;
		if (room > n)
			room = n;
		memcpy(log_win + log_pos, buf, room);
		log_pos += room;
		buf += room;
		n -= room;
	}
}

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...)
{
	char buf[768];
	va_list ap;
	int n;

	if (log_fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf)) {
		n = sizeof(buf) - 1;
		buf[n - 1] = '\n';
	}
	log_write(buf, (size_t)n);
}

int tlrt_log_enabled(void)
{
	return tlrt.opt.log == TLRT_LOG_LOG;
}

/* dladdr takes the loader's lock: call this before taking the runtime's. */
void tlrt_log_callsite(uintptr_t callsite, const char **module, uintptr_t *off)
{
	Dl_info info;

	*module = "-";
	*off = callsite;
	if (callsite && dladdr((void *)callsite, &info) && info.dli_fname && info.dli_fname[0]) {
		*module = info.dli_fname;
		*off = callsite - (uintptr_t)info.dli_fbase;
	}
}

/*
 * Everything the offline replay (lib/simulate) needs besides the events:
 * the reservation (it sizes max_chunks for any chunk size), the budget as
 * resolved, and what the policy was started with.
 */
void tlrt_log_params(void)
{
	/* longer than log_line's buffer: up to TLRT_MAX_FRACTIONS fractions. Lock held. */
	static char line[1536 + TLRT_MAX_FRACTIONS * 26];
	size_t n, len = sizeof(line);

	if (log_fd < 0)
		return;
	n = (size_t)snprintf(line, len, TL_LOG_FORMAT(P),
			     (size_t)atomic_load_explicit(&tlrt.size, memory_order_relaxed), tlrt.nunits,
			     tlrt.max_chunks, tlrt.opt.chunk_size, tlrt.budget_chunks, tlrt.opt.dynamic_fraction,
			     tlrt.opt.window, tlrt.opt.rate_hz, tlrt.opt.threshold, tlrt.opt.policy,
			     tlrt.opt.have_policy_args && tlrt.opt.policy_args[0] ? tlrt.opt.policy_args : "-");
	for (uint32_t i = 0; i < tlrt.opt.nfractions && n < len; i++)
		n += (size_t)snprintf(line + n, len - n, "%s%.17g", i ? "," : "", tlrt.opt.fractions[i]);
	if (n < len && !tlrt.opt.nfractions)
		n += (size_t)snprintf(line + n, len - n, "-");
	if (n < len - 1) {
		line[n++] = '\n';
		log_write(line, n);
	}
}

void tlrt_log_alloc(const struct tlrt_region *r, uint64_t t_ns, const char *module, uintptr_t off)
{
	if (log_fd < 0)
		return;
	log_line(TL_LOG_FORMAT(A) "\n",
		 t_ns, r->seq, r->addr, r->bytes, r->first_chunk, r->nchunks, r->callsite, module, off);
}

void tlrt_log_free(const struct tlrt_region *r, uint64_t t_ns)
{
	log_line(TL_LOG_FORMAT(F) "\n", t_ns, r->seq);
}

void tlrt_log_sample(const struct rt_sample *s, uint32_t chunk, int hit)
{
	log_line(TL_LOG_FORMAT(S) "\n", s->t_ns, s->addr, s->pc,
		 (int)s->tid, chunk == TLRT_NO_CHUNK ? -1L : (long)chunk, hit, s->flags);
}

void tlrt_log_migration(uint32_t chunk, int direction, int ok, uint64_t start_ns)
{
	const struct tlrt_chunk *c = &tlrt.chunks[chunk];

	log_line(TL_LOG_FORMAT(M) "\n", tlrt_now_ns(), chunk,
		 c->addr, c->len, tl_direction_name(direction), ok, start_ns);
}

void tlrt_log_drain(uint64_t t_ns)
{
	log_line(TL_LOG_FORMAT(D) "\n", t_ns);
}

/* The data is in the page cache already; this only refreshes the counters' clock. */
void tlrt_log_flush(void)
{
	if (hdr && tlrt.start_ns)
		__atomic_store_n(&((uint64_t *)(hdr + 1))[RT_STAT_run_ns], tlrt_now_ns() - tlrt.start_ns,
				 __ATOMIC_RELAXED);
}

static void close_log(int cut)
{
	if (log_fd < 0)
		return;
	if (log_win)
		munmap(log_win, LOG_WINDOW);
	if (log_fd_ok()) {
		if (cut && ftruncate(log_fd, (off_t)(log_off + log_pos))) {
			/* the tail stays NUL-padded; readers stop at the first NUL */
		}
		close(log_fd);
	}
	log_fd = -1;
	log_win = NULL;
}

void tlrt_record_close(int complete)
{
	uint64_t *vals;

	close_log(complete);
	if (!hdr)
		return;
	tlrt_log_flush();
	tlrt_record_header();
	vals = (uint64_t *)(hdr + 1);
	for (int i = 0; i < RT_STAT__COUNT; i++)
		own_stats[i] = __atomic_load_n(&vals[i], __ATOMIC_RELAXED);
	atomic_store(&tlrt_stats, own_stats);
	__atomic_store_n(&hdr->complete, (uint32_t)(complete ? 1 : 0), __ATOMIC_RELEASE);
	munmap(hdr, hdr_len);
	hdr = NULL;
}

/*
 * The runtime stood aside at its first managed allocation (a policy or a
 * sampler that cannot start): it manages nothing, so it leaves no files,
 * as when a variable is bad; tierlab reads a missing counters file as a
 * run the runtime did not manage (lib/execute.c check_runtime).
 */
void tlrt_record_discard(void)
{
	char path[640];
	int saved = errno;

	tlrt_record_close(0);
	if (!out_path(path, sizeof(path), "counters"))
		unlink(path);
	if (!out_path(path, sizeof(path), "log"))
		unlink(path);
	errno = saved;
}

/* In a fork child: leave the parent's files alone, start this process's own. */
void tlrt_record_child(void)
{
	if (log_fd >= 0) {
		if (log_win)
			munmap(log_win, LOG_WINDOW);
		tlrt_fd_drop(&log_fd, &log_id);
		log_win = NULL;
	}
	if (hdr) {
		munmap(hdr, hdr_len);
		hdr = NULL;
	}
	memset(own_stats, 0, sizeof(own_stats));
	atomic_store(&tlrt_stats, own_stats);
	if (atomic_load(&tlrt.state) == TLRT_READY || atomic_load(&tlrt.state) == TLRT_ACTIVE) {
		tlrt_record_open();
		tlrt_record_header();
	}
}
