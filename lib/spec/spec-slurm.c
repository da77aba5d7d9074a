/*
 * The spec's `slurm:` key: the sbatch options of `tierlab run --slurm`
 * written once with the experiment, {partition, account, time, nodes,
 * ntasks, runs_per_task, array_limit, sbatch: [...]}; an option on the
 * command line wins over its key here (lib/slurm/slurm.h).
 */
#include "spec/spec-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/quote.h"

static const char *const slurm_keys[] = {
	"partition", "account", "time", "nodes", "ntasks", "runs_per_task", "array_limit", "sbatch", NULL
};

static int count(struct tl_yaml *y, yaml_node_t *map, const char *key, int *out)
{
	yaml_node_t *v = tl_yaml_get(y, map, key, NULL);
	const char *s = v ? tl_yaml_text(v) : NULL;
	char *end;
	long n;

	if (!v)
		return 0;
	n = s ? strtol(s, &end, 10) : 0;
	if (!s || *end || n < 1 || n > TL_SLURM_COUNT_MAX)
		return tl_yaml_error(y, v, "slurm.%s: expected a number from 1 to %d, got '%s'", key,
				     TL_SLURM_COUNT_MAX, s ? s : tl_yaml_kind(v));
	*out = (int)n;
	return 0;
}

/* A value of an #SBATCH line: one line of text (util/quote.h). */
static int directive_value(struct tl_yaml *y, yaml_node_t *v, const char *field, const char *text)
{
	const char *why;

	if (tl_sbatch_value_check(text, &why))
		return tl_yaml_error(y, v, "%s: '%s' %s", field, text, why);
	return 0;
}

static int text(struct tl_yaml *y, yaml_node_t *map, const char *key, char **out)
{
	yaml_node_t *v = tl_yaml_get(y, map, key, NULL);
	char field[64];

	snprintf(field, sizeof(field), "slurm.%s", key);
	if (!v)
		return 0;
	return tl_yaml_string(y, v, field, out) ?: directive_value(y, v, field, *out);
}

int tl_spec_parse_slurm(struct tl_yaml *y, yaml_node_t *n, struct tl_spec *spec)
{
	struct tl_slurm_spec *s = &spec->slurm;
	yaml_node_t *v, *item;

	if (tl_yaml_expect_map(y, n, "slurm", "a map such as {partition: compute, time: \"1:00:00\"}") ||
	    tl_yaml_check_keys(y, n, "slurm", slurm_keys))
		return -EINVAL;
	if (text(y, n, "partition", &s->partition) || text(y, n, "account", &s->account) ||
	    text(y, n, "time", &s->time_limit) || count(y, n, "nodes", &s->nodes) ||
	    count(y, n, "ntasks", &s->ntasks) || count(y, n, "runs_per_task", &s->runs_per_task) ||
	    count(y, n, "array_limit", &s->array_limit))
		return -EINVAL;
	v = tl_yaml_get(y, n, "sbatch", NULL);
	if (!v)
		return 0;
	if (tl_yaml_strlist(y, v, "slurm.sbatch", false, &s->sbatch))
		return -EINVAL;
	tl_yaml_for_items(y, v, i, item) {
		char field[64];

		snprintf(field, sizeof(field), "slurm.sbatch[%zu]", i);
		if (directive_value(y, item, field, s->sbatch.v[i]))
			return -EINVAL;
	}
	return 0;
}
