/*
 * The host around a run (environment.h): how loaded it was before and
 * after, how fast its CPUs were clocked and by which governor, and the
 * variables that set the run's threading. A figure taken while other
 * work shared the CPUs, or while they ran slower, is not the figure of a
 * configuration; the report marks such runs (report.h, tl_run_busy).
 */
#include "measure/environment.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/array.h"

#define UNREADABLE "unreadable"

int tl_host_load_parse(const char *loadavg, const char *stat, struct tl_host_load *l)
{
	const char *p;

	l->load[0] = l->load[1] = l->load[2] = NAN;
	l->running = -1;
	if (loadavg && sscanf(loadavg, "%lf %lf %lf", &l->load[0], &l->load[1], &l->load[2]) != 3)
		l->load[0] = l->load[1] = l->load[2] = NAN;
	for (p = stat; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "procs_running ", 14) && sscanf(p + 14, "%ld", &l->running) != 1)
			l->running = -1;
	return isnan(l->load[0]) || l->running < 0 ? -EINVAL : 0;
}

/* A small /proc file whole (the kernel makes them at read): "" when unreadable. */
static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

void tl_host_load_read(struct tl_host_load *l)
{
	char avg[256], stat[16384];

	slurp("/proc/loadavg", avg, sizeof(avg));
	slurp("/proc/stat", stat, sizeof(stat));
	tl_host_load_parse(avg, stat, l);
	l->cpus = sysconf(_SC_NPROCESSORS_ONLN);
}

/* One line of a sysfs file, "" when unreadable. */
static void line_of(const char *path, char *buf, size_t len)
{
	slurp(path, buf, len);
	buf[strcspn(buf, "\n")] = '\0';
}

/* "performance", or "powersave x4, performance x4" when the CPUs differ. */
static void add_governor(char (*seen)[32], size_t *count, size_t *n, const char *g)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(seen[i], g)) {
			count[i]++;
			return;
		}
	if (*n < 8) {
		snprintf(seen[*n], 32, "%.31s", g);
		count[(*n)++] = 1;
	}
}

int tl_env_put_cpufreq_from(struct tl_env *env, const char *cpu_dir)
{
	char seen[8][32], path[512], buf[64], text[320];
	size_t count[8], ngov = 0, nfreq = 0, used = 0;
	double sum = 0, lo = INFINITY, hi = 0;
	struct dirent *de;
	DIR *d = opendir(cpu_dir);
	int rc;

	while (d && (de = readdir(d))) {
		char *end;

		if (strncmp(de->d_name, "cpu", 3) || !de->d_name[3] || (strtol(de->d_name + 3, &end, 10), *end))
			continue;
		snprintf(path, sizeof(path), "%s/%s/cpufreq/scaling_cur_freq", cpu_dir, de->d_name);
		line_of(path, buf, sizeof(buf));
		if (buf[0] && strtod(buf, &end) > 0 && !*end) {
			double mhz = strtod(buf, NULL) / 1000;	/* the file says kHz */

			sum += mhz;
			lo = fmin(lo, mhz);
			hi = fmax(hi, mhz);
			nfreq++;
		}
		snprintf(path, sizeof(path), "%s/%s/cpufreq/scaling_governor", cpu_dir, de->d_name);
		line_of(path, buf, sizeof(buf));
		if (buf[0])
			add_governor(seen, count, &ngov, buf);
	}
	if (d)
		closedir(d);
	if (nfreq)
		snprintf(text, sizeof(text), "%.0f (%.0f-%.0f over %zu CPUs)", sum / (double)nfreq, lo, hi, nfreq);
	rc = tl_env_set(env, "cpu.freq_mhz", nfreq ? text : UNREADABLE " (no cpufreq in sysfs)");
	text[0] = '\0';
	/* by name: the directory's order is no order */
	for (size_t i = 0; i < ngov; i++)
		for (size_t j = i + 1; j < ngov; j++)
			if (strcmp(seen[j], seen[i]) < 0) {
				char t[32];
				size_t c = count[i];

				memcpy(t, seen[i], sizeof(t));
				memcpy(seen[i], seen[j], sizeof(t));
				memcpy(seen[j], t, sizeof(t));
				count[i] = count[j];
				count[j] = c;
			}
	for (size_t i = 0; i < ngov && used < sizeof(text); i++) {
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s", i ? ", " : "", seen[i]);
		if (ngov > 1 && used < sizeof(text))
			used += (size_t)snprintf(text + used, sizeof(text) - used, " x%zu", count[i]);
	}
	return rc ?: tl_env_set(env, "cpu.governor", ngov ? text : UNREADABLE " (no cpufreq in sysfs)");
}

int tl_env_put_cpufreq(struct tl_env *env)
{
	return tl_env_put_cpufreq_from(env, "/sys/devices/system/cpu");
}

/* The variables a run inherits that set its threading and libraries (LD_PRELOAD, OMP_NUM_THREADS, ...). */
static const char *const inherited[] = { "LD_PRELOAD", "LD_LIBRARY_PATH", "OMP_", "GOMP_", "KMP_", "OPENBLAS_",
					  "MKL_", "MALLOC_", "MIMALLOC_", "GLIBC_TUNABLES", "NUMA", NULL };

/* The prefixes of inherited[] that set a program's threads: their absence is worth a row too. */
static bool threading(const char *prefix)
{
	return !strcmp(prefix, "OMP_") || !strcmp(prefix, "GOMP_") || !strcmp(prefix, "KMP_") ||
	       !strcmp(prefix, "OPENBLAS_") || !strcmp(prefix, "MKL_");
}

int tl_env_put_variables(struct tl_env *env, char *const *envp)
{
	extern char **environ;
	char key[160];
	bool threads = false;
	int rc = 0;

	for (char *const *e = envp ? envp : environ; *e && !rc; e++) {
		const char *eq = strchr(*e, '=');

		for (int i = 0; eq && inherited[i]; i++) {
			if (strncmp(*e, inherited[i], strlen(inherited[i])))
				continue;
			snprintf(key, sizeof(key), "env.%.*s", (int)(eq - *e) > 150 ? 150 : (int)(eq - *e), *e);
			rc = tl_env_put(env, key, eq + 1);
			threads |= threading(inherited[i]);
			break;
		}
	}
	/* a run's own record says so when nothing set its threads: the runtimes' defaults applied */
	if (!rc && envp && !threads)
		rc = tl_env_put(env, "env.threading", "none of OMP_*, GOMP_*, KMP_*, MKL_*, OPENBLAS_* set");
	return rc;
}
