/*
 * Plans: how many configurations a matrix yields once inapplicable axes
 * are dropped, in which order, with zips, excludes, duplicates, size
 * presets and repetitions; that keys hash exactly the canonical text and
 * move only when something that changes a run changes; selectors for
 * --where and excludes; and the one-line description. Specs are built in
 * C here (values canonicalised through the axis table, as the parser
 * does), plus a few through tl_spec_load_string.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/hash.h"
#include "plan/plan.h"

/* ---- building specs in C ---- */

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	assert_non_null(p);
	return p;
}

static void list_add(struct tl_strlist *l, const char *s)
{
	l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	assert_non_null(l->v);
	l->v[l->n++] = xstrdup(s);
}

static void list_free(struct tl_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static char *canon(enum tl_axis a, const char *value)
{
	struct tl_error err = { { 0 } };
	char *out = NULL;

	if (tl_axis_canonical(a, value, &out, &err))
		fail_msg("%s '%s' not accepted: %s", tl_axes[a].name, value, err.msg);
	return out;
}

/* A spec with one workload `name` running `cmd` (NULL-terminated). */
static struct tl_spec *new_spec(const char *name, const char *const *cmd)
{
	struct tl_spec *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->name = xstrdup("test");
	s->repetitions = 1;
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		s->matrix[a].zip_group = -1;
	s->workloads = calloc(8, sizeof(*s->workloads));	/* room for add_workload */
	assert_non_null(s->workloads);
	s->workloads[0].name = xstrdup(name);
	for (; *cmd; cmd++)
		list_add(&s->workloads[0].command, *cmd);
	s->workloads[0].fom.regex = xstrdup("fom: ([0-9.]+)");
	s->nworkloads = 1;
	return s;
}

static struct tl_workload *add_workload(struct tl_spec *s, const char *name, const char *const *cmd)
{
	struct tl_workload *wl = &s->workloads[s->nworkloads++];

	assert_true(s->nworkloads <= 8);
	wl->name = xstrdup(name);
	for (; *cmd; cmd++)
		list_add(&wl->command, *cmd);
	return wl;
}

/* A size preset; the first one added becomes the default. */
static void add_size(struct tl_workload *wl, const char *name, const char *const *args)
{
	struct tl_size_preset *p;

	wl->sizes = realloc(wl->sizes, (wl->nsizes + 1) * sizeof(*wl->sizes));
	assert_non_null(wl->sizes);
	p = &wl->sizes[wl->nsizes++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	for (; *args; args++)
		list_add(&p->args, *args);
	if (!wl->default_size)
		wl->default_size = xstrdup(name);
}

/* matrix[a] = the values (NULL-terminated), each as a user would write it. */
static void set_matrix(struct tl_spec *s, enum tl_axis a, ...)
{
	va_list ap;
	const char *v;

	list_free(&s->matrix[a].values);
	va_start(ap, a);
	while ((v = va_arg(ap, const char *))) {
		char *c = canon(a, v);

		list_add(&s->matrix[a].values, c);
		free(c);
	}
	va_end(ap);
}

static void set_default(struct tl_spec *s, enum tl_axis a, const char *value)
{
	free(s->defaults[a]);
	s->defaults[a] = value ? canon(a, value) : NULL;
}

static void zip(struct tl_spec *s, enum tl_axis a, enum tl_axis b)
{
	s->matrix[a].zip_group = s->matrix[b].zip_group = s->nzip++;
}

static void add_exclude(struct tl_spec *s, const char *text)
{
	struct tl_error err = { { 0 } };

	s->exclude = realloc(s->exclude, (s->nexclude + 1) * sizeof(*s->exclude));
	assert_non_null(s->exclude);
	if (tl_selector_parse(text, &s->exclude[s->nexclude], &err))
		fail_msg("exclude '%s': %s", text, err.msg);
	s->nexclude++;
}

static void free_workload(struct tl_workload *wl)
{
	free(wl->name);
	list_free(&wl->command);
	list_free(&wl->env);
	free(wl->dir);
	free(wl->fom.regex);
	free(wl->fom.file);
	free(wl->fom.unit);
	for (size_t i = 0; i < wl->nsizes; i++) {
		free(wl->sizes[i].name);
		list_free(&wl->sizes[i].args);
	}
	free(wl->sizes);
	free(wl->default_size);
}

static void free_spec(struct tl_spec *s)
{
	for (size_t i = 0; i < s->nworkloads; i++)
		free_workload(&s->workloads[i]);
	free(s->workloads);
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		free(s->defaults[a]);
		list_free(&s->matrix[a].values);
	}
	for (size_t i = 0; i < s->nexclude; i++)
		tl_selector_release(&s->exclude[i]);
	free(s->exclude);
	list_free(&s->events);
	free(s->machine.fast);
	free(s->machine.slow);
	free(s->machine.cpus);
	free(s->name);
	free(s->description);
	free(s);
}

static void build(const struct tl_spec *s, struct tl_plan *p)
{
	struct tl_error err = { { 0 } };

	if (tl_plan_build(s, p, &err))
		fail_msg("tl_plan_build: %s", err.msg);
}

static const char *val(const struct tl_plan *p, size_t i, enum tl_axis a)
{
	assert_true(i < p->nconfigs);
	return p->configs[i].values[a];
}

/* "policy chunks rate" of config i, "-" for a dropped axis, for order checks. */
static const char *triple(const struct tl_plan *p, size_t i)
{
	static char buf[256];
	const char *po = val(p, i, TL_AXIS_POLICY), *c = val(p, i, TL_AXIS_CHUNKS),
		   *r = val(p, i, TL_AXIS_RATE);

	snprintf(buf, sizeof(buf), "%s %s %s", po ? po : "-", c ? c : "-", r ? r : "-");
	return buf;
}

static const char *const hpcg_cmd[] = { "xhpcg", NULL };

/* The DESIGN.md sketch: 1 + 1 + 2 + (8 - 1) + 16 configurations (static once per rate). */
static struct tl_spec *design_spec(void)
{
	struct tl_spec *s = new_spec("hpcg", hpcg_cmd);

	s->repetitions = 3;
	s->machine.fast = xstrdup("1");
	s->machine.slow = xstrdup("0");
	set_matrix(s, TL_AXIS_POLICY, "all-fast", "all-slow", "static:1.0,1.0,0.0", "lru", "window", NULL);
	set_matrix(s, TL_AXIS_CHUNKS, "2", "8", "32", "64", NULL);
	set_matrix(s, TL_AXIS_RATE, "10Hz", "100Hz", NULL);
	set_matrix(s, TL_AXIS_WINDOW, "16", "128", NULL);
	add_exclude(s, "policy=lru,chunks=2,rate=100Hz");
	return s;
}

static size_t count_policy(const struct tl_plan *p, const char *policy_base)
{
	size_t n = 0;
	char base[64];

	for (size_t i = 0; i < p->nconfigs; i++)
		n += !strcmp(tl_policy_base(val(p, i, TL_AXIS_POLICY), base, sizeof(base)), policy_base);
	return n;
}

/* ---- counts, dropping, order ---- */

static void test_design_sketch_counts(void **state)
{
	struct tl_spec *s = design_spec();
	struct tl_plan p;

	(void)state;
	build(s, &p);
	assert_int_equal(p.nconfigs, 27);
	assert_int_equal(p.nruns, 27 * 3);
	assert_int_equal(count_policy(&p, "all-fast"), 1);
	assert_int_equal(count_policy(&p, "all-slow"), 1);
	assert_int_equal(count_policy(&p, "static"), 2);
	assert_int_equal(count_policy(&p, "lru"), 7);
	assert_int_equal(count_policy(&p, "window"), 16);
	for (size_t i = 0; i < p.nconfigs; i++) {
		const char *po = val(&p, i, TL_AXIS_POLICY);
		bool dynamic = tl_policy_is_dynamic(po), runtime = tl_policy_uses_runtime(po);

		/* what the policy ignores is dropped, what it uses is kept; every runtime policy samples */
		assert_int_equal(val(&p, i, TL_AXIS_CHUNKS) != NULL, dynamic);
		assert_int_equal(val(&p, i, TL_AXIS_RATE) != NULL, runtime);
		assert_int_equal(val(&p, i, TL_AXIS_SAMPLER) != NULL, runtime);
		assert_int_equal(val(&p, i, TL_AXIS_WINDOW) != NULL, !strcmp(po, "window"));
		assert_false(!strcmp(po, "lru") && !strcmp(val(&p, i, TL_AXIS_CHUNKS), "2") &&
			     !strcmp(val(&p, i, TL_AXIS_RATE), "100Hz"));
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(p.configs[i].key, p.configs[j].key);
	}
	/* matrix order: policy slowest, then chunks, then rate */
	assert_string_equal(val(&p, 0, TL_AXIS_POLICY), "all-fast");
	assert_string_equal(val(&p, 1, TL_AXIS_POLICY), "all-slow");
	assert_string_equal(triple(&p, 2), "static:1,1,0 - 10Hz");
	assert_string_equal(triple(&p, 3), "static:1,1,0 - 100Hz");
	assert_string_equal(val(&p, 4, TL_AXIS_POLICY), "lru");
	assert_string_equal(triple(&p, 4), "lru 2 10Hz");
	assert_string_equal(triple(&p, 5), "lru 8 10Hz");
	assert_string_equal(triple(&p, 6), "lru 8 100Hz");
	assert_string_equal(triple(&p, 10), "lru 64 100Hz");
	assert_string_equal(triple(&p, 11), "window 2 10Hz");
	assert_string_equal(val(&p, 11, TL_AXIS_WINDOW), "16");
	assert_string_equal(val(&p, 12, TL_AXIS_WINDOW), "128");
	tl_plan_release(&p);
	free_spec(s);
}

static void test_baselines_planned_once(void **state)
{
	struct tl_spec *s = new_spec("w", hpcg_cmd);
	struct tl_plan p;

	(void)state;
	set_matrix(s, TL_AXIS_POLICY, "all-fast", "none", "all-slow", NULL);
	set_matrix(s, TL_AXIS_CHUNKS, "2", "8", "32", NULL);
	set_matrix(s, TL_AXIS_RATE, "10Hz", "100Hz", NULL);
	build(s, &p);
	assert_int_equal(p.nconfigs, 3);
	assert_string_equal(triple(&p, 0), "all-fast - -");
	assert_string_equal(triple(&p, 1), "none - -");
	assert_string_equal(triple(&p, 2), "all-slow - -");
	assert_int_equal(p.nruns, 3);
	tl_plan_release(&p);
	free_spec(s);
}

static void test_first_axis_slowest(void **state)
{
	struct tl_spec *s = new_spec("w", hpcg_cmd);
	struct tl_plan p;

	(void)state;
	set_default(s, TL_AXIS_POLICY, "lru");
	set_matrix(s, TL_AXIS_RATE, "10Hz", "100Hz", NULL);
	set_matrix(s, TL_AXIS_CHUNKS, "8", "2", NULL);
	set_matrix(s, TL_AXIS_THREADS, "1", "2", NULL);
	build(s, &p);
	assert_int_equal(p.nconfigs, 8);
	/* threads (enum first) slowest, then chunks in the order written, rate fastest */
	assert_string_equal(val(&p, 0, TL_AXIS_THREADS), "1");
	assert_string_equal(triple(&p, 0), "lru 8 10Hz");
	assert_string_equal(triple(&p, 1), "lru 8 100Hz");
	assert_string_equal(triple(&p, 2), "lru 2 10Hz");
	assert_string_equal(triple(&p, 3), "lru 2 100Hz");
	assert_string_equal(val(&p, 3, TL_AXIS_THREADS), "1");
	assert_string_equal(val(&p, 4, TL_AXIS_THREADS), "2");
	assert_string_equal(triple(&p, 7), "lru 2 100Hz");
	tl_plan_release(&p);
	free_spec(s);
}

static void test_defaults_fill_unset_axes(void **state)
{
	struct tl_spec *s = new_spec("w", hpcg_cmd);
	struct tl_plan p;

	(void)state;
	set_matrix(s, TL_AXIS_POLICY, "lru", NULL);
	set_default(s, TL_AXIS_CHUNKS, "16");
	set_default(s, TL_AXIS_THRESHOLD, "1M");
	build(s, &p);
	assert_int_equal(p.nconfigs, 1);
	assert_string_equal(val(&p, 0, TL_AXIS_WORKLOAD), "w");	/* the first workload */
	assert_string_equal(val(&p, 0, TL_AXIS_CHUNKS), "16");	/* spec default */
	assert_string_equal(val(&p, 0, TL_AXIS_THRESHOLD), "1MiB");
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		/* the axis table's default where neither matrix nor spec says */
		if (a == TL_AXIS_WORKLOAD || a == TL_AXIS_POLICY || s->defaults[a] || !tl_axes[a].def ||
		    !tl_axis_applies(a, "lru"))
			continue;
		assert_non_null(val(&p, 0, a));
		assert_string_equal(val(&p, 0, a), tl_axes[a].def);
	}
	assert_null(val(&p, 0, TL_AXIS_SIZE));	/* no presets */
	assert_null(val(&p, 0, TL_AXIS_WINDOW));	/* window policy only */
	tl_plan_release(&p);
	free_spec(s);
}

/* ---- zip, exclude, duplicates ---- */

static void test_zip_advances_together_at_first_axis(void **state)
{
	struct tl_spec *s = new_spec("w", hpcg_cmd);
	struct tl_plan p;

	(void)state;
	set_default(s, TL_AXIS_POLICY, "lru");
	/* the group {threads, rate} turns at threads' place: slower than chunks */
	set_matrix(s, TL_AXIS_THREADS, "1", "2", "4", NULL);
	set_matrix(s, TL_AXIS_CHUNKS, "2", "8", NULL);
	set_matrix(s, TL_AXIS_RATE, "10Hz", "100Hz", "1000Hz", NULL);
	zip(s, TL_AXIS_THREADS, TL_AXIS_RATE);
	build(s, &p);
	assert_int_equal(p.nconfigs, 6);
	static const char *const want[][3] = {
		{ "1", "2", "10Hz" }, { "1", "8", "10Hz" }, { "2", "2", "100Hz" },
		{ "2", "8", "100Hz" }, { "4", "2", "1000Hz" }, { "4", "8", "1000Hz" },
	};
	for (size_t i = 0; i < 6; i++) {
		assert_string_equal(val(&p, i, TL_AXIS_THREADS), want[i][0]);
		assert_string_equal(val(&p, i, TL_AXIS_CHUNKS), want[i][1]);
		assert_string_equal(val(&p, i, TL_AXIS_RATE), want[i][2]);
	}
	tl_plan_release(&p);
	free_spec(s);
}

static void test_zip_unequal_lengths(void **state)
{
	struct tl_spec *s = new_spec("w", hpcg_cmd);
	struct tl_error err = { { 0 } };
	struct tl_plan p;

	(void)state;
	set_default(s, TL_AXIS_POLICY, "lru");
	set_matrix(s, TL_AXIS_CHUNKS, "2", "8", NULL);
	set_matrix(s, TL_AXIS_RATE, "10Hz", "100Hz", "1000Hz", NULL);
	zip(s, TL_AXIS_CHUNKS, TL_AXIS_RATE);
	assert_int_equal(tl_plan_build(s, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'chunks'"));
	assert_non_null(strstr(err.msg, "'rate'"));
	assert_non_null(strstr(err.msg, "zip"));
	assert_int_equal(p.nconfigs, 0);
	assert_null(p.configs);
	assert_null(p.runs);
	tl_plan_release(&p);	/* safe after a failure */
	free_spec(s);
}

static void test_huge_matrix_refused(void **state)
{
	struct tl_spec *s = new_spec("w", hpcg_cmd);
	struct tl_error err = { { 0 } };
	struct tl_plan p;
	char v[16];

	(void)state;
	set_default(s, TL_AXIS_POLICY, "lru");
	for (int i = 1; i <= 1100; i++) {
		snprintf(v, sizeof(v), "%d", i);
		list_add(&s->matrix[TL_AXIS_CHUNKS].values, v);
		list_add(&s->matrix[TL_AXIS_WINDOW].values, v);
	}
	/* 1100 x 1100 combinations: refused before anything is expanded */
	assert_int_equal(tl_plan_build(s, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "more than"));
	assert_int_equal(p.nconfigs, 0);
	free_spec(s);
}

static void test_exclude(void **state)
{
	struct tl_spec *s = new_spec("w", hpcg_cmd);
	struct tl_error err = { { 0 } };
	struct tl_plan p;

	(void)state;
	set_matrix(s, TL_AXIS_POLICY, "all-fast", "lru", NULL);
	set_matrix(s, TL_AXIS_CHUNKS, "2", "8", NULL);
	/* chunks does not apply to all-fast: this rule must not drop it */
	add_exclude(s, "policy=all-fast,chunks=8");
	add_exclude(s, "policy=lru,chunks=8");
	build(s, &p);
	assert_int_equal(p.nconfigs, 2);
	assert_string_equal(triple(&p, 0), "all-fast - -");
	assert_string_equal(val(&p, 1, TL_AXIS_POLICY), "lru");
	assert_string_equal(val(&p, 1, TL_AXIS_CHUNKS), "2");
	tl_plan_release(&p);

	/*
	 * An exclude that matches everything leaves nothing to run: the
	 * planner refuses the spec (the spec parser used to, by planning).
	 */
	add_exclude(s, "workload=w");
	assert_int_equal(tl_plan_build(s, &p, &err), -EINVAL);
	assert_string_equal(err.msg, "matrix.exclude: the rules drop every configuration; nothing would run");
	assert_int_equal(p.nconfigs, 0);
	assert_int_equal(p.nruns, 0);
	free_spec(s);
}

static void test_duplicates_keep_first_position(void **state)
{
	struct tl_spec *s = new_spec("w", hpcg_cmd);
	struct tl_plan p;

	(void)state;
	set_matrix(s, TL_AXIS_ALLOCATOR, "system", "jemalloc", NULL);
	set_matrix(s, TL_AXIS_POLICY, "all-fast", "lru", NULL);
	set_matrix(s, TL_AXIS_CHUNKS, "2", "8", NULL);
	/* "10.0Hz" and "10Hz" are one value once canonical */
	set_matrix(s, TL_AXIS_RATE, "10.0Hz", "100Hz", "10Hz", NULL);
	build(s, &p);
	assert_int_equal(p.nconfigs, 10);
	static const char *const want[] = {
		"system all-fast - -", "system lru 2 10Hz", "system lru 2 100Hz", "system lru 8 10Hz",
		"system lru 8 100Hz", "jemalloc all-fast - -", "jemalloc lru 2 10Hz",
		"jemalloc lru 2 100Hz", "jemalloc lru 8 10Hz", "jemalloc lru 8 100Hz",
	};
	for (size_t i = 0; i < 10; i++) {
		char got[300];

		snprintf(got, sizeof(got), "%s %s", val(&p, i, TL_AXIS_ALLOCATOR), triple(&p, i));
		assert_string_equal(got, want[i]);
	}
	tl_plan_release(&p);
	free_spec(s);
}

/* ---- workloads, sizes, argv ---- */

static void assert_argv(const struct tl_config *c, const char *const *want)
{
	size_t n = 0;

	for (; want[n]; n++) {
		assert_true(n < c->argv.n);
		assert_string_equal(c->argv.v[n], want[n]);
	}
	assert_int_equal(c->argv.n, n);
	assert_null(c->argv.v[n]);	/* NULL-terminated for exec */
}

static void test_size_presets(void **state)
{
	static const char *const cmd[] = { "./xhpcg", "--check", NULL };
	static const char *const small[] = { "--nx", "16", NULL };
	static const char *const large[] = { "--nx", "64", "--time", "60", NULL };
	struct tl_spec *s = new_spec("hpcg", cmd);
	struct tl_error err = { { 0 } };
	struct tl_plan p;

	(void)state;
	add_size(&s->workloads[0], "small", small);
	add_size(&s->workloads[0], "large", large);
	set_default(s, TL_AXIS_POLICY, "none");

	/* no size anywhere: the workload's default preset */
	build(s, &p);
	assert_int_equal(p.nconfigs, 1);
	assert_string_equal(val(&p, 0, TL_AXIS_SIZE), "small");
	assert_argv(&p.configs[0], (const char *const[]){ "./xhpcg", "--check", "--nx", "16", NULL });
	assert_ptr_equal(p.configs[0].workload, &s->workloads[0]);
	tl_plan_release(&p);

	/* a size axis: in the order written, each with its own args */
	list_add(&s->matrix[TL_AXIS_SIZE].values, "large");
	list_add(&s->matrix[TL_AXIS_SIZE].values, "small");
	build(s, &p);
	assert_int_equal(p.nconfigs, 2);
	assert_string_equal(val(&p, 0, TL_AXIS_SIZE), "large");
	assert_argv(&p.configs[0],
		    (const char *const[]){ "./xhpcg", "--check", "--nx", "64", "--time", "60", NULL });
	assert_argv(&p.configs[1], (const char *const[]){ "./xhpcg", "--check", "--nx", "16", NULL });
	assert_string_not_equal(p.configs[0].key, p.configs[1].key);
	tl_plan_release(&p);

	/* a second workload without presets: no size, just its command */
	add_workload(s, "true", (const char *const[]){ "true", NULL });
	list_free(&s->matrix[TL_AXIS_SIZE].values);
	list_add(&s->matrix[TL_AXIS_WORKLOAD].values, "hpcg");
	list_add(&s->matrix[TL_AXIS_WORKLOAD].values, "true");
	build(s, &p);
	assert_int_equal(p.nconfigs, 2);
	assert_string_equal(val(&p, 0, TL_AXIS_SIZE), "small");
	assert_null(val(&p, 1, TL_AXIS_SIZE));
	assert_argv(&p.configs[1], (const char *const[]){ "true", NULL });
	assert_ptr_equal(p.configs[1].workload, &s->workloads[1]);
	tl_plan_release(&p);

	/* a size the workload lacks: an error naming both */
	list_add(&s->matrix[TL_AXIS_SIZE].values, "large");
	assert_int_equal(tl_plan_build(s, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'true'"));
	assert_non_null(strstr(err.msg, "'large'"));
	list_free(&s->matrix[TL_AXIS_SIZE].values);
	list_add(&s->matrix[TL_AXIS_SIZE].values, "huge");
	assert_int_equal(tl_plan_build(s, &p, &err), -EINVAL);
	assert_string_equal(err.msg, "workload 'hpcg' has no size 'huge' (sizes: small, large)");
	assert_int_equal(p.nconfigs, 0);

	/* a workload name that is not in the spec */
	list_free(&s->matrix[TL_AXIS_SIZE].values);
	list_add(&s->matrix[TL_AXIS_WORKLOAD].values, "nope");
	assert_int_equal(tl_plan_build(s, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'nope'"));
	free_spec(s);
}

static void test_repetitions(void **state)
{
	struct tl_spec *s = new_spec("w", hpcg_cmd);
	struct tl_error err = { { 0 } };
	struct tl_plan p;
	char want[64];

	(void)state;
	set_matrix(s, TL_AXIS_POLICY, "all-fast", "all-slow", NULL);
	s->repetitions = 3;
	build(s, &p);
	assert_int_equal(p.nconfigs, 2);
	assert_int_equal(p.nruns, 6);
	for (size_t i = 0; i < 6; i++) {
		/* config-major */
		assert_ptr_equal(p.runs[i].config, &p.configs[i / 3]);
		assert_int_equal(p.runs[i].rep, (int)(i % 3) + 1);
		snprintf(want, sizeof(want), "%s-r%zu", p.configs[i / 3].key, i % 3 + 1);
		assert_string_equal(p.runs[i].key, want);
	}
	assert_ptr_equal(p.spec, s);
	tl_plan_release(&p);

	s->repetitions = 0;
	assert_int_equal(tl_plan_build(s, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "repetitions"));
	free_spec(s);
}

/* ---- keys ---- */

/* Every axis set explicitly, so the expected text depends on no table default. */
static struct tl_spec *key_spec(void)
{
	static const char *const cmd[] = { "bin/app", "-v", NULL };
	static const char *const small[] = { "--n", "100", NULL };
	struct tl_spec *s = new_spec("app", cmd);

	add_size(&s->workloads[0], "small", small);
	list_add(&s->workloads[0].env, "OMP_PROC_BIND=true");
	s->workloads[0].fom.file = xstrdup("out*.txt");
	s->workloads[0].fom.unit = xstrdup("GF/s");
	s->machine.fast = xstrdup("1");
	s->machine.slow = xstrdup("0");
	s->machine.cpus = xstrdup("0");
	list_add(&s->events, "cycles");
	list_add(&s->events, "dTLB-load-misses");
	set_default(s, TL_AXIS_THREADS, "2");
	set_default(s, TL_AXIS_ALLOCATOR, "system");
	set_default(s, TL_AXIS_POLICY, "window");
	set_default(s, TL_AXIS_BUDGET, "40%");
	set_default(s, TL_AXIS_THRESHOLD, "32M");
	set_default(s, TL_AXIS_CHUNKS, "8");
	set_default(s, TL_AXIS_RATE, "10Hz");
	set_default(s, TL_AXIS_WINDOW, "16");
	set_default(s, TL_AXIS_SAMPLER, "fault");
	set_default(s, TL_AXIS_LOG, "counters");
	return s;
}

static const char key_text[] =
	"workload=app\n"
	"size=small\n"
	"threads=2\n"
	"allocator=system\n"
	"policy=window\n"
	"budget=40%\n"
	"threshold=32MiB\n"
	"chunks=8\n"
	"rate=10Hz\n"
	"window=16\n"
	"sampler=fault\n"
	"log=counters\n"
	"command=bin/app\x1f-v\x1f--n\x1f" "100\n"
	"env=OMP_PROC_BIND=true\n"
	"fom=fom: ([0-9.]+)\x1fout*.txt\n"
	"fast=1\n"
	"slow=0\n"
	"cpus=0\n"
	"events=cycles\x1f" "dTLB-load-misses\n";

static void plan_key(const struct tl_spec *s, char key[TL_KEY_LEN + 1])
{
	struct tl_plan p;

	build(s, &p);
	assert_int_equal(p.nconfigs, 1);
	memcpy(key, p.configs[0].key, TL_KEY_LEN + 1);
	tl_plan_release(&p);
}

static void test_key_is_hash_of_canonical_text(void **state)
{
	struct tl_spec *s = key_spec();
	struct tl_plan p;
	char want[17];

	(void)state;
	build(s, &p);
	assert_int_equal(p.nconfigs, 1);
	assert_string_equal(p.configs[0].canonical, key_text);
	tl_hash_hex(key_text, strlen(key_text), want);
	assert_string_equal(p.configs[0].key, want);
	/*
	 * Pinned (FNV-1a of key_text, computed apart from tierlab with a
	 * five-line Python loop): if this moves, every stored result loses its
	 * key and resume re-runs it. Change the hash or the text only on purpose.
	 */
	assert_string_equal(p.configs[0].key, "9f234e522fe091b1");
	assert_int_equal(strlen(p.configs[0].key), TL_KEY_LEN);
	tl_plan_release(&p);
	free_spec(s);
}

static void test_key_ignores_how_values_were_written(void **state)
{
	struct tl_spec *s = key_spec();
	char base[TL_KEY_LEN + 1], k[TL_KEY_LEN + 1];

	(void)state;
	plan_key(s, base);
	/* the same values from the matrix instead of defaults, in other spellings */
	set_matrix(s, TL_AXIS_RATE, "10Hz", NULL);
	set_matrix(s, TL_AXIS_CHUNKS, "8", NULL);
	set_matrix(s, TL_AXIS_THRESHOLD, "32MiB", NULL);
	plan_key(s, k);
	assert_string_equal(k, base);
	/* what does not change a run does not move the key */
	free(s->name);
	s->name = xstrdup("renamed");
	s->description = xstrdup("words");
	s->repetitions = 5;
	s->timeout = 60;
	free(s->workloads[0].fom.unit);
	s->workloads[0].fom.unit = xstrdup("MFLOPS");
	plan_key(s, k);
	assert_string_equal(k, base);
	free_spec(s);
}

static void test_key_moves_when_the_run_changes(void **state)
{
	struct tl_spec *s = key_spec();
	char base[TL_KEY_LEN + 1], k[TL_KEY_LEN + 1];

	(void)state;
	plan_key(s, base);

#define EXPECT_MOVE(change, undo)                       \
	do {                                            \
		change;                                 \
		plan_key(s, k);                         \
		assert_string_not_equal(k, base);       \
		undo;                                   \
		plan_key(s, k);                         \
		assert_string_equal(k, base);           \
	} while (0)

	EXPECT_MOVE(list_add(&s->workloads[0].command, "--extra"),
		    free(s->workloads[0].command.v[--s->workloads[0].command.n]));
	EXPECT_MOVE(s->workloads[0].sizes[0].args.v[1][0] = '2',
		    s->workloads[0].sizes[0].args.v[1][0] = '1');
	EXPECT_MOVE(list_add(&s->workloads[0].env, "X=1"),
		    free(s->workloads[0].env.v[--s->workloads[0].env.n]));
	EXPECT_MOVE(s->workloads[0].fom.regex[0] = 'F', s->workloads[0].fom.regex[0] = 'f');
	EXPECT_MOVE(s->machine.fast[0] = '2', s->machine.fast[0] = '1');
	EXPECT_MOVE(s->machine.cpus[0] = '1', s->machine.cpus[0] = '0');
	EXPECT_MOVE(list_add(&s->events, "instructions"), free(s->events.v[--s->events.n]));
	EXPECT_MOVE(set_default(s, TL_AXIS_RATE, "100Hz"), set_default(s, TL_AXIS_RATE, "10Hz"));
	EXPECT_MOVE(set_default(s, TL_AXIS_THREADS, "4"), set_default(s, TL_AXIS_THREADS, "2"));
	EXPECT_MOVE(s->workloads[0].dir = xstrdup("/tmp"),
		    (free(s->workloads[0].dir), s->workloads[0].dir = NULL));
	/* launch: the ranks and how they start; no launch: no line, the key as before */
	EXPECT_MOVE((s->launch.with = xstrdup("mpirun"), s->launch.ranks = 2),
		    (free(s->launch.with), s->launch.with = NULL, s->launch.ranks = 0));
	s->launch.with = xstrdup("srun");
	s->launch.ranks = 2;
	plan_key(s, base);
	EXPECT_MOVE(s->launch.ranks = 4, s->launch.ranks = 2);
	EXPECT_MOVE(list_add(&s->launch.args, "--mpi=pmix"), free(s->launch.args.v[--s->launch.args.n]));
#undef EXPECT_MOVE
	free(s->launch.with);
	list_free(&s->launch.args);
	free_spec(s);
}

/* key_text for the static policy of test_static_rate_and_sampler: no budget, chunks, window. */
static const char static_key_text[] =
	"workload=app\n"
	"size=small\n"
	"threads=2\n"
	"allocator=system\n"
	"policy=static:1,0.5\n"
	"threshold=32MiB\n"
	"log=counters\n"
	"command=bin/app\x1f-v\x1f--n\x1f" "100\n"
	"env=OMP_PROC_BIND=true\n"
	"fom=fom: ([0-9.]+)\x1fout*.txt\n"
	"fast=1\n"
	"slow=0\n"
	"cpus=0\n"
	"events=cycles\x1f" "dTLB-load-misses\n";

/*
 * A static run samples (its hit rate is quoted), so it takes the rate and
 * the sampler asked. At what it sampled with before either applied to it
 * (the runtime's 10Hz and fault), its canonical text and key are what they
 * were, so resume finds the static runs already stored.
 */
static void test_static_rate_and_sampler(void **state)
{
	struct tl_spec *s = key_spec();
	struct tl_plan p;

	(void)state;
	set_default(s, TL_AXIS_POLICY, "static:1,0.5");
	build(s, &p);
	assert_int_equal(p.nconfigs, 1);
	assert_string_equal(val(&p, 0, TL_AXIS_RATE), "10Hz");
	assert_string_equal(val(&p, 0, TL_AXIS_SAMPLER), "fault");
	assert_null(val(&p, 0, TL_AXIS_CHUNKS));
	assert_null(val(&p, 0, TL_AXIS_BUDGET));
	assert_null(val(&p, 0, TL_AXIS_WINDOW));
	assert_string_equal(p.configs[0].canonical, static_key_text);
	/* Pinned: the key tierlab gave this configuration before static runs took a rate. */
	assert_string_equal(p.configs[0].key, "a0c5e9d44e4d9626");
	tl_plan_release(&p);

	/* other rates and samplers are other runs; 10Hz with fault keeps the old key */
	set_matrix(s, TL_AXIS_RATE, "10Hz", "1kHz", NULL);
	set_matrix(s, TL_AXIS_SAMPLER, "fault", "none", NULL);
	build(s, &p);
	assert_int_equal(p.nconfigs, 4);
	assert_string_equal(p.configs[0].key, "a0c5e9d44e4d9626");
	assert_string_equal(val(&p, 1, TL_AXIS_SAMPLER), "none");
	assert_non_null(strstr(p.configs[1].canonical, "\nsampler=none\n"));
	assert_null(strstr(p.configs[1].canonical, "rate="));
	assert_string_equal(val(&p, 2, TL_AXIS_RATE), "1000Hz");
	assert_non_null(strstr(p.configs[2].canonical, "\nrate=1000Hz\n"));
	assert_null(strstr(p.configs[2].canonical, "sampler="));
	assert_non_null(strstr(p.configs[3].canonical, "\nrate=1000Hz\nsampler=none\n"));
	for (size_t i = 0; i < p.nconfigs; i++)
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(p.configs[i].key, p.configs[j].key);
	tl_plan_release(&p);

	/* a dynamic policy always writes them: its keys had them from the start */
	set_default(s, TL_AXIS_POLICY, "lru");
	set_matrix(s, TL_AXIS_RATE, "10Hz", NULL);
	set_matrix(s, TL_AXIS_SAMPLER, "fault", NULL);
	build(s, &p);
	assert_non_null(strstr(p.configs[0].canonical, "\nrate=10Hz\nsampler=fault\n"));
	tl_plan_release(&p);
	free_spec(s);
}

static void test_keys_match_canonical_in_a_big_plan(void **state)
{
	struct tl_spec *s = design_spec();
	struct tl_plan p;
	char want[17];

	(void)state;
	build(s, &p);
	for (size_t i = 0; i < p.nconfigs; i++) {
		const char *c = p.configs[i].canonical;

		tl_hash_hex(c, strlen(c), want);
		assert_string_equal(p.configs[i].key, want);
		/* a dropped axis leaves no line */
		if (!val(&p, i, TL_AXIS_WINDOW))
			assert_null(strstr(c, "window="));
		assert_non_null(strstr(c, "command=xhpcg\n"));
		assert_non_null(strstr(c, "fast=1\nslow=0\n"));
	}
	tl_plan_release(&p);
	free_spec(s);
}

/* ---- selectors ---- */

static void test_selector_parse(void **state)
{
	struct tl_selector sel;
	struct tl_error err = { { 0 } };

	(void)state;
	assert_int_equal(tl_selector_parse("policy=lru,chunks=8", &sel, &err), 0);
	assert_string_equal(sel.values[TL_AXIS_POLICY], "lru");
	assert_string_equal(sel.values[TL_AXIS_CHUNKS], "8");
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		if (a != TL_AXIS_POLICY && a != TL_AXIS_CHUNKS)
			assert_null(sel.values[a]);
	tl_selector_release(&sel);
	assert_null(sel.values[TL_AXIS_POLICY]);

	/* values are canonical; blanks around pieces are ignored */
	assert_int_equal(tl_selector_parse(" rate = 10.0Hz , threshold=1M", &sel, &err), 0);
	assert_string_equal(sel.values[TL_AXIS_RATE], "10Hz");
	assert_string_equal(sel.values[TL_AXIS_THRESHOLD], "1MiB");
	tl_selector_release(&sel);

	/* a static policy's fractions hold commas */
	assert_int_equal(tl_selector_parse("policy=static:1,0.5,chunks=8", &sel, &err), 0);
	{
		char *want = canon(TL_AXIS_POLICY, "static:1,0.5");

		assert_string_equal(sel.values[TL_AXIS_POLICY], want);
		free(want);
	}
	assert_string_equal(sel.values[TL_AXIS_CHUNKS], "8");
	tl_selector_release(&sel);

	assert_int_equal(tl_selector_parse("policy=static", &sel, &err), 0);
	assert_string_equal(sel.values[TL_AXIS_POLICY], "static");
	tl_selector_release(&sel);

	assert_int_equal(tl_selector_parse("chunk=8", &sel, &err), -EINVAL);
	assert_string_equal(err.msg, "--where: unknown axis 'chunk' (did you mean 'chunks'?)");
	assert_int_equal(tl_selector_parse("policy=lru,zzzzzzzz=1", &sel, &err), -EINVAL);
	assert_string_equal(err.msg, "--where: unknown axis 'zzzzzzzz'");
	assert_null(sel.values[TL_AXIS_POLICY]);	/* nothing left behind on error */
	assert_int_equal(tl_selector_parse("rate=fast", &sel, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--where: rate: "));
	/* a selector's values take their units as a spec's do */
	assert_int_equal(tl_selector_parse("rate=10", &sel, &err), -EINVAL);
	assert_string_equal(err.msg, "--where: rate: '10' has no unit (write 10Hz or 10kHz)");
	assert_int_equal(tl_selector_parse("policy=lru,policy=window", &sel, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "twice"));
	assert_int_equal(tl_selector_parse("lru", &sel, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "AXIS=VALUE"));
	assert_int_equal(tl_selector_parse("", &sel, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "AXIS=VALUE"));
}

static void test_selector_matches(void **state)
{
	struct tl_selector sel;
	struct tl_error err = { { 0 } };
	char *values[TL_AXIS__COUNT] = { 0 };
	char *fractions = canon(TL_AXIS_POLICY, "static:1,0");

	(void)state;
	values[TL_AXIS_WORKLOAD] = (char *)"hpcg";
	values[TL_AXIS_POLICY] = (char *)"lru";
	values[TL_AXIS_CHUNKS] = (char *)"8";
	values[TL_AXIS_RATE] = (char *)"10Hz";

	assert_int_equal(tl_selector_parse("policy=lru,chunks=8", &sel, &err), 0);
	assert_true(tl_selector_matches(&sel, values));
	values[TL_AXIS_CHUNKS] = (char *)"2";
	assert_false(tl_selector_matches(&sel, values));
	values[TL_AXIS_CHUNKS] = NULL;	/* chunks does not apply: no match */
	assert_false(tl_selector_matches(&sel, values));
	tl_selector_release(&sel);

	/* an empty selector matches anything */
	memset(&sel, 0, sizeof(sel));
	assert_true(tl_selector_matches(&sel, values));

	/* "static" matches every static variant, and not other policies */
	assert_int_equal(tl_selector_parse("policy=static", &sel, &err), 0);
	assert_false(tl_selector_matches(&sel, values));
	values[TL_AXIS_POLICY] = fractions;
	assert_true(tl_selector_matches(&sel, values));
	tl_selector_release(&sel);
	/* a full static value matches only itself */
	assert_int_equal(tl_selector_parse("policy=static:1,0", &sel, &err), 0);
	assert_true(tl_selector_matches(&sel, values));
	tl_selector_release(&sel);
	assert_int_equal(tl_selector_parse("policy=static:0,1", &sel, &err), 0);
	assert_false(tl_selector_matches(&sel, values));
	tl_selector_release(&sel);
	/* a base never matches a longer name by prefix */
	values[TL_AXIS_POLICY] = (char *)"all-fast";
	assert_int_equal(tl_selector_parse("policy=all", &sel, &err) == 0 &&
				 tl_selector_matches(&sel, values),
			 0);
	tl_selector_release(&sel);

	/* rate=10.0Hz on the command line finds rate 10Hz */
	values[TL_AXIS_POLICY] = (char *)"lru";
	assert_int_equal(tl_selector_parse("rate=10.0Hz", &sel, &err), 0);
	assert_true(tl_selector_matches(&sel, values));
	tl_selector_release(&sel);
	free(fractions);
}

/* ---- description ---- */

static void test_describe(void **state)
{
	struct tl_spec *s = design_spec();
	struct tl_plan p;
	char buf[256];

	(void)state;
	set_default(s, TL_AXIS_THREADS, "2");	/* set, but the same everywhere */
	build(s, &p);
	tl_config_describe(&p, &p.configs[0], buf, sizeof(buf));
	assert_string_equal(buf, "policy=all-fast");
	tl_config_describe(&p, &p.configs[2], buf, sizeof(buf));
	assert_string_equal(buf, "policy=static:1,1,0 rate=10Hz");
	tl_config_describe(&p, &p.configs[4], buf, sizeof(buf));
	assert_string_equal(buf, "policy=lru chunks=2 rate=10Hz");
	assert_int_equal(tl_config_describe(&p, &p.configs[11], buf, sizeof(buf)),
			 (int)strlen("policy=window chunks=2 rate=10Hz window=16"));
	assert_string_equal(buf, "policy=window chunks=2 rate=10Hz window=16");
	/* too small a buffer: what fits, terminated, and the full length */
	assert_int_equal(tl_config_describe(&p, &p.configs[4], buf, 8), (int)strlen("policy=lru chunks=2 rate=10Hz"));
	assert_string_equal(buf, "policy=");
	tl_plan_release(&p);

	/* nothing varies: the policy alone */
	free_spec(s);
	s = new_spec("w", hpcg_cmd);
	set_default(s, TL_AXIS_POLICY, "lru");
	build(s, &p);
	tl_config_describe(&p, &p.configs[0], buf, sizeof(buf));
	assert_string_equal(buf, "policy=lru");
	tl_plan_release(&p);

	/* an axis outside the matrix that still varies (per workload size) is shown */
	add_size(add_workload(s, "v", hpcg_cmd), "big", (const char *const[]){ "--big", NULL });
	add_size(&s->workloads[0], "small", (const char *const[]){ NULL });
	list_add(&s->matrix[TL_AXIS_WORKLOAD].values, "w");
	list_add(&s->matrix[TL_AXIS_WORKLOAD].values, "v");
	build(s, &p);
	tl_config_describe(&p, &p.configs[1], buf, sizeof(buf));
	assert_string_equal(buf, "workload=v size=big");
	tl_plan_release(&p);
	free_spec(s);
}

/* ---- through the spec parser ---- */

static void test_through_spec_parser(void **state)
{
	static const char a[] =
		"name: t\n"
		"workload: {name: t, command: [./t, -x]}\n"
		"machine: {fast: \"0\", slow: \"0\"}\n"
		"repetitions: 2\n"
		"matrix:\n"
		"  policy: [all-fast, lru, window]\n"
		"  chunks: [2, 8]\n"
		"  rate: [10Hz, 100Hz]\n"
		"  exclude: [{policy: lru, chunks: 2, rate: 100Hz}]\n";
	/* the same, axes in another order and rates written otherwise */
	static const char b[] =
		"name: t\n"
		"workload: {name: t, command: [./t, -x]}\n"
		"machine: {fast: \"0\", slow: \"0\"}\n"
		"repetitions: 2\n"
		"matrix:\n"
		"  rate: [10.0Hz, 0.1kHz]\n"
		"  chunks: [2, 8]\n"
		"  policy: [all-fast, lru, window]\n"
		"  exclude: [{policy: lru, chunks: 2, rate: 100.0Hz}]\n";
	struct tl_spec sa = { 0 }, sb = { 0 };
	struct tl_plan pa, pb;
	struct tl_error err = { { 0 } };

	(void)state;
	if (tl_spec_load_string("a.yaml", a, "workloads", &sa, &err))
		fail_msg("a.yaml: %s", err.msg);
	if (tl_spec_load_string("b.yaml", b, "workloads", &sb, &err))
		fail_msg("b.yaml: %s", err.msg);
	build(&sa, &pa);
	build(&sb, &pb);
	assert_int_equal(pa.nconfigs, 1 + 3 + 4);
	assert_int_equal(pa.nruns, 16);
	assert_int_equal(pb.nconfigs, pa.nconfigs);
	for (size_t i = 0; i < pa.nconfigs; i++)
		assert_string_equal(pa.configs[i].key, pb.configs[i].key);
	assert_argv(&pa.configs[0], (const char *const[]){ "./t", "-x", NULL });
	tl_plan_release(&pa);
	tl_plan_release(&pb);
	tl_spec_release(&sa);
	tl_spec_release(&sb);
}

/*
 * A memory policy's scope: scope=process is the run without a scope (one
 * key); scope=managed is another run, which keeps the threshold (what the
 * runtime manages) while the process-wide one drops it; the scope goes
 * last in the key, once, whatever order the spec wrote.
 */
static void test_mempolicy_scope(void **state)
{
	static const char a[] =
		"name: t\n"
		"workload: {name: t, command: [./t]}\n"
		"machine: {fast: \"0\", slow: \"0\"}\n"
		"runtime: {threshold: 4MiB}\n"
		"matrix:\n"
		"  policy: [interleave, weighted-interleave]\n"
		"  policy_args: [\"scope=managed,fast_weight=2,slow_weight=1\", \"scope=process\", \"fast_weight=2,slow_weight=1\"]\n";
	struct tl_spec sa = { 0 };
	struct tl_plan pa;
	struct tl_error err = { { 0 } };

	(void)state;
	if (tl_spec_load_string("a.yaml", a, "workloads", &sa, &err))
		fail_msg("a.yaml: %s", err.msg);
	build(&sa, &pa);
	/* interleave: managed, plain (scope=process and the weights it does not take: the same run); weighted: 3 */
	assert_int_equal(pa.nconfigs, 2 + 3);
	assert_string_equal(pa.configs[0].values[TL_AXIS_POLICY_ARGS], "scope=managed");
	assert_string_equal(pa.configs[0].values[TL_AXIS_THRESHOLD], "4MiB");
	assert_null(pa.configs[1].values[TL_AXIS_POLICY_ARGS]);
	assert_null(pa.configs[1].values[TL_AXIS_THRESHOLD]);
	assert_string_equal(pa.configs[2].values[TL_AXIS_POLICY_ARGS], "fast_weight=2,slow_weight=1,scope=managed");
	assert_string_equal(pa.configs[2].values[TL_AXIS_THRESHOLD], "4MiB");
	assert_null(pa.configs[3].values[TL_AXIS_POLICY_ARGS]);
	assert_string_equal(pa.configs[4].values[TL_AXIS_POLICY_ARGS], "fast_weight=2,slow_weight=1");
	assert_null(pa.configs[4].values[TL_AXIS_THRESHOLD]);
	assert_string_not_equal(pa.configs[0].key, pa.configs[1].key);
	tl_plan_release(&pa);
	tl_spec_release(&sa);
}

static void test_design_sketch_through_parser(void **state)
{
	static const char text[] =
		"name: hpcg-40pct\n"
		"workload: {command: [./xhpcg, --nx=104], fom: {regex: \"rating of=([0-9.]+)\"}}\n"
		"machine: {fast: \"1\", slow: \"0\", cpus: \"0\"}\n"
		"events: [cycles, instructions]\n"
		"repetitions: 3\n"
		"timeout: 10m\n"
		"baseline: {policy: all-fast}\n"
		"matrix:\n"
		"  policy: [all-fast, all-slow, {static: [1.0, 1.0, 0.0]}, lru, window]\n"
		"  chunks: [2, 8, 32, 64]\n"
		"  rate: [10Hz, 100Hz]\n"
		"  window: [16, 128]\n"
		"  exclude: [{policy: lru, chunks: 2, rate: 100Hz}]\n";
	struct tl_spec spec = { 0 };
	struct tl_plan p;
	struct tl_error err = { { 0 } };

	(void)state;
	if (tl_spec_load_string("sketch.yaml", text, "workloads", &spec, &err))
		fail_msg("sketch.yaml: %s", err.msg);
	build(&spec, &p);
	assert_int_equal(p.nconfigs, 27);
	assert_int_equal(p.nruns, 81);
	assert_int_equal(count_policy(&p, "static"), 2);
	assert_int_equal(count_policy(&p, "lru"), 7);
	assert_true(tl_selector_matches(&spec.baseline, p.configs[0].values));
	assert_false(tl_selector_matches(&spec.baseline, p.configs[1].values));
	tl_plan_release(&p);

	/* tierlab sweep --chunks 32,64 --rate 10Hz: 3 + 2 + 2 x 2 */
	if (tl_spec_set_axis(&spec, TL_AXIS_CHUNKS, "32,64", &err) ||
	    tl_spec_set_axis(&spec, TL_AXIS_RATE, "10Hz", &err))
		fail_msg("set_axis: %s", err.msg);
	build(&spec, &p);
	assert_int_equal(p.nconfigs, 9);
	assert_string_equal(triple(&p, 3), "lru 32 10Hz");
	tl_plan_release(&p);
	tl_spec_release(&spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_design_sketch_counts),
		cmocka_unit_test(test_baselines_planned_once),
		cmocka_unit_test(test_first_axis_slowest),
		cmocka_unit_test(test_defaults_fill_unset_axes),
		cmocka_unit_test(test_zip_advances_together_at_first_axis),
		cmocka_unit_test(test_zip_unequal_lengths),
		cmocka_unit_test(test_huge_matrix_refused),
		cmocka_unit_test(test_exclude),
		cmocka_unit_test(test_duplicates_keep_first_position),
		cmocka_unit_test(test_size_presets),
		cmocka_unit_test(test_repetitions),
		cmocka_unit_test(test_key_is_hash_of_canonical_text),
		cmocka_unit_test(test_key_ignores_how_values_were_written),
		cmocka_unit_test(test_key_moves_when_the_run_changes),
		cmocka_unit_test(test_static_rate_and_sampler),
		cmocka_unit_test(test_keys_match_canonical_in_a_big_plan),
		cmocka_unit_test(test_selector_parse),
		cmocka_unit_test(test_selector_matches),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_through_spec_parser),
		cmocka_unit_test(test_design_sketch_through_parser),
		cmocka_unit_test(test_mempolicy_scope),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
