/*
 * weighted-interleave's weights: each node of the fast tier gets
 * fast_weight pages in a row, each node of the slow tier slow_weight.
 * Given in the spec (both, 1-255, as the kernel takes them), or derived
 * from the tiers' read bandwidths: measured by `tierlab probe` when the
 * spec's machine is a saved profile, else as the firmware publishes them (HMAT,
 * access0: what `tierlab probe` reports for each node and what the
 * kernel's own auto mode uses), so that each tier serves its share of a
 * streaming program's traffic in proportion to what it can carry.
 */
#include "ktier/ktier.h"

#include <errno.h>
#include <math.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "axis/axis.h"
#include "policies/tierlab-policy.h"
#include "util/nodeset.h"

/* 1-255, as weighted_interleave/nodeN takes; 0 when not a weight. */
static unsigned parse_weight(const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);

	return *v && !*end && n >= 1 && n <= 255 ? (unsigned)n : 0;
}

/* The mean HMAT read bandwidth (MB/s) of a node set, 0 when a node has none. */
static double set_bandwidth(const char *set, char *missing, size_t len)
{
	struct bitmask *bm = tl_nodeset_parse(set);
	double sum = 0;
	int n = 0;

	if (!bm)
		return 0;
	for (int node = 0; node <= numa_max_node(); node++) {
		char path[160], v[32] = "";
		FILE *f;

		if (!numa_bitmask_isbitset(bm, (unsigned)node))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/access0/initiators/read_bandwidth", node);
		f = fopen(path, "r");
		if (!f || !fgets(v, sizeof(v), f) || !atof(v)) {
			snprintf(missing, len, "node %d publishes no read bandwidth (no %s)", node, path);
			if (f)
				fclose(f);
			numa_bitmask_free(bm);
			return 0;
		}
		fclose(f);
		sum += atof(v);
		n++;
	}
	numa_bitmask_free(bm);
	return n ? sum / n : 0;
}

/* The smallest weights whose ratio is within 5% of r (fast over slow). */
static void ratio_weights(double r, unsigned *wf, unsigned *ws)
{
	bool swap = r < 1;
	unsigned a = 1, b = 1;

	if (swap)
		r = 1 / r;
	for (unsigned d = 1; d <= 255; d++) {
		double n = round(r * d);

		if (n > 255)
			break;
		a = (unsigned)n;
		b = d;
		if (fabs(n / d - r) <= 0.05 * r)
			break;
	}
	*wf = swap ? b : a;
	*ws = swap ? a : b;
}

int tl_ktier_weights(const char *args, const char *fast, const char *slow, const struct tl_ktier_bandwidth *bw,
		     unsigned *wf, unsigned *ws, char *from, size_t fromlen, char *why, size_t whylen)
{
	const struct tlp_param *params = tl_policy_params("weighted-interleave");
	const char *fn = params[TL_WEIGHTED_FAST_WEIGHT].name, *sn = params[TL_WEIGHTED_SLOW_WEIGHT].name;
	char f[32], s[32], missing[256] = "";
	bool hf = tl_ktier_arg(args, fn, f, sizeof(f)), hs = tl_ktier_arg(args, sn, s, sizeof(s));
	double bf, bs;

	if (hf != hs) {
		snprintf(why, whylen, "policy 'weighted-interleave' needs both %s and %s, or neither "
			 "(then they follow the nodes' bandwidths); only %s given", fn, sn, hf ? fn : sn);
		return -EINVAL;
	}
	if (hf) {
		*wf = parse_weight(f);
		*ws = parse_weight(s);
		if (!*wf || !*ws) {
			snprintf(why, whylen, "policy 'weighted-interleave': %s '%s' is not a weight (1 to 255)",
				 *wf ? sn : fn, *wf ? s : f);
			return -EINVAL;
		}
		snprintf(from, fromlen, "spec");
		return 0;
	}
	/* what `tierlab probe` measured, when the spec's machine is a saved profile */
	if (bw && bw->fast_gbs > 0 && bw->slow_gbs > 0) {
		ratio_weights(bw->fast_gbs / bw->slow_gbs, wf, ws);
		snprintf(from, fromlen, "read bandwidth %.1f GB/s fast, %.1f GB/s slow (probe profile '%s')",
			 bw->fast_gbs, bw->slow_gbs, bw->profile ? bw->profile : "");
		return 0;
	}
	bf = set_bandwidth(fast, missing, sizeof(missing));
	bs = bf > 0 ? set_bandwidth(slow, missing, sizeof(missing)) : 0;
	if (!(bf > 0) || !(bs > 0)) {
		snprintf(why, whylen, "policy 'weighted-interleave' has no weights: give fast_weight and slow_weight "
			 "in policy_args, or run where the firmware publishes the nodes' bandwidths (%s)", missing);
		return -ENOENT;
	}
	ratio_weights(bf / bs, wf, ws);
	snprintf(from, fromlen, "read bandwidth %.0f MB/s fast, %.0f MB/s slow (HMAT)", bf, bs);
	return 0;
}
