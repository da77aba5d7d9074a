/*
 * The spec's `launch:` key: how a run's program is started as MPI ranks,
 * `launch: {ranks: N, with: srun|mpirun, args: [...]}`. The runner puts
 * the launcher in front of the program (lib/run/launch.c).
 */
#include "spec/spec-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const launch_keys[] = { "ranks", "with", "args", NULL };

int tl_spec_parse_launch(struct tl_yaml *y, yaml_node_t *n, struct tl_spec *spec)
{
	struct tl_launch_spec *l = &spec->launch;
	yaml_node_t *v;
	char *end;
	long ranks;

	if (tl_yaml_expect_map(y, n, "launch", "a map such as {ranks: 2, with: mpirun}") ||
	    tl_yaml_check_keys(y, n, "launch", launch_keys))
		return -EINVAL;
	v = tl_yaml_get(y, n, "ranks", NULL);
	if (!v)
		return tl_yaml_error(y, n, "launch: needs ranks: (how many MPI ranks a run has)");
	ranks = tl_yaml_text(v) ? strtol(tl_yaml_text(v), &end, 10) : 0;
	if (!tl_yaml_text(v) || *end || ranks < 1 || ranks > 1 << 20)
		return tl_yaml_error(y, v, "launch.ranks: expected a number of ranks from 1 to %d, got '%s'",
				     1 << 20, tl_yaml_text(v) ? tl_yaml_text(v) : tl_yaml_kind(v));
	l->ranks = (int)ranks;
	v = tl_yaml_get(y, n, "with", NULL);
	if (v) {
		const char *w = tl_yaml_text(v);

		if (!w || (strcmp(w, "srun") && strcmp(w, "mpirun")))
			return tl_yaml_error(y, v, "launch.with: expected srun or mpirun, got '%s'",
					     w ? w : tl_yaml_kind(v));
	}
	if (v ? tl_yaml_string(y, v, "launch.with", &l->with) : !(l->with = strdup("mpirun")))
		return v ? -EINVAL : tl_error_set(y->err, "out of memory");
	v = tl_yaml_get(y, n, "args", NULL);
	if (v && tl_yaml_strlist(y, v, "launch.args", false, &l->args))
		return -EINVAL;
	return 0;
}
