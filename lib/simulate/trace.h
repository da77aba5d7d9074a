/*
 * A trace: what one run's runtime recorded in log mode (tiermem-PID.log,
 * docs/runtime.md), held in memory for replay. Per process: the
 * parameters line (P), the managed allocations by seq, and the events in
 * the order the runtime handled them: allocations, frees and samples.
 * Samples are resolved at load to (allocation, offset), so a replay at any
 * chunk size turns them into chunk ids with one division. What the run
 * decided (each sample's chunk and hit, each placement and migration) is
 * kept too, to check a replay against it.
 *
 * A trace file (docs/simulate.md) is the logs of a run's processes, each
 * after a line "T<TAB>pid", under a first line "# tierlab trace 1"; a bare
 * tiermem-PID.log is a trace of one process.
 */
#ifndef TL_SIMULATE_TRACE_H
#define TL_SIMULATE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TL_TRACE_MAGIC "# tierlab trace 1"
#define TL_TRACE_NONE UINT32_MAX
#define TL_TRACE_MAX_ALLOCS (1U << 24)	/* allocation seqs a trace may use */

enum tl_trace_kind { TL_EV_ALLOC, TL_EV_FREE, TL_EV_SAMPLE };

/* 24 bytes: the replay's inner loop walks these. */
struct tl_trace_event {
	uint64_t t_ns;
	uint64_t off;		/* sample: byte offset in its allocation's 2 MiB units (maybe past its last chunk) */
	uint32_t seq;		/* alloc/free: the allocation; sample: it, or TL_TRACE_NONE outside managed memory */
	uint8_t kind;		/* enum tl_trace_kind */
	uint8_t hit;		/* sample: as recorded */
	uint16_t pad;
};

struct tl_trace_alloc {
	uint64_t t_ns, addr, bytes;
	uint32_t first_chunk, nchunks;	/* as recorded */
	char *callsite;			/* module+0xoff, or NULL */
	bool freed;
};

/* A recorded placement or migration (M). */
struct tl_trace_move {
	uint64_t bytes;
	uint64_t start_ns, end_ns;	/* when it ran; start_ns 0 in logs from before it was written */
	uint32_t chunk;
	uint8_t dir;		/* enum tl_direction */
	uint8_t ok;
};

/* The P line: how the runtime was set up (docs/runtime.md). */
struct tl_trace_params {
	bool known;		/* a P line was seen (logs before it have none) */
	uint64_t reserve_bytes;
	uint32_t nunits, max_chunks;
	uint64_t chunk_size;
	uint32_t budget_chunks;
	double dynamic_fraction;
	uint32_t window;
	double rate_hz;
	uint64_t threshold;
	char *policy, *args;	/* args NULL when none */
	double *fractions;
	uint32_t nfractions;
};

struct tl_trace_proc {
	int pid;
	struct tl_trace_params p;
	struct tl_trace_alloc *allocs;	/* by seq */
	uint32_t nallocs;
	struct tl_trace_event *ev;
	size_t nev, nsamples;
	int32_t *chunks;		/* per event, the chunk the runtime logged for a sample (-1 outside) */
	uint64_t *drained;		/* per event: when the drain that handled it began (D), 0 if unknown */
	struct tl_trace_move *moves;
	size_t nmoves;
	uint64_t t_first, t_last;
	uint64_t peak_bytes;		/* most bytes live in managed allocations at once */
};

struct tl_trace {
	struct tl_trace_proc *procs;
	size_t nprocs;
};

/*
 * Adds the log of one process (its text, len bytes; reading stops at the
 * first NUL) to t. Malformed lines are skipped, as ingest does, and so is
 * the free of an allocation the log never made (a fork child's of its
 * parent's). 0, -ENOMEM, or -EINVAL with why (allocations out of order).
 */
int tl_trace_add_log(struct tl_trace *t, int pid, const char *text, size_t len, char *why, size_t whylen);
/* Reads a trace file or a bare log. 0, or -errno with why. */
int tl_trace_load_file(struct tl_trace *t, const char *path, char *why, size_t whylen);
/* Reads every tiermem-PID.log of a run's output directory. 0, -ENOENT (no log), or -errno with why. */
int tl_trace_load_dir(struct tl_trace *t, const char *dir, char *why, size_t whylen);
/*
 * Writes a trace file's processes into dir as tiermem-PID.log files, as a
 * run's directory holds them (a bare log becomes tiermem-1.log). 0 or
 * -errno with why.
 */
int tl_trace_split_file(const char *path, const char *dir, char *why, size_t whylen);
/* Writes the logs of dir as one trace file to out. 0 or -errno with why. */
int tl_trace_export_dir(const char *dir, FILE *out, char *why, size_t whylen);
void tl_trace_release(struct tl_trace *t);

/*
 * The samples per second the process's sampler delivered: its samples
 * over the time from its first to its last (a "1 kHz" recording delivers
 * what the program's accesses and the host's load allowed). 0 with fewer
 * than two samples.
 */
double tl_trace_delivered_hz(const struct tl_trace_proc *p);

/* The lowest of the processes' delivered rates, the ones with none left out (0: none has one). */
double tl_trace_lowest_hz(const struct tl_trace *t);

/* The trace's length, T0 of the estimate: its processes run side by side (MPI ranks), so the longest. */
double tl_trace_seconds(const struct tl_trace *t);

/* Samples over all processes. */
size_t tl_trace_samples(const struct tl_trace *t);
/*
 * The managed footprint a percentage budget refers to: the sum over
 * processes of the most bytes live at once in allocations of at least
 * threshold bytes.
 */
uint64_t tl_trace_footprint(const struct tl_trace *t, uint64_t threshold);

#endif
