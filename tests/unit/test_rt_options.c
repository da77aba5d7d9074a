/*
 * The runtime's variables (lib/tiermem/options.c): defaults, every
 * variable and its units, bad values with their one-line reasons, the
 * SHAMBLES_* aliases and their precedence, the any-two-of-three budget
 * resolution and the dynamic percentage. Table-driven where it can be.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tiermem/options.h"
#include "policies/tierlab-policy.h"

#define MiB (1ULL << 20)

static struct tlrt_options o;
static char why[1024];

/* Parses a NULL-terminated list of "NAME=value" with a policy and nodes added unless given. */
static int parse_env(const char *first, ...)
{
	char *env[64];
	int n = 0, have_policy = 0, have_fast = 0, have_slow = 0;
	va_list ap;

	va_start(ap, first);
	for (const char *e = first; e; e = va_arg(ap, const char *)) {
		have_policy |= !strncmp(e, "TIERLAB_POLICY=", 15) || !strncmp(e, "SHAMBLES_PLUGIN=", 16) ||
			       !strcmp(e, "NOPOLICY");
		have_fast |= !strncmp(e, "TIERLAB_FAST_NODES=", 19) || !strncmp(e, "SHAMBLES_FAST_NODEMASK=", 23) ||
			     !strcmp(e, "NONODES");
		have_slow |= !strncmp(e, "TIERLAB_SLOW_NODES=", 19) || !strncmp(e, "SHAMBLES_SLOW_NODEMASK=", 23) ||
			     !strcmp(e, "NONODES");
		if (strcmp(e, "NOPOLICY") && strcmp(e, "NONODES"))
			env[n++] = (char *)e;
	}
	va_end(ap);
	if (!have_policy)
		env[n++] = "TIERLAB_POLICY=lru";
	if (!have_fast)
		env[n++] = "TIERLAB_FAST_NODES=0";
	if (!have_slow)
		env[n++] = "TIERLAB_SLOW_NODES=0";
	env[n] = NULL;
	return tlrt_options_parse(&o, env, why, sizeof(why));
}

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(parse_env(NULL), 0);
	assert_string_equal(o.policy, "lru");
	assert_int_equal(o.threshold, 1 * MiB);
	assert_int_equal(o.chunk_size, 2 * MiB);
	assert_int_equal(o.budget_chunks, TLP_UNLIMITED);
	assert_true(o.dynamic_fraction == 0);
	assert_true(o.rate_hz == 10);
	assert_int_equal(o.window, 16);
	assert_int_equal(o.nfractions, 0);
	assert_int_equal(o.sampler, TLRT_SAMPLER_FAULT);
	assert_int_equal(o.log, TLRT_LOG_COUNTERS);
	assert_string_equal(o.out, "");
	assert_int_equal(o.strict, 0);
	assert_int_equal(o.thp, -1);
	assert_int_equal(o.verbose, 0);
	assert_true(o.cache_fraction == 1 && o.cache_bytes == 0);
	assert_int_equal(o.have_policy_args, 0);
	assert_string_equal(o.fast.text, "0");
	assert_int_equal(o.fast.is_mask, 0);
}

static void test_no_policy_stands_aside_silently(void **state)
{
	char *empty[] = { NULL };

	(void)state;
	assert_int_equal(tlrt_options_parse(&o, empty, why, sizeof(why)), 1);
	assert_string_equal(why, "");
	assert_int_equal(parse_env("NOPOLICY", "TIERLAB_RATE=1kHz", NULL), 1);
	/* "none", the policy axis's default, is no policy either */
	assert_int_equal(parse_env("TIERLAB_POLICY=none", NULL), 1);
	/* a bad value still counts even without a policy: the user meant something */
	assert_int_equal(parse_env("NOPOLICY", "TIERLAB_RATE=fast", NULL), -EINVAL);
}

static void test_every_variable(void **state)
{
	(void)state;
	assert_int_equal(parse_env("TIERLAB_POLICY=/opt/p/policy-x.so", "TIERLAB_FAST_NODES=1,3",
				   "TIERLAB_SLOW_NODES=0-2", "TIERLAB_THRESHOLD=32M", "TIERLAB_CHUNK_SIZE=4MiB",
				   "TIERLAB_RATE=1kHz", "TIERLAB_WINDOW=128", "TIERLAB_FRACTIONS=1,0.5, 0 ,.25",
				   "TIERLAB_SAMPLER=uffd-wp", "TIERLAB_LOG=log", "TIERLAB_OUT=/tmp/x",
				   "TIERLAB_STRICT=1", "TIERLAB_POLICY_ARGS=a=1 b=2", "TIERLAB_THP=0",
				   "TIERLAB_VERBOSE=yes", "TIERLAB_CACHE=256MiB", NULL), 0);
	assert_string_equal(o.policy, "/opt/p/policy-x.so");
	assert_string_equal(o.fast.text, "1,3");
	assert_string_equal(o.slow.text, "0-2");
	assert_string_equal(o.fast.var, "TIERLAB_FAST_NODES");
	assert_int_equal(o.threshold, 32 * MiB);
	assert_int_equal(o.chunk_size, 4 * MiB);
	assert_true(o.rate_hz == 1000);
	assert_int_equal(o.window, 128);
	assert_int_equal(o.nfractions, 4);
	assert_true(o.fractions[0] == 1 && o.fractions[1] == 0.5 && o.fractions[2] == 0 && o.fractions[3] == 0.25);
	assert_int_equal(o.sampler, TLRT_SAMPLER_UFFD_WP);
	assert_int_equal(o.log, TLRT_LOG_LOG);
	assert_string_equal(o.out, "/tmp/x");
	assert_int_equal(o.strict, 1);
	assert_string_equal(o.policy_args, "a=1 b=2");
	assert_int_equal(o.have_policy_args, 1);
	assert_int_equal(o.thp, 0);
	assert_int_equal(o.verbose, 1);
	assert_true(o.cache_bytes == 256 * MiB && o.cache_fraction == 0);

	assert_int_equal(parse_env("TIERLAB_CACHE=0", NULL), 0);
	assert_true(o.cache_bytes == 0 && o.cache_fraction == 0);
	assert_int_equal(parse_env("TIERLAB_CACHE=0%", NULL), 0);
	assert_true(o.cache_bytes == 0 && o.cache_fraction == 0);
	assert_int_equal(parse_env("TIERLAB_CACHE=150%", NULL), 0);
	assert_true(o.cache_bytes == 0 && o.cache_fraction == 1.5);
	/* no sampling is sampler none: a rate of 0 is out of the axis's bounds, as on the command line */
	assert_int_equal(parse_env("TIERLAB_SAMPLER=none", "TIERLAB_LOG=none", NULL), 0);
	assert_int_equal(o.sampler, TLRT_SAMPLER_NONE);
	assert_int_equal(o.log, TLRT_LOG_NONE);
	assert_int_equal(parse_env("TIERLAB_SAMPLER=none", "TIERLAB_RATE=0", NULL), -EINVAL);
	assert_int_equal(parse_env("TIERLAB_THRESHOLD=1.5K", "TIERLAB_RATE=100Hz", NULL), 0);
	assert_int_equal(o.threshold, 1536);
	assert_true(o.rate_hz == 100);
	/* SHAMBLES's variables hold byte counts: there, and only there, a bare number is bytes */
	assert_int_equal(parse_env("SHAMBLES_FAST_MEM_SIZE=1073741824", "SHAMBLES_CHUNK_SIZE=4194304", NULL), 0);
	assert_int_equal(o.chunk_size, 4 * MiB);
	assert_int_equal(o.budget_chunks, 256);
}

struct bad_case {
	const char *env, *line;
};

static void test_bad_values(void **state)
{
	static const struct bad_case cases[] = {
		{ "TIERLAB_RATE=fast", "TIERLAB_RATE='fast': not a rate (e.g. 10Hz, 1kHz)" },
		{ "TIERLAB_RATE=-1Hz", "TIERLAB_RATE='-1Hz': not a rate (e.g. 10Hz, 1kHz)" },
		{ "TIERLAB_RATE=0", "TIERLAB_RATE='0': out of range (0.001Hz to 1MHz; for no samples, sampler none)" },
		{ "TIERLAB_RATE=2MHz", "TIERLAB_RATE='2MHz': out of range (0.001Hz to 1MHz; for no samples, sampler none)" },
		{ "TIERLAB_CHUNKS=1000000001", "TIERLAB_CHUNKS='1000000001': not a positive chunk count" },
		{ "TIERLAB_THRESHOLD=big", "TIERLAB_THRESHOLD='big': not a positive size (e.g. 1MiB, 32M)" },
		{ "TIERLAB_THRESHOLD=0", "TIERLAB_THRESHOLD='0': not a positive size (e.g. 1MiB, 32M)" },
		{ "TIERLAB_WINDOW=0", "TIERLAB_WINDOW='0': not a number of samples from 1 to 1000000 (24 bytes each in the program, 24 MB at most)" },
		/* issue 27: 10^9, inside the old bound, took 24 GB and never finished in the program */
		{ "TIERLAB_WINDOW=1000000000", "TIERLAB_WINDOW='1000000000': not a number of samples from 1 to 1000000 (24 bytes each in the program, 24 MB at most)" },
		{ "TIERLAB_WINDOW=1000001", "TIERLAB_WINDOW='1000001': not a number of samples from 1 to 1000000 (24 bytes each in the program, 24 MB at most)" },
		{ "TIERLAB_WINDOW=1.5", "TIERLAB_WINDOW='1.5': not a number of samples from 1 to 1000000 (24 bytes each in the program, 24 MB at most)" },
		{ "TIERLAB_FRACTIONS=1,2", "TIERLAB_FRACTIONS='1,2': not a comma list of fractions in [0, 1] (e.g. 1,0.5,0)" },
		{ "TIERLAB_FRACTIONS=1,,0", "TIERLAB_FRACTIONS='1,,0': not a comma list of fractions in [0, 1] (e.g. 1,0.5,0)" },
		{ "TIERLAB_LOG=all", "TIERLAB_LOG='all': not a log mode (none, counters, log)" },
		{ "TIERLAB_STRICT=maybe", "TIERLAB_STRICT='maybe': not a boolean (0 or 1)" },
		{ "TIERLAB_THP=2", "TIERLAB_THP='2': not a boolean (0 or 1)" },
		{ "TIERLAB_CACHE=lots", "TIERLAB_CACHE='lots': not a size or percentage (e.g. 256MiB, 50%, 0)" },
		{ "TIERLAB_CACHE=-5%", "TIERLAB_CACHE='-5%': not a size or percentage (e.g. 256MiB, 50%, 0)" },
		{ "TIERLAB_FAST_MEM=lots", "TIERLAB_FAST_MEM='lots': not a size or percentage (e.g. 4GiB, 40%)" },
		{ "TIERLAB_FAST_MEM=140%", "TIERLAB_FAST_MEM='140%': not a size or percentage (e.g. 4GiB, 40%)" },
		{ "TIERLAB_CHUNKS=0", "TIERLAB_CHUNKS='0': not a positive chunk count" },
		{ "TIERLAB_CHUNK_SIZE=0", "TIERLAB_CHUNK_SIZE='0': not a positive size (e.g. 2MiB)" },
		{ "TIERLAB_FAST_NODES=", "TIERLAB_FAST_NODES='': not a node list (e.g. 1, 0-3, 1,3)" },
		{ "SHAMBLES_FAST_NODEMASK=two", "SHAMBLES_FAST_NODEMASK='two': not a node bitmask (e.g. 0x2)" },
		{ "SHAMBLES_SLOW_NODEMASK=0", "SHAMBLES_SLOW_NODEMASK='0': not a node bitmask (e.g. 0x2)" },
		{ "SHAMBLES_SIZE_THRESHOLD=x", "SHAMBLES_SIZE_THRESHOLD='x': not a positive size (e.g. 1MiB, 32M)" },
		{ "SHAMBLES_WINDOW_SIZE=-3", "SHAMBLES_WINDOW_SIZE='-3': not a number of samples from 1 to 1000000 (24 bytes each in the program, 24 MB at most)" },
		/* a bare number for a size, budget or rate: 40 what? (issue 26: budget 40 was 40 bytes) */
		{ "TIERLAB_FAST_MEM=40", "TIERLAB_FAST_MEM='40': no unit (write 40% of the footprint, or a size: "
					 "40MiB, 40GiB, 40B for bytes)" },
		{ "TIERLAB_RATE=100", "TIERLAB_RATE='100': no unit (write 100Hz or 100kHz)" },
		{ "TIERLAB_THRESHOLD=4096", "TIERLAB_THRESHOLD='4096': no unit (write 4096B for bytes, or 4096KiB, 4096MiB)" },
		{ "TIERLAB_CHUNK_SIZE=2", "TIERLAB_CHUNK_SIZE='2': no unit (write 2B for bytes, or 2KiB, 2MiB)" },
		{ "TIERLAB_CACHE=256", "TIERLAB_CACHE='256': no unit (write 256B for bytes, or 256KiB, 256MiB)" },
		{ "TIERLAB_OUT=", "TIERLAB_OUT='': not a directory name" },
		{ "TIERLAB_POLICY=", "TIERLAB_POLICY='': not a policy name or path" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		errno = 1234;
		assert_int_equal(parse_env(cases[i].env, NULL), -EINVAL);
		assert_string_equal(why, cases[i].line);
		assert_null(strchr(why, '\n'));
		assert_int_equal(errno, 1234);
	}
	/* an unknown sampler is answered with the samplers of TL_SAMPLERS, in its order */
	{
		char want[256] = "TIERLAB_SAMPLER='pebs': not a sampler (";

		for (int i = 0; i < TLRT_SAMPLER__COUNT; i++)
			strcat(strcat(want, i ? ", " : ""), tlrt_sampler_names[i]);
		assert_int_equal(parse_env("TIERLAB_SAMPLER=pebs", NULL), -EINVAL);
		assert_string_equal(why, strcat(want, ")"));
	}
}

static void test_missing_nodes(void **state)
{
	(void)state;
	assert_int_equal(parse_env("NONODES", "TIERLAB_SLOW_NODES=0", NULL), -EINVAL);
	assert_string_equal(why, "TIERLAB_FAST_NODES is not set (e.g. TIERLAB_FAST_NODES=1)");
	assert_int_equal(parse_env("NONODES", "TIERLAB_FAST_NODES=1", NULL), -EINVAL);
	assert_string_equal(why, "TIERLAB_SLOW_NODES is not set (e.g. TIERLAB_SLOW_NODES=1)");
}

static void test_shambles_aliases(void **state)
{
	(void)state;
	assert_int_equal(parse_env("SHAMBLES_PLUGIN=/x/libwindow.so", "SHAMBLES_FAST_NODEMASK=2",
				   "SHAMBLES_SLOW_NODEMASK=0x1", "SHAMBLES_SIZE_THRESHOLD=33554432",
				   "SHAMBLES_CHUNK_SIZE=8M", "SHAMBLES_FAST_MEM_CHUNKS=5",
				   "SHAMBLES_ALLOC_FAST_FRACTIONS=1.0,0.0", "SHAMBLES_WINDOW_SIZE=128", NULL), 0);
	assert_string_equal(o.policy, "/x/libwindow.so");
	assert_true(o.fast.is_mask && o.fast.mask == 2);
	assert_true(o.slow.is_mask && o.slow.mask == 1);
	assert_string_equal(o.slow.var, "SHAMBLES_SLOW_NODEMASK");
	assert_int_equal(o.threshold, 32 * MiB);
	assert_int_equal(o.chunk_size, 8 * MiB);
	assert_int_equal(o.budget_chunks, 5);
	assert_int_equal(o.nfractions, 2);
	assert_int_equal(o.window, 128);

	assert_int_equal(parse_env("SHAMBLES_FAST_MEM_SIZE=1G", "SHAMBLES_FAST_MEM_CHUNKS=4", NULL), 0);
	assert_int_equal(o.chunk_size, 256 * MiB);
	assert_int_equal(o.budget_chunks, 4);
}

static void test_precedence(void **state)
{
	const char *var;
	char *env[] = { "SHAMBLES_SIZE_THRESHOLD=2M", "TIERLAB_THRESHOLD=4M", NULL };

	(void)state;
	assert_int_equal(parse_env("SHAMBLES_SIZE_THRESHOLD=2M", "TIERLAB_THRESHOLD=4M", NULL), 0);
	assert_int_equal(o.threshold, 4 * MiB);
	assert_int_equal(parse_env("TIERLAB_THRESHOLD=4M", "SHAMBLES_SIZE_THRESHOLD=2M", NULL), 0);
	assert_int_equal(o.threshold, 4 * MiB);
	assert_int_equal(parse_env("TIERLAB_POLICY=lru", "SHAMBLES_PLUGIN=/x.so", NULL), 0);
	assert_string_equal(o.policy, "lru");
	/* the TIERLAB_ node list wins over the SHAMBLES_ mask */
	assert_int_equal(parse_env("TIERLAB_FAST_NODES=1", "SHAMBLES_FAST_NODEMASK=4", NULL), 0);
	assert_false(o.fast.is_mask);
	assert_string_equal(o.fast.text, "1");
	/* a bad alias hidden by a good TIERLAB_ value is never read */
	assert_int_equal(parse_env("TIERLAB_WINDOW=8", "SHAMBLES_WINDOW_SIZE=bad", NULL), 0);
	assert_int_equal(o.window, 8);
	assert_string_equal(tlrt_options_get(env, TLRT_OPT_THRESHOLD, &var), "4M");
	assert_string_equal(var, "TIERLAB_THRESHOLD");
	/* a name that merely starts like another is not it */
	{
		char *env2[] = { "TIERLAB_THRESHOLDX=9", NULL };

		assert_null(tlrt_options_get(env2, TLRT_OPT_THRESHOLD, &var));
	}
}

struct budget_case {
	const char *mem, *chunks, *size, *footprint;
	int ret;
	uint64_t chunk_size;
	uint32_t budget_chunks;
	double dynamic;
};

static void test_any_two_of_three(void **state)
{
	static const struct budget_case cases[] = {
		/* budget and chunks -> chunk size */
		{ "64MiB", "8", NULL, NULL, 0, 8 * MiB, 8, 0 },
		/* budget and chunk size -> chunks */
		{ "64MiB", NULL, "4MiB", NULL, 0, 4 * MiB, 16, 0 },
		/* chunks and chunk size -> budget */
		{ NULL, "10", "1MiB", NULL, 0, 1 * MiB, 10, 0 },
		/* all three, consistent */
		{ "64MiB", "8", "8MiB", NULL, 0, 8 * MiB, 8, 0 },
		/* all three, not */
		{ "64MiB", "8", "4MiB", NULL, -EINVAL, 0, 0, 0 },
		/* budget alone: default 2 MiB chunks */
		{ "10MiB", NULL, NULL, NULL, 0, 2 * MiB, 5, 0 },
		/* chunks alone: default 2 MiB chunks */
		{ NULL, "3", NULL, NULL, 0, 2 * MiB, 3, 0 },
		/* chunk size alone: no budget */
		{ NULL, NULL, "1MiB", NULL, 0, 1 * MiB, TLP_UNLIMITED, 0 },
		/* a chunk size that is not whole pages is rounded up */
		{ NULL, NULL, "5000B", NULL, 0, 8192, TLP_UNLIMITED, 0 },
		/* budget / chunks not a page multiple: rounded up */
		{ "1MiB", "3", NULL, NULL, 0, 352256, 3, 0 },
		/* percentage with a footprint is a fixed budget */
		{ "40%", "4", NULL, "100MiB", 0, 10 * MiB, 4, 0 },
		{ "50%", NULL, "2MiB", "64MiB", 0, 2 * MiB, 16, 0 },
		/* percentage without a footprint: dynamic, needs the chunk size not a count */
		{ "40%", NULL, NULL, NULL, 0, 2 * MiB, TLP_UNLIMITED, 0.4 },
		{ "25%", NULL, "4MiB", NULL, 0, 4 * MiB, TLP_UNLIMITED, 0.25 },
		{ "40%", "4", NULL, NULL, -EINVAL, 0, 0, 0 },
		/* a budget smaller than one chunk leaves no fast room */
		{ "1MiB", NULL, "2MiB", NULL, 0, 2 * MiB, 0, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct budget_case *c = &cases[i];
		char m[64], n[64], s[64], f[64];
		const char *env[5];
		int k = 0, ret;

		if (c->mem)
			snprintf(m, sizeof(m), "TIERLAB_FAST_MEM=%s", c->mem), env[k++] = m;
		if (c->chunks)
			snprintf(n, sizeof(n), "TIERLAB_CHUNKS=%s", c->chunks), env[k++] = n;
		if (c->size)
			snprintf(s, sizeof(s), "TIERLAB_CHUNK_SIZE=%s", c->size), env[k++] = s;
		if (c->footprint)
			snprintf(f, sizeof(f), "TIERLAB_FOOTPRINT=%s", c->footprint), env[k++] = f;
		while (k < 4)
			env[k++] = NULL;
		ret = parse_env(env[0], env[1], env[2], env[3], NULL);
		if (ret != c->ret)
			fail_msg("case %zu: returned %d (%s), expected %d", i, ret, why, c->ret);
		if (ret)
			continue;
		if (o.chunk_size != c->chunk_size || o.budget_chunks != c->budget_chunks ||
		    o.dynamic_fraction != c->dynamic)
			fail_msg("case %zu: chunk %llu budget %u dynamic %g; expected %llu %u %g", i,
				 (unsigned long long)o.chunk_size, o.budget_chunks, o.dynamic_fraction,
				 (unsigned long long)c->chunk_size, c->budget_chunks, c->dynamic);
	}
	assert_int_equal(parse_env("TIERLAB_FAST_MEM=40%", "TIERLAB_CHUNKS=4", NULL), -EINVAL);
	assert_string_equal(why, "TIERLAB_CHUNKS='4': a chunk count needs a fixed budget (a size, or a percentage with TIERLAB_FOOTPRINT)");
	assert_int_equal(parse_env("SHAMBLES_FAST_MEM_SIZE=64M", "SHAMBLES_FAST_MEM_CHUNKS=8",
				   "SHAMBLES_CHUNK_SIZE=4M", NULL), -EINVAL);
	assert_string_equal(why, "SHAMBLES_CHUNK_SIZE='4M': budget, chunks and chunk size disagree (give any two)");
}

static void test_nodes(void **state)
{
	unsigned long mask[16];
	struct tlrt_nodes_opt n = { .set = 1, .var = "TIERLAB_FAST_NODES" };

	(void)state;
	strcpy(n.text, "0");
	assert_int_equal(tlrt_options_nodes(&n, mask, 16, why, sizeof(why)), 0);
	assert_int_equal(mask[0], 1);
	strcpy(n.text, "all");
	assert_int_equal(tlrt_options_nodes(&n, mask, 16, why, sizeof(why)), 0);
	assert_true(mask[0] & 1);
	strcpy(n.text, "zero");
	errno = 99;
	assert_int_equal(tlrt_options_nodes(&n, mask, 16, why, sizeof(why)), -EINVAL);
	assert_int_equal(errno, 99);
	assert_non_null(strstr(why, "TIERLAB_FAST_NODES='zero': not a node list of this machine"));
	/* a node this machine does not have (one beyond the last) */
	snprintf(n.text, sizeof(n.text), "%d", 1023);
	assert_int_equal(tlrt_options_nodes(&n, mask, 16, why, sizeof(why)), -EINVAL);
	n.is_mask = 1;
	n.mask = 1;
	assert_int_equal(tlrt_options_nodes(&n, mask, 16, why, sizeof(why)), 0);
	assert_int_equal(mask[0], 1);
	n.mask = 1ULL << 63;
	assert_int_equal(tlrt_options_nodes(&n, mask, 16, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "names a node this machine does not have"));
}

/* TIERLAB_MEMPOLICY: a memory policy on managed memory, instead of a placement policy and a sampler */
static void test_mempolicy(void **state)
{
	static const struct {
		const char *env;
		enum tlrt_mempolicy want;
	} good[] = {
		{ "TIERLAB_MEMPOLICY=preferred", TLRT_MEMPOLICY_PREFERRED },
		{ "TIERLAB_MEMPOLICY=interleave", TLRT_MEMPOLICY_INTERLEAVE },
		{ "TIERLAB_MEMPOLICY=weighted-interleave", TLRT_MEMPOLICY_WEIGHTED },
	};

	(void)state;
	/* unset: none, and a placement policy as before */
	assert_int_equal(parse_env(NULL), 0);
	assert_int_equal(o.mempolicy, TLRT_MEMPOLICY_NONE);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		/* no placement policy, yet managed (not the silent stand-aside of no policy); no sampler */
		assert_int_equal(parse_env("NOPOLICY", good[i].env, NULL), 0);
		assert_int_equal(o.mempolicy, good[i].want);
		assert_int_equal(o.sampler, TLRT_SAMPLER_NONE);
		assert_int_equal(parse_env("TIERLAB_POLICY=none", good[i].env, "TIERLAB_SAMPLER=none", NULL), 0);
		assert_int_equal(o.mempolicy, good[i].want);
	}
	assert_string_equal(tlrt_mempolicy_names[TLRT_MEMPOLICY_WEIGHTED], "weighted-interleave");
	/* a bad value: one line naming the three */
	assert_int_equal(parse_env("NOPOLICY", "TIERLAB_MEMPOLICY=bind", NULL), -EINVAL);
	assert_string_equal(why, "TIERLAB_MEMPOLICY='bind': not a memory policy (preferred, interleave, "
			    "weighted-interleave)");
	assert_int_equal(parse_env("NOPOLICY", "TIERLAB_MEMPOLICY=", NULL), -EINVAL);
	assert_string_equal(why, "TIERLAB_MEMPOLICY='': not a memory policy (preferred, interleave, "
			    "weighted-interleave)");
	/* with a placement policy or a sampler: refused, not ignored */
	assert_int_equal(parse_env("TIERLAB_POLICY=lru", "TIERLAB_MEMPOLICY=interleave", NULL), -EINVAL);
	assert_string_equal(why, "TIERLAB_MEMPOLICY='interleave': a memory policy on managed memory is instead "
			    "of a placement policy, and TIERLAB_POLICY='lru' names one");
	assert_int_equal(parse_env("NOPOLICY", "TIERLAB_MEMPOLICY=preferred", "TIERLAB_SAMPLER=fault", NULL), -EINVAL);
	assert_string_equal(why, "TIERLAB_MEMPOLICY='preferred': a memory policy on managed memory takes no "
			    "samples, and TIERLAB_SAMPLER='fault' names a sampler (none, or unset)");
	assert_null(strchr(why, '\n'));
	/* the nodes it binds to are needed as for any policy */
	assert_int_equal(parse_env("NOPOLICY", "NONODES", "TIERLAB_MEMPOLICY=interleave", "TIERLAB_FAST_NODES=0", NULL),
			 -EINVAL);
	assert_string_equal(why, "TIERLAB_SLOW_NODES is not set (e.g. TIERLAB_SLOW_NODES=1)");
}

static void test_table(void **state)
{
	(void)state;
	/* every row named, TIERLAB_ prefixed, documented; aliases SHAMBLES_ prefixed */
	for (int i = 0; i < TLRT_OPT__COUNT; i++) {
		const struct tlrt_option_desc *d = &tlrt_option_table[i];

		assert_non_null(d->name);
		assert_int_equal(strncmp(d->name, "TIERLAB_", 8), 0);
		assert_non_null(d->help);
		if (d->alias)
			assert_int_equal(strncmp(d->alias, "SHAMBLES_", 9), 0);
	}
	assert_string_equal(tlrt_option_table[TLRT_OPT_RATE].name, "TIERLAB_RATE");
	assert_string_equal(tlrt_option_table[TLRT_OPT_CHUNKS].alias, "SHAMBLES_FAST_MEM_CHUNKS");
	assert_string_equal(tlrt_sampler_names[TLRT_SAMPLER_UFFD_WP], "uffd-wp");
	assert_string_equal(tlrt_log_names[TLRT_LOG_LOG], "log");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_no_policy_stands_aside_silently),
		cmocka_unit_test(test_every_variable),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_missing_nodes),
		cmocka_unit_test(test_shambles_aliases),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_any_two_of_three),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_mempolicy),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
