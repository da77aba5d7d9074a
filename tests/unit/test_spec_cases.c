/*
 * Spec cases as data: every .yaml file in tests/spec is one case whose leading
 * comments say what must happen, as jq keeps its cases:
 *
 *   # expect-error: FILE:LINE:COL: message        the exact error line (of the parser or the planner)
 *   # expect-runs: N                              the plan's run count
 *   # expect-config: policy=lru chunks=8 ...      tl_config_describe() of some configuration
 *   # expect-no-config: ...                       ... of none
 *
 * Each case is its own cmocka test, named after its file. Cases load with
 * their basename as the path in messages and tests/spec/workloads as the
 * built-in workloads. Also here: loading from a file, the fields a good
 * spec fills, tl_spec_set_axis, descriptors, and ownership (run this
 * binary under valgrind --leak-check=full).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/hash.h"
#include "plan/plan.h"
#include "spec/spec.h"

#define MIN_BAD_CASES 35
/* TL_YAML_MAX_DEPTH (spec/yaml.h), as the messages state it */
#define TL_DEPTH_LIMIT 64
#define MIN_GOOD_CASES 6

struct spec_case {
	char *file;		/* basename */
	char *text;
	char *expect_error;	/* NULL for a good case */
	long expect_runs;	/* -1 when not given */
	struct tl_strlist configs, no_configs;
	char *header_problem;	/* a malformed header: the case fails saying so */
};

static struct spec_case *cases;
static size_t ncases;

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	assert_non_null(d);
	return d;
}

static void push(struct tl_strlist *l, const char *s)
{
	l->v = realloc(l->v, sizeof(*l->v) * (l->n + 1));
	assert_non_null(l->v);
	l->v[l->n++] = xstrdup(s);
}

static void strlist_free(struct tl_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len + 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[len] = '\0';
	fclose(f);
	return buf;
}

/* The leading comment block's expect-* lines. */
static void parse_header(struct spec_case *c)
{
	const char *p = c->text;
	char line[1200];

	c->expect_runs = -1;
	while (*p == '#') {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		const char *v;

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p += n + (eol ? 1 : 0);
		if (strncmp(line, "# expect-", 9))
			continue;
		v = strchr(line, ':');
		if (!v) {
			c->header_problem = xstrdup(line);
			return;
		}
		for (v++; *v == ' '; v++)
			;
		if (!strncmp(line, "# expect-error:", 15))
			c->expect_error = xstrdup(v);
		else if (!strncmp(line, "# expect-runs:", 14))
			c->expect_runs = strtol(v, NULL, 10);
		else if (!strncmp(line, "# expect-config:", 16))
			push(&c->configs, v);
		else if (!strncmp(line, "# expect-no-config:", 19))
			push(&c->no_configs, v);
		else
			c->header_problem = xstrdup(line);
	}
	if (!c->header_problem && !!c->expect_error == (c->expect_runs >= 0))
		c->header_problem = xstrdup("needs exactly one of '# expect-error:' and '# expect-runs:'");
	if (!c->header_problem && c->expect_error && (c->configs.n || c->no_configs.n))
		c->header_problem = xstrdup("expect-config lines in an error case");
}

static int cmp_case(const void *a, const void *b)
{
	return strcmp(((const struct spec_case *)a)->file, ((const struct spec_case *)b)->file);
}

/* The case directory: $TIERLAB_SPEC_CASES, or tests/spec from the cwd or a parent (tests/run.sh runs from the root). */
static int enter_case_dir(void)
{
	const char *env = getenv("TIERLAB_SPEC_CASES");
	char path[PATH_MAX];

	if (env && *env)
		return chdir(env);
	snprintf(path, sizeof(path), "tests/spec");
	for (int up = 0; up < 5; up++) {
		if (!chdir(path))
			return 0;
		if (strlen(path) + 4 >= sizeof(path))
			break;
		memmove(path + 3, path, strlen(path) + 1);
		memcpy(path, "../", 3);
	}
	return -1;
}

static void load_cases(void)
{
	DIR *d;
	struct dirent *de;

	if (enter_case_dir()) {
		fprintf(stderr, "cannot find tests/spec from %s (set TIERLAB_SPEC_CASES)\n", getcwd(NULL, 0));
		exit(1);
	}
	d = opendir(".");
	if (!d)
		exit(1);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct spec_case *c;

		if (len < 6 || strcmp(de->d_name + len - 5, ".yaml") || de->d_name[0] == '.')
			continue;
		cases = realloc(cases, sizeof(*cases) * (ncases + 1));
		if (!cases)
			exit(1);
		c = &cases[ncases++];
		memset(c, 0, sizeof(*c));
		c->file = strdup(de->d_name);
		c->text = read_all(de->d_name);
		if (!c->file || !c->text)
			exit(1);
		parse_header(c);
	}
	closedir(d);
	qsort(cases, ncases, sizeof(*cases), cmp_case);
}

static void free_cases(void)
{
	for (size_t i = 0; i < ncases; i++) {
		free(cases[i].file);
		free(cases[i].text);
		free(cases[i].expect_error);
		free(cases[i].header_problem);
		strlist_free(&cases[i].configs);
		strlist_free(&cases[i].no_configs);
	}
	free(cases);
}

static void run_case(void **state)
{
	const struct spec_case *c = *state;
	struct tl_spec spec;
	struct tl_plan plan = { 0 };
	struct tl_error err = { { 0 } };
	char (*desc)[512] = NULL;
	int rc;

	if (c->header_problem)
		fail_msg("%s: bad case header: %s", c->file, c->header_problem);
	rc = tl_spec_load_string(c->file, c->text, "workloads", &spec, &err);
	if (c->expect_error) {
		/* a spec is refused by its parser, or by the planner (e.g. excludes that leave nothing) */
		if (!rc) {
			rc = tl_plan_build(&spec, &plan, &err);
			tl_plan_release(&plan);
			tl_spec_release(&spec);
		}
		if (!rc)
			fail_msg("%s: expected the error\n  %s\nbut the spec loaded and planned", c->file,
				 c->expect_error);
		if (strchr(err.msg, '\n'))
			fail_msg("%s: the error is more than one line:\n%s", c->file, err.msg);
		if (strcmp(err.msg, c->expect_error))
			fail_msg("%s: expected the error\n  %s\ngot\n  %s", c->file, c->expect_error, err.msg);
		return;
	}
	if (rc)
		fail_msg("%s: expected a good spec, got\n  %s", c->file, err.msg);
	if (tl_plan_build(&spec, &plan, &err)) {
		tl_spec_release(&spec);
		fail_msg("%s: the spec loaded but tl_plan_build failed: %s", c->file, err.msg);
	}
	desc = calloc(plan.nconfigs + 1, sizeof(*desc));
	assert_non_null(desc);
	for (size_t i = 0; i < plan.nconfigs; i++)
		tl_config_describe(&plan, &plan.configs[i], desc[i], sizeof(desc[i]));
	if ((long)plan.nruns != c->expect_runs) {
		long got = (long)plan.nruns;

		tl_plan_release(&plan);
		tl_spec_release(&spec);
		free(desc);
		fail_msg("%s: expected %ld runs, the plan has %ld", c->file, c->expect_runs, got);
	}
	for (int pass = 0; pass < 2; pass++) {
		const struct tl_strlist *want = pass ? &c->no_configs : &c->configs;

		for (size_t w = 0; w < want->n; w++) {
			bool found = false;

			for (size_t i = 0; i < plan.nconfigs && !found; i++)
				found = !strcmp(desc[i], want->v[w]);
			if (found == !pass)
				continue;
			fprintf(stderr, "%s: the plan's configurations:\n", c->file);
			for (size_t i = 0; i < plan.nconfigs; i++)
				fprintf(stderr, "  %s\n", desc[i]);
			tl_plan_release(&plan);
			tl_spec_release(&spec);
			free(desc);
			fail_msg("%s: %s configuration '%s'", c->file, pass ? "unexpected" : "no", want->v[w]);
		}
	}
	free(desc);
	tl_plan_release(&plan);
	tl_spec_release(&spec);
}

/* Enough cases, of both kinds, that an emptied directory cannot pass. */
static void test_case_counts(void **state)
{
	size_t bad = 0, good = 0;

	(void)state;
	for (size_t i = 0; i < ncases; i++)
		cases[i].expect_error ? bad++ : good++;
	if (bad < MIN_BAD_CASES || good < MIN_GOOD_CASES)
		fail_msg("tests/spec has %zu bad and %zu good cases; at least %d and %d expected", bad, good,
			 MIN_BAD_CASES, MIN_GOOD_CASES);
}

static void test_missing_file(void **state)
{
	struct tl_spec spec;
	struct tl_error err = { { 0 } };

	(void)state;
	assert_int_equal(tl_spec_load("no-such-spec.yaml", "workloads", &spec, &err), -EINVAL);
	assert_string_equal(err.msg, "no-such-spec.yaml: cannot read: No such file or directory");
	tl_spec_release(&spec);	/* zeroed by the failed load: safe */
	assert_int_equal(tl_spec_load(".", "workloads", &spec, &err), -EINVAL);
	assert_string_equal(err.msg, ".: cannot read: Is a directory");
}

/* Every field the DESIGN sketch sets, from the file itself. */
static void test_design_sketch_fields(void **state)
{
	struct tl_spec s;
	struct tl_error err = { { 0 } };
	const struct tl_workload *wl;

	(void)state;
	if (tl_spec_load("good-design-sketch.yaml", "workloads", &s, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(s.path, "good-design-sketch.yaml");
	assert_non_null(strstr(s.text, "name: hpcg-40pct"));
	assert_int_equal(strlen(s.hash), 16);
	assert_string_equal(s.name, "hpcg-40pct");
	assert_string_equal(s.description, "HPCG with 40% of the large arrays in the fast tier");
	assert_int_equal(s.nworkloads, 1);
	wl = tl_spec_workload(&s, "hpcg");
	assert_ptr_equal(wl, &s.workloads[0]);
	assert_null(tl_spec_workload(&s, "kmeans"));
	assert_true(wl->builtin);
	assert_string_equal(wl->descriptor, "workloads/hpcg.yaml");
	assert_int_equal(wl->command.n, 1);
	assert_string_equal(wl->command.v[0], "hpcg");
	assert_int_equal(wl->env.n, 1);
	assert_string_equal(wl->env.v[0], "OMP_PROC_BIND=close");
	assert_int_equal(wl->nsizes, 4);
	assert_string_equal(wl->sizes[0].name, "tiny");
	assert_int_equal(wl->sizes[0].args.n, 4);
	assert_string_equal(wl->sizes[0].args.v[1], "16");
	assert_string_equal(wl->default_size, "small");
	assert_string_equal(wl->fom.regex, "figure-of-merit: ([0-9.eE+-]+)");
	assert_null(wl->fom.file);
	assert_string_equal(wl->fom.unit, "GF/s");
	assert_true(wl->fom.higher_is_better);
	assert_int_equal(wl->loc.line, 12);
	assert_int_equal(wl->loc.col, 11);
	assert_string_equal(s.machine.fast, "1");
	assert_string_equal(s.machine.slow, "0");
	assert_string_equal(s.machine.cpus, "0");
	assert_null(s.machine.profile);
	assert_string_equal(s.defaults[TL_AXIS_SIZE], "small");
	assert_string_equal(s.defaults[TL_AXIS_THREADS], "2");
	assert_string_equal(s.defaults[TL_AXIS_ALLOCATOR], "system");
	assert_string_equal(s.defaults[TL_AXIS_THRESHOLD], "32MiB");
	assert_string_equal(s.defaults[TL_AXIS_BUDGET], "40%");
	assert_string_equal(s.defaults[TL_AXIS_SAMPLER], "fault");
	assert_string_equal(s.defaults[TL_AXIS_LOG], "counters");
	assert_null(s.defaults[TL_AXIS_POLICY]);
	assert_null(s.defaults[TL_AXIS_WORKLOAD]);
	assert_int_equal(s.events.n, 3);
	assert_string_equal(s.events.v[2], "dTLB-load-misses");
	assert_int_equal(s.repetitions, 3);
	assert_true(s.timeout == 600.0);
	assert_string_equal(s.baseline.values[TL_AXIS_POLICY], "all-fast");
	assert_null(s.baseline.values[TL_AXIS_RATE]);
	assert_int_equal(s.matrix[TL_AXIS_POLICY].values.n, 5);
	assert_string_equal(s.matrix[TL_AXIS_POLICY].values.v[2], "static:1,1,0");
	assert_int_equal(s.matrix[TL_AXIS_POLICY].loc.line, 21);
	assert_string_equal(s.matrix[TL_AXIS_RATE].values.v[1], "100Hz");
	assert_int_equal(s.matrix[TL_AXIS_WORKLOAD].values.n, 0);
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		assert_int_equal(s.matrix[a].zip_group, -1);
	assert_int_equal(s.nzip, 0);
	assert_int_equal(s.nexclude, 1);
	assert_string_equal(s.exclude[0].values[TL_AXIS_CHUNKS], "2");
	assert_string_equal(s.exclude[0].values[TL_AXIS_RATE], "100Hz");
	tl_spec_release(&s);
	for (size_t i = 0; i < sizeof(s); i++)
		assert_int_equal(((unsigned char *)&s)[i], 0);
}

static void test_external_fields(void **state)
{
	struct tl_spec s;
	struct tl_error err = { { 0 } };
	const struct tl_workload *wl;

	(void)state;
	if (tl_spec_load("good-external-fom.yaml", "workloads", &s, &err))
		fail_msg("%s", err.msg);
	wl = &s.workloads[0];
	assert_false(wl->builtin);
	assert_null(wl->descriptor);
	assert_string_equal(wl->name, "xhpcg");
	assert_int_equal(wl->command.n, 3);
	assert_string_equal(wl->command.v[2], "104");	/* numbers as written */
	assert_null(wl->command.v[3]);			/* NULL-terminated, ready for exec */
	assert_string_equal(wl->dir, "/opt/hpcg/bin");
	assert_int_equal(wl->env.n, 2);
	assert_string_equal(wl->env.v[1], "OMP_PLACES=cores");
	assert_string_equal(wl->sizes[1].name, "big");
	assert_string_equal(wl->sizes[1].args.v[0], "--nx=104");
	assert_string_equal(wl->default_size, "small");
	assert_string_equal(wl->fom.file, "HPCG-Benchmark*.txt");
	assert_string_equal(wl->fom.unit, "GF/s");
	assert_true(wl->fom.higher_is_better);
	tl_spec_release(&s);

	/* no fom: the wall time, lower is better; the name from argv[0] */
	if (tl_spec_load("good-minimal.yaml", "workloads", &s, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(s.workloads[0].name, "true");
	assert_null(s.workloads[0].fom.regex);
	assert_string_equal(s.workloads[0].fom.unit, "s");
	assert_false(s.workloads[0].fom.higher_is_better);
	assert_int_equal(s.repetitions, 1);
	assert_true(s.timeout == 0);
	tl_spec_release(&s);

	/* a list: size picks each workload's preset, env adds to the descriptor's */
	if (tl_spec_load("good-workloads-list.yaml", "workloads", &s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(s.nworkloads, 3);
	assert_string_equal(s.workloads[0].default_size, "tiny");
	assert_string_equal(s.workloads[1].descriptor, "workloads/kmeans/workload.yaml");
	assert_string_equal(s.workloads[1].env.v[0], "KMEANS_SEED=7");
	assert_false(s.workloads[1].fom.higher_is_better);
	assert_int_equal(s.matrix[TL_AXIS_WORKLOAD].values.n, 3);
	assert_null(s.defaults[TL_AXIS_SIZE]);
	tl_spec_release(&s);

	if (tl_spec_load("good-profile-static.yaml", "workloads", &s, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(s.machine.profile, "xeon-max-snc4");
	assert_null(s.machine.fast);
	assert_string_equal(s.defaults[TL_AXIS_POLICY], "static:1,0.25,0");
	assert_string_equal(s.defaults[TL_AXIS_THRESHOLD], "1GiB");
	assert_string_equal(s.defaults[TL_AXIS_ALLOCATOR], "jemalloc");
	tl_spec_release(&s);

	if (tl_spec_load("good-zip.yaml", "workloads", &s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(s.nzip, 1);
	assert_int_equal(s.matrix[TL_AXIS_BUDGET].zip_group, 0);
	assert_int_equal(s.matrix[TL_AXIS_CHUNKS].zip_group, 0);
	assert_int_equal(s.matrix[TL_AXIS_RATE].zip_group, -1);
	tl_spec_release(&s);
}

static const char set_axis_spec[] =
	"name: sweep\n"
	"workloads:\n"
	"  - {name: hpcg}\n"
	"  - {name: kmeans}\n"
	"policy: lru\n"
	"matrix:\n"
	"  chunks: [8, 32]\n"
	"  rate: [10Hz]\n";

static void load_set_axis_spec(struct tl_spec *s)
{
	struct tl_error err = { { 0 } };

	if (tl_spec_load_string("sweep.yaml", set_axis_spec, "workloads", s, &err))
		fail_msg("%s", err.msg);
}

static void assert_values(const struct tl_strlist *l, const char *const *want)
{
	size_t n = 0;

	for (; want[n]; n++) {
		assert_true(n < l->n);
		assert_string_equal(l->v[n], want[n]);
	}
	assert_int_equal(l->n, n);
}

static void test_set_axis(void **state)
{
	static const struct {
		enum tl_axis axis;
		const char *list;
		const char *want[6];
	} good[] = {
		{ TL_AXIS_CHUNKS, "2,8", { "2", "8" } },
		{ TL_AXIS_CHUNKS, "64", { "64" } },
		{ TL_AXIS_RATE, "10Hz,100Hz, 1kHz", { "10Hz", "100Hz", "1000Hz" } },
		{ TL_AXIS_POLICY, "lru,static:1,0.50,window", { "lru", "static:1,0.5", "window" } },
		{ TL_AXIS_POLICY, "static:1,0,static:0.25", { "static:1,0", "static:0.25" } },
		{ TL_AXIS_BUDGET, "1GiB,50%", { "1GiB", "50%" } },
		{ TL_AXIS_WORKLOAD, "kmeans", { "kmeans" } },
		{ TL_AXIS_SIZE, "tiny,medium", { "tiny", "medium" } },	/* medium: hpcg's only */
		{ TL_AXIS_WINDOW, "16,0128", { "16", "128" } },
	};
	static const struct {
		enum tl_axis axis;
		const char *list;
		const char *msg;
	} bad[] = {
		{ TL_AXIS_RATE, "fast", "--rate: 'fast' is not a rate" },
		{ TL_AXIS_RATE, "", "--rate: no values" },
		{ TL_AXIS_CHUNKS, "2,,8", "--chunks: empty value" },
		{ TL_AXIS_CHUNKS, "8,8", "--chunks: '8' is given twice" },
		{ TL_AXIS_RATE, "10Hz,10.0Hz", "--rate: '10Hz' is given twice" },
		/* a bare number on the command line too: 100 what? */
		{ TL_AXIS_RATE, "10Hz,100", "--rate: '100' has no unit (write 100Hz or 100kHz)" },
		{ TL_AXIS_BUDGET, "40", "--budget: '40' has no unit (write 40% of the footprint, or a size: 40MiB, "
					"40GiB, 40B for bytes)" },
		{ TL_AXIS_THRESHOLD, "4096", "--threshold: '4096' has no unit (write 4096B for bytes, or 4096KiB, "
					     "4096MiB)" },
		{ TL_AXIS_POLICY, "lur", "--policy: unknown policy 'lur' (did you mean 'lru'?)" },
		{ TL_AXIS_POLICY, "static:1,2", "--policy: static fraction 2 is out of range" },
		{ TL_AXIS_WORKLOAD, "dgemm", "--workload: no workload 'dgemm' in this spec" },
		{ TL_AXIS_SIZE, "huge", "--size: no workload in this spec has a size 'huge'" },
		{ TL_AXIS_SAMPLER, "faults", "--sampler: unknown sampler 'faults' (did you mean 'fault'?)" },
	};
	struct tl_spec s;
	struct tl_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		load_set_axis_spec(&s);
		memset(&err, 0, sizeof(err));
		if (tl_spec_set_axis(&s, good[i].axis, good[i].list, &err))
			fail_msg("'%s': %s", good[i].list, err.msg);
		assert_values(&s.matrix[good[i].axis].values, good[i].want);
		assert_int_equal(s.matrix[good[i].axis].loc.line, 0);
		/* the other axes stay as the spec had them */
		if (good[i].axis != TL_AXIS_CHUNKS)
			assert_values(&s.matrix[TL_AXIS_CHUNKS].values, (const char *const[]){ "8", "32", NULL });
		tl_spec_release(&s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		load_set_axis_spec(&s);
		memset(&err, 0, sizeof(err));
		assert_int_equal(tl_spec_set_axis(&s, bad[i].axis, bad[i].list, &err), -EINVAL);
		if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("'%s': expected '%s...', got '%s'", bad[i].list, bad[i].msg, err.msg);
		/* a failed replacement leaves the matrix alone */
		assert_values(&s.matrix[TL_AXIS_CHUNKS].values, (const char *const[]){ "8", "32", NULL });
		assert_values(&s.matrix[TL_AXIS_RATE].values, (const char *const[]){ "10Hz", NULL });
		tl_spec_release(&s);
	}
}

/* The spec owns copies: the caller's path and text may go away after the load. */
static void test_load_string_ownership(void **state)
{
	struct tl_spec s, again;
	struct tl_error err = { { 0 } };
	char *path = strdup("owned.yaml");
	char *text = strdup("name: owned\nworkload: {command: [./x, \"1\"], env: {A: b}}\n"
			    "matrix: {rate: [10Hz]}\nbaseline: {rate: 10Hz}\n");
	char hash[17];

	(void)state;
	assert_non_null(path);
	assert_non_null(text);
	assert_int_equal(tl_spec_load_string(path, text, NULL, &s, &err), 0);
	memset(text, 'x', strlen(text));
	free(text);
	free(path);
	assert_string_equal(s.path, "owned.yaml");
	assert_non_null(strstr(s.text, "name: owned"));
	assert_string_equal(s.workloads[0].env.v[0], "A=b");
	assert_string_equal(s.baseline.values[TL_AXIS_RATE], "10Hz");
	tl_hash_hex(s.text, strlen(s.text), hash);
	assert_string_equal(s.hash, hash);

	/* the same text hashes the same; one byte more does not */
	assert_int_equal(tl_spec_load_string("other.yaml", s.text, NULL, &again, &err), 0);
	assert_string_equal(again.hash, s.hash);
	tl_spec_release(&again);
	assert_int_equal(tl_spec_load_string("other.yaml", "name: owned\nworkload: {command: [./x]}\n#\n", NULL,
					     &again, &err), 0);
	assert_string_not_equal(again.hash, s.hash);
	tl_spec_release(&again);

	tl_spec_release(&s);
	tl_spec_release(&s);	/* released twice: the struct is zeroed, nothing is freed twice */

	/* a failure late in the file frees what the early fields allocated */
	assert_int_equal(tl_spec_load_string("late.yaml", "name: late\ndescription: d\nworkload: {name: hpcg}\n"
					     "events: [a, b]\nmatrix: {chunks: [2]}\nbaseline: {chunks: 3}\n",
					     "workloads", &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "late.yaml:6:20: baseline.chunks:"));
	assert_null(s.name);
	assert_null(s.workloads);
	tl_spec_release(&s);

	/* NULL text and NULL path */
	assert_int_equal(tl_spec_load_string(NULL, NULL, NULL, &s, &err), -EINVAL);
	assert_int_equal(tl_spec_load_string(NULL, "name: x\nworkload: {command: [a]}\nmatrix: ]\n", NULL, &s,
					     &err), -EINVAL);
	assert_int_equal(strncmp(err.msg, "<spec>:3:9: invalid YAML: ", 26), 0);
}

/* A NUL byte would cut the text short; it is refused where it sits. */
static void test_nul_byte(void **state)
{
	static const char text[] = "name: nul\nworkload: {command: [true]}\nmatrix: {rate: [1\0Hz]}\n";
	char path[] = "/tmp/tierlab-nul-XXXXXX", want[128];
	struct tl_spec s;
	struct tl_error err = { { 0 } };
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(tl_spec_load(path, "workloads", &s, &err), -EINVAL);
	unlink(path);
	snprintf(want, sizeof(want), "%s:3:18: the file contains a NUL byte; a spec is text", path);
	assert_string_equal(err.msg, want);
	tl_spec_release(&s);
}

/* A file is read up to its first NUL, so a device that never ends does not keep the reader busy. */
static void test_nul_device(void **state)
{
	struct tl_spec s;
	struct tl_error err = { { 0 } };

	(void)state;
	assert_int_equal(tl_spec_load("/dev/zero", "workloads", &s, &err), -EINVAL);
	assert_string_equal(err.msg, "/dev/zero:1:1: the file contains a NUL byte; a spec is text");
}

/* A spec of TL_SPEC_MAX_BYTES loads; one byte more is refused, naming the limit. */
static void test_size_limit(void **state)
{
	static const char head[] = "name: big\nworkload: {command: [true]}\n";
	char path[] = "/tmp/tierlab-big-XXXXXX";
	struct tl_spec s;
	struct tl_error err = { { 0 } };
	char *text = malloc(TL_SPEC_MAX_BYTES + 1), want[160];
	int fd = mkstemp(path);

	(void)state;
	assert_non_null(text);
	assert_true(fd >= 0);
	/* the head, then comment lines up to the limit */
	memset(text, '#', TL_SPEC_MAX_BYTES + 1);
	memcpy(text, head, sizeof(head) - 1);
	for (size_t i = sizeof(head) - 1 + 79; i < TL_SPEC_MAX_BYTES; i += 80)
		text[i] = '\n';
	text[TL_SPEC_MAX_BYTES - 1] = '\n';
	assert_int_equal(write(fd, text, TL_SPEC_MAX_BYTES), (ssize_t)TL_SPEC_MAX_BYTES);
	if (tl_spec_load(path, "workloads", &s, &err))
		fail_msg("a spec of exactly the limit: %s", err.msg);
	assert_string_equal(s.name, "big");
	tl_spec_release(&s);

	assert_int_equal(write(fd, "\n", 1), 1);
	close(fd);
	assert_int_equal(tl_spec_load(path, "workloads", &s, &err), -EINVAL);
	unlink(path);
	free(text);
	snprintf(want, sizeof(want), "%s: larger than 16 MiB; a spec is a text file of at most 16 MiB", path);
	assert_string_equal(err.msg, want);
}

/*
 * 80,000 unclosed lists (libyaml alone takes seconds on them, quadratic in
 * the depth) stop at the depth limit, at the list that passed it, not at
 * the end of the text.
 */
static void test_deep_nesting(void **state)
{
	const size_t levels = 80000;
	char *text = malloc(levels + 16), want[160];
	struct tl_spec s;
	struct tl_error err = { { 0 } };

	(void)state;
	assert_non_null(text);
	memset(text, '[', levels);
	strcpy(text + levels, "\n");
	assert_int_equal(tl_spec_load_string("deep.yaml", text, NULL, &s, &err), -EINVAL);
	snprintf(want, sizeof(want), "deep.yaml:1:%d: lists and maps nested more than %d deep; a spec needs a few levels",
		 TL_DEPTH_LIMIT + 1, TL_DEPTH_LIMIT);
	assert_string_equal(err.msg, want);
	/* maps count too: line N opens the map of level N */
	text[0] = '\0';
	for (int i = 0; i <= TL_DEPTH_LIMIT; i++)
		sprintf(text + strlen(text), "%*sk:\n", i, "");
	assert_int_equal(tl_spec_load_string("maps.yaml", text, NULL, &s, &err), -EINVAL);
	snprintf(want, sizeof(want), "maps.yaml:%d:%d: lists and maps nested more than %d deep; a spec needs a few levels",
		 TL_DEPTH_LIMIT + 1, TL_DEPTH_LIMIT + 1, TL_DEPTH_LIMIT);
	assert_string_equal(err.msg, want);
	free(text);
}

/* Merge keys: the map's own keys win, then the merge sources in order; nested maps come along. */
static void test_merge_keys(void **state)
{
	static const char text[] =
		"name: merge\n"
		"workloads:\n"
		"  - &a {name: a, command: [./a], env: {A: '1'}, dir: /a}\n"
		"  - &b {name: b, command: [./b], fom: {regex: 'r=([0-9]+)', unit: ops}}\n"
		"  - {<<: [*a, *b], name: c}\n"
		"  - <<: *b\n"
		"    name: d\n"
		"    command: [./d]\n";
	struct tl_spec s;
	struct tl_error err = { { 0 } };
	const struct tl_workload *c, *d;

	(void)state;
	if (tl_spec_load_string("merge.yaml", text, NULL, &s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(s.nworkloads, 4);
	c = tl_spec_workload(&s, "c");
	d = tl_spec_workload(&s, "d");
	assert_non_null(c);
	assert_non_null(d);
	assert_string_equal(c->command.v[0], "./a");	/* *a comes first */
	assert_string_equal(c->env.v[0], "A=1");
	assert_string_equal(c->dir, "/a");
	assert_string_equal(c->fom.unit, "ops");	/* only *b has a fom */
	assert_string_equal(d->command.v[0], "./d");	/* its own key wins */
	assert_string_equal(d->fom.regex, "r=([0-9]+)");
	assert_null(d->dir);
	tl_spec_release(&s);

	/* an error inside a merged map names the anchor's text, where the bad value is written */
	assert_int_equal(tl_spec_load_string("m.yaml", "name: m\nworkloads:\n  - &a {command: [./a], dri: x}\n"
					     "  - {<<: *a, name: b}\n", NULL, &s, &err), -EINVAL);
	assert_string_equal(err.msg, "m.yaml:3:25: workloads[0]: unknown key 'dri' (did you mean 'dir'?)");
	/* a quoted '<<' is an ordinary key */
	assert_int_equal(tl_spec_load_string("q.yaml", "name: q\nworkload: {command: [./a], '<<': {}}\n", NULL, &s,
					     &err), -EINVAL);
	assert_non_null(strstr(err.msg, "q.yaml:2:28: workload: unknown key '<<'"));
	/* two merge keys in one map */
	assert_int_equal(tl_spec_load_string("t.yaml", "name: t\nworkloads:\n  - &a {command: [./a]}\n"
					     "  - {<<: *a, <<: *a, name: b}\n", NULL, &s, &err), -EINVAL);
	assert_string_equal(err.msg, "t.yaml:4:14: '<<' is given twice (first at line 4)");
}

/* The spec's env replaces a descriptor's variable in place; naming it twice is refused like any other. */
static void test_env_over_descriptor(void **state)
{
	struct tl_spec s;
	struct tl_error err = { { 0 } };

	(void)state;
	if (tl_spec_load_string("env.yaml", "name: env\nworkload: {name: hpcg, env: {X: '1', OMP_PROC_BIND: spread}}\n",
				"workloads", &s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(s.workloads[0].env.n, 2);
	assert_string_equal(s.workloads[0].env.v[0], "OMP_PROC_BIND=spread");
	assert_string_equal(s.workloads[0].env.v[1], "X=1");
	tl_spec_release(&s);
	assert_int_equal(tl_spec_load_string("env.yaml", "name: env\nworkload:\n  name: hpcg\n  env:\n"
					     "    OMP_PROC_BIND: spread\n    OMP_PROC_BIND: master\n",
					     "workloads", &s, &err), -EINVAL);
	assert_string_equal(err.msg, "env.yaml:6:5: workload.env: 'OMP_PROC_BIND' is given twice (first at line 5)");
}

/* Values have no fixed length limit: a static policy of 256 fractions plans whole. */
static void test_long_static(void **state)
{
	struct tl_spec s;
	struct tl_error err = { { 0 } };
	char want[256 * 4 + 32];
	size_t n;

	(void)state;
	if (tl_spec_load("good-static-long.yaml", "workloads", &s, &err))
		fail_msg("%s", err.msg);
	n = (size_t)sprintf(want, "static:");
	for (int i = 0; i < 255; i++)
		n += (size_t)sprintf(want + n, "0.5,");
	sprintf(want + n, "0.00001");
	assert_string_equal(s.defaults[TL_AXIS_POLICY], want);
	tl_spec_release(&s);
}

static void test_workload_descriptor(void **state)
{
	struct tl_workload wl;
	struct tl_error err = { { 0 } };

	(void)state;
	if (tl_workload_load("workloads/kmeans/workload.yaml", &wl, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(wl.name, "kmeans");
	assert_true(wl.builtin);
	assert_string_equal(wl.descriptor, "workloads/kmeans/workload.yaml");
	assert_string_equal(wl.command.v[0], "kmeans");	/* a bare name, resolved by the runner */
	assert_int_equal(wl.nsizes, 2);
	assert_string_equal(wl.default_size, "tiny");
	assert_string_equal(wl.fom.unit, "ms/iteration");
	assert_false(wl.fom.higher_is_better);
	tl_workload_release(&wl);
	tl_workload_release(&wl);

	assert_int_equal(tl_workload_load("workloads/none.yaml", &wl, &err), -EINVAL);
	assert_string_equal(err.msg, "workloads/none.yaml: cannot read: No such file or directory");
	assert_int_equal(tl_workload_load("workloads/broken/workload.yaml", &wl, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "workloads/broken/workload.yaml:4:14: workload.fom.regex: "));
	assert_null(wl.name);
	tl_workload_release(&wl);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_case_counts),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_design_sketch_fields),
		cmocka_unit_test(test_external_fields),
		cmocka_unit_test(test_set_axis),
		cmocka_unit_test(test_load_string_ownership),
		cmocka_unit_test(test_workload_descriptor),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_nul_device),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_merge_keys),
		cmocka_unit_test(test_env_over_descriptor),
		cmocka_unit_test(test_long_static),
	};
	const size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	struct CMUnitTest *tests;
	int failed;

	load_cases();
	tests = calloc(ncases + nfixed, sizeof(*tests));
	if (!tests)
		return 1;
	for (size_t i = 0; i < ncases; i++) {
		tests[i].name = cases[i].file;
		tests[i].test_func = run_case;
		tests[i].initial_state = &cases[i];
	}
	memcpy(tests + ncases, fixed, sizeof(fixed));
	failed = _cmocka_run_group_tests("spec_cases", tests, ncases + nfixed, NULL, NULL);
	free(tests);
	free_cases();
	return failed;
}
