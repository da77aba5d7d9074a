/*
 * tierlab probe's library: sysfs reading against a fake tree (memory tiers,
 * HMAT attributes and initiators, THP, hugetlb), the recommendation on
 * hand-made models (latency and bandwidth disagreeing as on Xeon Max, HMAT
 * and distance fallbacks, the slow tier by capacity), the measurement on
 * node 0 (placement checked, a chase slower than a cache hit), the JSON
 * printer's escaping and nulls, and machine profiles in a scratch store.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "probe/probe.h"
#include "store/query.h"
#include "store/store.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512], dir[600];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(dir), 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *rel)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", root, rel);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	(void)state;
	strcpy(root, "/tmp/tierlab-probe.XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static void test_sysfs_tree(void **state)
{
	struct tl_probe p;

	(void)state;
	put("devices/virtual/memory_tiering/memory_tier4/nodelist", "0\n");
	/* a tier naming a node this machine does not have: listed, matched to nothing */
	put("devices/virtual/memory_tiering/memory_tier22/nodelist", "7\n");
	put("devices/virtual/memory_tiering/memory_tier1/nodelist", "5\n");
	put("devices/virtual/memory_tiering/not_a_tier/nodelist", "0\n");
	put("devices/system/node/node0/access0/initiators/read_latency", "123\n");
	put("devices/system/node/node0/access0/initiators/write_latency", "130\n");
	put("devices/system/node/node0/access0/initiators/read_bandwidth", "194560\n");
	put("devices/system/node/node0/access0/initiators/write_bandwidth", "97280\n");
	mkdirs("devices/system/node/node0/access0/initiators/node3");
	mkdirs("devices/system/node/node0/access0/initiators/node0");
	put("kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n");
	put("kernel/mm/transparent_hugepage/defrag", "[defer] madvise never\n");
	put("kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "2\n");
	put("kernel/mm/hugepages/hugepages-1048576kB/free_hugepages", "1\n");
	put("kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "64\n");
	put("kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "60\n");

	tl_probe_init(&p);
	p.sysfs = root;
	assert_int_equal(tl_probe_topology(&p), 0);
	assert_true(p.nnodes >= 1);
	assert_int_equal(p.nodes[0].id, 0);
	assert_true(p.nodes[0].ncpus >= 1);
	assert_true(p.nodes[0].mem_total > 0);
	assert_int_equal(p.distance[0], 10);
	/* tiers sorted by id, the node in its tier */
	assert_int_equal(p.ntiers, 3);
	assert_int_equal(p.tiers[0].id, 1);
	assert_int_equal(p.tiers[1].id, 4);
	assert_int_equal(p.tiers[2].id, 22);
	assert_string_equal(p.tiers[2].nodes, "7");
	assert_int_equal(p.nodes[0].tier, 4);
	assert_true(p.nodes[0].hmat.present);
	assert_int_equal(p.nodes[0].hmat.read_latency_ns, 123);
	assert_int_equal(p.nodes[0].hmat.write_latency_ns, 130);
	assert_int_equal(p.nodes[0].hmat.read_bandwidth_mbs, 194560);
	assert_int_equal(p.nodes[0].hmat.write_bandwidth_mbs, 97280);
	assert_string_equal(p.nodes[0].hmat.initiators, "0,3");
	assert_string_equal(p.thp_enabled, "never");
	assert_string_equal(p.thp_defrag, "defer");
	assert_int_equal(p.nhugetlb, 2);
	assert_true(p.hugetlb[0].page_size == 2ull << 20);
	assert_int_equal(p.hugetlb[0].nr, 64);
	assert_int_equal(p.hugetlb[0].free, 60);
	assert_true(p.hugetlb[1].page_size == 1ull << 30);
	assert_int_equal(p.hugetlb[1].nr, 2);
	tl_probe_release(&p);
}

static void test_empty_sysfs(void **state)
{
	struct tl_probe p;

	(void)state;
	/* An old kernel: no tiers, no HMAT, no THP: unknowns, not errors. */
	tl_probe_init(&p);
	p.sysfs = root;
	assert_int_equal(tl_probe_topology(&p), 0);
	assert_int_equal(p.ntiers, 0);
	assert_int_equal(p.nodes[0].tier, -1);
	assert_false(p.nodes[0].hmat.present);
	assert_null(p.thp_enabled);
	assert_int_equal(p.nhugetlb, 0);
	tl_probe_release(&p);
}

/* A model of nnodes nodes, node 0 with CPUs, distances 10 local and `far` elsewhere. */
static void model(struct tl_probe *p, size_t nnodes, int far)
{
	tl_probe_init(p);
	p->nnodes = nnodes;
	p->nodes = calloc(nnodes, sizeof(*p->nodes));
	p->distance = calloc(nnodes * nnodes, sizeof(int));
	assert_non_null(p->nodes);
	for (size_t i = 0; i < nnodes; i++) {
		p->nodes[i].id = (int)i;
		p->nodes[i].cpus = strdup(i ? "" : "0-1");
		p->nodes[i].ncpus = i ? 0 : 2;
		p->nodes[i].mem_total = 1ull << 30;
		p->nodes[i].tier = -1;
		for (size_t j = 0; j < nnodes; j++)
			p->distance[i * nnodes + j] = i == j ? 10 : far + (int)(i + j);
	}
}

static void test_recommend_measured_disagree(void **state)
{
	struct tl_probe p;

	(void)state;
	/* Xeon Max, one socket: DDR 100.6 ns 60.1 GB/s, HBM 123.7 ns 189.6 GB/s. */
	model(&p, 3, 20);
	p.nodes[0].measured = p.nodes[1].measured = true;
	p.nodes[0].latency_ns = 100.6, p.nodes[0].read_gbs = 60.1;
	p.nodes[1].latency_ns = 123.7, p.nodes[1].read_gbs = 189.6;
	/* node 2 skipped (no room): does not count */
	p.nodes[2].skip_reason = strdup("not enough free memory");
	p.nodes[0].mem_total = 64ull << 30;
	p.nodes[1].mem_total = 16ull << 30;
	p.nodes[2].mem_total = 8ull << 30;
	assert_int_equal(tl_probe_recommend(&p), 0);
	assert_string_equal(p.basis, "measured");
	assert_string_equal(p.latency_nodes, "0");
	assert_string_equal(p.bandwidth_nodes, "1");
	assert_string_equal(p.fast, "1");
	/* largest other node: DDR */
	assert_string_equal(p.slow, "0");
	assert_non_null(p.note);
	assert_non_null(strstr(p.note, "nodes 0"));
	assert_non_null(strstr(p.note, "nodes 1"));
	tl_probe_release(&p);
}

static void test_recommend_ties_and_tiers(void **state)
{
	struct tl_probe p;

	(void)state;
	/* Four SNC nodes: two HBM (tier 1) and two DDR (tier 4); figures within 5% tie. */
	model(&p, 4, 12);
	for (int i = 0; i < 4; i++) {
		p.nodes[i].measured = true;
		p.nodes[i].latency_ns = i < 2 ? 100 + i : 124 + i;
		p.nodes[i].read_gbs = i < 2 ? 60 - i : 189 - i;
		p.nodes[i].tier = i < 2 ? 4 : 1;
		p.nodes[i].mem_total = (i < 2 ? 32ull : 16ull) << 30;
	}
	assert_int_equal(tl_probe_recommend(&p), 0);
	assert_string_equal(p.latency_nodes, "0,1");
	assert_string_equal(p.bandwidth_nodes, "2,3");
	assert_string_equal(p.fast, "2,3");
	assert_string_equal(p.slow, "0,1");
	tl_probe_release(&p);
}

static void test_recommend_fallbacks(void **state)
{
	struct tl_probe p;

	(void)state;
	/* Nothing measured, HMAT present: CXL-like node 1 slower on both counts. */
	model(&p, 2, 20);
	p.nodes[0].hmat.present = p.nodes[1].hmat.present = true;
	p.nodes[0].hmat.read_latency_ns = 100, p.nodes[0].hmat.read_bandwidth_mbs = 61440;
	p.nodes[1].hmat.read_latency_ns = 250, p.nodes[1].hmat.read_bandwidth_mbs = 30720;
	p.nodes[1].mem_total = 4ull << 30;
	assert_int_equal(tl_probe_recommend(&p), 0);
	assert_string_equal(p.basis, "hmat");
	assert_string_equal(p.latency_nodes, "0");
	assert_string_equal(p.bandwidth_nodes, "0");
	assert_string_equal(p.slow, "1");
	assert_null(p.note);
	tl_probe_release(&p);

	/* Neither: the nearest node by distance from the CPU node. */
	model(&p, 3, 20);
	p.cpu_node = 0;
	assert_int_equal(tl_probe_recommend(&p), 0);
	assert_string_equal(p.basis, "distance");
	assert_string_equal(p.latency_nodes, "0");
	assert_string_equal(p.fast, "0");
	/* equal capacities: the first of the others */
	assert_string_equal(p.slow, "1");
	tl_probe_release(&p);

	/* One node: no slow set. */
	model(&p, 1, 20);
	assert_int_equal(tl_probe_recommend(&p), 0);
	assert_string_equal(p.fast, "0");
	assert_null(p.slow);
	tl_probe_release(&p);
}

static void test_measure_node0(void **state)
{
	double chase_big, chase_small, rd, cp;

	(void)state;
	/* 64 MiB: past this machine's 32 MiB L3; 256 KiB fits in L2. */
	assert_int_equal(tl_probe_latency(0, 64ull << 20, 1u << 20, &chase_big), 0);
	assert_int_equal(tl_probe_latency(0, 256u << 10, 1u << 20, &chase_small), 0);
	assert_true(chase_big > 0 && chase_big < 10000);
	assert_true(chase_small > 0);
	/* a dependent chase through DRAM is much slower than through a cache */
	assert_true(chase_big > 2 * chase_small);
	assert_int_equal(tl_probe_bandwidth(0, 32u << 20, 2, &rd, &cp), 0);
	assert_true(rd > 0.1 && rd < 1000);
	assert_true(cp > 0.1 && cp < 1000);
	/* a node that does not exist: mbind refuses */
	assert_true(tl_probe_latency(63, 1u << 20, 1000, &chase_big) < 0);
	assert_int_equal(tl_probe_latency(0, 64, 1000, &chase_big), -EINVAL);
}

static void test_measure_whole(void **state)
{
	struct tl_probe p;

	(void)state;
	tl_probe_init(&p);
	p.quick = true;
	p.size = 8u << 20;
	assert_int_equal(tl_probe_topology(&p), 0);
	assert_int_equal(tl_probe_measure(&p), 0);
	assert_true(p.nodes[0].measured);
	assert_null(p.nodes[0].skip_reason);
	tl_probe_release(&p);

	tl_probe_init(&p);
	p.cpu_node = 42;
	assert_int_equal(tl_probe_topology(&p), 0);
	assert_int_equal(tl_probe_measure(&p), -EINVAL);
	tl_probe_release(&p);
}

static char *json_of(const struct tl_probe *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(tl_probe_print_json(p, f), 0);
	fclose(f);
	return buf;
}

static void test_json(void **state)
{
	struct tl_probe p;
	char *j;

	(void)state;
	model(&p, 2, 20);
	p.nodes[0].measured = true;
	p.nodes[0].latency_ns = 95.25;
	p.nodes[0].read_gbs = 12.345;
	p.nodes[1].skip_reason = strdup("a \"quoted\"\\reason\n");
	p.nodes[1].tier = 22;
	assert_int_equal(tl_probe_recommend(&p), 0);
	j = json_of(&p);
	assert_non_null(strstr(j, "\"latency_ns\": 95.2,") ?: strstr(j, "\"latency_ns\": 95.3,"));
	assert_non_null(strstr(j, "\"read_gbs\": 12.35") ?: strstr(j, "\"read_gbs\": 12.34"));
	assert_non_null(strstr(j, "\"skipped\": \"a \\\"quoted\\\"\\\\reason\\n\""));
	assert_non_null(strstr(j, "\"distances\": [[10, 21], [21, 10]]"));
	assert_non_null(strstr(j, "\"tier\": null"));
	assert_non_null(strstr(j, "\"tier\": 22"));
	assert_non_null(strstr(j, "\"counters\": null"));
	assert_non_null(strstr(j, "\"fast\": \"0\""));
	free(j);
	tl_probe_release(&p);
}

static void test_counters(void **state)
{
	struct tl_probe p;

	(void)state;
	tl_probe_init(&p);
	assert_int_equal(tl_probe_counters(&p), 0);
	assert_true(p.events_probed);
	for (int i = 0; i < TL_PROBE_NEVENTS; i++) {
		assert_string_equal(p.events[i].name, tl_probe_event_names[i]);
		/* a reason exactly when unavailable */
		assert_true(p.events[i].ok == (p.events[i].reason == NULL));
	}
	/* software events work on any Linux with perf; task-clock is [4] */
	assert_true(p.events[4].ok);
	tl_probe_release(&p);
}

static void test_profiles(void **state)
{
	struct tl_store *st;
	struct tl_probe p;
	char path[128], *fast, *slow, *json;

	(void)state;
	snprintf(path, sizeof(path), "%s/t.db", root);
	assert_int_equal(tl_store_open(path, &st), 0);
	model(&p, 3, 20);
	p.nodes[1].measured = p.nodes[0].measured = p.nodes[2].measured = true;
	p.nodes[0].latency_ns = 100, p.nodes[0].read_gbs = 60;
	p.nodes[1].latency_ns = 120, p.nodes[1].read_gbs = 190;
	p.nodes[2].latency_ns = 250, p.nodes[2].read_gbs = 30;
	p.nodes[2].mem_total = 8ull << 30;
	assert_int_equal(tl_probe_recommend(&p), 0);
	assert_int_equal(tl_probe_profile_save(st, "xmax", &p), 0);

	assert_int_equal(tl_store_profile_nodes(st, "xmax", &fast, &slow), 0);
	assert_string_equal(fast, "1");
	assert_string_equal(slow, "2");
	free(fast);
	free(slow);
	assert_int_equal(tl_probe_profile_load(st, "xmax", &json), 0);
	assert_non_null(strstr(json, "\"bandwidth_bound\": \"1\""));
	free(json);

	/* saving a name again replaces it */
	p.nodes[2].mem_total = 1ull << 20;
	assert_int_equal(tl_probe_recommend(&p), 0);
	assert_int_equal(tl_probe_profile_save(st, "xmax", &p), 0);
	assert_int_equal(tl_store_profile_nodes(st, "xmax", &fast, &slow), 0);
	assert_string_equal(slow, "0");
	free(fast);
	free(slow);

	assert_int_equal(tl_store_profile_nodes(st, "nope", &fast, &slow), -ENOENT);
	assert_null(fast);
	assert_null(slow);
	tl_probe_release(&p);

	/* one node: slow is NULL */
	model(&p, 1, 20);
	assert_int_equal(tl_probe_recommend(&p), 0);
	assert_int_equal(tl_probe_profile_save(st, "laptop", &p), 0);
	assert_int_equal(tl_store_profile_nodes(st, "laptop", &fast, &slow), 0);
	assert_string_equal(fast, "0");
	assert_null(slow);
	free(fast);
	tl_probe_release(&p);
	tl_store_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sysfs_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_sysfs, setup, teardown),
		cmocka_unit_test(test_recommend_measured_disagree),
		cmocka_unit_test(test_recommend_ties_and_tiers),
		cmocka_unit_test(test_recommend_fallbacks),
		cmocka_unit_test(test_measure_node0),
		cmocka_unit_test(test_measure_whole),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_counters),
		cmocka_unit_test_setup_teardown(test_profiles, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
