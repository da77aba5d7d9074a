/*
 * tierlab list: what this installation knows — workloads (from their
 * descriptors), policies, allocators, samplers, axes, and the experiments
 * in the database — and whether each is usable here.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "axis/axis.h"
#include "builtin.h"
#include "util/error.h"
#include "parse-options.h"
#include "policies/policies.h"
#include "util/paths.h"
#include "spec/spec.h"
#include "store/query.h"
#include "util/visible.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_workloads(void)
{
	const char *dir = tl_path_workloads();
	char *names[256];
	size_t n = 0;
	struct dirent *de;
	DIR *d;

	printf("workloads (%s):\n", dir ? dir : "no workloads directory found");
	if (!dir || !(d = opendir(dir)))
		return;
	while ((de = readdir(d)) && n < 256) {
		char *path = de->d_name[0] == '.' ? NULL : tl_path_workload_descriptor(dir, de->d_name);
		size_t len = strlen(de->d_name);

		if (!path && len > 5 && !strcmp(de->d_name + len - 5, ".yaml")) {
			char base[256];

			snprintf(base, sizeof(base), "%.*s", (int)(len - 5), de->d_name);
			path = tl_path_workload_descriptor(dir, base);
		}
		if (path)
			names[n++] = path;
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		struct tl_workload wl = { 0 };
		struct tl_error err;

		if (tl_workload_load(names[i], &wl, &err)) {
			printf("  (%s)\n", err.msg);
		} else {
			printf("  %-12s sizes:", wl.name);
			for (size_t s = 0; s < wl.nsizes; s++)
				printf(" %s%s", wl.sizes[s].name,
				       wl.default_size && !strcmp(wl.default_size, wl.sizes[s].name) ? "*" : "");
			printf("  fom: %s%s\n", wl.fom.unit ? wl.fom.unit : "s",
			       wl.fom.higher_is_better ? " (higher is better)" : " (lower is better)");
		}
		tl_workload_release(&wl);
		free(names[i]);
	}
}

static void list_names(const char *title, const char *const *names)
{
	printf("%s:", title);
	for (int i = 0; names[i]; i++)
		printf(" %s", names[i]);
	printf("\n");
}

/* The policies, and the parameters each takes in policy_args (as the built-ins declare them). */
static void list_policies(void)
{
	list_names("policies", tl_policy_names);
	for (int i = 0; tl_policy_names[i]; i++)
		for (const struct tlp_param *p = tl_policy_params(tl_policy_names[i]); p && p->name; p++)
			printf("  %s takes %s (default %s): %s\n", tl_policy_names[i], p->name, p->def ? p->def : "none",
			       p->help);
}

static void list_libs(void)
{
	char *rt = tl_path_lib("libtiermem.so");

	printf("runtime: %s\n", rt ? rt : "libtiermem.so not built: static, lru, window cannot run");
	printf("allocators:");
	for (size_t i = 0; tl_allocator_names[i]; i++) {
		const struct tl_allocator_info *al = tl_allocator_find(tl_allocator_names[i]);
		char *own = al->lib && !al->package ? tl_path_lib(al->lib) : NULL;

		printf("%s %s", i ? "," : "", al->name);
		if (al->lib && al->package && !tl_path_system_lib(al->lib))
			printf(" (%s not installed)", al->package);
		else if (al->lib && !al->package && !own)
			printf(" (%s not built)", al->lib);
		free(own);
	}
	printf("\n");
	free(rt);
}

static void list_axes(void)
{
	printf("axes:\n");
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		printf("  %-10s %s", tl_axes[a].name, tl_axis_help(a));
		if (tl_axes[a].def)
			printf(" (default %s)", tl_axes[a].def);
		printf("\n");
	}
}

static int list_experiments(const char *db)
{
	struct tl_store *st;
	char **names = NULL;
	size_t n = 0;
	int rc;

	if (access(db, F_OK)) {
		printf("experiments: none (no database at %s)\n", db);
		return 0;
	}
	if (tl_store_open_existing(db, &st))
		return -1;
	rc = tl_store_experiments(st, &names, &n);
	if (!rc) {
		printf("experiments (%s):", db);
		for (size_t i = 0; i < n; i++) {
			printf(" %s", names[i]);
			free(names[i]);
		}
		printf("%s\n", n ? "" : " none");
		free(names);
	}
	tl_store_close(st);
	return rc;
}

/* One line per session; after `limit` of them (0: none), only how many more there are. */
struct session_lines {
	size_t shown, more, limit;
};

static int session_line(void *arg, const struct tl_session_row *s)
{
	struct session_lines *l = arg;
	time_t t = (time_t)s->started_at;
	char when[32];
	struct tm tm;

	if (l->limit && l->shown == l->limit) {
		l->more++;
		return 0;
	}
	if (!l->shown++)
		printf("  %6s  %-19s  %-16s %6s %6s  %s\n", "id", "started", "experiment", "runs", "ok", "command");
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("  %6lld  %-19s  ", (long long)s->id, when);
	tl_fput_visible(s->experiment ? s->experiment : "-", 0, stdout);
	printf("%*s %6lld %6lld  ", s->experiment && strlen(s->experiment) < 16 ? (int)(16 - strlen(s->experiment)) : 0,
	       "", (long long)s->runs, (long long)s->runs_ok);
	tl_fput_visible(s->command ? s->command : "-", 0, stdout);
	putchar('\n');
	return 0;
}

/* The sessions that stored runs (of experiment, or of any), latest first; limit 0: all. */
static int list_sessions(const char *db, const char *experiment, size_t limit)
{
	struct session_lines l = { .limit = limit };
	struct tl_store *st;
	int rc;

	if (access(db, F_OK)) {
		printf("sessions: none (no database at %s)\n", db);
		return 0;
	}
	if (tl_store_open_existing(db, &st))
		return -1;
	printf("sessions (%s), latest first:\n", db);
	rc = tl_store_sessions_each(st, experiment, session_line, &l);
	if (!rc && !l.shown)
		printf("  none\n");
	if (!rc && l.more)
		printf("  ... %zu more (tierlab list sessions)\n", l.more);
	tl_store_close(st);
	return rc;
}

int cmd_list(int argc, const char **argv)
{
	const char *db = NULL, *experiment = NULL;
	static const char *const usage[] = {
		"tierlab list [<options>] [workloads|policies|allocators|samplers|axes|experiments|sessions]",
		NULL
	};
	const struct option options[] = {
		OPT_STRING('e', "experiment", &experiment, "name", "with 'sessions': only those that stored runs of it"),
		OPT_DB(&db, "results database for 'experiments' and 'sessions'"),
		OPT_END(),
	};
	static const char *const what_names[] = { "workloads", "policies", "allocators", "samplers",
						   "axes", "experiments", "sessions", NULL };
	const char *what;

	argc = parse_options(argc, argv, options, usage);
	if (argc > 1)
		usage_with_options(usage, options);
	what = argc ? argv[0] : NULL;
	if (what) {
		int known = 0;

		for (int i = 0; what_names[i]; i++)
			known |= !strcmp(what, what_names[i]);
		if (!known) {
			const char *dym = tl_did_you_mean(what, what_names);

			error("unknown list '%s'%s%s%s", what, dym ? " (did you mean '" : "", dym ? dym : "",
			      dym ? "'?)" : "");
			return 2;
		}
	}
	if (!db)
		db = tl_path_default_db();
	if (!what || !strcmp(what, "workloads"))
		list_workloads();
	if (!what || !strcmp(what, "policies"))
		list_policies();
	if (!what || !strcmp(what, "allocators"))
		list_libs();
	if (!what || !strcmp(what, "samplers"))
		list_names("samplers", tl_sampler_names);
	if (!what || !strcmp(what, "axes"))
		list_axes();
	if ((!what || !strcmp(what, "experiments")) && list_experiments(db))
		return 2;
	/* all of them would be every invocation ever stored: the latest ten */
	if ((!what || !strcmp(what, "sessions")) && list_sessions(db, experiment, what ? 0 : 10))
		return 2;
	return 0;
}
