/*
 * NUMA node sets in numactl syntax (see nodeset.h). libnuma does every
 * parse; this file only decides what its answer means for a spec.
 *
 * libnuma rejects "1" on a one-node machine exactly as it rejects "x", so
 * to tell "well-formed but names absent nodes" from garbage the text is
 * parsed a second time with every node number replaced by a node this
 * process may use: if libnuma accepts that, the syntax was fine.
 */
#include "util/nodeset.h"

#include <ctype.h>
#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"

/*
 * libnuma reports parse problems through numa_warn(), a weak hook. Callers
 * here turn a NULL mask into a message in tierlab's own words, so
 * libnuma's lines would only be noise on stderr (or in an error line that
 * must stay one line).
 */
void numa_warn(int num, char *fmt, ...)
{
	(void)num;
	(void)fmt;
}

/*
 * numa_error(), the other hook, is for failures, and after some of them
 * (out of memory allocating a mask) libnuma exits the process: say what
 * failed, in one line, or tierlab would end without a word.
 */
void numa_error(char *where)
{
	int saved = errno;

	error("libnuma: %s: %s", where, strerror(saved));
	errno = saved;
}

/* The numactl node-list alphabet: digits , - ! + and the word "all"; libnuma judges the rest. */
static int plausible(const char *text)
{
	const char *p = text;
	int any = 0;

	while (*p) {
		if (!strncmp(p, "all", 3)) {
			p += 3;
			any = 1;
			continue;
		}
		if (!strchr("0123456789,-!+", *p))
			return 0;
		/* libnuma reads "-1" as node -1, which no machine has: '-' only joins a range */
		if (*p == '-' && (p == text || !isdigit((unsigned char)p[-1])))
			return 0;
		if (isdigit((unsigned char)*p)) {
			/* a node number no kernel can have is not a node list */
			char *end;
			long n = strtol(p, &end, 10);

			if (n > numa_max_possible_node())
				return 0;
			/* numactl refuses "1-0"; libnuma alone would read it as naming node 1 */
			if (*end == '-' && isdigit((unsigned char)end[1]) && strtol(end + 1, NULL, 10) < n)
				return 0;
			p = end;
			any = 1;
			continue;
		}
		p++;
	}
	return any;
}

static int first_usable_node(void)
{
	for (int n = 0; n <= numa_max_node(); n++)
		if (numa_bitmask_isbitset(numa_all_nodes_ptr, n))
			return n;
	return 0;
}

/* text with every node number replaced by `node`; malloc'd. */
static char *renumber(const char *text, int node)
{
	char num[16];
	size_t nlen = (size_t)snprintf(num, sizeof(num), "%d", node);
	char *out = malloc(strlen(text) * nlen + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *p = text; *p;) {
		if (isdigit((unsigned char)*p)) {
			while (isdigit((unsigned char)*p))
				p++;
			memcpy(o, num, nlen);
			o += nlen;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

int tl_nodeset_check(const char *text)
{
	struct bitmask *bm;
	char *probe;

	if (!text || !plausible(text))
		return -EINVAL;
	bm = numa_parse_nodestring(text);
	if (bm) {
		/* "!all", or "!0" here: binding to no node at all fails with EINVAL at run time */
		unsigned weight = numa_bitmask_weight(bm);

		numa_bitmask_free(bm);
		return weight ? 0 : -ENOENT;
	}
	probe = renumber(text, first_usable_node());
	if (!probe)
		return -ENOMEM;
	bm = numa_parse_nodestring(probe);
	free(probe);
	if (!bm)
		return -EINVAL;
	numa_bitmask_free(bm);
	return 1;
}

struct bitmask *tl_nodeset_parse(const char *text)
{
	struct bitmask *bm;

	if (!text || !plausible(text))
		return NULL;
	bm = numa_parse_nodestring(text);
	if (bm && !numa_bitmask_weight(bm)) {
		numa_bitmask_free(bm);
		return NULL;
	}
	return bm;
}

struct bitmask *tl_nodeset_parse_cpus(const char *text)
{
	struct bitmask *bm = tl_nodeset_parse(text), *cpus;

	if (!bm)
		return NULL;
	cpus = numa_allocate_cpumask();
	if (!cpus)
		goto fail_bm;
	/* a memory-only node (flat-mode HBM, CXL) cannot run the workload */
	for (unsigned n = 0; n < bm->size; n++) {
		if (!numa_bitmask_isbitset(bm, n))
			continue;
		if (numa_node_to_cpus((int)n, cpus) || !numa_bitmask_weight(cpus))
			goto fail_cpus;
	}
	numa_free_cpumask(cpus);
	return bm;
fail_cpus:
	numa_free_cpumask(cpus);
fail_bm:
	numa_bitmask_free(bm);
	return NULL;
}

int tl_nodeset_present(char *buf, size_t len)
{
	int max = numa_max_node(), n = 0, w = 0;

	if (len)
		buf[0] = '\0';
	while (n <= max) {
		int start;

		if (!numa_bitmask_isbitset(numa_nodes_ptr, n)) {
			n++;
			continue;
		}
		start = n;
		while (n + 1 <= max && numa_bitmask_isbitset(numa_nodes_ptr, n + 1))
			n++;
		char part[32];

		if (start == n)
			snprintf(part, sizeof(part), "%s%d", w ? "," : "", n);
		else
			snprintf(part, sizeof(part), "%s%d-%d", w ? "," : "", start, n);
		if ((size_t)w < len)
			snprintf(buf + w, len - w, "%s", part);
		w += (int)strlen(part);
		n++;
	}
	return w;
}

long long tl_nodeset_mask(const struct bitmask *bm)
{
	unsigned long long mask = 0;

	if (!bm)
		return -1;
	for (unsigned long n = 0; n < bm->size; n++) {
		if (!numa_bitmask_isbitset(bm, (unsigned)n))
			continue;
		if (n >= 64)
			return -1;
		mask |= 1ULL << n;
	}
	return (long long)mask;
}
