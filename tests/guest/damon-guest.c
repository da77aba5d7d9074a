/*
 * The damon sampler against a real kdamond, in the QEMU guest
 * (tests/cli/damon-guest.sh runs it with tests/guest/run-in-guest.sh; the
 * host's DAMON is the machine's and has no vaddr). The runtime's core is
 * linked in statically, as in tiermem-guest.c.
 *
 *  1. DAMON in use (nr_kdamonds 1, a context set to paddr, as another
 *     user would leave it): start() refuses with the reason and leaves
 *     every file as it was; and a process that is not root is refused.
 *  2. A hot/cold program under the runtime with TIERLAB_SAMPLER=damon, in a
 *     child process per configuration: 32 MiB managed, 90% of the accesses
 *     to a hot set of 4 MiB (12.5% of the bytes), the rest spread over the
 *     other 28 MiB, at a modest rate (bursts and sleeps). From the log's
 *     sample records: samples arrive, and the share of managed samples in
 *     the hot set must be at least --min-hot percent (a blind sampler gets
 *     12.5%), when the configuration is asserted. Meanwhile a forked
 *     grandchild runs the runtime too: it is not sampled, says so, and its
 *     exit leaves the parent's kdamond running. After each run DAMON is
 *     given back: nr_kdamonds reads 0.
 *  3. The limit docs/samplers.md states: a process killed (SIGKILL) cannot
 *     give DAMON back; its kdamond stops by itself (the target is gone)
 *     but nr_kdamonds stays 1. Checked, then cleaned up.
 *  4. Someone turns the kdamond off under a running sampler: it says so,
 *     delivers nothing more (the regions left are stale) and gives DAMON
 *     back.
 *  5. The sysfs layer (lib/tiermem/damon.h) on this process: the regions
 *     published lie inside the range given; a new range committed to the
 *     running kdamond moves them there; and, what the long update_us is
 *     for, vaddr's ops update replaces them by the whole address space.
 *
 * Usage: damon-guest [--seconds N] [--rate HZ] [--burst N] [--min-hot PCT] [--thp-too]
 * --burst sets the accesses between 1 ms sleeps (200), so the access
 * rate; --thp-too adds a run with THP-advised managed memory. Both are
 * for measuring DAMON's biases (docs/samplers.md); --min-hot -1 asserts
 * no share.
 *
 * Output: "DAMON-GUEST: ..." lines, "FAIL: ..." per failed check,
 * "DAMON-GUEST: PASS" and exit 0, or exit 1; "SKIP: ..." and 77 when the
 * kernel has no DAMON sysfs interface.
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "policies/policies.h"
#include "tiermem/damon.h"
#include "tiermem/rt.h"

#define MiB (1UL << 20)
#define ARR_BYTES (32 * MiB)
#define HOT_OFF (12 * MiB)
#define HOT_BYTES (4 * MiB)
#define HOT_PERMILLE 900
#define BURST 200		/* accesses between sleeps of 1 ms (--burst) */
#define ROOT TLRT_DAMON_ROOT

static int failures;
static int burst_len = BURST;
static volatile uint64_t sink;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures++;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	printf("DAMON-GUEST: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static double now_s(void)
{
	return (double)tlrt_now_ns() / 1e9;
}

/* ---- the policy, statically (no dlopen in the guest; as in tiermem-guest.c) ---- */

int tlrt_policy_load(char *why, size_t whylen)
{
	const struct tlp_policy *pol = tlp_policy_find(tlrt.opt.policy);

	if (!pol) {
		snprintf(why, whylen, "policy '%s': not linked into this program", tlrt.opt.policy);
		return -1;
	}
	if (tlrt_policy_start(pol, why, whylen))
		return -1;
	tlrt.dl = NULL;
	return 0;
}

void tlrt_policy_unload(void)
{
	tlrt_policy_stop();
}

/* ---- sysfs, by the test itself ---- */

/* The file's text; four buffers in turn, so a printf may show several. */
static const char *sys_read(const char *rel)
{
	static char bufs[4][256];
	static unsigned next;
	char *buf = bufs[next++ % 4], path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", ROOT, rel);
	if ((fd = open(path, O_RDONLY)) < 0)
		return "(unreadable)";
	/* EBUSY while a kdamond holds the interface's lock (a tried-regions update) */
	for (int i = 0; (n = pread(fd, buf, sizeof(bufs[0]) - 1, 0)) < 0 && errno == EBUSY && i < 2000; i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	close(fd);
	if (n < 0)
		return "(unreadable)";
	buf[n > 0 ? n : 0] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return buf;
}

static int sys_write(const char *rel, const char *val)
{
	char path[512];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", ROOT, rel);
	if ((fd = open(path, O_WRONLY)) < 0)
		return -1;
	/* EBUSY while the sampler's tried-regions update holds the interface's lock */
	for (int i = 0; !(ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val)) && errno == EBUSY && i < 2000; i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	close(fd);
	return ok ? 0 : -1;
}

/* ---- 1: someone else's DAMON ---- */

static int dummy_span(struct rt_block *out)
{
	(void)out;
	return -1;
}

static void dummy_deliver(const struct rt_sample *s)
{
	(void)s;
}

static void refuses_in_use(void)
{
	struct rt_sampler_env env = { .rate_hz = 10, .span = dummy_span, .deliver = dummy_deliver };
	char why[300] = "";
	int r;

	if (sys_write("kdamonds/nr_kdamonds", "1") || sys_write("kdamonds/0/contexts/nr_contexts", "1") ||
	    sys_write("kdamonds/0/contexts/0/operations", "paddr")) {
		fail("cannot set up another user's kdamond: %s", strerror(errno));
		return;
	}
	errno = 1234;
	r = rt_sampler_damon.start(&env, why, sizeof(why));
	if (errno != 1234)
		fail("in use: start() changed errno to %d", errno);
	note("in use: start() = %d: %s", r, why);
	if (r != -EBUSY || !strstr(why, "DAMON is in use on this machine (nr_kdamonds is 1"))
		fail("in use: start() returned %d (%s), expected -EBUSY with the reason", r, why);
	if (strcmp(sys_read("kdamonds/nr_kdamonds"), "1") || strcmp(sys_read("kdamonds/0/contexts/0/operations"), "paddr"))
		fail("in use: the other user's kdamond changed (nr_kdamonds %s, operations %s)",
		     sys_read("kdamonds/nr_kdamonds"), sys_read("kdamonds/0/contexts/0/operations"));
	rt_sampler_damon.stop();	/* never started: must leave the other user's kdamond too */
	if (strcmp(sys_read("kdamonds/nr_kdamonds"), "1"))
		fail("in use: stop() without a start changed nr_kdamonds to %s", sys_read("kdamonds/nr_kdamonds"));
	if (sys_write("kdamonds/nr_kdamonds", "0"))
		fail("cannot remove the other user's kdamond");
}

/* Not root: refused with the reason, nothing created. */
static void refuses_unprivileged(void)
{
	int fds[2], status;
	char why[300] = "";
	pid_t pid;
	ssize_t n;

	if (pipe(fds)) {
		fail("pipe: %s", strerror(errno));
		return;
	}
	if ((pid = fork()) == 0) {
		struct rt_sampler_env env = { .rate_hz = 10, .span = dummy_span, .deliver = dummy_deliver };
		int r;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		r = rt_sampler_damon.start(&env, why, sizeof(why));
		if (write(fds[1], why, strlen(why)) < 0)
			_exit(4);
		_exit(r == -EACCES ? 0 : 1);
	}
	close(fds[1]);
	n = read(fds[0], why, sizeof(why) - 1);
	why[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	note("not root: start(): %s", why);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !strstr(why, "(needs root)"))
		fail("not root: start() ended with status %#x (%s), expected -EACCES and the reason", status, why);
	if (strcmp(sys_read("kdamonds/nr_kdamonds"), "0"))
		fail("not root: nr_kdamonds is %s", sys_read("kdamonds/nr_kdamonds"));
}

/* ---- 2: the hot/cold program ---- */

struct result {
	long bursts;
	long samples, managed, hot;
	long repeats;		/* managed samples at the page of the one before */
	double chance;		/* the repeats independent draws of the pages sampled would make */
	long snapshots, idle, regions;
	double seconds, snapshot_s;
	long grandchild_said;
};

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* burst_len accesses, HOT_PERMILLE of them to the hot set, the rest to the cold bytes. */
static void burst(volatile uint8_t *a)
{
	uint64_t sum = 0;

	for (int k = 0; k < burst_len; k++) {
		uint64_t x = next_random();
		size_t off;

		if (x % 1000 < HOT_PERMILLE) {
			off = HOT_OFF + (x >> 12) % HOT_BYTES;
		} else {
			off = (x >> 12) % (ARR_BYTES - HOT_BYTES);
			if (off >= HOT_OFF)
				off += HOT_BYTES;
		}
		sum += a[off];
	}
	sink += sum;
}

/* A child of the program: runs the runtime (its own thread), is not sampled, and must not stop DAMON. */
static void grandchild(void)
{
	void *p;

	p = tlrt_alloc(4 * MiB, 0, 0x5000);
	if (!p)
		_exit(3);
	memset(p, 1, 4 * MiB);
	/* the runtime thread restarts at this allocation; let it tick */
	nanosleep(&(struct timespec){ 0, 600000000 }, NULL);
	tlrt_free(p);
	tlrt_finish();
	_exit(0);
}

static int cmp_addr(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* sum c(c-1) over the pages of v (sorted here), times n - 1 pairs / n(n-1): the repeats expected by chance */
static double chance_repeats(unsigned long long *v, long n)
{
	double pairs = 0;

	if (n < 2)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_addr);
	for (long i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		pairs += (double)(j - i) * (double)(j - i - 1);
	}
	return pairs / (double)n;
}

static void count_log(const char *path, uintptr_t arr, struct result *res)
{
	char line[256];
	FILE *f = fopen(path, "r");
	unsigned long long *pages = NULL, last = 0;

	if (!f) {
		fail("no log %s: %s", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long t, addr, pc;
		int tid, hit;
		long chunk;
		unsigned flags;

		if (line[0] != 'S' || sscanf(line, "S\t%llu\t%llx\t%llx\t%d\t%ld\t%d\t%u", &t, &addr, &pc, &tid, &chunk,
					     &hit, &flags) != 7)
			continue;
		res->samples++;
		if (pc || tid || flags)
			fail("sample at %#llx: pc %#llx, tid %d, flags %u; expected 0, 0, 0", addr, pc, tid, flags);
		if (addr % 4096)
			fail("sample at %#llx: not page-aligned", addr);
		if (chunk < 0)
			continue;
		if (!(res->managed % 1024) && !(pages = realloc(pages, ((size_t)res->managed + 1024) * sizeof(*pages)))) {
			fail("out of memory");
			break;
		}
		pages[res->managed] = addr;
		res->repeats += res->managed && addr == last;
		last = addr;
		res->managed++;
		res->hot += addr >= arr + HOT_OFF && addr < arr + HOT_OFF + HOT_BYTES;
	}
	fclose(f);
	res->chance = pages ? chance_repeats(pages, res->managed) : 0;
	free(pages);
}

/* In a child: the runtime with the damon sampler over the hot/cold program; exits 0, or 1 with FAIL lines. */
static void run_child(int thp, int seconds, int rate, int out_fd)
{
	char thp_var[32], rate_var[32], *env[16];
	char log[64];
	struct result res = { 0 };
	struct tlrt_damon_counts c;
	volatile uint8_t *a;
	double t0, t_fork;
	int n = 0, forked = 0, status;
	pid_t gc = -1;

	snprintf(thp_var, sizeof(thp_var), "TIERLAB_THP=%d", thp);
	snprintf(rate_var, sizeof(rate_var), "TIERLAB_RATE=%dHz", rate);
	env[n++] = "TIERLAB_POLICY=lru";
	env[n++] = "TIERLAB_FAST_NODES=1";
	env[n++] = "TIERLAB_SLOW_NODES=0";
	env[n++] = "TIERLAB_CHUNKS=2";
	env[n++] = "TIERLAB_CHUNK_SIZE=2MiB";
	env[n++] = "TIERLAB_THRESHOLD=1MiB";
	env[n++] = rate_var;
	env[n++] = "TIERLAB_SAMPLER=damon";
	env[n++] = "TIERLAB_LOG=log";
	env[n++] = "TIERLAB_OUT=/tmp";
	env[n++] = "TIERLAB_VERBOSE=1";
	env[n++] = "TIERLAB_STRICT=1";
	env[n++] = thp_var;
	env[n] = NULL;
	if (tlrt_setup(env) != 0) {
		fail("tlrt_setup refused the variables");
		_exit(1);
	}
	a = tlrt_alloc(ARR_BYTES, 0, 0x4000);
	if (!a || tlrt_state() != TLRT_ACTIVE) {
		fail("tlrt_alloc: %p, runtime state %d", (void *)a, tlrt_state());
		_exit(1);
	}
	for (size_t i = 0; i < ARR_BYTES; i += 64)
		a[i] = (uint8_t)i;
	note("thp=%d: pid %d, %lu MiB managed at %p, hot set [%lu, %lu) MiB; kdamond state %s", thp, (int)getpid(),
	     ARR_BYTES / MiB, (void *)a, HOT_OFF / MiB, (HOT_OFF + HOT_BYTES) / MiB, sys_read("kdamonds/0/state"));

	t0 = now_s();
	t_fork = t0 + seconds / 2.0;
	while (now_s() < t0 + seconds) {
		burst(a);
		res.bursts++;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		if (!forked && now_s() >= t_fork) {
			forked = 1;
			if ((gc = fork()) == 0)
				grandchild();
		}
		if (gc > 0 && waitpid(gc, &status, WNOHANG) == gc) {
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				fail("thp=%d: the forked grandchild ended with status %#x", thp, status);
			if (strcmp(sys_read("kdamonds/0/state"), "on"))
				fail("thp=%d: the kdamond is '%s' after the grandchild's exit, expected on", thp,
				     sys_read("kdamonds/0/state"));
			gc = -1;
		}
	}
	if (gc > 0)
		fail("thp=%d: the grandchild had not exited by the end", thp);
	res.seconds = now_s() - t0;
	tlrt_sampler_damon_counts(&c);
	tlrt_finish();

	if (strcmp(sys_read("kdamonds/nr_kdamonds"), "0"))
		fail("thp=%d: nr_kdamonds is %s after the runtime finished, expected 0", thp, sys_read("kdamonds/nr_kdamonds"));
	snprintf(log, sizeof(log), "/tmp/tiermem-%d.log", (int)getpid());
	count_log(log, (uintptr_t)a, &res);
	res.snapshots = (long)c.snapshots;
	res.idle = (long)c.idle;
	res.regions = (long)c.regions;
	res.snapshot_s = (double)c.snapshot_ns / 1e9;
	if ((long)c.samples != res.samples)
		fail("thp=%d: the sampler delivered %llu samples, the log has %ld", thp, (unsigned long long)c.samples,
		     res.samples);
	note("thp=%d: counters: ticks %llu, samples %llu (managed %llu: %llu hits, %llu misses), "
	     "slow->fast %llu, fast->slow %llu",
	     thp, (unsigned long long)tlrt_stat(RT_STAT_ticks), (unsigned long long)tlrt_stat(RT_STAT_samples),
	     (unsigned long long)tlrt_stat(RT_STAT_samples_managed), (unsigned long long)tlrt_stat(RT_STAT_hits),
	     (unsigned long long)tlrt_stat(RT_STAT_misses), (unsigned long long)tlrt_stat(RT_STAT_mig_slow_to_fast),
	     (unsigned long long)tlrt_stat(RT_STAT_mig_fast_to_slow));
	if (write(out_fd, &res, sizeof(res)) != (ssize_t)sizeof(res))
		_exit(1);
	tlrt_free((void *)a);
	_exit(failures ? 1 : 0);
}

static void hot_cold(int thp, int seconds, int rate, int min_hot)
{
	struct result res = { 0 };
	int fds[2], status;
	pid_t pid;
	double share;

	if (pipe(fds)) {
		fail("pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(fds[0]);
		run_child(thp, seconds, rate, fds[1]);
	}
	close(fds[1]);
	if (read(fds[0], &res, sizeof(res)) != (ssize_t)sizeof(res))
		memset(&res, 0, sizeof(res));
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		failures++;	/* the child said why */
		printf("FAIL: thp=%d: the run ended with status %#x\n", thp, status);
	}
	if (strcmp(sys_read("kdamonds/nr_kdamonds"), "0"))
		fail("thp=%d: nr_kdamonds is %s after the process exited", thp, sys_read("kdamonds/nr_kdamonds"));
	share = res.managed ? 100.0 * (double)res.hot / (double)res.managed : 0;
	note("thp=%d: %.1f s at %d Hz asked, %.0f accesses/s: %ld snapshots (%.2f per second, %.3f s each waiting for "
	     "DAMON), %.1f regions per snapshot, %ld with no access seen",
	     thp, res.seconds, rate, res.seconds > 0 ? (double)res.bursts * burst_len / res.seconds : 0, res.snapshots,
	     res.seconds > 0 ? (double)res.snapshots / res.seconds : 0,
	     res.snapshots ? res.snapshot_s / (double)res.snapshots : 0,
	     res.snapshots ? (double)res.regions / (double)res.snapshots : 0, res.idle);
	note("thp=%d: %ld samples, %ld in managed memory, %ld in the hot set: %.1f%% (the hot set has %.1f%% of the "
	     "bytes and %.1f%% of the accesses)",
	     thp, res.samples, res.managed, res.hot, share, 100.0 * HOT_BYTES / ARR_BYTES, HOT_PERMILLE / 10.0);
	if (min_hot < 0)
		return;
	if (res.managed < seconds)
		fail("thp=%d: %ld samples in managed memory in %d s (at least one per second expected)", thp, res.managed,
		     seconds);
	else if (share < min_hot)
		fail("thp=%d: %.1f%% of the samples in the hot set, expected at least %d%%", thp, share, min_hot);
	/* one sample per snapshot: a page sampled again next time only as often as chance has it (Poisson, 4 sd) */
	note("thp=%d: %ld samples at the page of the one before; %.1f expected by chance", thp, res.repeats, res.chance);
	if ((double)res.repeats > res.chance + 4 * sqrt(res.chance) + 2)
		fail("thp=%d: %ld repeated samples, %.1f expected by chance", thp, res.repeats, res.chance);
}

/* ---- 3: killed ---- */

static void killed(void)
{
	int fds[2], status, i;
	char c;
	pid_t pid;

	if (pipe(fds)) {
		fail("pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	if ((pid = fork()) == 0) {
		char *env[] = { "TIERLAB_POLICY=lru", "TIERLAB_FAST_NODES=1", "TIERLAB_SLOW_NODES=0", "TIERLAB_CHUNKS=2",
				"TIERLAB_SAMPLER=damon", "TIERLAB_LOG=none", "TIERLAB_STRICT=1", NULL };
		void *p;

		close(fds[0]);
		if (tlrt_setup(env) || !(p = tlrt_alloc(8 * MiB, 0, 0x6000)))
			_exit(1);
		memset(p, 1, 8 * MiB);
		/* wait for the first tick to turn the kdamond on */
		for (i = 0; i < 5000 && strcmp(sys_read("kdamonds/0/state"), "on"); i++)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		if (write(fds[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1)
		fail("killed: the child did not start the sampler");
	close(fds[0]);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	for (i = 0; i < 5000 && strcmp(sys_read("kdamonds/0/state"), "off"); i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	note("killed: after SIGKILL the kdamond is %s after %d ms, nr_kdamonds %s", sys_read("kdamonds/0/state"), i,
	     sys_read("kdamonds/nr_kdamonds"));
	if (strcmp(sys_read("kdamonds/0/state"), "off") || strcmp(sys_read("kdamonds/nr_kdamonds"), "1"))
		fail("killed: expected the kdamond off and nr_kdamonds left at 1 (the stated limit)");
	if (sys_write("kdamonds/nr_kdamonds", "0") || strcmp(sys_read("kdamonds/nr_kdamonds"), "0"))
		fail("killed: cannot clean up the killed run's kdamond");
}

/* ---- 4: turned off by someone else ---- */

static void turned_off(void)
{
	int status;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		char *env[] = { "TIERLAB_POLICY=lru", "TIERLAB_FAST_NODES=1", "TIERLAB_SLOW_NODES=0", "TIERLAB_CHUNKS=2",
				"TIERLAB_SAMPLER=damon", "TIERLAB_LOG=none", "TIERLAB_STRICT=1", "TIERLAB_THP=0", NULL };
		volatile uint8_t *p;
		uint64_t before, after;
		double t;

		if (tlrt_setup(env) || !(p = tlrt_alloc(ARR_BYTES, 0, 0x7000)))
			_exit(1);
		/* pages come at first touch (region.c): only read, they would all be the zero page, which DAMON does not see */
		memset((void *)p, 1, ARR_BYTES);
		for (t = now_s(); now_s() < t + 3 || !tlrt_stat(RT_STAT_samples);) {
			burst(p);
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
			if (now_s() > t + 20)
				break;
		}
		if (!tlrt_stat(RT_STAT_samples))
			fail("turned off: no sample before");
		if (sys_write("kdamonds/0/state", "off"))
			fail("turned off: cannot write off");
		for (t = now_s(); now_s() < t + 1.5;) {
			burst(p);
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		}
		before = tlrt_stat(RT_STAT_samples);
		for (t = now_s(); now_s() < t + 2;) {
			burst(p);
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		}
		after = tlrt_stat(RT_STAT_samples);
		note("turned off: %llu samples before the kdamond was turned off, %llu in the 2 s from 1.5 s after; nr_kdamonds %s",
		     (unsigned long long)before, (unsigned long long)(after - before), sys_read("kdamonds/nr_kdamonds"));
		if (after != before)
			fail("turned off: %llu samples delivered from a stopped kdamond", (unsigned long long)(after - before));
		if (strcmp(sys_read("kdamonds/nr_kdamonds"), "0"))
			fail("turned off: nr_kdamonds is %s, expected 0 once the sampler gave up",
			     sys_read("kdamonds/nr_kdamonds"));
		tlrt_finish();
		_exit(failures ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		failures++;
		printf("FAIL: turned off: the run ended with status %#x\n", status);
	}
	if (strcmp(sys_read("kdamonds/nr_kdamonds"), "0")) {
		fail("turned off: nr_kdamonds is %s after the run", sys_read("kdamonds/nr_kdamonds"));
		sys_write("kdamonds/nr_kdamonds", "0");
	}
}

/* ---- 5: the sysfs layer ---- */

struct bounds {
	long n, outside, accessed;
	uintptr_t lo, hi;
};

static void in_bounds(void *arg, const struct tlrt_damon_region *r)
{
	struct bounds *b = arg;

	b->n++;
	b->outside += r->start < b->lo || r->end > b->hi;
	b->accessed += r->nr_accesses > 0;
}

/* Regions of a fresh snapshot (the second: the first may predate a commit) against [lo, hi). */
static struct bounds snapshot_in(uintptr_t lo, uintptr_t hi, volatile uint8_t *touch)
{
	struct bounds b = { .lo = lo, .hi = hi };

	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < 64 * MiB; i += 4096)
			touch[i]++;
		if (tlrt_damon_snapshot(ROOT))
			fail("sysfs: snapshot: %s", strerror(errno));
	}
	if (tlrt_damon_regions(ROOT, in_bounds, &b) < 0)
		fail("sysfs: regions unreadable");
	return b;
}

static void sysfs_layer(void)
{
	struct tlrt_damon_attrs a;
	struct bounds b;
	char why[300] = "";
	uint8_t *m = mmap(NULL, 128 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t lo, mid, hi;

	if (m == MAP_FAILED) {
		fail("sysfs: mmap: %s", strerror(errno));
		return;
	}
	madvise(m, 128 * MiB, MADV_NOHUGEPAGE);
	lo = (uintptr_t)m, mid = lo + 64 * MiB, hi = lo + 128 * MiB;
	if (tlrt_damon_check(ROOT, why, sizeof(why)) || tlrt_damon_create(ROOT, getpid(), why, sizeof(why))) {
		fail("sysfs: %s", why);
		return;
	}
	tlrt_damon_attrs_for(10, 64 * MiB, &a);
	if (tlrt_damon_watch(ROOT, &a, lo, mid, 0, why, sizeof(why)))
		fail("sysfs: %s", why);
	b = snapshot_in(lo, mid, m);
	note("sysfs: watching the first 64 MiB: %ld regions, %ld outside, %ld accessed", b.n, b.outside, b.accessed);
	if (!b.n || b.outside || !b.accessed)
		fail("sysfs: expected regions inside the range given, some accessed");
	if (tlrt_damon_watch(ROOT, &a, mid, hi, 1, why, sizeof(why)))
		fail("sysfs: %s", why);
	b = snapshot_in(mid, hi, m + 64 * MiB);
	note("sysfs: committed the second 64 MiB: %ld regions, %ld outside, %ld accessed", b.n, b.outside, b.accessed);
	if (!b.n || b.outside || !b.accessed)
		fail("sysfs: expected the regions moved into the range committed");
	a.update_us = 300000;
	if (tlrt_damon_watch(ROOT, &a, mid, hi, 1, why, sizeof(why)))
		fail("sysfs: %s", why);
	nanosleep(&(struct timespec){ 1, 0 }, NULL);
	b = snapshot_in(mid, hi, m + 64 * MiB);
	note("sysfs: with update_us 0.3 s, after 1 s: %ld regions, %ld outside the range given", b.n, b.outside);
	if (!b.outside)
		fail("sysfs: expected vaddr's ops update to replace the regions by the whole address space");
	if (tlrt_damon_release(ROOT) || strcmp(sys_read("kdamonds/nr_kdamonds"), "0"))
		fail("sysfs: release: nr_kdamonds %s", sys_read("kdamonds/nr_kdamonds"));
	munmap(m, 128 * MiB);
}

int main(int argc, char **argv)
{
	int seconds = 20, min_hot = 60, thp_too = 0, rate = 10;
	struct stat st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--min-hot") && i + 1 < argc)
			min_hot = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--burst") && i + 1 < argc)
			burst_len = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rate") && i + 1 < argc)
			rate = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--thp-too"))
			thp_too = 1;
		else {
			fprintf(stderr, "usage: damon-guest [--seconds N] [--rate HZ] [--burst N] [--min-hot PCT] [--thp-too]\n");
			return 2;
		}
	}
	if (stat(ROOT, &st)) {
		printf("SKIP: no DAMON sysfs interface (%s: %s)\n", ROOT, strerror(errno));
		return 77;
	}
	note("avail: nr_kdamonds %s at start", sys_read("kdamonds/nr_kdamonds"));
	if (strcmp(sys_read("kdamonds/nr_kdamonds"), "0")) {
		fail("nr_kdamonds is %s at boot", sys_read("kdamonds/nr_kdamonds"));
		return 1;
	}
	refuses_in_use();
	refuses_unprivileged();
	hot_cold(0, seconds, rate, min_hot);
	if (thp_too)
		hot_cold(1, seconds, rate, -1);
	killed();
	turned_off();
	sysfs_layer();
	if (failures) {
		printf("DAMON-GUEST: FAIL (%d failed checks)\n", failures);
		return 1;
	}
	printf("DAMON-GUEST: PASS\n");
	return 0;
}
