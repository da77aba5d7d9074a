/*
 * Collecting, comparing and storing the environment record (see
 * environment.h). Everything is read from /proc and /sys, libnuma and
 * uname, except the BLAS core type, which only OpenBLAS itself can tell:
 * it is asked once per process through dlopen, since linking tierlab
 * against it would start its thread pool in every tierlab command.
 */
#include "measure/environment.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util/error.h"
#include "util/strings.h"
#include "util/version.h"
#include "util/array.h"

#define ABSENT "absent"

extern char **environ;

/* ---- the record ---- */

int tl_env_set(struct tl_env *env, const char *key, const char *value)
{
	return tl_env_put(env, key, value ? value : ABSENT);
}

/* ---- reading facts ---- */

/* The first line of a file, without its newline; "" when unreadable. */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* A sysfs/procfs setting, or "absent" when the kernel does not have it. */
static int set_file(struct tl_env *env, const char *key, const char *path)
{
	char buf[256];

	first_line(path, buf, sizeof(buf));
	return tl_env_set(env, key, *buf ? buf : ABSENT);
}

/* THP files list every choice and bracket the one in effect: "always [madvise] never". */
static int set_bracketed(struct tl_env *env, const char *key, const char *path)
{
	char buf[256], *l, *r;

	first_line(path, buf, sizeof(buf));
	l = strchr(buf, '[');
	r = l ? strchr(l, ']') : NULL;
	if (!r)
		return tl_env_set(env, key, *buf ? buf : ABSENT);
	*r = '\0';
	return tl_env_set(env, key, l + 1);
}

/* "model name" and "flags" of the first processor (ARM says "CPU part" and "Features"). */
static int set_cpuinfo(struct tl_env *env)
{
	static const char *const model_keys[] = { "model name", "Model", "cpu model", "CPU part" };
	static const char *const flag_keys[] = { "flags", "Features" };
	char *model = NULL, *flags = NULL, *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f = fopen("/proc/cpuinfo", "r");
	int rc;

	while (f && (len = getline(&line, &cap, f)) > 0) {
		char *colon = strchr(line, ':'), *val;
		size_t klen;

		if (line[0] == '\n' && (model || flags))
			break;	/* the end of the first processor's block */
		if (!colon)
			continue;
		klen = (size_t)(colon - line);
		while (klen && (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
			klen--;
		val = colon + 1 + strspn(colon + 1, " \t");
		val[strcspn(val, "\n")] = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(model_keys); i++)
			if (!model && klen == strlen(model_keys[i]) && !strncmp(line, model_keys[i], klen))
				model = strdup(val);
		for (size_t i = 0; i < ARRAY_SIZE(flag_keys); i++)
			if (!flags && klen == strlen(flag_keys[i]) && !strncmp(line, flag_keys[i], klen))
				flags = strdup(val);
	}
	free(line);
	if (f)
		fclose(f);
	rc = tl_env_set(env, "cpu_model", model && *model ? model : "unknown");
	if (!rc)
		rc = tl_env_set(env, "cpu_flags", flags && *flags ? flags : "unknown");
	free(model);
	free(flags);
	return rc;
}

/* Nodes for which has(node) holds, in numactl syntax ("0-1,3"), into buf. */
static void node_list(int (*has)(int), char *buf, size_t len)
{
	int max = numa_max_node(), w = 0;

	buf[0] = '\0';
	for (int n = 0; n <= max; n++) {
		int start = n;

		if (!has(n))
			continue;
		while (n + 1 <= max && has(n + 1))
			n++;
		if ((size_t)w < len)
			w += snprintf(buf + w, len - (size_t)w, start == n ? "%s%d" : "%s%d-%d",
				      w ? "," : "", start, n);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

static int node_present(int n)
{
	return numa_bitmask_isbitset(numa_nodes_ptr, (unsigned)n);
}

static int node_has_cpus(int n)
{
	struct bitmask *cpus;
	int has = 0;

	if (!node_present(n))
		return 0;
	cpus = numa_allocate_cpumask();
	if (cpus && !numa_node_to_cpus(n, cpus))
		has = numa_bitmask_weight(cpus) > 0;
	numa_free_cpumask(cpus);
	return has;
}

static int node_has_memory(int n)
{
	long long free_b;

	return node_present(n) && numa_node_size64(n, &free_b) > 0;
}

static int set_numa(struct tl_env *env)
{
	char buf[1024];
	int rc, w = 0, max;

	if (numa_available() < 0) {
		rc = tl_env_set(env, "numa_nodes", ABSENT);
		rc = rc ? rc : tl_env_set(env, "numa_cpu_nodes", ABSENT);
		rc = rc ? rc : tl_env_set(env, "numa_mem_nodes", ABSENT);
		return rc ? rc : tl_env_set(env, "numa_distances", ABSENT);
	}
	node_list(node_present, buf, sizeof(buf));
	rc = tl_env_set(env, "numa_nodes", buf);
	node_list(node_has_cpus, buf, sizeof(buf));
	rc = rc ? rc : tl_env_set(env, "numa_cpu_nodes", buf);
	node_list(node_has_memory, buf, sizeof(buf));
	rc = rc ? rc : tl_env_set(env, "numa_mem_nodes", buf);
	if (rc)
		return rc;
	/* The distance matrix of present nodes, rows separated by ';': "10,21;21,10". */
	max = numa_max_node();
	buf[0] = '\0';
	for (int a = 0; a <= max && (size_t)w < sizeof(buf); a++) {
		int col = 0;

		if (!node_present(a))
			continue;
		if (w)
			w += snprintf(buf + w, sizeof(buf) - (size_t)w, ";");
		for (int b = 0; b <= max && (size_t)w < sizeof(buf); b++)
			if (node_present(b))
				w += snprintf(buf + w, sizeof(buf) - (size_t)w, "%s%d", col++ ? "," : "",
					      numa_distance(a, b));
	}
	return tl_env_set(env, "numa_distances", *buf ? buf : "unknown");
}

/* hugetlb_<size>_nr and _free for each pool under /sys/kernel/mm/hugepages, smallest size first. */
static int set_hugetlb(struct tl_env *env)
{
	const char *dir = "/sys/kernel/mm/hugepages";
	char *names[16], path[512], key[96];
	size_t n = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d)
		return tl_env_set(env, "hugetlb", ABSENT);
	while ((de = readdir(d)) && n < ARRAY_SIZE(names))
		if (!strncmp(de->d_name, "hugepages-", 10) && strlen(de->d_name) < 64) {
			names[n] = strdup(de->d_name);
			if (!names[n]) {
				rc = -ENOMEM;
				break;
			}
			n++;
		}
	closedir(d);
	/* By size, not by name: "hugepages-1048576kB" would sort before "hugepages-2048kB". */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (atol(names[j] + 10) < atol(names[i] + 10)) {
				char *t = names[i];

				names[i] = names[j];
				names[j] = t;
			}
	for (size_t i = 0; i < n && !rc; i++) {
		const char *size = names[i] + 10;

		snprintf(path, sizeof(path), "%s/%s/nr_hugepages", dir, names[i]);
		snprintf(key, sizeof(key), "hugetlb_%s_nr", size);
		rc = set_file(env, key, path);
		snprintf(path, sizeof(path), "%s/%s/free_hugepages", dir, names[i]);
		snprintf(key, sizeof(key), "hugetlb_%s_free", size);
		rc = rc ? rc : set_file(env, key, path);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	if (!rc && !n)
		rc = tl_env_set(env, "hugetlb", ABSENT);
	return rc;
}

/* What libopenblas says about itself; asked once, it does not change within a process. */
static struct {
	int asked;
	char corename[64], config[256];
} blas;

/*
 * In a child process: OpenBLAS's constructor starts worker threads, and
 * libgfortran's exits the process when an allocation fails (found by
 * cli/fault-inject), neither of which tierlab should have to live with.
 * The child writes "corename\nconfig\n" and exits.
 */
static void blas_child(int out)
{
	char *(*corename)(void), *(*config)(void);
	const char *c = NULL, *f = NULL;
	void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);

	if (h) {
		*(void **)&corename = dlsym(h, "openblas_get_corename");
		*(void **)&config = dlsym(h, "openblas_get_config");
		c = corename ? corename() : NULL;
		f = config ? config() : NULL;
	}
	dprintf(out, "%s\n%s\n", c ? c : "", f ? f : "");
	_exit(0);
}

static void ask_openblas(void)
{
	char buf[sizeof(blas.corename) + sizeof(blas.config) + 2], *nl;
	size_t got = 0;
	ssize_t n;
	int fd[2], st;
	pid_t pid;

	if (blas.asked)
		return;
	blas.asked = 1;
	if (pipe2(fd, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		blas_child(fd[1]);
	}
	close(fd[1]);
	while (pid > 0 && got < sizeof(buf) - 1 &&
	       ((n = read(fd[0], buf + got, sizeof(buf) - 1 - got)) > 0 || (n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	close(fd[0]);
	if (pid < 0)
		return;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	buf[got] = '\0';
	if (!(nl = strchr(buf, '\n')))
		return;
	*nl = '\0';
	snprintf(blas.corename, sizeof(blas.corename), "%.*s", (int)sizeof(blas.corename) - 1, buf);
	snprintf(blas.config, sizeof(blas.config), "%.*s", (int)strcspn(nl + 1, "\n"), nl + 1);
}

static int set_blas(struct tl_env *env, char *const *envp)
{
	const char *forced = tl_env_lookup(envp ? envp : environ, "OPENBLAS_CORETYPE");
	int rc;

	ask_openblas();
	if (forced && *forced) {
		rc = tl_env_set(env, "blas_coretype", forced);
		rc = rc ? rc : tl_env_set(env, "blas_coretype_source", "OPENBLAS_CORETYPE");
	} else if (blas.corename[0]) {
		rc = tl_env_set(env, "blas_coretype", blas.corename);
		rc = rc ? rc : tl_env_set(env, "blas_coretype_source", "detected");
	} else {
		rc = tl_env_set(env, "blas_coretype", ABSENT);
		rc = rc ? rc : tl_env_set(env, "blas_coretype_source", "no libopenblas.so.0");
	}
	return rc ? rc : tl_env_set(env, "blas_config", blas.config[0] ? blas.config : ABSENT);
}

int tl_env_collect(struct tl_env *env, const char *spec_hash, char *const *envp)
{
	struct tl_env e = { 0 };
	struct utsname u;
	char buf[64];
	long cpus;
	int rc;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(buf, sizeof(buf), "%ld", cpus);

	rc = tl_env_set(&e, "tierlab_version", tl_version);
	rc = rc ? rc : tl_env_set(&e, "spec_hash", spec_hash && *spec_hash ? spec_hash : ABSENT);
	rc = rc ? rc : tl_env_set(&e, "host", *u.nodename ? u.nodename : "unknown");
	rc = rc ? rc : tl_env_set(&e, "kernel", *u.release ? u.release : "unknown");
	rc = rc ? rc : tl_env_set(&e, "kernel_version", *u.version ? u.version : "unknown");
	rc = rc ? rc : tl_env_set(&e, "arch", *u.machine ? u.machine : "unknown");
	rc = rc ? rc : set_cpuinfo(&e);
	rc = rc ? rc : tl_env_set(&e, "cpu_count", cpus > 0 ? buf : "unknown");
	rc = rc ? rc : set_numa(&e);
	rc = rc ? rc : set_bracketed(&e, "thp_enabled", "/sys/kernel/mm/transparent_hugepage/enabled");
	rc = rc ? rc : set_bracketed(&e, "thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag");
	rc = rc ? rc : set_file(&e, "numa_balancing", "/proc/sys/kernel/numa_balancing");
	rc = rc ? rc : set_file(&e, "demotion_enabled", "/sys/kernel/mm/numa/demotion_enabled");
	rc = rc ? rc : set_file(&e, "perf_event_paranoid", "/proc/sys/kernel/perf_event_paranoid");
	rc = rc ? rc : set_hugetlb(&e);
	rc = rc ? rc : set_blas(&e, envp);
	if (rc) {
		tl_env_release(&e);
		return rc;
	}
	tl_env_release(env);
	*env = e;
	return 0;
}

/* ---- comparing ---- */

bool tl_env_key_compared(const char *key)
{
	size_t len = strlen(key);

	if (!strcmp(key, "spec_hash"))
		return false;
	if (!strncmp(key, "hugetlb_", 8) && len > 5 && !strcmp(key + len - 5, "_free"))
		return false;
	return true;
}

static int add_change(struct tl_env_change **v, size_t *n, const char *key, const char *a,
		      const char *b)
{
	struct tl_env_change *grown = realloc(*v, (*n + 1) * sizeof(**v));

	if (!grown)
		return -ENOMEM;
	*v = grown;
	grown[*n].key = key;
	grown[*n].a = a;
	grown[*n].b = b;
	(*n)++;
	return 0;
}

/* A value stored as NULL (a node set the spec did not give) compares as "absent". */
static const char *value_of(const struct tl_env_entry *e)
{
	return e->value ? e->value : ABSENT;
}

int tl_env_diff(const struct tl_env *a, const struct tl_env *b, struct tl_env_change **out,
		size_t *n)
{
	struct tl_env_change *v = NULL;
	size_t k = 0;
	int rc = 0;

	for (size_t i = 0; i < a->n && !rc; i++) {
		const char *key = a->v[i].key, *av = value_of(&a->v[i]), *bv = NULL;

		for (size_t j = 0; j < b->n && !bv; j++)
			if (!strcmp(b->v[j].key, key))
				bv = value_of(&b->v[j]);
		if (tl_env_key_compared(key) && (!bv || strcmp(av, bv)))
			rc = add_change(&v, &k, key, av, bv);
	}
	for (size_t i = 0; i < b->n && !rc; i++) {
		const char *key = b->v[i].key;
		bool in_a = false;

		for (size_t j = 0; j < a->n && !in_a; j++)
			in_a = !strcmp(a->v[j].key, key);
		if (tl_env_key_compared(key) && !in_a)
			rc = add_change(&v, &k, key, NULL, value_of(&b->v[i]));
	}
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*n = k;
	return 0;
}

/* Appends to buf at *w the words of `x` that are not words of `y`, as "+w" / "-w". */
static void word_diff(char *buf, size_t len, int *w, const char *x, const char *y, char sign)
{
	const char *p = x;

	while (*p) {
		size_t wl;
		bool found = false;

		p += strspn(p, " ");
		wl = strcspn(p, " ");
		if (!wl)
			break;
		for (const char *q = y; *q;) {
			size_t ql;

			q += strspn(q, " ");
			ql = strcspn(q, " ");
			if (ql == wl && !strncmp(p, q, wl)) {
				found = true;
				break;
			}
			q += ql;
		}
		if (!found && (size_t)*w < len)
			*w += snprintf(buf + *w, len - (size_t)*w, " %c%.*s", sign, (int)wl, p);
		else if (!found)
			*w += (int)wl + 2;
		p += wl;
	}
}

int tl_env_diff_describe(const struct tl_env_change *c, size_t n, char *buf, size_t len)
{
	int w = 0;
	char scratch[1];

	if (!len) {
		buf = scratch;
		len = 1;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *a = c[i].a ? c[i].a : "(unset)", *b = c[i].b ? c[i].b : "(unset)";
		size_t room = (size_t)w < len ? len - (size_t)w : 0;
		char *at = room ? buf + w : scratch;

		if (!room)
			room = 1;
		if (!strcmp(c[i].key, "cpu_flags") && c[i].a && c[i].b) {
			/* Two hundred flags apiece: say which ones differ. */
			w += snprintf(at, room, "%scpu_flags", i ? ", " : "");
			word_diff(buf, len, &w, c[i].b, c[i].a, '+');
			word_diff(buf, len, &w, c[i].a, c[i].b, '-');
			continue;
		}
		w += snprintf(at, room, "%s%s %s vs %s", i ? ", " : "", c[i].key, a, b);
	}
	if ((size_t)w >= len)
		buf[len - 1] = '\0';
	return w;
}

static bool has_flag(const char *flags, const char *flag)
{
	size_t fl = strlen(flag);

	for (const char *p = flags; p && (p = strstr(p, flag)); p += fl)
		if ((p == flags || p[-1] == ' ') && (p[fl] == ' ' || !p[fl]))
			return true;
	return false;
}

int tl_env_blas_advice(const struct tl_env *env, char *buf, size_t len)
{
	/* OpenBLAS cores without AVX2 kernels: the ones it falls back to in a VM. */
	static const char *const old[] = {
		"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Sandybridge",
		"Barcelona", "Bobcat", "Bulldozer", "Piledriver", "Steamroller", "Excavator",
		"Katmai", "Coppermine", "Northwood", "Banias", "Opteron", "Opteron_SSE3",
	};
	const char *core = tl_env_get(env, "blas_coretype");
	const char *src = tl_env_get(env, "blas_coretype_source");
	const char *flags = tl_env_get(env, "cpu_flags");
	const char *model = tl_env_get(env, "cpu_model");
	const char *want, *unit;
	bool is_old = false;

	if (!core || !src || !flags || strcmp(src, "detected"))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(old); i++)
		if (!strcasecmp(core, old[i]))
			is_old = true;
	if (!is_old)
		return 0;
	if (has_flag(flags, "avx512f")) {
		want = "SkylakeX";
		unit = "AVX-512";
	} else if (has_flag(flags, "avx2")) {
		want = model && strstr(model, "AMD") ? "Zen" : "Haswell";
		unit = "AVX2";
	} else {
		return 0;
	}
	snprintf(buf, len, "OpenBLAS uses the '%s' kernels although the CPU has %s: set "
		 "OPENBLAS_CORETYPE=%s", core, unit, want);
	return 1;
}
