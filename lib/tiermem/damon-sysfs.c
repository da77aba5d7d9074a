/*
 * DAMON's sysfs interface (Documentation/admin-guide/mm/damon/usage.rst),
 * as the damon sampler drives it: one kdamond (always kdamonds/0, since we
 * only start where nr_kdamonds was 0), one context of vaddr operations,
 * one target (our pid) whose one region is the managed span, and one DAMOS
 * scheme of action "stat" that matches every region, so that writing
 * "update_schemes_tried_regions" to the kdamond's state makes DAMON publish
 * the regions of an aggregation under schemes/0/tried_regions/N/.
 *
 * Every file is opened, read or written, and closed again: the
 * tried_regions directories are recreated at each update anyway, and no
 * descriptor outlives a call (nothing to close at fork or exec).
 */
#include "tiermem/damon.h"
#include "tiermem/sampler-uffd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KD "/kdamonds/0"
#define CTX KD "/contexts/0"
#define TARGET CTX "/targets/0"
#define SCHEME CTX "/schemes/0"
#define TRIED SCHEME "/tried_regions/"

/*
 * Samples per aggregation: DAMON's own default (5 ms in 100 ms). A
 * region's nr_accesses counts the sampling intervals in which it was seen
 * accessed, so this is also its maximum.
 */
#define SAMPLES_PER_AGGR 20
/* Below this the kdamond's own work (one page-table check per region and interval) grows out of proportion. */
#define MIN_SAMPLE_US 1000UL
/*
 * vaddr's "ops update" (every update_us) replaces the target's regions by
 * the three big areas of the whole address space (tests/guest/damon-guest.c
 * shows it); monitoring only the span needs it not to run: once a day, and
 * the sampler gives the span again when it finds regions outside.
 */
#define UPDATE_US 86400000000UL
/*
 * Regions: DAMON's default minimum; at most one per 2 MiB of span (the
 * runtime's default chunk: finer regions on average tell a chunk policy
 * nothing more, and each costs kdamond work and three file reads per
 * snapshot), within DAMON's default maximum of 1000.
 */
#define MIN_REGIONS 10UL
#define MAX_REGIONS 1000UL
#define BYTES_PER_REGION (2UL << 20)
#define BUSY_TRIES 1000

void tlrt_damon_attrs_for(double rate_hz, size_t span_len, struct tlrt_damon_attrs *a)
{
	unsigned long aggr = rate_hz > 0 ? (unsigned long)(1e6 / rate_hz) : 100000;
	unsigned long regions = span_len / BYTES_PER_REGION;

	a->sample_us = aggr / SAMPLES_PER_AGGR;
	if (a->sample_us < MIN_SAMPLE_US)
		a->sample_us = MIN_SAMPLE_US;
	a->aggr_us = aggr < a->sample_us ? a->sample_us : aggr;
	a->update_us = UPDATE_US;
	a->min_regions = MIN_REGIONS;
	a->max_regions = regions < MIN_REGIONS ? MIN_REGIONS : regions > MAX_REGIONS ? MAX_REGIONS : regions;
}

/* root + rel into path; -ENAMETOOLONG when it does not fit. */
static int path_of(char *path, size_t cap, const char *root, const char *rel, long index, const char *leaf)
{
	size_t at = tlrt_fmt_str(path, cap, 0, root);

	at = tlrt_fmt_str(path, cap, at, rel);
	if (index >= 0)
		at = tlrt_fmt_ulong(path, cap, at, (unsigned long)index);
	if (leaf)
		at = tlrt_fmt_str(path, cap, at, leaf);
	return at + 1 < cap ? 0 : -ENAMETOOLONG;
}

/*
 * DAMON's sysfs files answer EBUSY while another user of the interface
 * holds its lock (a kdamond holds it for a whole tried-regions update, and
 * briefly at every sampling interval): try again, for up to a second.
 */
static int busy_again(int err, int *tries)
{
	if (err != -EBUSY || ++*tries > BUSY_TRIES)
		return 0;
	nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	return 1;
}

static int put_path(const char *path, const char *val)
{
	size_t len = strlen(val);
	int fd, err, tries = 0;

	/* O_TRUNC: as `echo` does; sysfs ignores it, a plain file in a test needs it */
	if ((fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0)
		return -errno;
	do {
		ssize_t n = write(fd, val, len);

		err = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	} while (busy_again(err, &tries));
	close(fd);
	return err;
}

static int put(const char *root, const char *rel, const char *val)
{
	char path[512];
	int err = path_of(path, sizeof(path), root, rel, -1, NULL);

	return err ? err : put_path(path, val);
}

static int put_ulong(const char *root, const char *rel, unsigned long v)
{
	char num[24];

	tlrt_fmt_ulong(num, sizeof(num), 0, v);
	return put(root, rel, num);
}

/* The file's text, NUL-terminated, trailing newline dropped; 0 or -errno. */
static int get_path(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd, tries = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	while ((n = pread(fd, buf, cap - 1, 0)) < 0 && busy_again(-errno, &tries))
		;
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int get_u64_path(const char *path, uint64_t *v)
{
	char buf[32];
	int err = get_path(path, buf, sizeof(buf));

	return err ? err : parse_u64(buf, v);
}

static int get_u64(const char *root, const char *rel, uint64_t *v)
{
	char path[512];
	int err = path_of(path, sizeof(path), root, rel, -1, NULL);

	return err ? err : get_u64_path(path, v);
}

/* "what root+rel: strerror" into why; returns err. */
static int reason(char *why, size_t whylen, const char *what, const char *root, const char *rel, int err)
{
	size_t at = tlrt_fmt_str(why, whylen, 0, what);

	if (root) {
		at = tlrt_fmt_str(why, whylen, at, " ");
		at = tlrt_fmt_str(why, whylen, at, root);
		at = tlrt_fmt_str(why, whylen, at, rel);
	}
	at = tlrt_fmt_str(why, whylen, at, ": ");
	tlrt_fmt_str(why, whylen, at, strerror(-err));
	return err;
}

/* Whether a list of names, one a line (avail_operations), holds name. */
static int has_line(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *s = list; *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + strlen(s))
		if (!strncmp(s, name, n) && (s[n] == '\n' || s[n] == '\0'))
			return 1;
	return 0;
}

int tlrt_damon_check(const char *root, char *why, size_t whylen)
{
	char path[512], ops[128];
	struct stat st;
	uint64_t nr;
	size_t at;
	int err;

	if (stat(root, &st))
		return reason(why, whylen, "no DAMON sysfs interface here (needs CONFIG_DAMON_SYSFS):", root, "", -errno);
	if ((err = path_of(path, sizeof(path), root, "/kdamonds/nr_kdamonds", -1, NULL)))
		return reason(why, whylen, "path too long:", root, "", err);
	if (access(path, R_OK | W_OK))
		return reason(why, whylen, "cannot write", root, "/kdamonds/nr_kdamonds (needs root)", -errno);
	if ((err = get_u64_path(path, &nr)))
		return reason(why, whylen, "cannot read", root, "/kdamonds/nr_kdamonds", err);
	if (!nr)
		return 0;
	/*
	 * Not ours to touch: writing nr_kdamonds would recreate the directory
	 * of every kdamond there is. Only read what the first one offers, for
	 * a better reason.
	 */
	at = tlrt_fmt_str(why, whylen, 0, "DAMON is in use on this machine (nr_kdamonds is ");
	at = tlrt_fmt_ulong(why, whylen, at, (unsigned long)nr);
	at = tlrt_fmt_str(why, whylen, at, "; the sampler needs it 0, as writing it recreates every kdamond)");
	if (!path_of(path, sizeof(path), root, CTX "/avail_operations", -1, NULL) &&
	    !get_path(path, ops, sizeof(ops)) && !has_line(ops, "vaddr"))
		tlrt_fmt_str(why, whylen, at, ", and this kernel has no DAMON vaddr operations");
	return -EBUSY;
}

/*
 * The scheme: action "stat" does nothing to memory; the access pattern
 * must be given maxima, or its zero defaults match nothing. Quotas 0 mean
 * none; watermark metric "none" means always active; apply_interval_us 0
 * means every aggregation.
 */
static const struct {
	const char *rel, *val;
} setup[] = {
	{ CTX "/operations", "vaddr" },
	{ CTX "/targets/nr_targets", "1" },
	{ TARGET "/regions/nr_regions", "1" },
	{ CTX "/schemes/nr_schemes", "1" },
	{ SCHEME "/action", "stat" },
	{ SCHEME "/access_pattern/sz/min", "0" },
	{ SCHEME "/access_pattern/sz/max", "18446744073709551615" },
	{ SCHEME "/access_pattern/nr_accesses/min", "0" },
	{ SCHEME "/access_pattern/nr_accesses/max", "4294967295" },
	{ SCHEME "/access_pattern/age/min", "0" },
	{ SCHEME "/access_pattern/age/max", "4294967295" },
};

int tlrt_damon_create(const char *root, pid_t pid, char *why, size_t whylen)
{
	char path[512], ops[128];
	int err;

	if ((err = put(root, "/kdamonds/nr_kdamonds", "1")))
		return reason(why, whylen, "cannot create a kdamond: write 1 to", root, "/kdamonds/nr_kdamonds", err);
	/* from here on kdamonds/0 is ours: every failure removes it again */
	if ((err = put(root, KD "/contexts/nr_contexts", "1"))) {
		reason(why, whylen, "cannot configure DAMON:", root, KD "/contexts/nr_contexts", err);
		goto undo;
	}
	if ((err = path_of(path, sizeof(path), root, CTX "/avail_operations", -1, NULL)) ||
	    (err = get_path(path, ops, sizeof(ops)))) {
		reason(why, whylen, "cannot tell which DAMON operations this kernel has:", root, CTX "/avail_operations",
		       err);
		goto undo;
	}
	if (!has_line(ops, "vaddr")) {
		tlrt_fmt_str(why, whylen, 0, "this kernel's DAMON has no vaddr operations (needs CONFIG_DAMON_VADDR)");
		err = -EOPNOTSUPP;
		goto undo;
	}
	for (size_t i = 0; i < sizeof(setup) / sizeof(setup[0]); i++)
		if ((err = put(root, setup[i].rel, setup[i].val))) {
			reason(why, whylen, "cannot configure DAMON:", root, setup[i].rel, err);
			goto undo;
		}
	if ((err = put_ulong(root, TARGET "/pid_target", (unsigned long)pid))) {
		reason(why, whylen, "cannot configure DAMON:", root, TARGET "/pid_target", err);
		goto undo;
	}
	return 0;
undo:
	tlrt_damon_release(root);
	return err;
}

int tlrt_damon_watch(const char *root, const struct tlrt_damon_attrs *a, uintptr_t start, uintptr_t end,
		     int running, char *why, size_t whylen)
{
	const struct {
		const char *rel;
		unsigned long v;
	} attrs[] = {
		{ CTX "/monitoring_attrs/intervals/sample_us", a->sample_us },
		{ CTX "/monitoring_attrs/intervals/aggr_us", a->aggr_us },
		{ CTX "/monitoring_attrs/intervals/update_us", a->update_us },
		{ CTX "/monitoring_attrs/nr_regions/min", a->min_regions },
		{ CTX "/monitoring_attrs/nr_regions/max", a->max_regions },
		{ TARGET "/regions/0/start", start },
		{ TARGET "/regions/0/end", end },
	};
	int err;

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		if ((err = put_ulong(root, attrs[i].rel, attrs[i].v)))
			return reason(why, whylen, "cannot configure DAMON:", root, attrs[i].rel, err);
	if ((err = put(root, KD "/state", running ? "commit" : "on")))
		return reason(why, whylen, running ? "DAMON refused the new region: commit to" : "DAMON did not start: on to",
			      root, KD "/state", err);
	return 0;
}

int tlrt_damon_snapshot(const char *root)
{
	return put(root, KD "/state", "update_schemes_tried_regions");
}

int tlrt_damon_stopped(const char *root)
{
	char path[512], state[16];

	return !path_of(path, sizeof(path), root, KD "/state", -1, NULL) && !get_path(path, state, sizeof(state)) &&
	       !strcmp(state, "off");
}

long tlrt_damon_regions(const char *root, void (*fn)(void *arg, const struct tlrt_damon_region *r), void *arg)
{
	char path[512];
	long i;

	for (i = 0;; i++) {
		struct tlrt_damon_region r;
		uint64_t v[3];
		static const char *const leaf[3] = { "/start", "/end", "/nr_accesses" };
		int err;

		for (int k = 0; k < 3; k++) {
			if ((err = path_of(path, sizeof(path), root, TRIED, i, leaf[k])))
				return err;
			err = get_u64_path(path, &v[k]);
			if (err == -ENOENT && k == 0)
				return i;	/* past the last region */
			if (err)
				return err;
		}
		if (v[1] < v[0] || v[2] > UINT32_MAX)
			return -EINVAL;
		r = (struct tlrt_damon_region){ .start = v[0], .end = v[1], .nr_accesses = (uint32_t)v[2] };
		fn(arg, &r);
	}
}

int tlrt_damon_release(const char *root)
{
	uint64_t nr = 1;
	int err;

	/* "off" fails when the kdamond is not running (never started, or it stopped): nothing to do then */
	put(root, KD "/state", "off");
	if ((err = put(root, "/kdamonds/nr_kdamonds", "0")))
		return err;
	if ((err = get_u64(root, "/kdamonds/nr_kdamonds", &nr)))
		return err;
	return nr ? -EBUSY : 0;
}
