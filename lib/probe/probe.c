/*
 * The probe's result model: defaults, release, and the counter
 * availability check (lib/measure/counters.c opens each standard event on this
 * process; what fails is listed with the reason, as a run would record it).
 */
#include "probe/probe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "measure/counters.h"

const char *const tl_probe_event_names[TL_PROBE_NEVENTS] = {
	"cycles", "instructions", "cache-misses", "dTLB-load-misses", "task-clock", "page-faults",
};

void tl_probe_init(struct tl_probe *p)
{
	memset(p, 0, sizeof(*p));
	p->sysfs = "/sys";
	p->size = 256ull << 20;
}

void tl_probe_release(struct tl_probe *p)
{
	for (size_t i = 0; i < p->nnodes; i++) {
		free(p->nodes[i].cpus);
		free(p->nodes[i].hmat.initiators);
		free(p->nodes[i].skip_reason);
	}
	free(p->nodes);
	free(p->distance);
	for (size_t i = 0; i < p->ntiers; i++)
		free(p->tiers[i].nodes);
	free(p->tiers);
	for (int i = 0; i < TL_PROBE_NEVENTS; i++)
		free(p->events[i].reason);
	free(p->thp_enabled);
	free(p->thp_defrag);
	free(p->hugetlb);
	free(p->move_skip);
	p->move_skip = NULL;
	tl_probe_recommend_clear(p);
	p->nodes = NULL;
	p->nnodes = p->ntiers = p->nhugetlb = 0;
}

int tl_probe_counters(struct tl_probe *p)
{
	struct tl_counter_set set;
	int rc = 0;

	tl_counters_init(&set);
	/* The probe lists availability itself: no warnings on stderr. */
	set.quiet = true;
	for (int i = 0; i < TL_PROBE_NEVENTS; i++) {
		rc = tl_counters_add(&set, tl_probe_event_names[i]);
		if (rc)
			goto out;
	}
	/* Opening on ourselves is enough to learn whether the kernel accepts each event. */
	rc = tl_counters_open(&set, getpid());
	if (rc)
		goto out;
	for (int i = 0; i < TL_PROBE_NEVENTS; i++) {
		const struct tl_counter *c = tl_counters_find(&set, tl_probe_event_names[i]);
		struct tl_probe_event *e = &p->events[i];

		e->name = tl_probe_event_names[i];
		e->ok = c && c->status == TL_COUNTER_OK;
		free(e->reason);
		e->reason = NULL;
		if (!e->ok) {
			e->reason = strdup(c && c->reason ? c->reason : "not counted");
			if (!e->reason) {
				rc = -ENOMEM;
				goto out;
			}
		}
	}
	p->events_probed = true;
out:
	tl_counters_release(&set);
	return rc;
}
