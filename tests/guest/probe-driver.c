/*
 * The probe library in a guest: topology, counters, a quick measurement of
 * every node with a small buffer (timings under emulation are noise; the
 * point is that binding to CPU-less nodes works), the recommendation and
 * the move throughput between the recommended tiers (real page moves,
 * checked to land), printed as JSON between marker lines for
 * tests/cli/probe-guest.sh.
 * Usage: probe-driver [SIZE_MIB]
 */
#include <stdio.h>
#include <stdlib.h>
#include "probe/probe.h"

int main(int argc, char **argv)
{
	struct tl_probe p;
	int rc;

	tl_probe_init(&p);
	p.quick = true;
	p.size = (uint64_t)(argc > 1 ? atoi(argv[1]) : 8) << 20;
	rc = tl_probe_topology(&p);
	rc = rc ?: tl_probe_counters(&p);
	rc = rc ?: tl_probe_measure(&p);
	rc = rc ?: tl_probe_recommend(&p);
	rc = rc ?: tl_probe_migration(&p);
	if (!rc) {
		printf("PROBE-JSON-BEGIN\n");
		rc = tl_probe_print_json(&p, stdout);
		printf("PROBE-JSON-END\n");
		tl_probe_print_text(&p, stdout);
	}
	tl_probe_release(&p);
	return rc ? 1 : 0;
}
