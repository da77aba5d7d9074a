/*
 * The probe as one JSON object: the facts of the text printer
 * (probe-text.c), with sizes in bytes and null for what is unknown or
 * absent. Numbers use the text printer's precision so the two agree
 * exactly. It is also the stored form of a machine profile.
 */
#include "probe/probe.h"

#include <errno.h>

static void str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* lead (punctuation and a member's name), then the string or null */
static void member(FILE *out, const char *lead, const char *value)
{
	fputs(lead, out);
	str(out, value);
}

static void node(FILE *out, const struct tl_probe_node *n)
{
	fprintf(out, "    {\"id\": %d, \"cpus\": ", n->id);
	str(out, n->cpus);
	fprintf(out, ", \"ncpus\": %d, \"memory_bytes\": %llu, \"free_bytes\": %llu, \"tier\": ",
		n->ncpus, (unsigned long long)n->mem_total, (unsigned long long)n->mem_free);
	if (n->tier >= 0)
		fprintf(out, "%d", n->tier);
	else
		fputs("null", out);
	fputs(",\n     \"hmat\": ", out);
	if (n->hmat.present) {
		fprintf(out, "{\"read_latency_ns\": %u, \"write_latency_ns\": %u, "
			"\"read_bandwidth_mbs\": %u, \"write_bandwidth_mbs\": %u, \"initiators\": ",
			n->hmat.read_latency_ns, n->hmat.write_latency_ns, n->hmat.read_bandwidth_mbs,
			n->hmat.write_bandwidth_mbs);
		str(out, n->hmat.initiators);
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	if (n->measured)
		fprintf(out, ",\n     \"latency_ns\": %.1f, \"read_gbs\": %.2f, \"copy_gbs\": %.2f, "
			"\"skipped\": null}", n->latency_ns, n->read_gbs, n->copy_gbs);
	else {
		fputs(",\n     \"latency_ns\": null, \"read_gbs\": null, \"copy_gbs\": null, \"skipped\": ", out);
		str(out, n->skip_reason);
		fputc('}', out);
	}
}

int tl_probe_print_json(const struct tl_probe *p, FILE *out)
{
	fprintf(out, "{\n  \"cpu_node\": %d,\n  \"size_bytes\": %llu,\n  \"quick\": %s,\n  \"nodes\": [\n",
		p->cpu_node, (unsigned long long)p->size, p->quick ? "true" : "false");
	for (size_t i = 0; i < p->nnodes; i++) {
		node(out, &p->nodes[i]);
		fputs(i + 1 < p->nnodes ? ",\n" : "\n", out);
	}
	fputs("  ],\n  \"distances\": [", out);
	for (size_t a = 0; a < p->nnodes; a++) {
		fputs(a ? ", [" : "[", out);
		for (size_t b = 0; b < p->nnodes; b++)
			fprintf(out, "%s%d", b ? ", " : "", p->distance[a * p->nnodes + b]);
		fputc(']', out);
	}
	fputs("],\n  \"tiers\": [", out);
	for (size_t i = 0; i < p->ntiers; i++) {
		fprintf(out, "%s{\"id\": %d, \"nodes\": ", i ? ", " : "", p->tiers[i].id);
		str(out, p->tiers[i].nodes);
		fputc('}', out);
	}
	member(out, "],\n  \"recommendation\": {\"basis\": ", p->basis);
	member(out, ", \"latency_bound\": ", p->latency_nodes);
	member(out, ", \"bandwidth_bound\": ", p->bandwidth_nodes);
	member(out, ", \"fast\": ", p->fast);
	member(out, ", \"slow\": ", p->slow);
	member(out, ", \"note\": ", p->note);
	if (p->moved)
		fprintf(out, "},\n  \"migration\": {\"from\": %d, \"to\": %d, \"move_gbs\": %.3f, \"move_cost_us\": %.1f, "
			"\"skipped\": null", p->move_from, p->move_to, p->move_gbs, p->move_cost_us);
	else
		member(out, "},\n  \"migration\": {\"from\": null, \"to\": null, \"move_gbs\": null, \"move_cost_us\": null, "
			    "\"skipped\": ", p->move_skip);
	fputs("},\n  \"counters\": ", out);
	if (!p->events_probed) {
		fputs("null", out);
	} else {
		fputs("[\n", out);
		for (int i = 0; i < TL_PROBE_NEVENTS; i++) {
			fputs("    {\"event\": ", out);
			str(out, p->events[i].name);
			fprintf(out, ", \"available\": %s, \"reason\": ", p->events[i].ok ? "true" : "false");
			str(out, p->events[i].reason);
			fputs(i + 1 < TL_PROBE_NEVENTS ? "},\n" : "}\n", out);
		}
		fputs("  ]", out);
	}
	member(out, ",\n  \"thp\": {\"enabled\": ", p->thp_enabled);
	member(out, ", \"defrag\": ", p->thp_defrag);
	fputs("},\n  \"hugetlb\": [", out);
	for (size_t i = 0; i < p->nhugetlb; i++)
		fprintf(out, "%s{\"page_size_bytes\": %llu, \"pages\": %ld, \"free\": %ld}", i ? ", " : "",
			(unsigned long long)p->hugetlb[i].page_size, p->hugetlb[i].nr, p->hugetlb[i].free);
	fputs("]\n}\n", out);
	return ferror(out) ? -EIO : 0;
}
