/*
 * Reading tier models (YAML, through the YAML toolkit of spec/yaml.h, so
 * a mistake is reported at its line and column), from a model file or
 * from a probe profile. The equations are model.c's.
 */
#include "simulate/model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spec/yaml.h"

static int number(struct tl_yaml *y, yaml_node_t *map, const char *field, const char *key, double lo, double hi,
		  double *out)
{
	char f[TL_FIELD_MAX];
	yaml_node_t *n = tl_yaml_get(y, map, key, NULL);
	const char *text = n ? tl_yaml_text(n) : NULL;
	char *end;

	tl_yaml_field(f, field, key);
	if (!n)
		return tl_yaml_error(y, map, "%s: missing", f);
	if (!text)
		return tl_yaml_error(y, n, "%s: expected a number, got %s", f, tl_yaml_kind(n));
	*out = strtod(text, &end);
	if (end == text || *end || !isfinite(*out) || *out < lo || *out > hi)
		return tl_yaml_error(y, n, "%s: '%s': expected a number in [%g, %g]", f, text, lo, hi);
	return 0;
}

static int tier(struct tl_yaml *y, yaml_node_t *tiers, const char *key, struct tl_tier_model_tier *t)
{
	static const char *const keys[] = { "name", "latency_ns", "bandwidth_gbs", "source", NULL };
	char f[TL_FIELD_MAX];
	yaml_node_t *n = tl_yaml_get(y, tiers, key, NULL), *name;

	tl_yaml_field(f, "tiers", key);
	if (!n)
		return tl_yaml_error(y, tiers, "%s: missing", f);
	if (tl_yaml_expect_map(y, n, f, "a map of name, latency_ns, bandwidth_gbs") ||
	    tl_yaml_check_keys(y, n, f, keys))
		return -EINVAL;
	if ((name = tl_yaml_get(y, n, "name", NULL)) && tl_yaml_string(y, name, f, &t->name))
		return -EINVAL;
	if ((name = tl_yaml_get(y, n, "source", NULL)) && tl_yaml_string(y, name, f, &t->source))
		return -EINVAL;
	return number(y, n, f, "latency_ns", 1e-3, 1e9, &t->latency_ns) ?:
	       number(y, n, f, "bandwidth_gbs", 1e-6, 1e9, &t->bandwidth_gbs);
}

/*
 * workload: the free parameters --calibrate fitted (model.h). Absent, the
 * uncalibrated defaults: no compute, full overlap, no latency bound.
 */
static int workload(struct tl_yaml *y, yaml_node_t *root, struct tl_tier_model *m)
{
	static const char *const keys[] = { "compute_ns_per_byte", "overlap", "mlp", "source", "residual_rms",
					    "held_out", NULL };
	yaml_node_t *n = tl_yaml_get(y, root, "workload", NULL), *src;

	m->overlap = 1;
	if (!n)
		return 0;
	if (tl_yaml_expect_map(y, n, "workload", "a map") || tl_yaml_check_keys(y, n, "workload", keys) ||
	    number(y, n, "workload", "compute_ns_per_byte", 0, 1e9, &m->compute_ns_per_byte) ||
	    number(y, n, "workload", "overlap", 0, 1, &m->overlap) || number(y, n, "workload", "mlp", 0, 1e12, &m->mlp))
		return -EINVAL;
	if ((src = tl_yaml_get(y, n, "source", NULL)) && tl_yaml_string(y, src, "workload.source", &m->workload_source))
		return -EINVAL;
	if (tl_yaml_get(y, n, "residual_rms", NULL) &&
	    number(y, n, "workload", "residual_rms", 0, 1e9, &m->residual_rms))
		return -EINVAL;
	if (tl_yaml_get(y, n, "held_out", NULL) && number(y, n, "workload", "held_out", 0, 1e9, &m->held_out))
		return -EINVAL;
	m->calibrated = true;
	return 0;
}

static int parse(struct tl_yaml *y, struct tl_tier_model *m)
{
	static const char *const top[] = { "name", "description", "source", "tiers", "migration", "workload",
					   "other_tiers", NULL };
	static const char *const tiers_keys[] = { "fast", "slow", NULL };
	static const char *const mig_keys[] = { "bandwidth_gbs", "cost_us", "source", NULL };
	yaml_node_t *root = tl_yaml_root(y), *n;

	if (!root || tl_yaml_expect_map(y, root, "", "a tier model (a map)") || tl_yaml_check_keys(y, root, "", top))
		return -EINVAL;
	if ((n = tl_yaml_get(y, root, "name", NULL)) && tl_yaml_string(y, n, "name", &m->name))
		return -EINVAL;
	if ((n = tl_yaml_get(y, root, "description", NULL)) && tl_yaml_string(y, n, "description", &m->description))
		return -EINVAL;
	n = tl_yaml_get(y, root, "tiers", NULL);
	if (!n)
		return tl_yaml_error(y, root, "tiers: missing");
	if (tl_yaml_expect_map(y, n, "tiers", "a map of fast and slow") || tl_yaml_check_keys(y, n, "tiers", tiers_keys) ||
	    tier(y, n, "fast", &m->fast) || tier(y, n, "slow", &m->slow))
		return -EINVAL;
	n = tl_yaml_get(y, root, "migration", NULL);
	if (!n)
		return tl_yaml_error(y, root, "migration: missing");
	if (tl_yaml_expect_map(y, n, "migration", "a map") || tl_yaml_check_keys(y, n, "migration", mig_keys) ||
	    number(y, n, "migration", "bandwidth_gbs", 1e-6, 1e9, &m->migration_gbs) ||
	    number(y, n, "migration", "cost_us", 0, 1e9, &m->migration_cost_us))
		return -EINVAL;
	if ((n = tl_yaml_get(y, n, "source", NULL)) && tl_yaml_string(y, n, "migration.source", &m->migration_source))
		return -EINVAL;
	return workload(y, root, m);
}

int tl_tier_model_load(const char *path, struct tl_tier_model *m, struct tl_error *err)
{
	struct tl_yaml y = { 0 };
	char *text = NULL;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = tl_spec_read_file(path, &text, err);
	if (rc)
		return rc;
	rc = tl_yaml_load(&y, path, text, err) ?: parse(&y, m);
	tl_yaml_release(&y);
	free(text);
	if (rc)
		tl_tier_model_release(m);
	return rc;
}

/* The mean latency and read bandwidth of the nodes of set (numactl syntax: "1", "0-3,5") in nodes[]. */
static int probe_tier(struct tl_yaml *y, yaml_node_t *nodes, const char *field, const char *set,
		      struct tl_tier_model_tier *t)
{
	double lat = 0, bw = 0;
	int n = 0;

	for (const char *p = set; *p;) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		yaml_node_t *node;

		if (end == p || lo < 0)
			return tl_yaml_error(y, NULL, "recommendation.%s: '%s' is not a node list", field, set);
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo)
				return tl_yaml_error(y, NULL, "recommendation.%s: '%s' is not a node list", field, set);
		}
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return tl_yaml_error(y, NULL, "recommendation.%s: '%s' is not a node list", field, set);
		tl_yaml_for_items(y, nodes, i, node) {
			yaml_node_t *id = node->type == YAML_MAPPING_NODE ? tl_yaml_get(y, node, "id", NULL) : NULL;
			yaml_node_t *l = id ? tl_yaml_get(y, node, "latency_ns", NULL) : NULL;
			yaml_node_t *b = id ? tl_yaml_get(y, node, "read_gbs", NULL) : NULL;
			const char *it = id ? tl_yaml_text(id) : NULL;
			long v = it ? strtol(it, NULL, 10) : -1;

			if (v < lo || v > hi || !l || !b || tl_yaml_is_null(l) || tl_yaml_is_null(b) ||
			    !tl_yaml_text(l) || !tl_yaml_text(b))
				continue;
			lat += strtod(tl_yaml_text(l), NULL);
			bw += strtod(tl_yaml_text(b), NULL);
			n++;
		}
	}
	if (!n || !(lat > 0) || !(bw > 0))
		return tl_yaml_error(y, NULL, "the %s tier (nodes %s) has no measured node (latency_ns, read_gbs)",
				     field, set);
	t->latency_ns = lat / n;
	t->bandwidth_gbs = bw / n;
	t->name = strdup(set);
	return t->name ? 0 : -ENOMEM;
}

int tl_tier_model_from_probe(const char *origin, const char *json, struct tl_tier_model *m, struct tl_error *err)
{
	struct tl_yaml y = { 0 };
	yaml_node_t *root, *rec, *nodes, *fast, *slow, *mig;
	bool measured = false;
	char name[256];
	int rc;

	memset(m, 0, sizeof(*m));
	rc = tl_yaml_load(&y, origin, json, err);
	if (rc)
		goto out;
	root = tl_yaml_root(&y);
	rec = root && root->type == YAML_MAPPING_NODE ? tl_yaml_get(&y, root, "recommendation", NULL) : NULL;
	nodes = root && root->type == YAML_MAPPING_NODE ? tl_yaml_get(&y, root, "nodes", NULL) : NULL;
	if (!rec || rec->type != YAML_MAPPING_NODE || !nodes || nodes->type != YAML_SEQUENCE_NODE) {
		rc = tl_yaml_error(&y, root, "not a tierlab probe profile (no nodes and recommendation)");
		goto out;
	}
	fast = tl_yaml_get(&y, rec, "fast", NULL);
	slow = tl_yaml_get(&y, rec, "slow", NULL);
	if (!fast || tl_yaml_is_null(fast) || !tl_yaml_text(fast) || !slow || tl_yaml_is_null(slow) ||
	    !tl_yaml_text(slow)) {
		rc = tl_yaml_error(&y, rec, "the profile recommends no fast and slow tiers (one memory tier?)");
		goto out;
	}
	rc = probe_tier(&y, nodes, "fast", tl_yaml_text(fast), &m->fast) ?:
	     probe_tier(&y, nodes, "slow", tl_yaml_text(slow), &m->slow);
	if (rc)
		goto out;
	snprintf(name, sizeof(name), "probe profile %s", origin);
	m->name = strdup(name);
	m->overlap = 1;
	/* the probe's measured move throughput (migration.move_gbs, per 2 MiB move) where it has one */
	m->migration_gbs = TL_MODEL_MIGRATION_GBS;
	m->migration_cost_us = TL_MODEL_MIGRATION_COST_US;
	if ((mig = tl_yaml_get(&y, root, "migration", NULL)) && mig->type == YAML_MAPPING_NODE) {
		yaml_node_t *g = tl_yaml_get(&y, mig, "move_gbs", NULL), *c = tl_yaml_get(&y, mig, "move_cost_us", NULL);

		if (g && !tl_yaml_is_null(g) && tl_yaml_text(g) && strtod(tl_yaml_text(g), NULL) > 0) {
			m->migration_gbs = strtod(tl_yaml_text(g), NULL);
			measured = true;
		}
		if (c && !tl_yaml_is_null(c) && tl_yaml_text(c) && strtod(tl_yaml_text(c), NULL) >= 0)
			m->migration_cost_us = strtod(tl_yaml_text(c), NULL);
	}
	snprintf(name, sizeof(name), "tierlab probe (%s)", origin);
	m->fast.source = strdup(name);
	m->slow.source = strdup(name);
	m->migration_source = strdup(measured ? name : "assumed");
	if (!m->name || !m->fast.source || !m->slow.source || !m->migration_source)
		rc = -ENOMEM;
out:
	tl_yaml_release(&y);
	if (rc)
		tl_tier_model_release(m);
	return rc;
}

void tl_tier_model_release(struct tl_tier_model *m)
{
	free(m->name);
	free(m->description);
	free(m->fast.name);
	free(m->slow.name);
	free(m->workload_source);
	free(m->fast.source);
	free(m->slow.source);
	free(m->migration_source);
	memset(m, 0, sizeof(*m));
}
