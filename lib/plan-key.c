/*
 * The canonical text of a configuration, which its key hashes. Its format
 * is a promise to users: results stored under a key are found again (for
 * resume and reports) only while the same configuration yields the same
 * text, so lines are only ever added for new optional fields, which write
 * nothing when unset. It holds everything that changes what a run does
 * and nothing that does not (the spec's name, description, repetitions,
 * timeout, the figure of merit's unit).
 */
#include "plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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
		put(f, tl_axes[a].name, values[a]);
	put_list(f, "command", &wl->command, preset ? &preset->args : NULL);
	put_list(f, "env", &wl->env, NULL);
	put(f, "dir", wl->dir);
	if (wl->fom.regex)
		fprintf(f, "fom=%s%s%s\n", wl->fom.regex, wl->fom.file ? SEP : "",
			wl->fom.file ? wl->fom.file : "");
	put(f, "fast", spec->machine.fast);
	put(f, "slow", spec->machine.slow);
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
