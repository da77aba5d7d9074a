/*
 * Composing what a run is launched with (see launch.h). The order of LD_PRELOAD
 * matters: the tiering runtime comes first so it sees every allocation and
 * hands the small ones to the next allocator in the list (the chosen
 * allocator, else glibc).
 */
#include "run/launch.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "run/runner.h"
#include "tiermem/options.h"
#include "util/paths.h"
#include "util/strings.h"

extern char **environ;

static int env_add(struct tl_launch *re, const char *name, const char *value)
{
	size_t len = strlen(name);
	char *kv;

	if (asprintf(&kv, "%s=%s", name, value) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < re->n; i++) {
		if (!strncmp(re->envp[i], name, len) && re->envp[i][len] == '=') {
			free(re->envp[i]);
			re->envp[i] = kv;
			return 0;
		}
	}
	char **v = realloc(re->envp, sizeof(*v) * (re->n + 2));
	if (!v) {
		free(kv);
		return -ENOMEM;
	}
	re->envp = v;
	re->envp[re->n++] = kv;
	re->envp[re->n] = NULL;
	return 0;
}

static void env_remove(struct tl_launch *re, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < re->n; i++) {
		if (!strncmp(re->envp[i], name, len) && re->envp[i][len] == '=') {
			free(re->envp[i]);
			re->envp[i] = re->envp[--re->n];
			re->envp[re->n] = NULL;
			return;
		}
	}
}

static int add_preload(struct tl_launch *re, const char *lib)
{
	const char *old = tl_env_lookup(re->envp, "LD_PRELOAD");
	char *v;
	int rc;

	if (old && *old) {
		if (asprintf(&v, "%s %s", old, lib) < 0)
			return -ENOMEM;
	} else if (!(v = strdup(lib))) {
		return -ENOMEM;
	}
	rc = env_add(re, "LD_PRELOAD", v);
	free(v);
	return rc;
}

static char *resolve_path(const char *base, const char *p)
{
	char *out;

	if (p[0] == '/' || !base)
		return strdup(p);
	return asprintf(&out, "%s/%s", base, p) < 0 ? NULL : out;
}

static char *resolve_program(const char *argv0, const char *spec_dir)
{
	const char *libexec = tl_path_libexec();
	char *p;

	if (strchr(argv0, '/'))
		return resolve_path(spec_dir, argv0);
	/* tierlab's own programs first, so a spec can run them with its own arguments */
	if (libexec) {
		if (asprintf(&p, "%s/%s", libexec, argv0) < 0)
			return NULL;
		if (!access(p, X_OK))
			return p;
		free(p);
	}
	return strdup(argv0);	/* looked up in PATH by the runner */
}

/* The runtime's own variables by enum tlrt_opt (tiermem/options.h), so their names are written once. */
static const char *const rt_var[TLRT_OPT__COUNT] = {
#define TLRT_VAR_NAME(id, axis, kind, applies, flags, def, var, ...) [TLRT_OPT_##id] = var,
	TLRT_OPTIONS(TLRT_VAR_NAME)
#undef TLRT_VAR_NAME
};

/*
 * A plugin given as a path is found from the spec's directory (the
 * workload runs in a directory of its own) and must be there: a run whose
 * policy cannot be loaded would run unmanaged under the plugin's name.
 */
static int add_plugin(struct tl_launch *re, const char *var, const char *policy, const char *spec_dir,
		      struct tl_error *err)
{
	char *path;
	int rc;

	if (!strchr(policy, '/'))
		return env_add(re, var, policy);	/* a built-in, or a name the loader searches */
	if (!(path = resolve_path(spec_dir, policy)))
		return -ENOMEM;
	if (access(path, R_OK)) {
		tl_error_set(err, "policy plugin '%s': %s", path, strerror(errno));
		free(path);
		return -ENOENT;
	}
	rc = env_add(re, var, path);
	free(path);
	return rc;
}

/* The runtime's tiers (the spec's machine) and the runtime itself preloaded: what every runtime launch ends with. */
static int add_runtime_lib(struct tl_launch *re, const struct tl_spec *spec, const char *lib)
{
	int rc = 0;

	if (spec->machine.fast)
		rc = env_add(re, rt_var[TLRT_OPT_FAST_NODES], spec->machine.fast);
	if (spec->machine.slow)
		rc = rc ?: env_add(re, rt_var[TLRT_OPT_SLOW_NODES], spec->machine.slow);
	return rc ?: add_preload(re, lib);
}

/* Every axis the runtime reads goes in its variable; a static policy's fractions in their own. */
static int add_runtime(struct tl_launch *re, const struct tl_spec *spec, const struct tl_config *c,
		       const char *spec_dir, struct tl_error *err)
{
	const char *policy = c->values[TL_AXIS_POLICY];
	char *lib = tl_path_lib("libtiermem.so");
	const char *colon = strchr(policy, ':');
	int rc = 0;

	if (!lib) {
		tl_error_set(err, "policy '%s' needs the tiering runtime libtiermem.so, which is not built in %s",
			 policy, tl_path_libdir() ? tl_path_libdir() : "the tierlab lib directory");
		return -ENOENT;
	}
	for (int a = 0; a < TL_AXIS__COUNT && !rc; a++) {
		const char *v = c->values[a];

		if (!tl_axes[a].var || !v)
			continue;
		if (tl_axes[a].kind == TL_KIND_POLICY && colon) {
			char base[64];

			rc = env_add(re, tl_axes[a].var, tl_policy_base(v, base, sizeof(base)));
			rc = rc ?: env_add(re, rt_var[TLRT_OPT_FRACTIONS], colon + 1);
			continue;
		}
		if (tl_axes[a].kind == TL_KIND_POLICY) {
			rc = add_plugin(re, tl_axes[a].var, v, spec_dir, err);
			continue;
		}
		rc = env_add(re, tl_axes[a].var, v);
	}
	rc = rc ?: add_runtime_lib(re, spec, lib);
	free(lib);
	return rc;
}

/*
 * A memory policy with scope managed: the runtime in the program with no
 * placement policy and no sampler, which puts the memory policy on the
 * memory it manages only (TIERLAB_MEMPOLICY); the rest of the program
 * keeps the default policy.
 */
static int add_managed_mempolicy(struct tl_launch *re, const struct tl_spec *spec, const struct tl_config *c,
				 const char *policy, struct tl_error *err)
{
	char *lib = tl_path_lib("libtiermem.so");
	int rc;

	if (!lib) {
		tl_error_set(err, "policy '%s' with scope " TL_SCOPE_MANAGED " needs the tiering runtime libtiermem.so, "
			     "which is not built in %s", policy,
			     tl_path_libdir() ? tl_path_libdir() : "the tierlab lib directory");
		return -ENOENT;
	}
	rc = env_add(re, rt_var[TLRT_OPT_MEMPOLICY], policy);
	rc = rc ?: env_add(re, rt_var[TLRT_OPT_SAMPLER], "none");
	if (c->values[TL_AXIS_THRESHOLD])
		rc = rc ?: env_add(re, tl_axes[TL_AXIS_THRESHOLD].var, c->values[TL_AXIS_THRESHOLD]);
	rc = rc ?: add_runtime_lib(re, spec, lib);
	free(lib);
	return rc;
}

/* glibc.malloc.hugetlb=N appended to GLIBC_TUNABLES (the last setting wins: the run's, over the user's). */
static int add_glibc_hugetlb(struct tl_launch *re, const char *allocator, const char *value, struct tl_error *err)
{
	const char *old = tl_env_lookup(re->envp, "GLIBC_TUNABLES"), *have = gnu_get_libc_version();
	char *v;
	int major = 0, minor = 0, rc;

	/* the tunable came in glibc 2.35; an older glibc ignores it silently, and the run would be plain glibc */
	if (sscanf(have, "%d.%d", &major, &minor) != 2 || major < 2 || (major == 2 && minor < 35)) {
		tl_error_set(err, "allocator '%s' needs glibc 2.35 or later (glibc.malloc.hugetlb); this is %s",
			     allocator, have);
		return -ENOENT;
	}
	if (asprintf(&v, "%s%sglibc.malloc.hugetlb=%s", old ? old : "", old && *old ? ":" : "", value) < 0)
		return -ENOMEM;
	rc = env_add(re, "GLIBC_TUNABLES", v);
	free(v);
	return rc;
}

/* What TL_ALLOCATORS says the allocator needs: a tunable, a variable, a library preloaded. */
static int add_allocator(struct tl_launch *re, const char *allocator, struct tl_error *err)
{
	const struct tl_allocator_info *al = tl_allocator_find(allocator ? allocator : "system");
	char *lib = NULL, *name = NULL;
	int rc = 0;

	if (!al) {
		tl_error_set(err, "unknown allocator '%s'", allocator);
		return -ENOENT;
	}
	if (al->hugetlb)
		return add_glibc_hugetlb(re, al->name, al->hugetlb, err);
	if (al->lib && al->package && !tl_path_system_lib(al->lib)) {
		tl_error_set(err, "allocator '%s' needs %s (apt-get install %s)", al->name, al->lib, al->package);
		return -ENOENT;
	}
	if (al->lib && !al->package && !(lib = tl_path_lib(al->lib))) {
		tl_error_set(err, "allocator '%s' needs %s, which is not built in %s", al->name, al->lib,
			     tl_path_libdir() ? tl_path_libdir() : "the tierlab lib directory");
		return -ENOENT;
	}
	if (al->env) {
		name = strndup(al->env, strcspn(al->env, "="));
		rc = name ? env_add(re, name, al->env + strlen(name) + 1) : -ENOMEM;
	}
	if (al->lib)
		rc = rc ?: add_preload(re, lib ? lib : al->lib);
	free(name);
	free(lib);
	return rc;
}

/*
 * The memory-policy baselines, as numactl sets them: preferred on the fast
 * nodes (MPOL_PREFERRED_MANY: any of them first, the others when they are
 * full), the interleaves over fast and slow together. The nodes' weights
 * of weighted-interleave are the machine's (lib/ktier sets them).
 */
static int add_mempolicy(struct tl_launch *re, const char *policy, const struct tl_machine *m)
{
	if (!tl_policy_is_mempolicy(policy) || !m->fast)
		return 0;
	if (tl_policy_mempolicy(policy) == TL_MEMPOL_PREFERRED) {
		re->mem_nodes = m->fast;
		re->mem_mode = MPOL_PREFERRED_MANY;
		return 0;
	}
	if (!m->slow)
		return 0;
	if (asprintf(&re->mem_nodes_own, "%s,%s", m->fast, m->slow) < 0) {
		re->mem_nodes_own = NULL;
		return -ENOMEM;
	}
	re->mem_nodes = re->mem_nodes_own;
	re->mem_mode = tl_policy_mempolicy(policy) == TL_MEMPOL_INTERLEAVE ? MPOL_INTERLEAVE : MPOL_WEIGHTED_INTERLEAVE;
	return 0;
}

static int prefix_add(struct tl_launch *re, const char *word)
{
	char **v = realloc(re->prefix, sizeof(*v) * (re->nprefix + 2));

	if (!v)
		return -ENOMEM;
	re->prefix = v;
	if (!(v[re->nprefix] = strdup(word)))
		return -ENOMEM;
	v[++re->nprefix] = NULL;
	return 0;
}

/*
 * launch: {ranks, with, args}: the launcher, its options and the rank
 * count, then `env` with LD_PRELOAD and the runtime's variables, which
 * leave the launcher's own environment: mpirun and srun are not tiered,
 * and mpirun does not forward variables to other nodes unasked.
 */
static int add_launcher(struct tl_launch *re, const struct tl_spec *spec)
{
	const struct tl_launch_spec *l = &spec->launch;
	const char *out = tl_env_lookup(re->envp, "TIERLAB_OUT");
	char ranks[16], *helper = NULL, *events = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	snprintf(ranks, sizeof(ranks), "%d", l->ranks);
	rc = prefix_add(re, l->with);
	/* every line labelled with its rank: the figure of merit is read from rank 0's (measure/fom.h) */
	rc = rc ?: prefix_add(re, strcmp(l->with, "srun") ? "--tag-output" : "--label");
	for (size_t i = 0; !rc && i < l->args.n; i++)
		rc = prefix_add(re, l->args.v[i]);
	rc = rc ?: prefix_add(re, strcmp(l->with, "srun") ? "-np" : "--ntasks");
	rc = rc ?: prefix_add(re, ranks);
	/*
	 * The spec's events counted on each rank, when tierlab-rank is built
	 * (tierlab's own counters, on the launcher, miss ranks that are not
	 * its children): before env, so it runs untiered, as the launcher.
	 */
	if (!rc && spec->events.n && out && asprintf(&helper, "%s/tierlab-rank", tl_path_libexec()) >= 0 &&
	    !access(helper, X_OK)) {
		f = open_memstream(&events, &len);
		for (size_t i = 0; f && i < spec->events.n; i++)	/* "{a,b}" groups as --events writes them */
			fprintf(f, "%s%s", i ? "," : "", spec->events.v[i]);
		if (!f || fclose(f))
			rc = -ENOMEM;
		rc = rc ?: prefix_add(re, helper);
		rc = rc ?: prefix_add(re, out);
		rc = rc ?: prefix_add(re, events);
	}
	free(helper);
	free(events);
	rc = rc ?: prefix_add(re, "env");
	for (size_t i = 0; !rc && i < re->n;) {
		if (strncmp(re->envp[i], "LD_PRELOAD=", 11) && strncmp(re->envp[i], "TIERLAB_", 8) &&
		    strncmp(re->envp[i], "SHAMBLES_", 9)) {
			i++;
			continue;
		}
		rc = prefix_add(re, re->envp[i]);
		free(re->envp[i]);
		memmove(&re->envp[i], &re->envp[i + 1], sizeof(*re->envp) * (re->n - i));
		re->n--;
	}
	return rc;
}

int tl_launch_build(const struct tl_spec *spec, const struct tl_config *c, const char *out_dir,
		    const char *spec_dir, uint64_t footprint, struct tl_launch *re, struct tl_error *err)
{
	const struct tl_workload *wl = c->workload;
	const char *policy = c->values[TL_AXIS_POLICY];
	char *user_preload = NULL;
	bool managed = tl_policy_managed_scope(policy, c->values[TL_AXIS_POLICY_ARGS]);
	int rc = 0;

	memset(re, 0, sizeof(*re));
	tl_error_set(err, "out of memory");
	for (char **e = environ; *e && !rc; e++) {
		char *eq = strchr(*e, '=');
		char name[256];

		if (!eq || eq - *e >= (long)sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(eq - *e), *e);
		/* tierlab's own settings for itself must not leak into the runtime of a run */
		if (!strncmp(name, "TIERLAB_", 8) || !strncmp(name, "SHAMBLES_", 9))
			continue;
		rc = env_add(re, name, eq + 1);
	}
	for (size_t i = 0; i < wl->env.n && !rc; i++) {
		char *eq = strchr(wl->env.v[i], '=');
		char name[256];

		snprintf(name, sizeof(name), "%.*s", (int)(eq - wl->env.v[i]), wl->env.v[i]);
		rc = env_add(re, name, eq + 1);
	}
	if (!rc && c->values[TL_AXIS_THREADS]) {
		rc = env_add(re, "OMP_NUM_THREADS", c->values[TL_AXIS_THREADS]);
		rc = rc ?: env_add(re, "OPENBLAS_NUM_THREADS", c->values[TL_AXIS_THREADS]);
	}
	/*
	 * Where the runtime and the allocators leave their files for ingest;
	 * absolute, as the workload runs in a directory of its own.
	 */
	if (!rc) {
		char *cwd = out_dir[0] == '/' ? NULL : getcwd(NULL, 0);
		char *abs = out_dir[0] == '/' || cwd ? resolve_path(cwd, out_dir) : NULL;

		rc = abs ? env_add(re, rt_var[TLRT_OPT_OUT], abs) : -ENOMEM;
		free(abs);
		free(cwd);
	}
	if (rc)
		goto fail;
	/* tierlab's libraries go first (the runtime must see every allocation), the user's after */
	user_preload = tl_env_lookup(re->envp, "LD_PRELOAD") ? strdup(tl_env_lookup(re->envp, "LD_PRELOAD")) : NULL;
	rc = env_add(re, "LD_PRELOAD", "");
	if (rc)
		goto fail;
	if (policy && tl_policy_uses_runtime(policy)) {
		rc = add_runtime(re, spec, c, spec_dir, err);
		if (!rc && footprint) {
			char bytes[32];

			/* in bytes, with its unit: the runtime takes no bare number for a size */
			snprintf(bytes, sizeof(bytes), "%lluB", (unsigned long long)footprint);
			rc = env_add(re, rt_var[TLRT_OPT_FOOTPRINT], bytes);
		}
		if (rc)
			goto fail;
	}
	if (managed && (rc = add_managed_mempolicy(re, spec, c, policy, err)))
		goto fail;
	rc = add_allocator(re, c->values[TL_AXIS_ALLOCATOR], err);
	if (!rc && user_preload && *user_preload)
		rc = add_preload(re, user_preload);
	if (!rc && !*tl_env_lookup(re->envp, "LD_PRELOAD"))
		env_remove(re, "LD_PRELOAD");
	free(user_preload);
	user_preload = NULL;
	if (rc)
		goto fail;
	if (tl_policy_binding(policy) == TL_BINDS_FAST)
		re->mem_nodes = spec->machine.fast;
	else if (tl_policy_binding(policy) == TL_BINDS_SLOW)
		re->mem_nodes = spec->machine.slow;
	else if (policy && !managed && (rc = add_mempolicy(re, policy, &spec->machine)))
		goto fail;
	if (spec->launch.with && (rc = add_launcher(re, spec)))
		goto fail;
	re->program = resolve_program(c->argv.v[0], spec_dir);
	if (wl->dir)
		re->dir = resolve_path(spec_dir, wl->dir);
	if (!re->program || (wl->dir && !re->dir)) {
		rc = -ENOMEM;
		goto fail;
	}
	if (err)
		err->msg[0] = '\0';
	return 0;
fail:
	free(user_preload);
	tl_launch_release(re);
	return rc;
}

char **tl_launch_argv(const struct tl_launch *re, char *const *args, size_t n)
{
	char **argv = calloc(re->nprefix + (n ? n : 1) + 1, sizeof(*argv));

	if (!argv)
		return NULL;
	for (size_t i = 0; i < re->nprefix; i++)
		argv[i] = re->prefix[i];
	argv[re->nprefix] = re->program;
	for (size_t i = 1; i < n; i++)
		argv[re->nprefix + i] = args[i];
	return argv;
}

void tl_launch_release(struct tl_launch *re)
{
	for (size_t i = 0; i < re->nprefix; i++)
		free(re->prefix[i]);
	free(re->prefix);
	for (size_t i = 0; i < re->n; i++)
		free(re->envp[i]);
	free(re->envp);
	free(re->program);
	free(re->dir);
	free(re->mem_nodes_own);
	memset(re, 0, sizeof(*re));
}
