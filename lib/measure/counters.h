/*
 * Performance counters of a run, the way `perf stat` counts a workload:
 * events named with libpfm4 strings ("[pmu::]event[:umask]", or the perf
 * names "cycles", "task-clock", "page-faults", ...) are encoded once into a
 * counter set; for each run the set is opened on the corked child
 * (disabled, enable_on_exec, inherit to its threads and children), read
 * after the child was reaped, and scaled by time enabled / time running.
 *
 * An event that cannot be counted here (libpfm4 does not know it, no PMU in
 * this VM, perf_event_paranoid, ...) is marked unavailable with its reason
 * and warned about once per process, with the fix when there is one. It never
 * gets a value (never a zero) and never makes a function below fail: the
 * run goes on with the counters that work.
 *
 * Groups ("{instructions,cache-misses}", or tl_counters_add_group) are
 * scheduled together on the PMU, so their ratios are taken over the same
 * time. A member that cannot be opened is left out of the group; when the
 * leader cannot, the next member leads.
 *
 * Wiring into the runner (lib/run/runner.h) takes three hooks:
 *   started(pid)  -> tl_counters_open(set, pid)      (returns 0: never aborts)
 *   finished(pid) -> tl_counters_read(set)
 * and then tl_counters_record(set, record) adds the rows to the run record.
 *
 * A set is not thread-safe. Reusing it for the next run is fine: open
 * clears the previous run's values.
 */
#ifndef TL_COUNTERS_H
#define TL_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tl_run_record;

enum tl_counter_status {
	TL_COUNTER_NOT_RUN,	/* encoded, not opened yet (or the open failed before this one) */
	TL_COUNTER_OK,		/* counted: value is valid */
	TL_COUNTER_UNAVAILABLE,	/* this machine cannot count it: no such event or PMU, not permitted */
	TL_COUNTER_FAILED,	/* opening or reading failed for another reason */
	TL_COUNTER__COUNT
};
/* Must match enum tl_counter_status: "not-run", "ok", "unavailable", "failed". */
extern const char *const tl_counter_status_names[TL_COUNTER__COUNT];

struct tl_counter {
	char *event;		/* as the user wrote it */
	char *encoding;		/* "type=1 config=0x2 perf::PERF_COUNT_SW_PAGE_FAULTS:u=1:k=1...", NULL if not encoded */
	int group;		/* index of its group, -1 when it is counted alone */
	enum tl_counter_status status;
	char *reason;		/* why, when status is unavailable or failed; else NULL */
	double value;		/* raw * enabled / running; valid when status is ok */
	uint64_t raw;		/* the count as read */
	uint64_t enabled_ns, running_ns;
	double multiplex_pct;	/* 100 * running / enabled (100: never multiplexed); 0 when enabled is 0 */

	/* Private to counters.c. */
	bool encoded;		/* libpfm4 produced an encoding; false: permanently unavailable */
	bool group_read;	/* opened with PERF_FORMAT_GROUP: read through its leader */
	int leader;		/* index of the counter leading its open group; its own index when alone */
	int fd;
	uint64_t id;
	void *attr;		/* struct perf_event_attr, kept opaque here */
};

struct tl_counter_set {
	struct tl_counter *v;
	size_t n;
	int ngroups;
	pid_t pid;		/* the process the counters were opened on, 0 when closed */
	bool quiet;		/* no warnings (tests, `probe` listing availability) */
};

/* Zeroes the set. */
void tl_counters_init(struct tl_counter_set *set);

/*
 * Adds one event, encoded now with libpfm4 (initialised on first use).
 * An event libpfm4 cannot encode is added as unavailable with the reason
 * (and one warning): that is not an error. -EINVAL for an empty name,
 * -ENOMEM; the set is unchanged on error.
 */
int tl_counters_add(struct tl_counter_set *set, const char *event);

/* Adds events counted as one group (n >= 1; a group of one is a lone event). */
int tl_counters_add_group(struct tl_counter_set *set, const char *const *events, size_t n);

/*
 * Adds a list as a spec's `events:` holds it: each item is an event name or
 * a group written as "{a,b,...}" (the form a spec's `{group: [a, b]}` takes
 * in struct tl_spec's events list). -EINVAL (with an error line) for an
 * unbalanced brace or an empty name.
 */
int tl_counters_add_list(struct tl_counter_set *set, const char *const *items, size_t n);

/*
 * The --events grammar, "cycles,{instructions,cache-misses}": items at the
 * commas outside braces, a group one item with its braces. -EINVAL, with
 * nothing called, when a '}' comes before its '{' or a '{' is left open;
 * else item() for each (blanks and all, maybe empty), stopping at the
 * first that returns nonzero, which is returned.
 */
int tl_events_split(const char *text, int (*item)(const char *s, size_t n, void *ctx), void *ctx);

/* Adds a list in the --events grammar. */
int tl_counters_parse(struct tl_counter_set *set, const char *text);

/*
 * Opens every encoded counter on pid, which must not have exec'ed yet (the
 * runner's started hook): counting starts at its exec and follows its
 * threads and children. Clears the previous run's results first. Counters
 * that cannot be opened are marked (and warned about once); the others are
 * opened all the same. Returns 0, or -EINVAL when the set is already open.
 */
int tl_counters_open(struct tl_counter_set *set, pid_t pid);

/*
 * Reads and closes the counters after the child was reaped (the counts of
 * its exited threads and children are folded in by then). Sets value,
 * enabled/running and multiplex_pct of each open counter. Returns 0; a
 * counter whose read failed is marked failed. Safe on a closed set.
 */
int tl_counters_read(struct tl_counter_set *set);

/* Closes without reading (an aborted run); safe on a closed set. */
void tl_counters_close(struct tl_counter_set *set);

/* The counter for an event name as written, or NULL. */
const struct tl_counter *tl_counters_find(const struct tl_counter_set *set, const char *event);

/* Adds one counters row per counter to the run record; counters not run add none. 0 or -ENOMEM. */
int tl_counters_record(const struct tl_counter_set *set, struct tl_run_record *r);

/* Closes and frees everything in the set; safe on a zeroed set. */
void tl_counters_release(struct tl_counter_set *set);

/*
 * Why an event cannot be counted, for an errno from perf_event_open on an
 * event of perf type `type`: a short reason for the store ("no hardware
 * PMU in this VM (perf_event_open: No such file or directory)") and, when
 * there is one, the fix to apply. Returns the status it deserves
 * (unavailable or failed). Exposed for tests and `tierlab probe`.
 */
enum tl_counter_status tl_counters_explain(int err, uint32_t type, char *reason, size_t rlen,
					   char *fix, size_t flen);

#endif
