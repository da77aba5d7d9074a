/*
 * Fuzz target: the spec reader and the planner, as `tierlab run` and
 * `tierlab sweep` use them. The input is a spec's text; comment lines in
 * it may also carry what the command line would add:
 *
 *   #where: policy=lru,chunks=8        tl_selector_parse, then selection
 *   #sweep chunks: 2,8                 tl_spec_set_axis (any axis name)
 *
 * Built-in workloads come from the source tree's workloads/ (FUZZ_WORKLOADS).
 * Besides the sanitizers, it checks what the planner promises: every
 * configuration has a key of TL_KEY_LEN hex digits, keys are distinct, and
 * runs are configurations x repetitions.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "plan/plan.h"
#include "spec/spec.h"

/* The value of the first comment line "#<tag>..." (up to its end), into buf. */
static bool directive(const char *text, const char *tag, char *name, size_t nlen, char *buf, size_t len)
{
	size_t tl = strlen(tag);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *colon, *eol;

		if (strncmp(p, tag, tl))
			continue;
		eol = strchrnul(p, '\n');
		colon = memchr(p + tl, ':', (size_t)(eol - p - tl));
		if (!colon)
			continue;
		if (name)
			snprintf(name, nlen, "%.*s", (int)(colon - p - tl), p + tl);
		colon += strspn(colon + 1, " ") + 1;
		snprintf(buf, len, "%.*s", (int)(eol - colon), colon);
		return true;
	}
	return false;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void check_plan(const struct tl_spec *spec, const struct tl_plan *plan, const char *where)
{
	struct tl_selector sel = { 0 };
	struct tl_error err = { { 0 } };
	const char **keys = malloc(sizeof(*keys) * (plan->nconfigs + 1));
	char desc[512];

	FUZZ_CHECK(plan->nconfigs > 0 && plan->nruns == plan->nconfigs * (size_t)spec->repetitions);
	for (size_t i = 0; i < plan->nconfigs; i++) {
		const struct tl_config *c = &plan->configs[i];

		FUZZ_CHECK(strlen(c->key) == TL_KEY_LEN && strspn(c->key, "0123456789abcdef") == TL_KEY_LEN);
		tl_config_describe(plan, c, desc, sizeof(desc));
		if (keys)
			keys[i] = c->key;
	}
	/* duplicates were removed: two configurations with one key would store as one */
	if (keys) {
		qsort(keys, plan->nconfigs, sizeof(*keys), cmp_key);
		for (size_t i = 1; i < plan->nconfigs; i++)
			FUZZ_CHECK(strcmp(keys[i - 1], keys[i]));
		free(keys);
	}
	if (where && !tl_selector_parse(where, &sel, &err)) {
		for (size_t i = 0; i < plan->nconfigs; i++)
			(void)tl_selector_matches(&sel, plan->configs[i].values);
		tl_selector_release(&sel);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), where[256], axis[64], list[256];
	bool have_where;
	struct tl_spec spec;
	struct tl_plan plan = { 0 };
	struct tl_error err = { { 0 } };

	if (!text)
		return 0;
	if (tl_spec_load_string("fuzz.yaml", text, FUZZ_WORKLOADS, &spec, &err)) {
		/* refused: with one line that names the file */
		FUZZ_CHECK(!strchr(err.msg, '\n') && !strncmp(err.msg, "fuzz.yaml", 9));
		free(text);
		return 0;
	}
	if (directive(text, "#sweep ", axis, sizeof(axis), list, sizeof(list))) {
		int a = tl_axis_lookup(axis);

		if (a >= 0)
			(void)tl_spec_set_axis(&spec, (enum tl_axis)a, list, &err);
	}
	have_where = directive(text, "#where", NULL, 0, where, sizeof(where));
	if (!tl_plan_build(&spec, &plan, &err))
		check_plan(&spec, &plan, have_where ? where : NULL);
	tl_plan_release(&plan);
	tl_spec_release(&spec);
	free(text);
	return 0;
}
