/*
 * tierlab show: one stored run whole — configuration, status, figure of
 * merit, the sampling rate it achieved, rusage, metrics, where its files
 * are, and the end of its stderr when it did not succeed. Every text that
 * came from a spec, a workload or the environment is printed made visible
 * (util/visible.h): a workload's stderr may hold escape sequences.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "builtin.h"
#include "util/error.h"
#include "parse-options.h"
#include "util/paths.h"
#include "report/report.h"
#include "store/log.h"
#include "util/addr2line.h"
#include "store/query.h"
#include "util/visible.h"

/* Text from outside, made visible, on stdout. */
static void put(const char *s)
{
	tl_fput_visible(s ? s : "-", 0, stdout);
}

/* "LABEL          VALUE" */
static void field(const char *label, const char *value)
{
	printf("%-14s ", label);
	put(value);
	putchar('\n');
}

/* "LABEL          2024-05-01 14:00:03 +0200"; label NULL: the time alone, to end a line begun */
static void print_time(const char *label, double t)
{
	time_t s = (time_t)t;
	struct tm tm;
	char buf[64];

	localtime_r(&s, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %z", &tm);
	if (label)
		printf("%-14s ", label);
	printf("%s\n", buf);
}

/* The last `lines` lines of a file, for a failed run's stderr. */
static void print_tail(const char *dir, const char *name, int lines)
{
	char path[4096], *buf;
	FILE *f;
	long size, start;
	int seen = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	start = size > 8192 ? size - 8192 : 0;
	buf = malloc(size - start + 1);
	if (buf) {
		fseek(f, start, SEEK_SET);
		size_t n = fread(buf, 1, size - start, f);
		buf[n] = '\0';
		char *p = buf + n;
		while (p > buf && seen <= lines)
			if (*--p == '\n' && p[1])
				seen++;
		if (n) {
			printf("\n%s (last lines):\n", name);
			tl_fput_visible(p == buf ? p : p + 1, TL_VISIBLE_LINES, stdout);
			if (buf[n - 1] != '\n')
				putchar('\n');
		}
		free(buf);
	}
	fclose(f);
}

/* --allocations: one line per managed allocation, after a header. */
static int print_allocation(void *arg, const struct tl_alloc_summary *a)
{
	int64_t *t0 = arg;
	char hit[32] = "-", freed[32] = "-", fn[512];

	if (*t0 < 0) {
		*t0 = a->t_ns;
		printf("%8s %4s %10s %9s %9s %8s %8s %14s  %s\n", "pid", "seq", "at s", "freed s", "MiB",
		       "samples", "hit rate", "fast MiB (end)", "call site (function, when addr2line knows it)");
	}
	if (a->samples_judged)
		snprintf(hit, sizeof(hit), "%.1f%%", 100.0 * (double)a->hits / (double)a->samples_judged);
	if (a->freed)
		snprintf(freed, sizeof(freed), "%.3f", (double)(a->freed_ns - *t0) / 1e9);
	printf("%8lld %4lld %10.3f %9s %9.2f %8lld %8s %14.2f  ", (long long)a->pid, (long long)a->seq,
	       (double)(a->t_ns - *t0) / 1e9, freed, (double)a->size / 1048576.0, (long long)a->samples, hit,
	       (double)a->fast_bytes / 1048576.0);
	put(a->callsite);
	if (!tl_addr2line(a->callsite, fn, sizeof(fn))) {
		fputs(" (", stdout);
		put(fn);
		putchar(')');
	}
	putchar('\n');
	return 0;
}

static void print_sampling(const struct tl_run_row *r)
{
	char line[256], warning[320];

	if (!tl_run_sampling_text(r, line, sizeof(line), warning, sizeof(warning)))
		return;
	field("sampling", line);
	if (warning[0]) {
		printf("warning: ");
		put(warning);
		putchar('\n');
	}
}

static void print_counter(void *arg, const char *event, const double *value, const char *status,
			  const char *reason)
{
	int *header = arg;

	char *name = tl_visible(event ? event : "-", 0);

	if (!(*header)++)
		printf("counters:\n");
	printf("  %-30s ", name ? name : "?");
	if (value) {
		printf("%.6g", *value);
	} else {
		put(status);
		if (reason) {
			printf(": ");
			put(reason);
		}
	}
	putchar('\n');
	free(name);
}

static void print_env(void *arg, const char *key, const char *value)
{
	int *header = arg;

	char *name = tl_visible(key ? key : "-", 0);

	if (!(*header)++)
		printf("environment:\n");
	printf("  %-30s ", name ? name : "?");
	put(value);
	putchar('\n');
	free(name);
}

/* An environment row's value, or what stands in for one a run stored before it was recorded. */
static const char *env_or(const struct tl_env *env, const char *key, const char *none)
{
	const char *v = tl_env_get(env, key);

	return v ? v : none;
}

/*
 * What the host was doing around the run and what ran (the run's
 * provenance, measure/environment.h): its load against the CPUs (the
 * report's busy host), the clock, the quiet-host wait, the program.
 */
static void print_host(const struct tl_run_row *r, const struct tl_env *env)
{
	char line[512];
	double load;

	if (r->has_load) {
		bool busy = tl_run_busy(r, &load);

		snprintf(line, sizeof(line), "1-minute load %.2f before, %.2f after, %.0f CPUs online%s",
			 r->load_before, r->load_after, r->cpus,
			 busy ? ": busy (above the CPUs: the run shared them)" : "");
		field("host", line);
		snprintf(line, sizeof(line), "load averages %s before, %s after (1, 5, 15 minutes)",
			 env_or(env, "host.loadavg_before", "-"), env_or(env, "host.loadavg_after", "-"));
		field("", line);
	} else if (!r->simulated) {
		field("host", "load not recorded (a run stored before tierlab recorded it)");
	}
	if (tl_env_get(env, "cpu.freq_mhz")) {
		const char *mhz = tl_env_get(env, "cpu.freq_mhz");

		/* "2400 (1200-3500 over 8 CPUs)" is in MHz; "unreadable (...)" says why there is none */
		snprintf(line, sizeof(line), "%s%s, governor %s", mhz, isdigit((unsigned char)mhz[0]) ? " MHz" : "",
			 env_or(env, "cpu.governor", "-"));
		field("clock", line);
	}
	if (tl_env_get(env, "host.quiet"))
		field("quiet host", tl_env_get(env, "host.quiet"));
	if (tl_env_get(env, "workload.program")) {
		snprintf(line, sizeof(line), "%s, %s %s", env_or(env, "workload.program", "-"),
			 tl_env_get(env, "workload.build_id") ? "build id" : "sha256",
			 env_or(env, "workload.build_id", env_or(env, "workload.sha256", "-")));
		field("program", line);
		field("compiler", env_or(env, "workload.compiler", "-"));
	}
}

int cmd_show(int argc, const char **argv)
{
	const char *db = NULL;
	static const char *const usage[] = {
		"tierlab show [<options>] <run-id | run-key | key-prefix>",
		NULL
	};
	int allocations = 0;
	const struct option options[] = {
		OPT_BOOL(0, "allocations", &allocations, "each managed allocation: call site, samples, hit rate, fast bytes at the end"),
		OPT_DB(&db, "results database"),
		OPT_END(),
	};
	struct tl_store *st = NULL;
	struct tl_run_row r = { 0 };
	struct tl_metric *m = NULL;
	size_t nm = 0;
	int ret = 2;

	argc = parse_options(argc, argv, options, usage);
	if (argc != 1) {
		error("expected one run");
		usage_with_options(usage, options);
	}
	if (!db)
		db = tl_path_default_db();
	if (tl_store_open_existing(db, &st))
		return 2;
	if (tl_store_get_run_or_latest(st, argv[0], allocations, &r))
		goto out;
	if (allocations) {
		int64_t t0 = -1;

		printf("run %lld (%s): managed allocations\n", (long long)r.id, r.run_key);
		if (tl_store_allocations_summary(st, r.id, print_allocation, &t0))
			goto out;
		if (t0 < 0)
			printf("(none logged: the run's log mode was not 'log', or it managed no allocation)\n");
		ret = 0;
		goto out;
	}
	printf("%-14s %lld\n", "run", (long long)r.id);
	field("key", r.run_key);
	field("experiment", r.experiment);
	if (r.session_id) {
		printf("%-14s %lld, started ", "session", (long long)r.session_id);
		print_time(NULL, r.session_started);
	}
	printf("%-14s ", "configuration");
	put(r.config_key);
	printf(" (repetition %d)\n", r.rep);
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		if (!r.values[a])
			continue;
		printf("  %-12s ", tl_axes[a].name);
		put(r.values[a]);
		putchar('\n');
	}
	field("command", r.command);
	printf("%-14s %s", "status", tl_status_names[r.status]);
	if (r.error && *r.error) {
		printf(" (");
		put(r.error);
		printf(")");
	}
	printf("\n");
	if (r.simulated)
		printf("%-14s %s\n", "simulated", "yes: replayed by tierlab simulate, not run (docs/simulate.md)");
	if (r.has_fom) {
		printf("%-14s %.6g ", "fom", r.fom);
		put(r.fom_unit ? r.fom_unit : "");
		printf(" (%s is better)\n", r.higher_is_better ? "higher" : "lower");
	} else {
		printf("%-14s -\n", "fom");
	}
	print_sampling(&r);
	if (r.simulated)
		/* its wall_s is the replay's own time: no run of the configuration took it */
		printf("%-14s %.3fs (how long the replay took, not a run's wall time)\n", "replay", r.wall);
	else
		printf("%-14s wall %.3fs  user %.3fs  sys %.3fs  max rss %ld KiB\n", "rusage", r.wall, r.user,
		       r.sys, r.maxrss_kb);
	if (r.has_estimate)
		printf("%-14s %.1f%% of all-fast, the tier model's estimate (not measured)\n", "estimate",
		       100 * r.estimate);
	print_time("started", r.started_at);
	print_time("ended", r.ended_at);
	field("files", r.out_dir);
	{
		struct tl_env run_env = { 0 };
		int64_t eid;

		if (!tl_store_run_experiment(st, r.id, &eid) && !tl_store_env_load(st, eid, r.id, &run_env))
			print_host(&r, &run_env);
		tl_env_release(&run_env);
	}
	/* a store that fails part way (too slow, damaged) fails the command, after what it printed */
	if (tl_store_run_metrics(st, r.id, &m, &nm))
		goto out;
	if (nm) {
		printf("metrics:\n");
		for (size_t i = 0; i < nm; i++) {
			char *name = tl_visible(m[i].name, 0);

			printf("  %-30s %.6g ", name ? name : "?", m[i].value);
			put(m[i].unit ? m[i].unit : "");
			putchar('\n');
			free(name);
		}
	}
	int header = 0;
	int64_t exp_id;
	if (tl_store_counters_each(st, r.id, print_counter, &header) || tl_store_run_experiment(st, r.id, &exp_id))
		goto out;
	header = 0;
	if (tl_store_env_each(st, exp_id, 0, print_env, &header) || tl_store_env_each(st, exp_id, r.id, print_env, &header))
		goto out;
	if (r.status != TL_STATUS_OK && r.out_dir)
		print_tail(r.out_dir, "stderr.txt", 15);
	ret = 0;
out:
	tl_metrics_free(m, nm);
	tl_run_row_release(&r);
	tl_store_close(st);
	return ret;
}
