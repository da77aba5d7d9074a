/*
 * Reading the runtime's and the FAT allocator's per-process files out of a
 * run's directory (see ingest.h).
 */
#include "measure/ingest.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"
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

static struct tl_ingest_process *proc_of(struct tl_ingest *ing, int pid)
{
	struct tl_ingest_process *v;

	for (size_t i = 0; i < ing->nprocs; i++)
		if (ing->procs[i].pid == pid)
			return &ing->procs[i];
	v = realloc(ing->procs, sizeof(*v) * (ing->nprocs + 1));
	if (!v)
		return NULL;
	ing->procs = v;
	v = &ing->procs[ing->nprocs++];
	memset(v, 0, sizeof(*v));
	v->pid = pid;
	return v;
}

/* The counters file: a header, the values, then their names; read by name so older files still map. */
static int read_counters(struct tl_ingest *ing, const char *path, int pid)
{
	struct rt_counters_header h;
	struct tl_ingest_process *p;
	uint64_t *vals = NULL;
	char *names = NULL;
	long size;
	FILE *f = fopen(path, "rb");
	int rc = -EINVAL;

	if (!f)
		return -errno;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	if (size < (long)sizeof(h) || fread(&h, sizeof(h), 1, f) != 1 ||
	    memcmp(h.magic, RT_COUNTERS_MAGIC, 8) || h.header_size < sizeof(h) || h.nstats > 4096 ||
	    (long)(h.header_size + 8ULL * h.nstats) > size)
		goto out;
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
	p = proc_of(ing, pid);
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
	p->complete = h.complete == 1;
	ing->runtime_seen = true;
	ing->same_node |= h.same_node != 0;
	rc = 0;
out:
	free(vals);
	free(names);
	fclose(f);
	return rc;
}

static int read_fat_status(struct tl_ingest *ing, const char *path, int pid)
{
	FILE *f = fopen(path, "r");
	struct tl_ingest_process *p = proc_of(ing, pid);
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

/* Sums over processes (ranks) what the report shows, as SHAMBLES reports it. */
static int summarise(struct tl_ingest *ing)
{
	uint64_t sum[RT_STAT__COUNT] = { 0 };
	size_t n = 0;
	char name[96];
	int rc = 0;

	for (size_t i = 0; i < ing->nprocs; i++) {
		if (!ing->procs[i].stats)
			continue;
		n++;
		for (int s = 0; s < RT_STAT__COUNT; s++)
			sum[s] += ing->procs[i].stats[s];
	}
	if (!n)
		return 0;
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
		int pid, len = 0;

		snprintf(path, sizeof(path), "%s/%s", out_dir, de->d_name);
		if (sscanf(de->d_name, "tiermem-%d.counters%n", &pid, &len) == 1 && !de->d_name[len]) {
			rc = read_counters(ing, path, pid);
			if (rc && rc != -ENOMEM)
				warning("'%s': not a complete counters file; skipped", path);
		} else if (sscanf(de->d_name, "fatalloc-%d.txt%n", &pid, &len) == 1 && !de->d_name[len]) {
			rc = read_fat_status(ing, path, pid);
		}
	}
	closedir(d);
	if (rc == -ENOMEM)
		return rc;
	return summarise(ing);
}

static int exec_sql(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/* One line of tiermem-PID.log into its table; unknown or short lines are skipped. */
static void log_line(sqlite3_stmt *const stm[3], int64_t run_id, int pid, char *line)
{
	char *f[10];
	int n = 0;

	for (char *tok = strtok(line, "\t\n"); tok && n < 10; tok = strtok(NULL, "\t\n"))
		f[n++] = tok;
	if (!n)
		return;
	sqlite3_stmt *s = NULL;
	if (!strcmp(f[0], "A") && n >= 5) {	/* A t_ns seq addr bytes first nchunks callsite */
		s = stm[0];
		sqlite3_bind_int64(s, 3, strtoll(f[2], NULL, 0));
		sqlite3_bind_int64(s, 4, strtoll(f[1], NULL, 0));
		sqlite3_bind_int64(s, 5, (int64_t)strtoull(f[3], NULL, 0));
		sqlite3_bind_int64(s, 6, strtoll(f[4], NULL, 0));
		if (n >= 8)
			sqlite3_bind_text(s, 7, f[7], -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(s, 7);
	} else if (!strcmp(f[0], "S") && n >= 7) {	/* S t_ns addr pc tid chunk hit flags */
		s = stm[1];
		sqlite3_bind_int64(s, 3, strtoll(f[1], NULL, 0));
		sqlite3_bind_int64(s, 4, (int64_t)strtoull(f[2], NULL, 0));
		sqlite3_bind_int64(s, 5, (int64_t)strtoull(f[3], NULL, 0));
		sqlite3_bind_int64(s, 6, strtoll(f[4], NULL, 0));
		sqlite3_bind_int(s, 7, atoi(f[6]) ? 1 : 0);
	} else if (!strcmp(f[0], "M") && n >= 7) {	/* M t_ns chunk addr bytes direction ok */
		s = stm[2];
		sqlite3_bind_int64(s, 3, strtoll(f[1], NULL, 0));
		sqlite3_bind_int64(s, 4, (int64_t)strtoull(f[3], NULL, 0));
		sqlite3_bind_int64(s, 5, strtoll(f[4], NULL, 0));
		sqlite3_bind_text(s, 6, f[5], -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(s, 7, atoi(f[6]) ? 1 : 0);
	}
	if (!s)
		return;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int(s, 2, pid);
	sqlite3_step(s);	/* a bad line (e.g. unknown direction) is dropped by its CHECK */
	sqlite3_reset(s);
}

static int store_log(sqlite3 *db, int64_t run_id, const char *path, int pid)
{
	static const char *const sql[3] = {
		"INSERT OR IGNORE INTO allocations (run_id, pid, seq, t_ns, addr, size, callsite) "
		"VALUES (?, ?, ?, ?, ?, ?, ?)",
		"INSERT INTO samples (run_id, pid, t_ns, addr, pc, tid, hit) VALUES (?, ?, ?, ?, ?, ?, ?)",
		"INSERT INTO migrations (run_id, pid, t_ns, addr, bytes, direction, ok) "
		"VALUES (?, ?, ?, ?, ?, ?, ?)",
	};
	sqlite3_stmt *stm[3] = { 0 };
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int rc = SQLITE_OK;

	if (!f)
		return SQLITE_OK;
	for (int i = 0; i < 3 && rc == SQLITE_OK; i++)
		rc = sqlite3_prepare_v2(db, sql[i], -1, &stm[i], NULL);
	while (rc == SQLITE_OK && getline(&line, &cap, f) > 0)
		log_line(stm, run_id, pid, line);
	free(line);
	for (int i = 0; i < 3; i++)
		sqlite3_finalize(stm[i]);
	fclose(f);
	return rc;
}

int tl_ingest_store(struct tl_store *st, int64_t run_id, const char *out_dir,
		    const struct tl_ingest *ing)
{
	sqlite3 *db = tl_store_db(st);
	sqlite3_stmt *s = NULL;
	char path[PATH_MAX];
	int rc;

	if (!ing->nprocs)
		return 0;
	rc = exec_sql(db, "BEGIN IMMEDIATE");
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO process_stats (run_id, pid, name, value) "
					"VALUES (?, ?, ?, ?)", -1, &s, NULL);
	for (size_t i = 0; i < ing->nprocs && rc == SQLITE_OK; i++) {
		const struct tl_ingest_process *p = &ing->procs[i];

		for (int k = 0; p->stats && k < RT_STAT__COUNT && rc == SQLITE_OK; k++) {
			sqlite3_bind_int64(s, 1, run_id);
			sqlite3_bind_int(s, 2, p->pid);
			sqlite3_bind_text(s, 3, stat_names[k], -1, SQLITE_STATIC);
			sqlite3_bind_int64(s, 4, (int64_t)p->stats[k]);
			rc = sqlite3_step(s) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
			sqlite3_reset(s);
		}
		snprintf(path, sizeof(path), "%s/tiermem-%d.log", out_dir, p->pid);
		if (rc == SQLITE_OK)
			rc = store_log(db, run_id, path, p->pid);
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_OK)
		rc = exec_sql(db, "COMMIT");
	if (rc != SQLITE_OK) {
		exec_sql(db, "ROLLBACK");
		return error("database '%s': storing the runtime's records: %s", tl_store_path(st),
			     sqlite3_errmsg(db));
	}
	return 0;
}

void tl_ingest_release(struct tl_ingest *ing)
{
	for (size_t i = 0; i < ing->nprocs; i++) {
		free(ing->procs[i].stats);
		free(ing->procs[i].fat_backing);
	}
	free(ing->procs);
	for (size_t i = 0; i < ing->nmetrics; i++) {
		free((char *)ing->metrics[i].name);
		free((char *)ing->metrics[i].unit);
	}
	free(ing->metrics);
	free(ing->allocator_backing);
	memset(ing, 0, sizeof(*ing));
}
