/*
 * Prints a tiermem-PID.counters file as "key value" lines (header fields,
 * then every counter under the name the file itself carries), for the
 * shell tests. Exits 1 when the file is not a valid counters file.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tiermem/rt-stats.h"

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	struct rt_counters_header h;
	FILE *f;
	size_t n;
	const char *name;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: counters-dump FILE\n");
		return 2;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n < sizeof(h))
		goto bad;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, RT_COUNTERS_MAGIC, 8) || h.version != RT_COUNTERS_VERSION ||
	    h.header_size != sizeof(h) || h.header_size + h.nstats * 8 > n)
		goto bad;
	printf("version %u\npid %u\ncomplete %u\nsame_node %u\nchunk_size %llu\nbudget_bytes %llu\n"
	       "rate_hz %g\npolicy %.64s\nsampler %.32s\n", h.version, h.pid, h.complete, h.same_node,
	       (unsigned long long)h.chunk_size, (unsigned long long)h.budget_bytes, h.rate_hz, h.policy, h.sampler);
	name = buf + h.header_size + h.nstats * 8;
	for (uint32_t i = 0; i < h.nstats; i++) {
		uint64_t v;

		if (name >= buf + n)
			goto bad;
		memcpy(&v, buf + h.header_size + i * 8, 8);
		printf("%s %llu\n", name, (unsigned long long)v);
		name += strlen(name) + 1;
	}
	return 0;
bad:
	fprintf(stderr, "counters-dump: %s: not a counters file\n", argv[1]);
	return 1;
}
