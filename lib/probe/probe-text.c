/*
 * The probe for people: the same facts as the JSON printer (probe-json.c),
 * memory in MiB, one line per node, the distance matrix as a table.
 */
#include "probe/probe.h"

#include <errno.h>
#include "util/units.h"

static void node_line(FILE *out, const struct tl_probe_node *n)
{
	fprintf(out, "node %d: cpus %s, memory %llu MiB (%llu MiB free), tier ", n->id,
		*n->cpus ? n->cpus : "none", (unsigned long long)(n->mem_total >> 20),
		(unsigned long long)(n->mem_free >> 20));
	if (n->tier >= 0)
		fprintf(out, "%d\n", n->tier);
	else
		fputs("unknown\n", out);
	if (n->hmat.present)
		fprintf(out, "  hmat: read latency %u ns, write latency %u ns, read bandwidth %u MB/s, "
			"write bandwidth %u MB/s (initiators %s)\n",
			n->hmat.read_latency_ns, n->hmat.write_latency_ns, n->hmat.read_bandwidth_mbs,
			n->hmat.write_bandwidth_mbs, n->hmat.initiators && *n->hmat.initiators ?
			n->hmat.initiators : "none");
}

int tl_probe_print_text(const struct tl_probe *p, FILE *out)
{
	bool any_measured = false, any_skipped = false;
	char size[32];

	fprintf(out, "nodes: %zu\n", p->nnodes);
	for (size_t i = 0; i < p->nnodes; i++)
		node_line(out, &p->nodes[i]);

	fputs("distances:\n  node", out);
	for (size_t b = 0; b < p->nnodes; b++)
		fprintf(out, " %4d", p->nodes[b].id);
	fputc('\n', out);
	for (size_t a = 0; a < p->nnodes; a++) {
		fprintf(out, "  %4d", p->nodes[a].id);
		for (size_t b = 0; b < p->nnodes; b++)
			fprintf(out, " %4d", p->distance[a * p->nnodes + b]);
		fputc('\n', out);
	}

	if (p->ntiers) {
		fputs("memory tiers:\n", out);
		for (size_t i = 0; i < p->ntiers; i++)
			fprintf(out, "  tier %d: nodes %s\n", p->tiers[i].id, p->tiers[i].nodes);
	} else {
		fputs("memory tiers: none reported by the kernel\n", out);
	}

	for (size_t i = 0; i < p->nnodes; i++) {
		any_measured |= p->nodes[i].measured;
		any_skipped |= p->nodes[i].skip_reason != NULL;
	}
	if (any_measured || any_skipped) {
		tl_format_size(size, sizeof(size), p->size);
		fprintf(out, "measured from cpu node %d (%s per node%s):\n", p->cpu_node, size,
			p->quick ? ", quick" : "");
		fprintf(out, "  %4s %12s %10s %10s\n", "node", "latency ns", "read GB/s", "copy GB/s");
		for (size_t i = 0; i < p->nnodes; i++) {
			const struct tl_probe_node *n = &p->nodes[i];

			if (n->measured)
				fprintf(out, "  %4d %12.1f %10.2f %10.2f\n", n->id, n->latency_ns, n->read_gbs,
					n->copy_gbs);
			else
				fprintf(out, "  %4d skipped: %s\n", n->id, n->skip_reason ? n->skip_reason : "?");
		}
	} else {
		fputs("measured: not measured\n", out);
	}

	fprintf(out, "fastest for latency-bound work: nodes %s (by %s)\n",
		p->latency_nodes ? p->latency_nodes : "unknown", p->basis ? p->basis : "-");
	fprintf(out, "fastest for bandwidth-bound work: nodes %s (by %s)\n",
		p->bandwidth_nodes ? p->bandwidth_nodes : "unknown", p->basis ? p->basis : "-");
	fprintf(out, "machine profile: fast %s, slow %s\n", p->fast ? p->fast : "none",
		p->slow ? p->slow : "none");
	if (p->note)
		fprintf(out, "note: %s\n", p->note);
	if (p->moved)
		fprintf(out, "migration: node %d -> node %d: %.3f GB/s, %.1f us per move\n", p->move_from, p->move_to,
			p->move_gbs, p->move_cost_us);
	else
		fprintf(out, "migration: not measured (%s)\n", p->move_skip ? p->move_skip : "not probed");

	if (p->events_probed) {
		fputs("counters:\n", out);
		for (int i = 0; i < TL_PROBE_NEVENTS; i++) {
			if (p->events[i].ok)
				fprintf(out, "  %-18s ok\n", p->events[i].name);
			else
				fprintf(out, "  %-18s unavailable: %s\n", p->events[i].name,
					p->events[i].reason ? p->events[i].reason : "?");
		}
	}
	fprintf(out, "thp: enabled %s, defrag %s\n", p->thp_enabled ? p->thp_enabled : "unknown",
		p->thp_defrag ? p->thp_defrag : "unknown");
	fputs("hugetlb:", out);
	if (!p->nhugetlb)
		fputs(" none", out);
	for (size_t i = 0; i < p->nhugetlb; i++) {
		tl_format_size(size, sizeof(size), p->hugetlb[i].page_size);
		fprintf(out, "%s %s pages %ld (%ld free)", i ? "," : "", size, p->hugetlb[i].nr,
			p->hugetlb[i].free);
	}
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}
