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
#include "axis/axis.h"
#include "policies/tierlab-policy.h"

/* The files each parameter (TL_AUTONUMA_PARAMS) is written to. */
static const struct {
	enum tl_autonuma_param param;
	const char *path;
} knobs[] = {
	{ TL_AUTONUMA_RATE_LIMIT, TL_KS_PROMOTE_RATE },
	{ TL_AUTONUMA_SCAN_DELAY, TL_KS_DEBUG_NB "/scan_delay_ms" },
	{ TL_AUTONUMA_SCAN_PERIOD, TL_KS_DEBUG_NB "/scan_period_min_ms" },
	{ TL_AUTONUMA_SCAN_PERIOD, TL_KS_DEBUG_NB "/scan_period_max_ms" },
	{ TL_AUTONUMA_HOT_THRESHOLD, TL_KS_DEBUG_NB "/hot_threshold_ms" },
};

int tl_ktier_autonuma_begin(struct tl_ktier *k, const char *args, char *why, size_t whylen)
{
	const struct tlp_param *params = tl_policy_params("autonuma");
	char v[64];
	int rc;

	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		const char *name = params[knobs[i].param].name;

		if (!tl_ktier_arg(args, name, v, sizeof(v)))
			continue;
		if (access(knobs[i].path, W_OK)) {
			snprintf(why, whylen, "autonuma's %s needs %s (%s%s)", name, knobs[i].path,
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
