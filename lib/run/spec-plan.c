/*
 * A spec to its plan for run, sweep and simulate: the command line's
 * changes to the spec and `machine: NAME` resolved before planning,
 * because the node sets are part of every configuration's key.
 */
#include "run/spec-plan.h"

#include <errno.h>
#include <numa.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "measure/counters.h"
#include "store/query.h"
#include "util/error.h"
#include "util/nodeset.h"
#include "util/paths.h"
#include "util/strings.h"

/* One item of --events onto the spec's list, as written; blanks only are no event. */
static int add_event(const char *s, size_t n, void *list)
{
	struct tl_strlist *l = list;
	size_t len = n;
	char **v;

	tl_trim_span(s, &len);
	if (!len)
		return -EINVAL;
	if (!(v = realloc(l->v, sizeof(*v) * (l->n + 2))))
		return -ENOMEM;
	l->v = v;
	if (!(l->v[l->n] = strndup(s, n)))
		return -ENOMEM;
	l->v[++l->n] = NULL;
	return 0;
}

/*
 * --events "cycles,{instructions,cache-misses}" into the spec's list form,
 * split by the counters' grammar (a group stays one "{a,b}" item).
 */
static int set_events(struct tl_spec *spec, const char *text)
{
	struct tl_strlist l = { 0 };
	int rc = tl_events_split(text, add_event, &l);

	if (rc) {
		for (size_t i = 0; i < l.n; i++)
			free(l.v[i]);
		free(l.v);
		return rc == -ENOMEM ? error("out of memory") :
		       error("--events: '%s' is not a comma-separated list of events and {groups}", text);
	}
	for (size_t i = 0; i < spec->events.n; i++)
		free(spec->events.v[i]);
	free(spec->events.v);
	spec->events = l;
	return 0;
}

/* The mean measured read bandwidth (GB/s) of a node set in a profile; 0 when a node was not measured. */
static int profile_bandwidth(struct tl_store *st, const char *name, const char *set, double *gbs)
{
	struct bitmask *bm = tl_nodeset_parse(set);
	double sum = 0, one;
	int n = 0, rc = 0;

	*gbs = 0;
	if (!bm)
		return 0;
	for (int node = 0; !rc && node <= numa_max_node(); node++) {
		if (!numa_bitmask_isbitset(bm, (unsigned)node))
			continue;
		rc = tl_store_profile_read_gbs(st, name, node, &one);
		if (!rc && !(one > 0)) {
			n = 0;
			break;
		}
		sum += one;
		n++;
	}
	numa_bitmask_free(bm);
	if (!rc && n)
		*gbs = sum / n;
	return rc;
}

/* `machine: NAME`: the node sets of a profile saved by `tierlab probe --save NAME`. */
static int use_profile(struct tl_spec *spec, const char *db)
{
	struct tl_machine *m = &spec->machine;
	struct tl_store *st = NULL;
	struct tl_error err;
	char *fast = NULL, *slow = NULL;
	int rc;

	if (access(db, F_OK)) {
		tl_spec_error(spec, &m->loc, &err, "machine profile '%s': no database '%s' (save one with "
			      "'tierlab probe --save %s')", m->profile, db, m->profile);
		return error("%s", err.msg);
	}
	if (tl_store_open_existing(db, &st))
		return -1;
	rc = tl_store_profile_nodes(st, m->profile, &fast, &slow);
	if (!rc && !fast) {
		free(slow);
		rc = error("machine profile '%s' has no fast node set (no node with memory was probed)", m->profile);
	}
	if (rc)
		tl_store_close(st);
	if (rc == -ENOENT) {
		tl_spec_error(spec, &m->loc, &err, "machine profile '%s' is not in '%s' (save one with "
			      "'tierlab probe --save %s')", m->profile, db, m->profile);
		return error("%s", err.msg);
	}
	if (rc)
		return rc;
	/* what the profile gives is written at machine: */
	if (!m->fast) {
		m->fast = fast;
		m->fast_loc = m->loc;
	} else {
		free(fast);
	}
	if (!m->slow) {
		m->slow = slow ? slow : strdup(m->fast);
		m->slow_loc = m->loc;
	} else {
		free(slow);
	}
	/* weighted-interleave's weights, when the spec gives none, follow what the probe measured */
	rc = profile_bandwidth(st, m->profile, m->fast, &m->fast_gbs);
	rc = rc ?: profile_bandwidth(st, m->profile, m->slow, &m->slow_gbs);
	tl_store_close(st);
	return rc;
}

int tl_spec_plan(const char *path, const char *const *axis_lists, const char *events, const char *db,
		 struct tl_spec *spec, struct tl_plan *plan)
{
	struct tl_error err = { { 0 } };

	if (tl_spec_load(path, tl_path_workloads(), spec, &err))
		return error("%s", err.msg);
	for (int a = 0; axis_lists && a < TL_AXIS__COUNT; a++)
		if (axis_lists[a] && tl_spec_set_axis(spec, a, axis_lists[a], &err))
			return error("%s", err.msg);
	if (events && set_events(spec, events))
		return -EINVAL;
	if (spec->machine.profile && use_profile(spec, db))
		return -EINVAL;
	if (tl_plan_build(spec, plan, &err))
		return error("%s", err.msg);
	return 0;
}
