/*
 * The autonuma policy: NUMA balancing in memory-tiering mode
 * (kernel.numa_balancing=2) promotes the slow-tier pages a task faults on
 * often enough, and demotion (/sys/kernel/mm/numa/demotion_enabled) lets
 * kswapd move cold pages of the full fast tier down instead of reclaiming
 * them. Its parameters are the kernel's own knobs; one not given keeps
 * the value the machine has (the run's environment records it).
 */
#include "ktier/ktier.h"
#include "ktier/settings.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *param, *path;
} knobs[] = {
	{ "rate_limit", TL_KS_PROMOTE_RATE },
	{ "scan_delay", TL_KS_DEBUG_NB "/scan_delay_ms" },
	{ "scan_period", TL_KS_DEBUG_NB "/scan_period_min_ms" },
	{ "scan_period", TL_KS_DEBUG_NB "/scan_period_max_ms" },
	{ "hot_threshold", TL_KS_DEBUG_NB "/hot_threshold_ms" },
};

int tl_ktier_autonuma_begin(struct tl_ktier *k, const char *args, char *why, size_t whylen)
{
	char v[64];
	int rc;

	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		if (!tl_ktier_arg(args, knobs[i].param, v, sizeof(v)))
			continue;
		if (access(knobs[i].path, W_OK)) {
			snprintf(why, whylen, "autonuma's %s needs %s (%s%s)", knobs[i].param, knobs[i].path,
				 strerror(errno), strncmp(knobs[i].path, "/sys/kernel/debug", 17) ? "" :
				 "; mount -t debugfs none /sys/kernel/debug");
			return -ENOENT;
		}
		if ((rc = tl_journal_set(&k->journal, knobs[i].path, v, why, whylen)))
			return rc;
	}
	rc = tl_journal_set(&k->journal, TL_KS_DEMOTION, "true", why, whylen);
	return rc ?: tl_journal_set(&k->journal, TL_KS_NUMA_BALANCING, "2", why, whylen);
}
