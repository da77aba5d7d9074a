/*
 * The canonical text of a configuration, which its key hashes. Its format
 * is a promise to users: results stored under a key are found again (for
 * resume and reports) only while the same configuration yields the same
 * text, so lines are only ever added for new optional fields, which write
 * nothing when unset. It holds everything that changes what a run does
 * and nothing that does not (the spec's name, description, repetitions,
 * timeout, the figure of merit's unit).
 *
 * The same promise holds when an axis starts to apply to configurations
 * that ran without it: at the value those runs had anyway, its line is
 * left out, so their keys stay and resume finds them.
 */
#include "plan/plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fields hold no newlines; \x1f (unit separator) cannot be typed into a YAML plain scalar by accident. */
#define SEP "\x1f"

static void put_list(FILE *f, const char *name, const struct tl_strlist *a, const struct tl_strlist *b)
{
	size_t na = a ? a->n : 0, nb = b ? b->n : 0;

	if (!na && !nb)
		return;
	fprintf(f, "%s=", name);
	for (size_t i = 0; i < na + nb; i++)
		fprintf(f, "%s%s", i ? SEP : "", i < na ? a->v[i] : b->v[i - na]);
	fputc('\n', f);
}

static void put(FILE *f, const char *name, const char *value)
{
	if (value)
		fprintf(f, "%s=%s\n", name, value);
}

/*
 * Static policies took no rate and no sampler until tierlab gave them
 * both: the runtime sampled them at its defaults then, 10Hz with the fault
 * sampler. Those values are history, not the current defaults, and must
 * never change.
 */
static const char *const static_had[TL_AXIS__COUNT] = {
	[TL_AXIS_RATE] = "10Hz",
	[TL_AXIS_SAMPLER] = "fault",
};

static bool as_stored_before(enum tl_axis a, const char *const values[TL_AXIS__COUNT])
{
	const char *policy = values[TL_AXIS_POLICY];

	return static_had[a] && values[a] && !strcmp(values[a], static_had[a]) &&
	       tl_policy_uses_runtime(policy) && !tl_policy_is_dynamic(policy);
}

int tl_plan_canonical(const struct tl_spec *spec, const char *const values[TL_AXIS__COUNT],
		      const struct tl_workload *wl, const struct tl_size_preset *preset, char **out)
{
	size_t len = 0;
	FILE *f;

	*out = NULL;
	f = open_memstream(out, &len);
	if (!f)
		return -ENOMEM;
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		if (!as_stored_before(a, values))
			put(f, tl_axes[a].name, values[a]);
	put_list(f, "command", &wl->command, preset ? &preset->args : NULL);
	put_list(f, "env", &wl->env, NULL);
	put(f, "dir", wl->dir);
	if (wl->fom.regex)
		fprintf(f, "fom=%s%s%s\n", wl->fom.regex, wl->fom.file ? SEP : "",
			wl->fom.file ? wl->fom.file : "");
	put(f, "fast", spec->machine.fast);
	put(f, "slow", spec->machine.slow);
	/* how many ranks, started how: a run of 2 ranks is not a run of 4 */
	if (spec->launch.with) {
		fprintf(f, "launch=%s" SEP "%d", spec->launch.with, spec->launch.ranks);
		for (size_t i = 0; i < spec->launch.args.n; i++)
			fprintf(f, SEP "%s", spec->launch.args.v[i]);
		fputc('\n', f);
	}
	put(f, "cpus", spec->machine.cpus);
	put_list(f, "events", &spec->events, NULL);
	if (ferror(f) | fclose(f)) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	if (!*out)
		return -ENOMEM;
	return 0;
}
