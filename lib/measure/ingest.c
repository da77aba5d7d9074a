/*
 * Reading the runtime's and the FAT allocator's per-process files out of a
 * run's directory (see ingest.h).
 */
#include "measure/ingest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "axis/log-format.h"
#include "util/error.h"
#include "util/fields.h"
#include "tiermem/rt-stats.h"

static const char *const stat_names[RT_STAT__COUNT] = {
#define RT_STAT_NAME(name, unit, desc) #name,
	RT_STATS(RT_STAT_NAME)
#undef RT_STAT_NAME
};
static const char *const stat_units[RT_STAT__COUNT] = {
#define RT_STAT_UNIT(name, unit, desc) unit,
	RT_STATS(RT_STAT_UNIT)
#undef RT_STAT_UNIT
};

/* A process by its pid and MPI rank (-1: none): ranks on different nodes may share a pid. */
static struct tl_ingest_process *proc_of(struct tl_ingest *ing, int pid, int rank)
{
	struct tl_ingest_process *v;

	for (size_t i = 0; i < ing->nprocs; i++)
		if (ing->procs[i].pid == pid && ing->procs[i].rank == rank)
			return &ing->procs[i];
	v = realloc(ing->procs, sizeof(*v) * (ing->nprocs + 1));
	if (!v)
		return NULL;
	ing->procs = v;
	v = &ing->procs[ing->nprocs++];
	memset(v, 0, sizeof(*v));
	v->pid = pid;
	v->rank = rank;
	return v;
}

#define V1_HEADER offsetof(struct rt_counters_header, sampler_offset)

/* The sampler's own counts (rt-stats.h): names of [a-z_] only, as the runtime writes them. */
static int read_sampler_counts(FILE *f, const struct rt_counters_header *h, long size,
			       struct rt_counters_sampler **out, size_t *nout)
{
	struct rt_counters_sampler slot[RT_SAMPLER_COUNTS_MAX];
	uint32_t n = h->nsampler;

	if (n > RT_SAMPLER_COUNTS_MAX || h->sampler_offset < h->header_size ||
	    (long)(h->sampler_offset + n * sizeof(slot[0])) > size || fseek(f, h->sampler_offset, SEEK_SET) ||
	    fread(slot, sizeof(slot[0]), n, f) != n)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		size_t len = strnlen(slot[i].name, sizeof(slot[i].name));

		if (!len || len == sizeof(slot[i].name) || slot[i].name[strspn(slot[i].name, "abcdefghijklmnopqrstuvwxyz_")])
			return -EINVAL;
	}
	*out = malloc(n * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, slot, n * sizeof(**out));
	*nout = n;
	return 0;
}

/* The counters file: a header, the values, then their names; read by name so older files still map. */
static int read_counters(struct tl_ingest *ing, const char *path, int pid, int rank)
{
	struct rt_counters_header h;
	struct tl_ingest_process *p;
	uint64_t *vals = NULL;
	char *names = NULL;
	struct rt_counters_sampler *sampler = NULL;
	size_t nsampler = 0;
	long size;
	FILE *f = fopen(path, "rb");
	int rc = -EINVAL;

	if (!f)
		return -errno;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	/* a file from before the sampler slots has a shorter header: what it lacks reads 0 */
	memset(&h, 0, sizeof(h));
	if (size < (long)V1_HEADER || fread(&h, 1, V1_HEADER, f) != V1_HEADER ||
	    memcmp(h.magic, RT_COUNTERS_MAGIC, 8) || h.header_size < V1_HEADER || h.nstats > 4096 ||
	    (long)(h.header_size + 8ULL * h.nstats) > size)
		goto out;
	if (h.header_size >= sizeof(h) && fread((char *)&h + V1_HEADER, 1, sizeof(h) - V1_HEADER, f) != sizeof(h) - V1_HEADER)
		goto out;
	if (h.header_size < sizeof(h))
		h.sampler_offset = h.nsampler = 0;
	vals = calloc(h.nstats ? h.nstats : 1, sizeof(*vals));
	names = calloc(size - h.header_size - 8 * h.nstats + 1, 1);
	if (!vals || !names) {
		rc = -ENOMEM;
		goto out;
	}
	fseek(f, h.header_size, SEEK_SET);
	if (fread(vals, 8, h.nstats, f) != h.nstats)
		goto out;
	size_t nlen = fread(names, 1, size - h.header_size - 8 * h.nstats, f);
	if (h.nsampler && (rc = read_sampler_counts(f, &h, size, &sampler, &nsampler)))
		goto out;
	rc = -EINVAL;
	p = proc_of(ing, pid, rank);
	if (!p || !(p->stats = calloc(RT_STAT__COUNT, sizeof(*p->stats)))) {
		rc = -ENOMEM;
		goto out;
	}
	/* names[] holds nstats NUL-terminated names in value order */
	const char *n = names;
	for (uint32_t i = 0; i < h.nstats && n < names + nlen; i++, n += strlen(n) + 1)
		for (int s = 0; s < RT_STAT__COUNT; s++)
			if (!strcmp(n, stat_names[s]))
				p->stats[s] = vals[i];
	p->sampler = sampler;
	p->nsampler = nsampler;
	sampler = NULL;
	p->complete = h.complete == 1;
	ing->runtime_seen = true;
	ing->same_node |= h.same_node != 0;
	rc = 0;
out:
	free(vals);
	free(names);
	free(sampler);
	fclose(f);
	return rc;
}

static int read_fat_status(struct tl_ingest *ing, const char *path, int pid)
{
	FILE *f = fopen(path, "r");
	struct tl_ingest_process *p = proc_of(ing, pid, -1);
	char line[512];

	if (!f)
		return -errno;
	while (p && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;

		if (!colon)
			continue;
		*colon = '\0';
		v = colon + 1 + strspn(colon + 1, " \t");
		v[strcspn(v, "\r\n")] = '\0';
		if (!strcmp(line, "backing") && !p->fat_backing)
			p->fat_backing = strdup(v);
	}
	fclose(f);
	if (p && p->fat_backing && !ing->allocator_backing)
		ing->allocator_backing = strdup(p->fat_backing);
	return p ? 0 : -ENOMEM;
}

/* tierlab-rank's file: "event status value enabled_ns running_ns reason" a line. */
static int read_perf(struct tl_ingest *ing, const char *path, int pid)
{
	FILE *f = fopen(path, "r");
	char line[1024];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *field[6] = { 0 }, *p = line;
		struct tl_ingest_perf *e = NULL;
		int n = 0;

		line[strcspn(line, "\n")] = '\0';
		for (; n < 6 && (field[n] = strsep(&p, "\t")); n++)
			;
		if (n < 5 || !*field[0])
			continue;	/* a line cut short: skipped */
		for (size_t i = 0; i < ing->nperf; i++)
			if (!strcmp(ing->perf[i].event, field[0]))
				e = &ing->perf[i];
		if (!e) {
			e = realloc(ing->perf, sizeof(*e) * (ing->nperf + 1));
			if (!e)
				goto oom;
			ing->perf = e;
			e = &ing->perf[ing->nperf];
			memset(e, 0, sizeof(*e));
			if (!(e->event = strdup(field[0])) || asprintf(&e->stat_name, "perf.%s", field[0]) < 0) {
				free(e->event);
				goto oom;
			}
			ing->nperf++;
		}
		e->ranks++;
		if (strcmp(field[1], "ok")) {
			if (!e->reason && !(e->reason = strdup(field[5] && *field[5] ? field[5] : field[1])))
				goto oom;
			continue;
		}
		void *v = realloc(e->per_rank, sizeof(*e->per_rank) * (e->ok + 1));
		if (!v)
			goto oom;
		e->per_rank = v;
		e->per_rank[e->ok].pid = pid;
		e->per_rank[e->ok].value = (uint64_t)strtod(field[2], NULL);
		e->ok++;
		e->sum += strtod(field[2], NULL);
		e->enabled_ns += strtoull(field[3], NULL, 10);
		e->running_ns += strtoull(field[4], NULL, 10);
	}
	fclose(f);
	return 0;
oom:
	fclose(f);
	return -ENOMEM;
}

int tl_ingest_counters(const struct tl_ingest *ing, struct tl_run_record *r)
{
	for (size_t i = 0; i < ing->nperf; i++) {
		const struct tl_ingest_perf *e = &ing->perf[i];
		struct tl_counter_row *row = NULL;
		bool all = e->ok == e->ranks;
		int rc;

		for (size_t k = 0; k < r->counters.n; k++)
			if (!strcmp(r->counters.v[k].event, e->event))
				row = &r->counters.v[k];
		if (!row) {
			struct tl_counter_row add = { .event = e->event, .status = "unavailable" };

			if ((rc = tl_record_add_counter(r, &add)))
				return rc;
			row = &r->counters.v[r->counters.n - 1];
		}
		row->status = all ? "ok" : "unavailable";
		free(row->reason);
		row->reason = NULL;
		if (!all && !(row->reason = strdup(e->reason ? e->reason : "not counted on every rank")))
			return -ENOMEM;
		/* never a zero for what was not counted on every rank */
		row->has_value = all;
		row->value = e->sum;
		row->has_times = all;
		row->enabled_ns = e->enabled_ns;
		row->running_ns = e->running_ns;
		row->has_multiplex = all && e->enabled_ns;
		row->multiplex_pct = e->enabled_ns ? 100.0 * (double)e->running_ns / (double)e->enabled_ns : 0;
		for (size_t k = 0; k < e->ok; k++)
			if ((rc = tl_record_add_proc_stat(r, e->per_rank[k].pid, e->stat_name, e->per_rank[k].value)))
				return rc;
	}
	return 0;
}

static int add_metric(struct tl_ingest *ing, const char *name, double value, const char *unit)
{
	struct tl_metric *v = realloc(ing->metrics, sizeof(*v) * (ing->nmetrics + 1));

	if (!v)
		return -ENOMEM;
	ing->metrics = v;
	v[ing->nmetrics].name = strdup(name);
	v[ing->nmetrics].value = value;
	v[ing->nmetrics].unit = unit && *unit ? strdup(unit) : NULL;
	if (!v[ing->nmetrics].name)
		return -ENOMEM;
	ing->nmetrics++;
	return 0;
}

/* The sampler's own counts as metrics sampler.NAME, summed over processes. */
static int sampler_metrics(struct tl_ingest *ing)
{
	char name[64];
	int rc = 0;

	for (size_t i = 0; i < ing->nprocs && !rc; i++) {
		const struct tl_ingest_process *p = &ing->procs[i];

		for (size_t k = 0; k < p->nsampler && !rc; k++) {
			double sum = 0;
			bool seen = false;

			/* once, at its first process */
			for (size_t j = 0; j < i && !seen; j++)
				for (size_t m = 0; m < ing->procs[j].nsampler && !seen; m++)
					seen = !strcmp(ing->procs[j].sampler[m].name, p->sampler[k].name);
			if (seen)
				continue;
			for (size_t j = i; j < ing->nprocs; j++)
				for (size_t m = 0; m < ing->procs[j].nsampler; m++)
					if (!strcmp(ing->procs[j].sampler[m].name, p->sampler[k].name))
						sum += (double)ing->procs[j].sampler[m].value;
			snprintf(name, sizeof(name), "sampler.%s", p->sampler[k].name);
			rc = add_metric(ing, name, sum, strstr(name, "_ns") ? "ns" : NULL);
		}
	}
	return rc;
}

/* Sums over processes (ranks) what the report shows, as SHAMBLES reports it. */
static int summarise(struct tl_ingest *ing)
{
	uint64_t sum[RT_STAT__COUNT] = { 0 };
	size_t n = 0, ranks = 0;
	char name[96];
	int rc = 0;

	for (size_t i = 0; i < ing->nprocs; i++) {
		if (!ing->procs[i].stats)
			continue;
		n++;
		ranks += ing->procs[i].rank >= 0;
		for (int s = 0; s < RT_STAT__COUNT; s++)
			sum[s] += ing->procs[i].stats[s];
	}
	if (!n)
		return 0;
	ing->allocs = sum[RT_STAT_allocs];
	for (int s = 0; s < RT_STAT__COUNT && !rc; s++) {
		snprintf(name, sizeof(name), "rt.%s", stat_names[s]);
		rc = add_metric(ing, name, (double)sum[s], stat_units[s]);
	}
	/* pooled over processes, one sample one vote, whichever sampler took it */
	if (!rc && sum[RT_STAT_samples_managed])
		rc = add_metric(ing, "hit_rate",
				(double)sum[RT_STAT_hits] / (double)sum[RT_STAT_samples_managed], NULL);
	if (!rc)
		rc = add_metric(ing, "migrated_bytes",
				(double)(sum[RT_STAT_bytes_slow_to_fast] + sum[RT_STAT_bytes_fast_to_slow]), "bytes");
	if (!rc)
		rc = add_metric(ing, "rt.processes", (double)n, NULL);
	if (!rc)
		rc = sampler_metrics(ing);
	/* processes that named their MPI rank (tiermem-rankR-PID.counters) */
	if (!rc && ranks)
		rc = add_metric(ing, "rt.ranks", (double)ranks, NULL);
	return rc;
}

int tl_ingest_scan(const char *out_dir, struct tl_ingest *ing)
{
	DIR *d = opendir(out_dir);
	struct dirent *de;
	char path[PATH_MAX];
	int rc = 0;

	memset(ing, 0, sizeof(*ing));
	if (!d)
		return 0;	/* nothing written: nothing to ingest */
	while ((de = readdir(d)) && rc != -ENOMEM) {
		int pid, rank, len = 0;

		snprintf(path, sizeof(path), "%s/%s", out_dir, de->d_name);
		if (sscanf(de->d_name, "tiermem-rank%d-%d.counters%n", &rank, &pid, &len) == 2 &&
		    !de->d_name[len] && rank >= 0) {
			rc = read_counters(ing, path, pid, rank);
			if (rc && rc != -ENOMEM)
				warning("'%s': not a complete counters file; skipped", path);
		} else if (sscanf(de->d_name, "tiermem-%d.counters%n", &pid, &len) == 1 && !de->d_name[len]) {
			rc = read_counters(ing, path, pid, -1);
			if (rc && rc != -ENOMEM)
				warning("'%s': not a complete counters file; skipped", path);
		} else if ((sscanf(de->d_name, "perf-rank%d-%d.txt%n", &rank, &pid, &len) == 2 ||
			    sscanf(de->d_name, "perf-%d.txt%n", &pid, &len) == 1) && !de->d_name[len]) {
			rc = read_perf(ing, path, pid);
		} else if (sscanf(de->d_name, "fatalloc-%d.txt%n", &pid, &len) == 1 && !de->d_name[len]) {
			rc = read_fat_status(ing, path, pid);
		}
	}
	closedir(d);
	if (rc == -ENOMEM)
		return rc;
	return summarise(ing);
}

/* ---- the log, into the run record ---- */

/* A whole field as an integer: decimal (maybe negative) or 0x hexadecimal, as record.c writes them. */
static bool number(const struct tl_field *f, int64_t *out)
{
	const char *p = f->s, *end = f->s + f->n;
	uint64_t v = 0;
	bool neg = false;

	if (p < end && *p == '-')
		neg = true, p++;
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (p += 2; p < end; p++) {
			int d = (*p >= '0' && *p <= '9') ? *p - '0' : (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ?
				(*p | 0x20) - 'a' + 10 : -1;

			if (d < 0 || v >> 60)
				return false;
			v = v << 4 | (uint64_t)d;
		}
	} else {
		if (p == end)
			return false;
		for (; p < end; p++) {
			if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
				return false;
			v = v * 10 + (uint64_t)(*p - '0');
		}
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

static bool numbers(const struct tl_field *f, const int *idx, int n, int64_t *out)
{
	for (int i = 0; i < n; i++)
		if (!number(&f[idx[i]], &out[i]))
			return false;
	return true;
}

static int direction(const struct tl_field *f)
{
	return tl_direction_parse(f->s, f->n);
}

/*
 * One line of tiermem-PID.log (axis/log-format.h) into the record; lines
 * of other kinds, short or malformed ones (a crash cuts the last line) add
 * nothing. F sets the allocation's freed_ns.
 */
static int log_line(struct tl_run_record *r, int pid, const char *p, const char *end)
{
	struct tl_field f[TL_LOG_MAX_FIELDS];
	int64_t v[6];
	int n = tl_split_tabs(p, end, f, TL_LOG_MAX_FIELDS), d;

	if (f[0].n != 1)
		return 0;
	switch (f[0].s[0]) {
	case 'A': {
		static const int idx[] = { TL_LOG_A_T_NS, TL_LOG_A_SEQ, TL_LOG_A_ADDR, TL_LOG_A_BYTES };
		/* the symbolic callsite when the runtime found one, else the address */
		const struct tl_field *cs = n > TL_LOG_A_SITE && f[TL_LOG_A_SITE].n ? &f[TL_LOG_A_SITE] :
					    n > TL_LOG_A_CALLSITE ? &f[TL_LOG_A_CALLSITE] : NULL;
		char callsite[256];

		if (n <= TL_LOG_A_BYTES || !numbers(f, idx, 4, v))
			return 0;
		if (cs)
			snprintf(callsite, sizeof(callsite), "%.*s", (int)cs->n, cs->s);
		return tl_record_add_alloc(r, &(struct tl_alloc_row){ .pid = pid, .t_ns = v[0], .seq = v[1],
					   .addr = (uint64_t)v[2], .size = v[3], .callsite = cs ? callsite : NULL });
	}
	case 'F': {
		static const int idx[] = { TL_LOG_F_T_NS, TL_LOG_F_SEQ };

		if (n <= TL_LOG_F_SEQ || !numbers(f, idx, 2, v))
			return 0;
		/* the latest allocation of that number in this process: frees follow their allocations */
		for (size_t i = r->allocations.n; i-- > 0;) {
			struct tl_alloc_row *a = &r->allocations.v[i];

			if (a->pid == pid && a->seq == v[1] && !a->freed) {
				a->freed = true;
				a->freed_ns = v[0];
				break;
			}
		}
		return 0;
	}
	case 'S': {
		static const int idx[] = { TL_LOG_S_T_NS, TL_LOG_S_ADDR, TL_LOG_S_PC, TL_LOG_S_TID, TL_LOG_S_CHUNK,
					   TL_LOG_S_HIT };

		if (n <= TL_LOG_S_HIT || !numbers(f, idx, 6, v))
			return 0;
		return tl_record_add_sample(r, &(struct tl_sample_row){ .pid = pid, .t_ns = v[0],
					    .addr = (uint64_t)v[1], .pc = (uint64_t)v[2], .tid = v[3],
					    .hit = v[4] < 0 ? -1 : v[5] != 0 });
	}
	case 'M': {
		static const int idx[] = { TL_LOG_M_T_NS, TL_LOG_M_ADDR, TL_LOG_M_BYTES, TL_LOG_M_OK };

		if (n <= TL_LOG_M_OK || !numbers(f, idx, 4, v) || (d = direction(&f[TL_LOG_M_DIRECTION])) < 0)
			return 0;
		return tl_record_add_migration(r, &(struct tl_migration_row){ .pid = pid, .t_ns = v[0],
					       .addr = (uint64_t)v[1], .bytes = v[2], .direction = d, .ok = v[3] != 0 });
	}
	}
	return 0;
}

static int record_log(struct tl_run_record *r, const char *path, int pid)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	const char *text, *p, *end;
	struct stat sb;

	if (fd < 0)
		return 0;	/* counters mode: no log */
	if (fstat(fd, &sb) || sb.st_size == 0) {
		close(fd);
		return 0;
	}
	text = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (text == MAP_FAILED)
		return -errno;
	end = text + sb.st_size;
	for (p = text; p < end && !rc;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		rc = log_line(r, pid, p, nl ? nl : end);
		p = nl ? nl + 1 : end;
	}
	munmap((void *)text, (size_t)sb.st_size);
	return rc;
}

int tl_ingest_record(const struct tl_ingest *ing, const char *out_dir, struct tl_run_record *r)
{
	char path[PATH_MAX];
	int rc = 0;

	for (size_t i = 0; i < ing->nmetrics && !rc; i++)
		rc = tl_record_add_metric(r, ing->metrics[i].name, ing->metrics[i].value, ing->metrics[i].unit);
	for (size_t i = 0; i < ing->nprocs && !rc; i++) {
		const struct tl_ingest_process *p = &ing->procs[i];

		for (int k = 0; p->stats && k < RT_STAT__COUNT && !rc; k++)
			rc = tl_record_add_proc_stat(r, p->pid, stat_names[k], p->stats[k]);
		/* a rank's rows say which rank it was */
		if (!rc && p->stats && p->rank >= 0)
			rc = tl_record_add_proc_stat(r, p->pid, "rank", (uint64_t)p->rank);
		if (p->rank >= 0)
			snprintf(path, sizeof(path), "%s/tiermem-rank%d-%d.log", out_dir, p->rank, p->pid);
		else
			snprintf(path, sizeof(path), "%s/tiermem-%d.log", out_dir, p->pid);
		if (!rc)
			rc = record_log(r, path, p->pid);
	}
	if (!rc && ing->allocator_backing)
		rc = tl_env_put(&r->env, "allocator.backing", ing->allocator_backing);
	return rc;
}

void tl_ingest_release(struct tl_ingest *ing)
{
	for (size_t i = 0; i < ing->nprocs; i++) {
		free(ing->procs[i].stats);
		free(ing->procs[i].sampler);
		free(ing->procs[i].fat_backing);
	}
	free(ing->procs);
	for (size_t i = 0; i < ing->nmetrics; i++) {
		free((char *)ing->metrics[i].name);
		free((char *)ing->metrics[i].unit);
	}
	free(ing->metrics);
	free(ing->allocator_backing);
	for (size_t i = 0; i < ing->nperf; i++) {
		free(ing->perf[i].event);
		free(ing->perf[i].stat_name);
		free(ing->perf[i].reason);
		free(ing->perf[i].per_rank);
	}
	free(ing->perf);
	memset(ing, 0, sizeof(*ing));
}
