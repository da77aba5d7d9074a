/*
 * Reading traces: the runtime's log lines (lib/tiermem/record.c writes
 * them, docs/runtime.md describes them) into struct tl_trace. Samples are
 * resolved against the allocations live at their moment, as the runtime's
 * chunk lookup did, so the replay never searches.
 */
#include "simulate/trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axis/axes.h"
#include "axis/log-format.h"
#include "policies/param-bounds.h"
#include "simulate/replay.h"
#include "util/fields.h"
#include "util/units.h"

#define PAGE 4096ULL
#define UNIT TL_UNIT
#define MAX_RESERVE (1ULL << 47)	/* a user address space: the runtime reserves 1 TiB at most */
#define MAX_CHUNKS (1U << 24)		/* TLRT_MAX_CHUNKS */

/* What loading one process needs besides the trace: the live allocations by address. */
struct loader {
	struct tl_trace_proc *p;
	uint32_t *live;		/* seqs, sorted by addr */
	size_t nlive, caplive;
	size_t capev, capmoves, capallocs;
	uint64_t cur_bytes;
	uint64_t drain_ns;	/* the last D record's time */
	size_t line;		/* of the text being read, from 1: errors name it */
	char *why;
	size_t whylen;
};

/* A whole field as an unsigned number, decimal or 0x hex; -1 as a chunk is kept as UINT64_MAX. */
static bool number(const struct tl_field *f, uint64_t *out)
{
	char buf[32], *end;

	if (!f->n || f->n >= sizeof(buf))
		return false;
	memcpy(buf, f->s, f->n);
	buf[f->n] = '\0';
	errno = 0;
	*out = buf[0] == '-' ? (uint64_t)strtoll(buf, &end, 0) : strtoull(buf, &end, 0);
	return !errno && *end == '\0';
}

static bool real(const struct tl_field *f, double *out)
{
	char buf[40], *end;

	if (!f->n || f->n >= sizeof(buf))
		return false;
	memcpy(buf, f->s, f->n);
	buf[f->n] = '\0';
	*out = strtod(buf, &end);
	return *end == '\0';
}

static char *dup_field(const struct tl_field *f)
{
	return strndup(f->s, f->n);
}

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	void *nv;
	size_t nc;

	if (need <= *cap)
		return 0;
	nc = *cap ? *cap * 2 : 1024;
	while (nc < need)
		nc *= 2;
	nv = realloc(*v, nc * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

static int add_event(struct loader *ld, const struct tl_trace_event *e, int32_t chunk)
{
	struct tl_trace_proc *p = ld->p;
	size_t cap = ld->capev, cap2 = ld->capev;

	if (grow((void **)&p->ev, &cap, p->nev + 1, sizeof(*p->ev)) ||
	    grow((void **)&p->drained, &cap2, p->nev + 1, sizeof(*p->drained)) ||
	    grow((void **)&p->chunks, &ld->capev, p->nev + 1, sizeof(*p->chunks)))
		return -ENOMEM;
	p->ev[p->nev] = *e;
	p->chunks[p->nev] = chunk;
	p->drained[p->nev] = ld->drain_ns;
	if (!p->nev || e->t_ns < p->t_first)
		p->t_first = e->t_ns;
	if (e->t_ns > p->t_last)
		p->t_last = e->t_ns;
	p->nev++;
	return 0;
}

/* Index in ld->live of the first allocation whose address is > addr. */
static size_t live_after(const struct loader *ld, uint64_t addr)
{
	size_t lo = 0, hi = ld->nlive;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ld->p->allocs[ld->live[mid]].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* -EINVAL after writing "line N: P record: <what>" to why. */
static int bad_params(struct loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad_params(struct loader *ld, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(ld->why, ld->whylen, "line %zu: P record: ", ld->line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < ld->whylen)
		vsnprintf(ld->why + n, ld->whylen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * What the runtime could have written (record.c, options.c): anything else
 * is a damaged or made-up log, and a replay of it would divide by a chunk
 * size of 0 or set up a window of 10^9 samples. Refused whole, naming the
 * field, rather than replayed as something the run never was.
 */
static int params_check(struct loader *ld, const uint64_t *v, const double *d, uint64_t threshold)
{
	if (!v[0] || v[0] % UNIT || v[0] > MAX_RESERVE)
		return bad_params(ld, "reserve_bytes %" PRIu64 ": not a multiple of 2 MiB from 2 MiB to 128 TiB", v[0]);
	if (v[1] != v[0] / UNIT)
		return bad_params(ld, "units %" PRIu64 ": not reserve_bytes / 2 MiB (%" PRIu64 ")", v[1], (uint64_t)(v[0] / UNIT));
	if (!v[2] || v[2] > MAX_CHUNKS)
		return bad_params(ld, "max_chunks %" PRIu64 ": not from 1 to %u", v[2], MAX_CHUNKS);
	if (!v[3] || v[3] % PAGE || v[3] > v[0])
		return bad_params(ld, "chunk_size %" PRIu64 ": not a multiple of 4096 from 4096 to reserve_bytes", v[3]);
	if (v[4] > UINT32_MAX)
		return bad_params(ld, "budget_chunks %" PRIu64 ": above 4294967295 (none)", v[4]);
	if (!(d[0] >= 0 && d[0] <= 1))
		return bad_params(ld, "dynamic_fraction %g: not in [0, 1]", d[0]);
	if (!v[5] || v[5] > TLP_WINDOW_MAX)
		return bad_params(ld, "window %" PRIu64 ": not from 1 to %d", v[5], TLP_WINDOW_MAX);
	if (!(d[1] >= 0 && d[1] <= TL_RATE_MAX_HZ))
		return bad_params(ld, "rate_hz %g: not from 0 to %g", d[1], TL_RATE_MAX_HZ);
	if (!threshold)
		return bad_params(ld, "threshold 0: not a positive size");
	return 0;
}

static int params_line(struct loader *ld, const struct tl_field *f, int n)
{
	struct tl_trace_params *pp = &ld->p->p;
	uint64_t v[6], threshold;
	double d[2];
	bool none;
	int rc;

	if (n < TL_LOG_P__COUNT || !number(&f[TL_LOG_P_RESERVE_BYTES], &v[0]) || !number(&f[TL_LOG_P_UNITS], &v[1]) ||
	    !number(&f[TL_LOG_P_MAX_CHUNKS], &v[2]) || !number(&f[TL_LOG_P_CHUNK_SIZE], &v[3]) ||
	    !number(&f[TL_LOG_P_BUDGET_CHUNKS], &v[4]) || !real(&f[TL_LOG_P_DYNAMIC_FRACTION], &d[0]) ||
	    !number(&f[TL_LOG_P_WINDOW], &v[5]) || !real(&f[TL_LOG_P_RATE_HZ], &d[1]) ||
	    !number(&f[TL_LOG_P_THRESHOLD], &threshold))
		return bad_params(ld, "not 13 tab-separated fields (reserve_bytes units max_chunks chunk_size "
				  "budget_chunks dynamic_fraction window rate_hz threshold policy policy_args "
				  "fractions), numbers where numbers go");
	if ((rc = params_check(ld, v, d, threshold)))
		return rc;
	if (!f[TL_LOG_P_POLICY].n)
		return bad_params(ld, "no policy");
	pp->threshold = threshold;
	pp->reserve_bytes = v[0];
	pp->nunits = (uint32_t)v[1];
	pp->max_chunks = (uint32_t)v[2];
	pp->chunk_size = v[3];
	pp->budget_chunks = (uint32_t)v[4];
	pp->dynamic_fraction = d[0];
	pp->window = (uint32_t)v[5];
	pp->rate_hz = d[1];
	free(pp->policy);
	free(pp->args);
	free(pp->fractions);
	none = f[TL_LOG_P_POLICY_ARGS].n == 1 && f[TL_LOG_P_POLICY_ARGS].s[0] == '-';
	pp->policy = dup_field(&f[TL_LOG_P_POLICY]);
	pp->args = none ? NULL : dup_field(&f[TL_LOG_P_POLICY_ARGS]);
	pp->fractions = NULL;
	pp->nfractions = 0;
	if (!(f[TL_LOG_P_FRACTIONS].n == 1 && f[TL_LOG_P_FRACTIONS].s[0] == '-')) {
		const char *s = f[TL_LOG_P_FRACTIONS].s, *end = s + f[TL_LOG_P_FRACTIONS].n;

		pp->fractions = calloc(f[TL_LOG_P_FRACTIONS].n + 1, sizeof(double));
		if (!pp->fractions)
			return -ENOMEM;
		while (s < end) {
			const char *comma = memchr(s, ',', (size_t)(end - s));
			struct tl_field one = { s, (size_t)((comma ? comma : end) - s) };

			if (!real(&one, &pp->fractions[pp->nfractions]) || !(pp->fractions[pp->nfractions] >= 0) ||
			    pp->fractions[pp->nfractions] > 1)
				return bad_params(ld, "fractions: '%.*s' is not a fraction in [0, 1]",
						  (int)(one.n < 40 ? one.n : 40), one.s);
			pp->nfractions++;
			s = comma ? comma + 1 : end;
		}
	}
	if (!pp->policy || (!none && !pp->args))
		return -ENOMEM;
	pp->known = true;
	return 0;
}

static int alloc_line(struct loader *ld, const struct tl_field *f, int n)
{
	struct tl_trace_proc *p = ld->p;
	uint64_t v[6];
	struct tl_trace_alloc *a;
	size_t at;

	if (n <= TL_LOG_A_NCHUNKS || !number(&f[TL_LOG_A_T_NS], &v[0]) || !number(&f[TL_LOG_A_SEQ], &v[1]) ||
	    !number(&f[TL_LOG_A_ADDR], &v[2]) || !number(&f[TL_LOG_A_BYTES], &v[3]) ||
	    !number(&f[TL_LOG_A_FIRST_CHUNK], &v[4]) || !number(&f[TL_LOG_A_NCHUNKS], &v[5]))
		return 0;
	if (v[1] < p->nallocs || v[1] >= TL_TRACE_MAX_ALLOCS)
		return snprintf(ld->why, ld->whylen, "line %zu: allocation %" PRIu64 " out of order (expected %u)",
				ld->line, v[1], p->nallocs), -EINVAL;
	if (grow((void **)&p->allocs, &ld->capallocs, v[1] + 1, sizeof(*p->allocs)))
		return -ENOMEM;
	/* a fork child's seqs go on from its parent's: the ones before it are not its own */
	while (p->nallocs < v[1])
		p->allocs[p->nallocs++] = (struct tl_trace_alloc){ .freed = true };
	a = &p->allocs[p->nallocs];
	*a = (struct tl_trace_alloc){ .t_ns = v[0], .addr = v[2], .bytes = v[3], .first_chunk = (uint32_t)v[4],
				      .nchunks = (uint32_t)v[5] };
	if (n > TL_LOG_A_SITE && f[TL_LOG_A_SITE].n && !(a->callsite = dup_field(&f[TL_LOG_A_SITE])))
		return -ENOMEM;
	p->nallocs++;
	if (grow((void **)&ld->live, &ld->caplive, ld->nlive + 1, sizeof(*ld->live)))
		return -ENOMEM;
	at = live_after(ld, a->addr);
	memmove(&ld->live[at + 1], &ld->live[at], (ld->nlive - at) * sizeof(*ld->live));
	ld->live[at] = (uint32_t)v[1];
	ld->nlive++;
	ld->cur_bytes += a->bytes;
	if (ld->cur_bytes > p->peak_bytes)
		p->peak_bytes = ld->cur_bytes;
	return add_event(ld, &(struct tl_trace_event){ .t_ns = v[0], .seq = (uint32_t)v[1], .kind = TL_EV_ALLOC }, -1);
}

static int free_line(struct loader *ld, const struct tl_field *f, int n)
{
	struct tl_trace_proc *p = ld->p;
	uint64_t t, seq;

	if (n <= TL_LOG_F_SEQ || !number(&f[TL_LOG_F_T_NS], &t) || !number(&f[TL_LOG_F_SEQ], &seq))
		return 0;
	if (seq >= p->nallocs || p->allocs[seq].freed)
		return 0;	/* a fork child freeing its parent's allocation: not in this trace */
	for (size_t i = 0; i < ld->nlive; i++) {
		if (ld->live[i] == seq) {
			memmove(&ld->live[i], &ld->live[i + 1], (ld->nlive - i - 1) * sizeof(*ld->live));
			ld->nlive--;
			break;
		}
	}
	p->allocs[seq].freed = true;
	ld->cur_bytes -= p->allocs[seq].bytes;
	return add_event(ld, &(struct tl_trace_event){ .t_ns = t, .seq = (uint32_t)seq, .kind = TL_EV_FREE }, -1);
}

static int sample_line(struct loader *ld, const struct tl_field *f, int n)
{
	struct tl_trace_event e = { .kind = TL_EV_SAMPLE, .seq = TL_TRACE_NONE };
	uint64_t addr, chunk, hit;
	size_t at;

	if (n <= TL_LOG_S_HIT || !number(&f[TL_LOG_S_T_NS], &e.t_ns) || !number(&f[TL_LOG_S_ADDR], &addr) ||
	    !number(&f[TL_LOG_S_CHUNK], &chunk) || !number(&f[TL_LOG_S_HIT], &hit))
		return 0;
	at = live_after(ld, addr);
	if (at) {
		const struct tl_trace_alloc *a = &ld->p->allocs[ld->live[at - 1]];
		/*
		 * The runtime's region is whole 2 MiB units; an address there is
		 * managed when its chunk is one of the allocation's, which
		 * depends on the chunk size: the replay decides (replay.c).
		 */
		uint64_t len = (a->bytes + UNIT - 1) / UNIT * UNIT;

		if (addr - a->addr < len) {
			e.seq = ld->live[at - 1];
			e.off = addr - a->addr;
		}
	}
	e.hit = hit != 0;
	ld->p->nsamples++;
	return add_event(ld, &e, chunk == UINT64_MAX ? -1 : (int32_t)chunk);
}

static int move_line(struct loader *ld, const struct tl_field *f, int n)
{
	struct tl_trace_proc *p = ld->p;
	uint64_t chunk, ok, bytes, end, start = 0;
	int d;

	if (n <= TL_LOG_M_OK || !number(&f[TL_LOG_M_T_NS], &end) || !number(&f[TL_LOG_M_CHUNK], &chunk) ||
	    !number(&f[TL_LOG_M_BYTES], &bytes) || !number(&f[TL_LOG_M_OK], &ok))
		return 0;
	if (n > TL_LOG_M_START_NS && (!number(&f[TL_LOG_M_START_NS], &start) || start > end))
		start = 0;
	d = tl_direction_parse(f[TL_LOG_M_DIRECTION].s, f[TL_LOG_M_DIRECTION].n);
	if (d < 0)
		return 0;
	if (grow((void **)&p->moves, &ld->capmoves, p->nmoves + 1, sizeof(*p->moves)))
		return -ENOMEM;
	p->moves[p->nmoves++] = (struct tl_trace_move){ .bytes = bytes, .start_ns = start, .end_ns = end,
							.chunk = (uint32_t)chunk, .dir = (uint8_t)d, .ok = ok != 0 };
	return 0;
}

/* D: the runtime thread began a drain; the samples after it were handled there, their moves started then. */
static int drain_line(struct loader *ld, const struct tl_field *f, int n)
{
	uint64_t t;

	if (n > TL_LOG_D_T_NS && number(&f[TL_LOG_D_T_NS], &t))
		ld->drain_ns = t;
	return 0;
}

static int line(struct loader *ld, const char *s, const char *end)
{
	struct tl_field f[TL_LOG_MAX_FIELDS];
	int n = tl_split_tabs(s, end, f, TL_LOG_MAX_FIELDS);

	if (f[0].n != 1)
		return 0;
	switch (f[0].s[0]) {
	case 'P':
		return params_line(ld, f, n);
	case 'A':
		return alloc_line(ld, f, n);
	case 'F':
		return free_line(ld, f, n);
	case 'S':
		return sample_line(ld, f, n);
	case 'M':
		return move_line(ld, f, n);
	case 'D':
		return drain_line(ld, f, n);
	}
	return 0;
}

static struct tl_trace_proc *new_proc(struct tl_trace *t, int pid)
{
	void *nv = realloc(t->procs, (t->nprocs + 1) * sizeof(*t->procs));

	if (!nv)
		return NULL;
	t->procs = nv;
	memset(&t->procs[t->nprocs], 0, sizeof(*t->procs));
	t->procs[t->nprocs].pid = pid;
	return &t->procs[t->nprocs++];
}

/* Lines of text until a NUL, the end, or (in a trace file) the next T line; returns where it stopped. */
static int read_lines(struct loader *ld, const char **pos, const char *end, bool stop_at_t)
{
	const char *p = *pos;
	int rc = 0;

	while (p < end && *p && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *nul = memchr(p, '\0', (size_t)(le - p));

		if (nul)
			le = nul;
		if (stop_at_t && le - p > 1 && p[0] == 'T' && p[1] == '\t')
			break;
		rc = line(ld, p, le);
		if (!nul && nl)
			ld->line++;
		p = nul ? nul : nl ? nl + 1 : end;
	}
	*pos = p;
	free(ld->live);
	ld->live = NULL;
	return rc;
}

int tl_trace_add_log(struct tl_trace *t, int pid, const char *text, size_t len, char *why, size_t whylen)
{
	struct loader ld = { .why = why, .whylen = whylen, .line = 1 };
	const char *pos = text;

	if (!(ld.p = new_proc(t, pid)))
		return -ENOMEM;
	return read_lines(&ld, &pos, text + len, false);
}

static int map_file(const char *path, const char **text, size_t *len, char *why, size_t whylen)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *m;

	if (fd < 0 || fstat(fd, &sb)) {
		int e = errno;

		snprintf(why, whylen, "'%s': %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	*len = (size_t)sb.st_size;
	m = *len ? mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(why, whylen, "'%s': %s", path, strerror(errno));
		return -errno;
	}
	*text = m;
	return 0;
}

/* "'path': " before a loader's "line N: ..." */
static void prefix_path(char *why, size_t whylen, const char *path)
{
	char *copy = strdup(why);

	if (copy) {
		snprintf(why, whylen, "'%s': %s", path, copy);
		free(copy);
	}
}

int tl_trace_load_file(struct tl_trace *t, const char *path, char *why, size_t whylen)
{
	const char *text = NULL, *pos, *end;
	size_t len;
	int rc = map_file(path, &text, &len, why, whylen);

	if (rc)
		return rc;
	pos = text;
	end = text + len;
	if (len >= strlen(TL_TRACE_MAGIC) && !memcmp(text, TL_TRACE_MAGIC, strlen(TL_TRACE_MAGIC))) {
		size_t lineno = 1;

		while (pos < end && !rc) {
			const char *nl = memchr(pos, '\n', (size_t)(end - pos));
			struct loader ld = { .why = why, .whylen = whylen, .line = lineno + 1 };

			if (end - pos > 2 && pos[0] == 'T' && pos[1] == '\t') {
				if (!(ld.p = new_proc(t, atoi(pos + 2)))) {
					rc = -ENOMEM;
					break;
				}
				pos = nl ? nl + 1 : end;
				rc = read_lines(&ld, &pos, end, true);
				lineno = ld.line;
			} else {
				pos = nl ? nl + 1 : end;
				lineno++;
			}
		}
	} else {
		rc = tl_trace_add_log(t, 0, text, len, why, whylen);
	}
	if (text)
		munmap((void *)text, len);
	if (rc == -EINVAL)
		prefix_path(why, whylen, path);
	if (!rc && !t->nprocs)
		return snprintf(why, whylen, "'%s': no process in the trace", path), -EINVAL;
	return rc;
}

/* The pids of dir's tiermem-PID.log files, sorted. */
static int log_pids(const char *dir, int **pids, size_t *n, char *why, size_t whylen)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	*pids = NULL;
	*n = 0;
	if (!d)
		return snprintf(why, whylen, "'%s': %s", dir, strerror(errno)), -errno;
	while ((de = readdir(d))) {
		int pid, used = 0;

		if (sscanf(de->d_name, "tiermem-%d.log%n", &pid, &used) == 1 && used && !de->d_name[used]) {
			int *nv = realloc(*pids, (*n + 1) * sizeof(int));

			if (!nv) {
				closedir(d);
				return -ENOMEM;
			}
			*pids = nv;
			(*pids)[(*n)++] = pid;
		}
	}
	closedir(d);
	for (size_t i = 1; i < *n; i++)
		for (size_t j = i; j > 0 && (*pids)[j - 1] > (*pids)[j]; j--) {
			int x = (*pids)[j];

			(*pids)[j] = (*pids)[j - 1];
			(*pids)[j - 1] = x;
		}
	if (!*n)
		return snprintf(why, whylen, "'%s': no tiermem log (record with log: log)", dir), -ENOENT;
	return 0;
}

int tl_trace_load_dir(struct tl_trace *t, const char *dir, char *why, size_t whylen)
{
	int *pids, rc;
	size_t n;

	if ((rc = log_pids(dir, &pids, &n, why, whylen)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		char path[4096];
		const char *text = NULL;
		size_t len;

		snprintf(path, sizeof(path), "%s/tiermem-%d.log", dir, pids[i]);
		if (!(rc = map_file(path, &text, &len, why, whylen))) {
			rc = tl_trace_add_log(t, pids[i], text ? text : "", len, why, whylen);
			if (text)
				munmap((void *)text, len);
			if (rc == -EINVAL)
				prefix_path(why, whylen, path);
		}
	}
	free(pids);
	return rc;
}

int tl_trace_export_dir(const char *dir, FILE *out, char *why, size_t whylen)
{
	int *pids, rc;
	size_t n;

	if ((rc = log_pids(dir, &pids, &n, why, whylen)))
		return rc;
	fprintf(out, "%s\n", TL_TRACE_MAGIC);
	for (size_t i = 0; i < n && !rc; i++) {
		char path[4096];
		const char *text = NULL;
		size_t len, used;

		snprintf(path, sizeof(path), "%s/tiermem-%d.log", dir, pids[i]);
		if ((rc = map_file(path, &text, &len, why, whylen)))
			break;
		used = text ? strnlen(text, len) : 0;
		fprintf(out, "T\t%d\n", pids[i]);
		if (used && fwrite(text, 1, used, out) != used)
			rc = -EIO;
		if (used && text[used - 1] != '\n')
			fputc('\n', out);
		if (text)
			munmap((void *)text, len);
	}
	free(pids);
	if (!rc && fflush(out))
		rc = -errno;
	if (rc == -EIO || (rc && !why[0]))
		snprintf(why, whylen, "cannot write the trace: %s", strerror(-rc));
	return rc;
}

static int open_log(const char *dir, int pid, FILE **f, char *why, size_t whylen)
{
	char path[4096];

	if (*f && fclose(*f))
		return snprintf(why, whylen, "cannot write in '%s': %s", dir, strerror(errno)), -errno;
	snprintf(path, sizeof(path), "%s/tiermem-%d.log", dir, pid);
	*f = fopen(path, "wx");
	if (!*f)
		return snprintf(why, whylen, "'%s': %s", path, strerror(errno)), -errno;
	return 0;
}

int tl_trace_split_file(const char *path, const char *dir, char *why, size_t whylen)
{
	const char *text = NULL, *p, *end;
	FILE *f = NULL;
	size_t len;
	int rc = map_file(path, &text, &len, why, whylen);

	if (rc)
		return rc;
	end = text + strnlen(text ? text : "", len);
	p = text;
	if (len >= strlen(TL_TRACE_MAGIC) && !memcmp(text, TL_TRACE_MAGIC, strlen(TL_TRACE_MAGIC))) {
		for (; p < end && !rc;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *next = nl ? nl + 1 : end;

			if (end - p > 2 && p[0] == 'T' && p[1] == '\t')
				rc = open_log(dir, atoi(p + 2), &f, why, whylen);
			else if (f && fwrite(p, 1, (size_t)(next - p), f) != (size_t)(next - p))
				rc = -EIO;
			p = next;
		}
	} else if (!(rc = open_log(dir, 1, &f, why, whylen)) && end > p &&
		   fwrite(p, 1, (size_t)(end - p), f) != (size_t)(end - p)) {
		rc = -EIO;
	}
	if (f && fclose(f) && !rc)
		rc = -errno;
	if (text)
		munmap((void *)text, len);
	if (rc == -EIO || (rc && !why[0]))
		snprintf(why, whylen, "cannot write in '%s': %s", dir, strerror(-rc));
	return rc;
}

void tl_trace_release(struct tl_trace *t)
{
	for (size_t i = 0; i < t->nprocs; i++) {
		struct tl_trace_proc *p = &t->procs[i];

		for (uint32_t k = 0; k < p->nallocs; k++)
			free(p->allocs[k].callsite);
		free(p->allocs);
		free(p->ev);
		free(p->chunks);
		free(p->drained);
		free(p->moves);
		free(p->p.policy);
		free(p->p.args);
		free(p->p.fractions);
	}
	free(t->procs);
	memset(t, 0, sizeof(*t));
}

double tl_trace_lowest_hz(const struct tl_trace *t)
{
	double lowest = 0;

	for (size_t i = 0; i < t->nprocs; i++) {
		double d = tl_trace_delivered_hz(&t->procs[i]);

		if (d > 0 && (lowest == 0 || d < lowest))
			lowest = d;
	}
	return lowest;
}

double tl_trace_seconds(const struct tl_trace *t)
{
	uint64_t longest = 0;

	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].nev && t->procs[i].t_last - t->procs[i].t_first > longest)
			longest = t->procs[i].t_last - t->procs[i].t_first;
	return (double)longest / 1e9;
}

size_t tl_trace_samples(const struct tl_trace *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nprocs; i++)
		n += t->procs[i].nsamples;
	return n;
}

uint64_t tl_trace_footprint(const struct tl_trace *t, uint64_t threshold)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t->nprocs; i++) {
		const struct tl_trace_proc *p = &t->procs[i];
		uint64_t cur = 0, peak = 0;

		for (size_t e = 0; e < p->nev; e++) {
			const struct tl_trace_event *ev = &p->ev[e];
			uint64_t bytes;

			if (ev->kind == TL_EV_SAMPLE || (bytes = p->allocs[ev->seq].bytes) < threshold)
				continue;
			if (ev->kind == TL_EV_ALLOC && (cur += bytes) > peak)
				peak = cur;
			else if (ev->kind == TL_EV_FREE)
				cur -= bytes;
		}
		n += peak;
	}
	return n;
}

double tl_trace_delivered_hz(const struct tl_trace_proc *p)
{
	size_t first = 0, last = p->nev;

	while (first < p->nev && p->ev[first].kind != TL_EV_SAMPLE)
		first++;
	while (last > first && p->ev[last - 1].kind != TL_EV_SAMPLE)
		last--;
	if (p->nsamples < 2 || last <= first + 1 || p->ev[last - 1].t_ns <= p->ev[first].t_ns)
		return 0;
	/* n samples span n - 1 intervals */
	return (double)(p->nsamples - 1) / ((double)(p->ev[last - 1].t_ns - p->ev[first].t_ns) / 1e9);
}
