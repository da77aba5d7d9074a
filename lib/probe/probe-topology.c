/*
 * What the kernel says about the nodes: CPUs, memory and distances through
 * libnuma; memory tiers (/sys/devices/virtual/memory_tiering), HMAT access
 * attributes (nodeN/access0/initiators), THP and hugetlb state through
 * sysfs. The sysfs root is a field of the model so tests can point it at a
 * tree of their own.
 */
#include "probe/probe.h"

#include <dirent.h>
#include <errno.h>
#include <numa.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"

/* The first line of a sysfs file without its newline, malloc'd; NULL when unreadable. */
static char *read_line(const char *path)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t len;

	if (!f)
		return NULL;
	if (!fgets(buf, sizeof(buf), f)) {
		/* An existing empty file (a tier with no nodes) reads as "". */
		buf[0] = '\0';
	}
	fclose(f);
	len = strcspn(buf, "\n");
	buf[len] = '\0';
	return strdup(buf);
}

static int read_ulong(const char *path, unsigned long *out)
{
	char *s = read_line(path), *end;
	int rc = -ENOENT;

	if (s) {
		errno = 0;
		*out = strtoul(s, &end, 10);
		rc = (errno || end == s) ? -EINVAL : 0;
	}
	free(s);
	return rc;
}

/* "always [madvise] never" -> "madvise". */
static char *selected(const char *path)
{
	char *s = read_line(path), *l, *r, *out = NULL;

	if (!s)
		return NULL;
	l = strchr(s, '[');
	r = l ? strchr(l, ']') : NULL;
	if (l && r)
		out = strndup(l + 1, (size_t)(r - l - 1));
	else
		out = strdup(s);
	free(s);
	return out;
}

/* Writes the set bits of bm as a cpulist ("0-3,8") into a malloc'd string. */
static char *ranges(const struct bitmask *bm, int *count)
{
	size_t cap = 16, len = 0;
	char *s = malloc(cap);
	unsigned n = bm->size;

	if (!s)
		return NULL;
	s[0] = '\0';
	*count = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned j = i;
		char part[48];
		int w;

		if (!numa_bitmask_isbitset(bm, i))
			continue;
		while (j + 1 < n && numa_bitmask_isbitset(bm, j + 1))
			j++;
		*count += (int)(j - i + 1);
		w = j > i ? snprintf(part, sizeof(part), "%s%u-%u", len ? "," : "", i, j)
			  : snprintf(part, sizeof(part), "%s%u", len ? "," : "", i);
		if (len + (size_t)w + 1 > cap) {
			char *t;

			cap = (len + (size_t)w + 1) * 2;
			t = realloc(s, cap);
			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
		}
		memcpy(s + len, part, (size_t)w + 1);
		len += (size_t)w;
		i = j;
	}
	return s;
}

static int add_nodes(struct tl_probe *p)
{
	int max = numa_max_node();
	struct bitmask *cpus = numa_allocate_cpumask();
	int rc = 0;

	if (!cpus)
		return -ENOMEM;
	p->nodes = calloc((size_t)max + 1, sizeof(*p->nodes));
	if (!p->nodes) {
		rc = -ENOMEM;
		goto out;
	}
	for (int n = 0; n <= max; n++) {
		struct tl_probe_node *node = &p->nodes[p->nnodes];
		long long freeb = 0, total;
		int have_cpus;

		if (!numa_bitmask_isbitset(numa_nodes_ptr, (unsigned)n))
			continue;
		total = numa_node_size64(n, &freeb);
		numa_bitmask_clearall(cpus);
		have_cpus = numa_node_to_cpus(n, cpus) == 0;
		node->id = n;
		node->tier = -1;
		node->mem_total = total > 0 ? (uint64_t)total : 0;
		node->mem_free = total > 0 && freeb > 0 ? (uint64_t)freeb : 0;
		node->cpus = have_cpus ? ranges(cpus, &node->ncpus) : strdup("");
		if (!node->cpus) {
			rc = -ENOMEM;
			goto out;
		}
		p->nnodes++;
	}
	p->distance = calloc(p->nnodes ? p->nnodes * p->nnodes : 1, sizeof(int));
	if (!p->distance) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t a = 0; a < p->nnodes; a++)
		for (size_t b = 0; b < p->nnodes; b++)
			p->distance[a * p->nnodes + b] = numa_distance(p->nodes[a].id, p->nodes[b].id);
out:
	numa_free_cpumask(cpus);
	return rc;
}

static int tier_cmp(const void *a, const void *b)
{
	return ((const struct tl_probe_tier *)a)->id - ((const struct tl_probe_tier *)b)->id;
}

static int add_tiers(struct tl_probe *p)
{
	char dir[512], path[1024];
	struct dirent *e;
	DIR *d;
	int rc = 0;

	snprintf(dir, sizeof(dir), "%s/devices/virtual/memory_tiering", p->sysfs);
	d = opendir(dir);
	if (!d)
		return 0;	/* a kernel before memory tiers: nothing to say */
	while ((e = readdir(d))) {
		struct tl_probe_tier *t;
		char *nodes, *end;
		long id;

		if (strncmp(e->d_name, "memory_tier", 11))
			continue;
		id = strtol(e->d_name + 11, &end, 10);
		if (end == e->d_name + 11 || *end)
			continue;
		snprintf(path, sizeof(path), "%s/%s/nodelist", dir, e->d_name);
		nodes = read_line(path);
		if (!nodes)
			continue;
		t = realloc(p->tiers, (p->ntiers + 1) * sizeof(*t));
		if (!t) {
			free(nodes);
			rc = -ENOMEM;
			break;
		}
		p->tiers = t;
		p->tiers[p->ntiers].id = (int)id;
		p->tiers[p->ntiers].nodes = nodes;
		p->ntiers++;
	}
	closedir(d);
	if (rc)
		return rc;
	qsort(p->tiers, p->ntiers, sizeof(*p->tiers), tier_cmp);
	for (size_t i = 0; i < p->ntiers; i++) {
		struct bitmask *bm = *p->tiers[i].nodes ? numa_parse_nodestring_all(p->tiers[i].nodes) : NULL;

		if (!bm)
			continue;
		for (size_t n = 0; n < p->nnodes; n++)
			if (numa_bitmask_isbitset(bm, (unsigned)p->nodes[n].id))
				p->nodes[n].tier = p->tiers[i].id;
		numa_bitmask_free(bm);
	}
	return 0;
}

static int add_hmat(struct tl_probe *p, struct tl_probe_node *node)
{
	static const char *const files[] = { "read_latency", "write_latency", "read_bandwidth",
					     "write_bandwidth" };
	unsigned *fields[] = { &node->hmat.read_latency_ns, &node->hmat.write_latency_ns,
			       &node->hmat.read_bandwidth_mbs, &node->hmat.write_bandwidth_mbs };
	char dir[512], path[1024], list[256] = "";
	size_t len = 0;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/devices/system/node/node%d/access0/initiators", p->sysfs, node->id);
	for (size_t i = 0; i < 4; i++) {
		unsigned long v;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (!read_ulong(path, &v)) {
			*fields[i] = (unsigned)v;
			node->hmat.present = true;
		}
	}
	if (!node->hmat.present)
		return 0;
	d = opendir(dir);
	if (d) {
		int ids[64], n = 0;

		while ((e = readdir(d)) && n < 64) {
			char *end;
			long id;

			if (strncmp(e->d_name, "node", 4))
				continue;
			id = strtol(e->d_name + 4, &end, 10);
			if (end != e->d_name + 4 && !*end)
				ids[n++] = (int)id;
		}
		closedir(d);
		/* readdir order is arbitrary: sort so output is stable */
		for (int i = 1; i < n; i++)
			for (int j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
				int t = ids[j];

				ids[j] = ids[j - 1];
				ids[j - 1] = t;
			}
		for (int i = 0; i < n && len + 16 < sizeof(list); i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d", i ? "," : "", ids[i]);
	}
	node->hmat.initiators = strdup(list);
	return node->hmat.initiators ? 0 : -ENOMEM;
}

static int add_memory_state(struct tl_probe *p)
{
	char dir[512], path[1024];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/enabled", p->sysfs);
	p->thp_enabled = selected(path);
	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/defrag", p->sysfs);
	p->thp_defrag = selected(path);

	snprintf(dir, sizeof(dir), "%s/kernel/mm/hugepages", p->sysfs);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct tl_probe_hugetlb *h;
		unsigned long kb, nr = 0, fr = 0;
		char *end;

		if (strncmp(e->d_name, "hugepages-", 10))
			continue;
		kb = strtoul(e->d_name + 10, &end, 10);
		if (strcmp(end, "kB"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/nr_hugepages", dir, e->d_name);
		read_ulong(path, &nr);
		snprintf(path, sizeof(path), "%s/%s/free_hugepages", dir, e->d_name);
		read_ulong(path, &fr);
		h = realloc(p->hugetlb, (p->nhugetlb + 1) * sizeof(*h));
		if (!h) {
			closedir(d);
			return -ENOMEM;
		}
		p->hugetlb = h;
		h[p->nhugetlb].page_size = (uint64_t)kb << 10;
		h[p->nhugetlb].nr = (long)nr;
		h[p->nhugetlb].free = (long)fr;
		p->nhugetlb++;
	}
	closedir(d);
	/* smallest page size first, for a stable order */
	for (size_t i = 1; i < p->nhugetlb; i++)
		for (size_t j = i; j > 0 && p->hugetlb[j - 1].page_size > p->hugetlb[j].page_size; j--) {
			struct tl_probe_hugetlb t = p->hugetlb[j];

			p->hugetlb[j] = p->hugetlb[j - 1];
			p->hugetlb[j - 1] = t;
		}
	return 0;
}

int tl_probe_topology(struct tl_probe *p)
{
	int rc;

	if (numa_available() < 0)
		return error("this kernel has no NUMA support (numa_available failed)"), -ENOSYS;
	rc = add_nodes(p);
	if (!rc)
		rc = add_tiers(p);
	for (size_t i = 0; !rc && i < p->nnodes; i++)
		rc = add_hmat(p, &p->nodes[i]);
	if (!rc)
		rc = add_memory_state(p);
	if (rc == -ENOMEM)
		error("out of memory while reading the topology");
	return rc;
}
