/*
 * Which node set is fastest, for latency-bound and for bandwidth-bound
 * work, from the best evidence at hand: measured figures, else the
 * firmware's HMAT attributes, else the distance from the CPU node. The two
 * answers may differ (on Xeon Max DDR has the lower latency and HBM the
 * higher bandwidth; SHAMBLES found Himeno L ran faster with DDR as the
 * "fast" tier), so both are given and the disagreement is said out loud.
 *
 * Nodes within TOLERANCE of the best count as equally fast: measured
 * figures are noisy and a tier is often several nodes.
 */
#include "probe/probe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TOLERANCE 0.05

enum basis { BY_MEASURED, BY_HMAT, BY_DISTANCE };
static const char *const basis_names[] = { "measured", "hmat", "distance" };

/* Lower is better for latency; both criteria return a value per node or < 0 when unknown. */
static double latency_of(const struct tl_probe *p, const struct tl_probe_node *n, enum basis b)
{
	if (b == BY_MEASURED)
		return n->measured ? n->latency_ns : -1;
	if (b == BY_HMAT)
		return n->hmat.present && n->hmat.read_latency_ns ? (double)n->hmat.read_latency_ns : -1;
	for (size_t i = 0; i < p->nnodes; i++)
		if (p->nodes[i].id == p->cpu_node)
			return p->distance[i * p->nnodes + (size_t)(n - p->nodes)];
	return -1;
}

/* Higher is better; the distance basis turns the distance around. */
static double bandwidth_of(const struct tl_probe *p, const struct tl_probe_node *n, enum basis b)
{
	double d;

	if (b == BY_MEASURED)
		return n->measured ? n->read_gbs : -1;
	if (b == BY_HMAT)
		return n->hmat.present && n->hmat.read_bandwidth_mbs ? (double)n->hmat.read_bandwidth_mbs : -1;
	d = latency_of(p, n, b);
	return d > 0 ? 1.0 / d : -1;
}

static bool usable(const struct tl_probe *p, enum basis b)
{
	for (size_t i = 0; i < p->nnodes; i++)
		if (p->nodes[i].mem_total && latency_of(p, &p->nodes[i], b) > 0 &&
		    bandwidth_of(p, &p->nodes[i], b) > 0)
			return true;
	return false;
}

static int append(char **list, int id)
{
	size_t len = *list ? strlen(*list) : 0;
	char *s = realloc(*list, len + 16);

	if (!s)
		return -ENOMEM;
	snprintf(s + len, 16, "%s%d", len ? "," : "", id);
	*list = s;
	return 0;
}

static int pick(const struct tl_probe *p, enum basis b, bool latency, char **out)
{
	double best = -1;
	int rc = 0;

	for (size_t i = 0; i < p->nnodes; i++) {
		const struct tl_probe_node *n = &p->nodes[i];
		double v = latency ? latency_of(p, n, b) : bandwidth_of(p, n, b);

		if (!n->mem_total || v <= 0)
			continue;
		if (best < 0 || (latency ? v < best : v > best))
			best = v;
	}
	for (size_t i = 0; i < p->nnodes && !rc && best > 0; i++) {
		const struct tl_probe_node *n = &p->nodes[i];
		double v = latency ? latency_of(p, n, b) : bandwidth_of(p, n, b);

		if (!n->mem_total || v <= 0)
			continue;
		if (latency ? v <= best * (1 + TOLERANCE) : v >= best * (1 - TOLERANCE))
			rc = append(out, n->id);
	}
	return rc;
}

static bool in_list(const char *list, int id)
{
	const char *s = list;

	while (s && *s) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s)
			break;
		if (v == id)
			return true;
		s = *end == ',' ? end + 1 : end;
	}
	return false;
}

/*
 * The slow tier: of the nodes with memory outside the fast set, grouped by
 * memory tier when the kernel has tiers (else one group per node), the
 * group with the most memory.
 */
static int pick_slow(struct tl_probe *p)
{
	uint64_t best = 0;
	int best_key = 0;
	bool found = false;
	int rc = 0;

	for (size_t i = 0; i < p->nnodes; i++) {
		const struct tl_probe_node *n = &p->nodes[i];
		int key = n->tier >= 0 ? n->tier : -1 - n->id;
		uint64_t total = 0;

		if (!n->mem_total || in_list(p->fast, n->id))
			continue;
		for (size_t j = 0; j < p->nnodes; j++) {
			const struct tl_probe_node *m = &p->nodes[j];

			if (m->mem_total && !in_list(p->fast, m->id) &&
			    (m->tier >= 0 ? m->tier : -1 - m->id) == key)
				total += m->mem_total;
		}
		if (!found || total > best) {
			found = true;
			best = total;
			best_key = key;
		}
	}
	for (size_t i = 0; i < p->nnodes && found && !rc; i++) {
		const struct tl_probe_node *n = &p->nodes[i];

		if (n->mem_total && !in_list(p->fast, n->id) &&
		    (n->tier >= 0 ? n->tier : -1 - n->id) == best_key)
			rc = append(&p->slow, n->id);
	}
	return rc;
}

void tl_probe_recommend_clear(struct tl_probe *p)
{
	free(p->latency_nodes);
	free(p->bandwidth_nodes);
	free(p->basis);
	free(p->fast);
	free(p->slow);
	free(p->note);
	p->latency_nodes = p->bandwidth_nodes = p->basis = p->fast = p->slow = p->note = NULL;
}

int tl_probe_recommend(struct tl_probe *p)
{
	enum basis b = usable(p, BY_MEASURED) ? BY_MEASURED : usable(p, BY_HMAT) ? BY_HMAT : BY_DISTANCE;
	char note[512];
	int rc;

	tl_probe_recommend_clear(p);
	rc = pick(p, b, true, &p->latency_nodes);
	if (!rc)
		rc = pick(p, b, false, &p->bandwidth_nodes);
	if (!rc && !(p->basis = strdup(basis_names[b])))
		rc = -ENOMEM;
	if (!rc && p->bandwidth_nodes && !(p->fast = strdup(p->bandwidth_nodes)))
		rc = -ENOMEM;
	if (!rc)
		rc = pick_slow(p);
	if (!rc && p->latency_nodes && p->bandwidth_nodes && strcmp(p->latency_nodes, p->bandwidth_nodes)) {
		snprintf(note, sizeof(note),
			 "latency-bound work is fastest on nodes %s, bandwidth-bound work on nodes %s: "
			 "choose the fast tier by what limits the workload (SHAMBLES found DDR beat HBM "
			 "for latency-bound Himeno L while HBM won bandwidth-bound work)",
			 p->latency_nodes, p->bandwidth_nodes);
		if (!(p->note = strdup(note)))
			rc = -ENOMEM;
	}
	return rc;
}
