/*
 * Counter sets: libpfm4 turns the user's event strings into
 * perf_event_attr once; each run opens them on the corked child as perf
 * stat does (the leader disabled with enable_on_exec, everything with
 * inherit, times enabled/running in the read format), reads them after the
 * child was reaped and scales them. Whatever cannot be counted on this
 * machine is recorded with a reason and one warning, and never stops the
 * run: a result without cycles is still a result, a zero cycle count would
 * be a lie.
 */
#include "measure/counters.h"

#include <errno.h>
#include <inttypes.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/error.h"
#include "util/hash.h"
#include "store/result.h"
#include "util/array.h"
#include "util/strings.h"

/* Must match enum tl_counter_status. */
const char *const tl_counter_status_names[TL_COUNTER__COUNT] = {
	[TL_COUNTER_NOT_RUN] = "not-run",
	[TL_COUNTER_OK] = "ok",
	[TL_COUNTER_UNAVAILABLE] = "unavailable",
	[TL_COUNTER_FAILED] = "failed",
};

#define LONE_FORMAT (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID)
#define GROUP_FORMAT (LONE_FORMAT | PERF_FORMAT_GROUP)

/* ---- libpfm4 ---- */

static int pfm_state = 1;	/* 1: not tried; else pfm_initialize's result */

static int pfm_ready(void)
{
	if (pfm_state == 1)
		pfm_state = pfm_initialize();
	return pfm_state;
}

static int read_int_file(const char *path, int *out)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%d", out) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

/*
 * perf stat counts user and kernel mode when it may; an unprivileged user
 * under perf_event_paranoid >= 2 may only count user mode, and asking for
 * more would turn every event into EACCES.
 */
static int default_plm(void)
{
	int paranoid = 2;

	if (geteuid() == 0)
		return PFM_PLM0 | PFM_PLM3;
	read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	return paranoid <= 1 ? PFM_PLM0 | PFM_PLM3 : PFM_PLM3;
}

/* ---- warnings, once per event and process ---- */

static uint64_t warned[256];
static size_t nwarned;

static bool first_warning(const char *event)
{
	uint64_t h = tl_hash64(event, strlen(event));

	for (size_t i = 0; i < nwarned; i++)
		if (warned[i] == h)
			return false;
	if (nwarned < ARRAY_SIZE(warned))
		warned[nwarned++] = h;
	return true;
}

static void warn_once(const struct tl_counter_set *set, const char *event, const char *reason,
		      const char *fix)
{
	if (set->quiet || !first_warning(event))
		return;
	if (fix && *fix)
		warning("event '%s' unavailable: %s; %s", event, reason, fix);
	else
		warning("event '%s' unavailable: %s", event, reason);
}

/* ---- building the set ---- */

void tl_counters_init(struct tl_counter_set *set)
{
	memset(set, 0, sizeof(*set));
}

static void counter_free(struct tl_counter *c)
{
	free(c->event);
	free(c->encoding);
	free(c->reason);
	free(c->attr);
}

static int set_reason(struct tl_counter *c, enum tl_counter_status status, const char *reason)
{
	char *r = strdup(reason);

	if (!r)
		return -ENOMEM;
	free(c->reason);
	c->reason = r;
	c->status = status;
	return 0;
}

/* Fills c from the event string: encoded, or unavailable with libpfm4's reason. */
static int encode(struct tl_counter_set *set, struct tl_counter *c)
{
	struct perf_event_attr *attr;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL, reason[256];
	int rc;

	rc = pfm_ready();
	if (rc != PFM_SUCCESS) {
		snprintf(reason, sizeof(reason), "libpfm4 could not initialise: %s", pfm_strerror(rc));
		warn_once(set, c->event, reason, NULL);
		return set_reason(c, TL_COUNTER_UNAVAILABLE, reason);
	}
	attr = calloc(1, sizeof(*attr));
	if (!attr)
		return -ENOMEM;
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	rc = pfm_get_os_event_encoding(c->event, default_plm(), PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc == PFM_ERR_NOMEM) {
		free(attr);
		return -ENOMEM;
	}
	if (rc != PFM_SUCCESS) {
		free(attr);
		free(fstr);
		snprintf(reason, sizeof(reason), "libpfm4: %s", pfm_strerror(rc));
		warn_once(set, c->event, reason,
			  rc == PFM_ERR_NOTFOUND
				  ? "check the name against libpfm4's list (showevtinfo) for this CPU"
				  : NULL);
		return set_reason(c, TL_COUNTER_UNAVAILABLE, reason);
	}
	/* libpfm4 leaves size 0; the kernel wants the size of the struct we pass. */
	attr->size = sizeof(*attr);
	if (attr->config1 || attr->config2)
		rc = asprintf(&c->encoding, "type=%" PRIu32 " config=0x%" PRIx64 " config1=0x%" PRIx64
			      " config2=0x%" PRIx64 " %s", attr->type, (uint64_t)attr->config,
			      (uint64_t)attr->config1, (uint64_t)attr->config2, fstr ? fstr : "");
	else
		rc = asprintf(&c->encoding, "type=%" PRIu32 " config=0x%" PRIx64 " %s", attr->type,
			      (uint64_t)attr->config, fstr ? fstr : "");
	free(fstr);
	if (rc < 0) {
		c->encoding = NULL;
		free(attr);
		return -ENOMEM;
	}
	c->attr = attr;
	c->encoded = true;
	return 0;
}

static bool listed(const struct tl_counter_set *set, const char *event)
{
	return tl_counters_find(set, event) != NULL;
}

int tl_counters_add_group(struct tl_counter_set *set, const char *const *events, size_t n)
{
	struct tl_counter *v;
	int group = n > 1 ? set->ngroups : -1;
	int rc = 0;

	if (!n)
		return error("an event group needs at least one event");
	for (size_t i = 0; i < n; i++) {
		if (!events[i] || !*events[i])
			return error("empty event name");
		if (listed(set, events[i]))
			return error("event '%s' listed twice", events[i]);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(events[i], events[j]))
				return error("event '%s' listed twice", events[i]);
	}
	v = realloc(set->v, (set->n + n) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	set->v = v;
	for (size_t i = 0; i < n; i++) {
		struct tl_counter *c = &set->v[set->n + i];

		memset(c, 0, sizeof(*c));
		c->fd = -1;
		c->group = group;
		c->leader = (int)(set->n + i);
		c->event = strdup(events[i]);
		rc = c->event ? encode(set, c) : -ENOMEM;
		if (rc) {
			for (size_t j = 0; j <= i; j++)
				counter_free(&set->v[set->n + j]);
			return rc;
		}
	}
	set->n += n;
	if (n > 1)
		set->ngroups++;
	return 0;
}

int tl_counters_add(struct tl_counter_set *set, const char *event)
{
	return tl_counters_add_group(set, &event, 1);
}

/* Adds "{a,b,c}" (braces included) as a group. */
static int add_braced(struct tl_counter_set *set, const char *text, size_t len)
{
	char *inner = tl_strndup_trimmed(text + 1, len - 2), *save = NULL, *tok;
	const char **names = NULL;
	size_t n = 0;
	int rc = 0;

	if (!inner)
		return -ENOMEM;
	names = calloc(strlen(inner) / 2 + 2, sizeof(*names));
	if (!names) {
		rc = -ENOMEM;
		goto free_inner;
	}
	/* strtok_r would skip empty items, and "{a,,b}" is a mistake worth reporting. */
	for (tok = inner;; tok = save + 1) {
		save = strchr(tok, ',');
		if (save)
			*save = '\0';
		tok = tl_trim(tok);
		if (!*tok) {
			rc = error("empty event name in group '%.*s'", (int)len, text);
			goto free_names;
		}
		names[n++] = tok;
		if (!save)
			break;
	}
	rc = tl_counters_add_group(set, names, n);
free_names:
	free(names);
free_inner:
	free(inner);
	return rc;
}

static int add_item(struct tl_counter_set *set, const char *item, size_t len)
{
	char *name;
	int rc;

	item = tl_trim_span(item, &len);
	if (!len)
		return error("empty event name");
	if (*item == '{' || item[len - 1] == '}' || memchr(item, '{', len) || memchr(item, '}', len)) {
		if (len < 2 || *item != '{' || item[len - 1] != '}' ||
		    memchr(item + 1, '{', len - 2) || memchr(item + 1, '}', len - 2))
			return error("unbalanced braces in event group '%.*s'", (int)len, item);
		return add_braced(set, item, len);
	}
	if (memchr(item, ',', len))
		return error("event '%.*s': a comma separates events; group them as {a,b}", (int)len,
			     item);
	name = strndup(item, len);
	if (!name)
		return -ENOMEM;
	rc = tl_counters_add(set, name);
	free(name);
	return rc;
}

int tl_counters_add_list(struct tl_counter_set *set, const char *const *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = add_item(set, items[i], strlen(items[i]));

		if (rc)
			return rc;
	}
	return 0;
}

int tl_events_split(const char *text, int (*item)(const char *s, size_t n, void *ctx), void *ctx)
{
	const char *start = text;
	int depth = 0;

	for (const char *p = text; *p; p++) {
		depth += (*p == '{') - (*p == '}');
		if (depth < 0)
			return -EINVAL;
	}
	if (depth)
		return -EINVAL;
	for (const char *p = text;; p++) {
		depth += (*p == '{') - (*p == '}');
		if (!*p || (*p == ',' && !depth)) {
			int rc = item(start, (size_t)(p - start), ctx);

			if (rc || !*p)
				return rc;
			start = p + 1;
		}
	}
}

static int parse_item(const char *s, size_t n, void *set)
{
	return add_item(set, s, n);
}

int tl_counters_parse(struct tl_counter_set *set, const char *text)
{
	int rc = tl_events_split(text, parse_item, set);

	return rc == -EINVAL ? error("unbalanced braces in event list '%s'", text) : rc;
}

const struct tl_counter *tl_counters_find(const struct tl_counter_set *set, const char *event)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i].event, event))
			return &set->v[i];
	return NULL;
}

/* ---- why an event cannot be counted ---- */

/* A CPU PMU shows up in sysfs as "cpu" (or "cpu_core"/"cpu_atom" on hybrid parts, "armv8_*"...). */
static bool have_cpu_pmu(void)
{
	static const char *const names[] = { "cpu", "cpu_core", "cpu_atom", "armv8_pmuv3", "armv8_pmuv3_0" };
	struct stat sb;
	char path[128];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s", names[i]);
		if (!stat(path, &sb))
			return true;
	}
	return false;
}

enum tl_counter_status tl_counters_explain(int err, uint32_t type, char *reason, size_t rlen,
					   char *fix, size_t flen)
{
	bool hw = type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
	enum tl_counter_status status = TL_COUNTER_UNAVAILABLE;
	const char *why, *how = "";
	int paranoid = -1;

	if (err < 0)
		err = -err;
	switch (err) {
	case ENOENT:
		if (hw && !have_cpu_pmu())
			why = "no hardware PMU in this VM";
		else if (hw)
			why = "this CPU's PMU has no such event";
		else
			why = "the kernel has no such event";
		break;
	case EOPNOTSUPP:
		why = "not supported by this PMU or kernel";
		break;
	case EACCES:
	case EPERM:
		read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
		why = "not permitted";
		how = "set /proc/sys/kernel/perf_event_paranoid to 1 or lower, or run as root";
		break;
	case EINVAL:
		why = "invalid for this kernel or PMU";
		break;
	case ENODEV:
		why = "no such PMU on this machine";
		break;
	default:
		why = "cannot be opened";
		status = TL_COUNTER_FAILED;
		break;
	}
	if (paranoid >= 0)
		snprintf(reason, rlen, "%s (perf_event_open: %s; perf_event_paranoid is %d)", why,
			 strerror(err), paranoid);
	else
		snprintf(reason, rlen, "%s (perf_event_open: %s)", why, strerror(err));
	if (flen)
		snprintf(fix, flen, "%s", how);
	return status;
}

/* ---- one run ---- */

static void reset_results(struct tl_counter *c)
{
	c->value = 0;
	c->raw = c->enabled_ns = c->running_ns = 0;
	c->multiplex_pct = 0;
	c->id = 0;
	c->group_read = false;
	if (c->encoded) {
		c->status = TL_COUNTER_NOT_RUN;
		free(c->reason);
		c->reason = NULL;
	}
}

static int mark_unopened(struct tl_counter_set *set, struct tl_counter *c, int err)
{
	const struct perf_event_attr *attr = c->attr;
	char reason[256], fix[128];
	enum tl_counter_status status;

	status = tl_counters_explain(err, attr->type, reason, sizeof(reason), fix, sizeof(fix));
	warn_once(set, c->event, reason, fix);
	return set_reason(c, status, reason);
}

static int open_one(struct tl_counter *c, pid_t pid, int leader_fd, bool lead, bool group)
{
	struct perf_event_attr attr = *(const struct perf_event_attr *)c->attr;

	attr.size = sizeof(attr);
	attr.inherit = 1;
	/* Members follow their leader: only it waits for the exec. */
	attr.disabled = lead;
	attr.enable_on_exec = lead;
	attr.read_format = group ? GROUP_FORMAT : LONE_FORMAT;
	return (int)perf_event_open(&attr, pid, -1, leader_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Opens the counters v[first..first+n) as one group (n == 1: alone). */
static int open_group(struct tl_counter_set *set, size_t first, size_t n, pid_t pid)
{
	bool group = n > 1;
	int leader = -1;
	int rc;

	for (size_t i = first; i < first + n; i++) {
		struct tl_counter *c = &set->v[i];
		int fd;

		if (!c->encoded)
			continue;
		fd = open_one(c, pid, leader < 0 ? -1 : set->v[leader].fd, leader < 0, group);
		/* Kernels before 6.x refuse PERF_FORMAT_GROUP with inherit: read members one by one. */
		if (fd < 0 && errno == EINVAL && group && leader < 0) {
			fd = open_one(c, pid, -1, true, false);
			if (fd >= 0)
				group = false;
			else
				errno = EINVAL;
		}
		if (fd < 0) {
			rc = mark_unopened(set, c, errno);
			if (rc)
				return rc;
			continue;
		}
		if (ioctl(fd, PERF_EVENT_IOC_ID, &c->id) < 0)
			c->id = 0;
		c->fd = fd;
		c->status = TL_COUNTER_OK;
		if (leader < 0)
			leader = (int)i;
		c->leader = leader;
		c->group_read = group;
	}
	return 0;
}

int tl_counters_open(struct tl_counter_set *set, pid_t pid)
{
	size_t i = 0;
	int rc;

	if (set->pid)
		return error("counters are already open on process %d", (int)set->pid);
	for (size_t k = 0; k < set->n; k++)
		reset_results(&set->v[k]);
	set->pid = pid;
	while (i < set->n) {
		size_t n = 1;

		if (set->v[i].group >= 0)
			while (i + n < set->n && set->v[i + n].group == set->v[i].group)
				n++;
		rc = open_group(set, i, n, pid);
		if (rc) {
			tl_counters_close(set);
			return rc;
		}
		i += n;
	}
	return 0;
}

static void scale(struct tl_counter *c, uint64_t raw, uint64_t enabled, uint64_t running)
{
	c->raw = raw;
	c->enabled_ns = enabled;
	c->running_ns = running;
	if (!enabled || !running) {
		/* perf stat's "<not counted>": no time on the PMU means no count, not a zero. */
		set_reason(c, TL_COUNTER_FAILED,
			   !enabled ? "not counted: the workload never started"
				    : "not counted: never scheduled on the PMU (too many events?)");
		return;
	}
	c->value = running == enabled ? (double)raw : (double)raw * ((double)enabled / running);
	c->multiplex_pct = 100.0 * running / enabled;
	c->status = TL_COUNTER_OK;
}

static void read_failed(struct tl_counter *c, int err)
{
	char reason[160];

	snprintf(reason, sizeof(reason), "reading the counter failed: %s", strerror(err));
	set_reason(c, TL_COUNTER_FAILED, reason);
}

/* Reads a group through its leader at index l: { nr, enabled, running, { value, id }[nr] }. */
static void read_group(struct tl_counter_set *set, size_t l)
{
	uint64_t buf[3 + 2 * 64];
	size_t members = 0;
	ssize_t got;

	for (size_t i = l; i < set->n && set->v[i].group == set->v[l].group; i++)
		if (set->v[i].fd >= 0)
			members++;
	got = members <= 64 ? read(set->v[l].fd, buf, sizeof(buf)) : -1;
	if (members > 64)
		errno = E2BIG;
	for (size_t i = l; i < set->n && set->v[i].group == set->v[l].group; i++) {
		struct tl_counter *c = &set->v[i];
		bool found = false;

		if (c->fd < 0)
			continue;
		if (got < (ssize_t)(3 * sizeof(uint64_t)) || got < (ssize_t)((3 + 2 * buf[0]) * sizeof(uint64_t))) {
			read_failed(c, got < 0 ? errno : EIO);
			continue;
		}
		for (uint64_t k = 0; k < buf[0]; k++)
			if (buf[3 + 2 * k + 1] == c->id) {
				scale(c, buf[3 + 2 * k], buf[1], buf[2]);
				found = true;
				break;
			}
		if (!found)
			read_failed(c, ENOENT);
	}
}

int tl_counters_read(struct tl_counter_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		struct tl_counter *c = &set->v[i];
		uint64_t buf[4];
		ssize_t got;

		if (c->fd < 0)
			continue;
		if (c->group_read) {
			if (c->leader == (int)i)
				read_group(set, i);
			continue;
		}
		got = read(c->fd, buf, sizeof(buf));
		if (got == (ssize_t)sizeof(buf))
			scale(c, buf[0], buf[1], buf[2]);
		else
			read_failed(c, got < 0 ? errno : EIO);
	}
	tl_counters_close(set);
	return 0;
}

void tl_counters_close(struct tl_counter_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		struct tl_counter *c = &set->v[i];

		if (c->fd >= 0) {
			close(c->fd);
			c->fd = -1;
			/* Opened but never read: the run was aborted. */
			if (c->status == TL_COUNTER_OK && !c->enabled_ns && !c->raw)
				c->status = TL_COUNTER_NOT_RUN;
		}
	}
	set->pid = 0;
}

void tl_counters_release(struct tl_counter_set *set)
{
	tl_counters_close(set);
	for (size_t i = 0; i < set->n; i++)
		counter_free(&set->v[i]);
	free(set->v);
	tl_counters_init(set);
}

/* ---- the run record ---- */

int tl_counters_record(const struct tl_counter_set *set, struct tl_run_record *r)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct tl_counter *c = &set->v[i];
		bool ok = c->status == TL_COUNTER_OK;
		struct tl_counter_row row = {
			.event = c->event,
			.encoding = c->encoding,
			.status = tl_counter_status_names[c->status],
			.reason = c->reason,
			/* never a zero for what was not counted: no value at all */
			.has_value = ok,
			.value = c->value,
			.has_times = ok || c->enabled_ns,
			.enabled_ns = c->enabled_ns,
			.running_ns = c->running_ns,
			.has_multiplex = ok,
			.multiplex_pct = c->multiplex_pct,
		};
		int rc;

		if (c->status == TL_COUNTER_NOT_RUN)
			continue;
		rc = tl_record_add_counter(r, &row);
		if (rc)
			return rc;
	}
	return 0;
}
