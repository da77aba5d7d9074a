/*
 * The axis table and axis values, table-driven: names and order against
 * the enum, defaults and applicability, canonical text per kind (and the
 * messages for what is refused), the policy classes, and did-you-mean.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "axis/axis.h"
#include "policies/policies.h"
#include "util/error.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_table(void **state)
{
	/* in enum order, as the store's columns and the run keys expect */
	static const struct {
		enum tl_axis axis;
		const char *name;
		enum tl_kind kind;
		const char *def;
	} rows[] = {
		{ TL_AXIS_WORKLOAD, "workload", TL_KIND_NAME, NULL },
		{ TL_AXIS_SIZE, "size", TL_KIND_NAME, NULL },
		{ TL_AXIS_THREADS, "threads", TL_KIND_INT, NULL },
		{ TL_AXIS_ALLOCATOR, "allocator", TL_KIND_ALLOCATOR, "system" },
		{ TL_AXIS_POLICY, "policy", TL_KIND_POLICY, "none" },
		{ TL_AXIS_BUDGET, "budget", TL_KIND_BUDGET, NULL },
		{ TL_AXIS_THRESHOLD, "threshold", TL_KIND_SIZE, "1MiB" },
		{ TL_AXIS_CHUNKS, "chunks", TL_KIND_INT, NULL },
		{ TL_AXIS_RATE, "rate", TL_KIND_RATE, "10Hz" },
		{ TL_AXIS_WINDOW, "window", TL_KIND_INT, "16" },
		{ TL_AXIS_SAMPLER, "sampler", TL_KIND_SAMPLER, "fault" },
		{ TL_AXIS_LOG, "log", TL_KIND_LOG, "counters" },
		{ TL_AXIS_POLICY_ARGS, "policy_args", TL_KIND_ARGS, NULL },
	};

	(void)state;
	assert_int_equal(N(rows), TL_AXIS__COUNT);
	for (size_t i = 0; i < N(rows); i++) {
		const struct tl_axis_info *ai = &tl_axes[rows[i].axis];
		char *canon = NULL;

		assert_int_equal(rows[i].axis, i);
		assert_string_equal(ai->name, rows[i].name);
		assert_int_equal(ai->kind, rows[i].kind);
		assert_non_null(ai->help);
		assert_int_equal(tl_axis_lookup(rows[i].name), rows[i].axis);
		if (!rows[i].def) {
			assert_null(ai->def);
			continue;
		}
		assert_string_equal(ai->def, rows[i].def);
		/* a default is already canonical */
		assert_int_equal(tl_axis_canonical(rows[i].axis, ai->def, &canon, NULL), 0);
		assert_string_equal(canon, ai->def);
		free(canon);
	}
	assert_int_equal(tl_axis_lookup("polcy"), -1);
	assert_int_equal(tl_axis_lookup("Policy"), -1);
	assert_int_equal(tl_axis_lookup(""), -1);
	assert_int_equal(tl_axis_lookup(NULL), -1);
}

static void test_applies(void **state)
{
	/*
	 * policy -> which axes apply: budget chunks (dynamic: the policy says so), window (a parameter
	 * the policy declares), policy_args (a policy that takes parameters), threshold rate sampler log
	 * (runtime)
	 */
	static const struct {
		const char *policy;
		const char *applies;	/* the axes that apply, in enum order */
	} rows[] = {
		{ "none", "workload size threads allocator policy" },
		{ NULL, "workload size threads allocator policy" },	/* the default, none */
		{ "all-fast", "workload size threads allocator policy" },
		{ "all-slow", "workload size threads allocator policy" },
		/* a static run samples too: its hit rate is the share of samples in the fast tier */
		{ "static:1,0", "workload size threads allocator policy threshold rate sampler log" },
		{ "lru", "workload size threads allocator policy budget threshold chunks rate sampler log" },
		{ "window", "workload size threads allocator policy budget threshold chunks rate window sampler log "
			    "policy_args" },
		{ "./my.so", "workload size threads allocator policy budget threshold chunks rate sampler log "
			     "policy_args" },
		/* the memory-policy baselines: no runtime; preferred fills the fast tier up to a budget; all take scope */
		{ "preferred", "workload size threads allocator policy budget policy_args" },
		{ "interleave", "workload size threads allocator policy policy_args" },
		{ "weighted-interleave", "workload size threads allocator policy policy_args" },
	};

	(void)state;
	for (size_t i = 0; i < N(rows); i++) {
		char got[256] = "";

		for (int a = 0; a < TL_AXIS__COUNT; a++) {
			if (!tl_axis_applies(a, rows[i].policy))
				continue;
			if (got[0])
				strcat(got, " ");
			strcat(got, tl_axes[a].name);
		}
		if (strcmp(got, rows[i].applies))
			fail_msg("policy %s: applies to '%s', expected '%s'", rows[i].policy ? rows[i].policy : "NULL",
				 got, rows[i].applies);
	}
}

static void test_policy_classes(void **state)
{
	static const struct {
		const char *policy;
		bool runtime, dynamic;
		const char *base;
	} rows[] = {
		{ "none", false, false, "none" },
		{ "all-fast", false, false, "all-fast" },
		{ "all-slow", false, false, "all-slow" },
		{ "static:1,0.5,0", true, false, "static" },
		{ "lru", true, true, "lru" },
		{ "window", true, true, "window" },
		{ "/opt/p/my.so", true, true, "/opt/p/my.so" },
		{ "/opt/a:b/my.so", true, true, "/opt/a:b/my.so" },	/* only static has variants */
		{ "preferred", false, true, "preferred" },
		{ "interleave", false, false, "interleave" },
		{ "weighted-interleave", false, false, "weighted-interleave" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < N(rows); i++) {
		assert_int_equal(tl_policy_uses_runtime(rows[i].policy), rows[i].runtime);
		assert_int_equal(tl_policy_is_dynamic(rows[i].policy), rows[i].dynamic);
		assert_string_equal(tl_policy_base(rows[i].policy, buf, sizeof(buf)), rows[i].base);
	}
	assert_false(tl_policy_uses_runtime(NULL));
	assert_false(tl_policy_is_dynamic(NULL));
	assert_true(tl_policy_is_mempolicy("weighted-interleave"));
	assert_false(tl_policy_is_mempolicy("autonuma"));
	assert_false(tl_policy_is_kernel("preferred"));
	assert_true(tl_policy_takes("weighted-interleave", "fast_weight"));
	assert_false(tl_policy_takes("lru", NULL));
	/* scope: the whole process (numactl's) or the runtime's managed memory only, for all three */
	assert_true(tl_policy_takes("interleave", "scope"));
	assert_true(tl_policy_takes("preferred", "scope"));
	assert_true(tl_policy_takes("weighted-interleave", "scope"));
	assert_false(tl_policy_takes("interleave", "fast_weight"));
	assert_false(tl_policy_takes("autonuma", "scope"));
	assert_true(tl_policy_managed_scope("interleave", "scope=managed"));
	assert_true(tl_policy_managed_scope("weighted-interleave", "fast_weight=3,scope=managed,slow_weight=1"));
	assert_true(tl_policy_managed_scope("preferred", "scope=process,scope=managed"));	/* the last wins */
	assert_false(tl_policy_managed_scope("preferred", "scope=managed,scope=process"));
	assert_false(tl_policy_managed_scope("interleave", "scope=process"));
	assert_false(tl_policy_managed_scope("interleave", "scope=managedx"));
	assert_false(tl_policy_managed_scope("interleave", NULL));
	assert_false(tl_policy_managed_scope("lru", "scope=managed"));
	assert_true(tl_policy_scope_valid("managed") && tl_policy_scope_valid("process"));
	assert_false(tl_policy_scope_valid("Managed") || tl_policy_scope_valid("") || tl_policy_scope_valid(NULL));
	assert_string_equal(tl_policy_base(NULL, buf, sizeof(buf)), "");
	assert_string_equal(tl_policy_base("static:1", buf, 4), "sta");	/* cut to the buffer */
}

static void test_canonical(void **state)
{
	static const struct {
		enum tl_axis axis;
		const char *in, *out;
	} good[] = {
		{ TL_AXIS_THREADS, "2", "2" }, { TL_AXIS_THREADS, " 08 ", "8" }, { TL_AXIS_CHUNKS, "64", "64" },
		{ TL_AXIS_WINDOW, "1000000", "1000000" },
		{ TL_AXIS_THRESHOLD, "32M", "32MiB" }, { TL_AXIS_THRESHOLD, "1048576B", "1MiB" },
		{ TL_AXIS_THRESHOLD, "1B", "1B" }, { TL_AXIS_THRESHOLD, "1.5 GiB", "1.5GiB" },
		{ TL_AXIS_RATE, "10.0Hz", "10Hz" }, { TL_AXIS_RATE, "1kHz", "1000Hz" }, { TL_AXIS_RATE, "0.5Hz", "0.5Hz" },
		{ TL_AXIS_BUDGET, "40%", "40%" }, { TL_AXIS_BUDGET, "4096M", "4GiB" },
		{ TL_AXIS_POLICY, "lru", "lru" }, { TL_AXIS_POLICY, "all-fast", "all-fast" },
		{ TL_AXIS_POLICY, "static:1.0,1.0,0.0", "static:1,1,0" },
		{ TL_AXIS_POLICY, "static: 0.50, .25 ,1.", "static:0.5,0.25,1" },
		{ TL_AXIS_POLICY, "static:0.333333333", "static:0.333333333" },	/* as written, not %g's 6 digits */
		{ TL_AXIS_POLICY, "static:0.4,0.25,0.1", "static:0.4,0.25,0.1" },	/* short ones keep their keys */
		{ TL_AXIS_POLICY, "static:0.10000000000000001", "static:0.1" },	/* the same double */
		{ TL_AXIS_POLICY, "static:0.1234567,0.1234568", "static:0.1234567,0.1234568" },
		{ TL_AXIS_POLICY, "static:0.00001,.000015", "static:0.00001,0.000015" },	/* no exponent */
		{ TL_AXIS_RATE, "1MHz", "1e+06Hz" }, { TL_AXIS_RATE, "0.001Hz", "0.001Hz" },
		{ TL_AXIS_BUDGET, "1.5K", "1.5KiB" },
		{ TL_AXIS_POLICY, "./build/lib/tierlab/hot.so", "./build/lib/tierlab/hot.so" },
		{ TL_AXIS_ALLOCATOR, "jemalloc", "jemalloc" }, { TL_AXIS_ALLOCATOR, "fat", "fat" },
		{ TL_AXIS_SAMPLER, "uffd-wp", "uffd-wp" },
		{ TL_AXIS_SAMPLER, "none", "none" }, { TL_AXIS_LOG, "log", "log" },
		{ TL_AXIS_WORKLOAD, "hpcg", "hpcg" }, { TL_AXIS_SIZE, "paper", "paper" },
		{ TL_AXIS_WORKLOAD, "my_app-2.1", "my_app-2.1" },
		{ TL_AXIS_POLICY_ARGS, "window=32", "window=32" },
		{ TL_AXIS_POLICY_ARGS, " window = 32 , alpha=0.5", "alpha=0.5,window=32" },	/* sorted */
	};
	static const struct {
		enum tl_axis axis;
		const char *in, *msg;
	} bad[] = {
		{ TL_AXIS_THREADS, "0", "'0' is not a positive integer" },
		{ TL_AXIS_THREADS, "-2", "'-2' is not a positive integer" },
		{ TL_AXIS_THREADS, "2.0", "'2.0' is not a positive integer" },
		{ TL_AXIS_THREADS, "+2", "'+2' is not a positive integer" },
		{ TL_AXIS_CHUNKS, "1000000001", "'1000000001' is too large (at most 1000000000)" },
		{ TL_AXIS_CHUNKS, "99999999999999999999999", "'99999999999999999999999' is too large" },
		{ TL_AXIS_WINDOW, "16x", "'16x' is not a positive integer" },
		/* issue 27: the bound is what a window costs in the program, for the axis and policy_args alike */
		{ TL_AXIS_WINDOW, "1000000000", "'1000000000' is too large (at most 1000000)" },
		{ TL_AXIS_POLICY_ARGS, "window=1000001", "parameter window: '1000001' is too large (at most 1000000)" },
		{ TL_AXIS_POLICY_ARGS, "window=0", "parameter window: '0' is not a positive integer" },
		{ TL_AXIS_CHUNKS, "", "empty value" },
		{ TL_AXIS_CHUNKS, "  ", "empty value" },
		{ TL_AXIS_THRESHOLD, "32 parsecs", "'32 parsecs' is not a size" },
		{ TL_AXIS_THRESHOLD, "0", "'0' is too small (at least 1B)" },	/* the runtime's bound */
		{ TL_AXIS_POLICY_ARGS, "window", "'window' is not name=value" },
		{ TL_AXIS_POLICY_ARGS, "window=1,window=2", "parameter window is given twice" },
		{ TL_AXIS_POLICY_ARGS, "Window=1", "'Window' is not a parameter name" },
		{ TL_AXIS_POLICY_ARGS, "window=1 2", "parameter window: '1 2' is not a value" },
		{ TL_AXIS_POLICY_ARGS, "window=1,", "'' is not name=value" },
		{ TL_AXIS_RATE, "0", "'0' is not a rate" },
		{ TL_AXIS_RATE, "fast", "'fast' is not a rate" },
		{ TL_AXIS_RATE, "nanHz", "'nanHz' is not a rate" },
		{ TL_AXIS_RATE, "1e308Hz", "'1e308Hz' is out of range (0.001Hz to 1MHz)" },
		{ TL_AXIS_RATE, "1e-300Hz", "'1e-300Hz' is out of range (0.001Hz to 1MHz)" },
		{ TL_AXIS_RATE, "1.000001MHz", "'1.000001MHz' is out of range" },
		{ TL_AXIS_RATE, "0.0009Hz", "'0.0009Hz' is out of range" },
		{ TL_AXIS_THRESHOLD, "1.5B", "'1.5B' is not a whole number of bytes" },
		{ TL_AXIS_THRESHOLD, "1.5B", "'1.5B' is not a whole number of bytes" },
		/* a number alone is refused, with what it could have meant */
		{ TL_AXIS_THRESHOLD, "1.5", "'1.5' has no unit (write 1.5B for bytes, or 1.5KiB, 1.5MiB)" },
		{ TL_AXIS_BUDGET, "40", "'40' has no unit (write 40% of the footprint, or a size: 40MiB, 40GiB, 40B for bytes)" },
		{ TL_AXIS_RATE, "100", "'100' has no unit (write 100Hz or 100kHz)" },
		{ TL_AXIS_THRESHOLD, "1.005K", "'1.005K' is not a whole number of bytes" },
		{ TL_AXIS_BUDGET, "0.5B", "'0.5B' is not a whole number of bytes" },
		{ TL_AXIS_BUDGET, "0%", "'0%' is not a budget" },
		{ TL_AXIS_BUDGET, "101%", "'101%' is not a budget" },
		{ TL_AXIS_POLICY, "lur", "unknown policy 'lur' (did you mean 'lru'?)" },
		{ TL_AXIS_POLICY, "LRU", "unknown policy 'LRU' (did you mean 'lru'?)" },
		{ TL_AXIS_POLICY, "all_fast", "unknown policy 'all_fast' (did you mean 'all-fast'?)" },
		{ TL_AXIS_POLICY, "hotness", "unknown policy 'hotness' (known: " },	/* the list: test_name_lists */
		{ TL_AXIS_POLICY, "interleeve", "unknown policy 'interleeve' (did you mean 'interleave'?)" },
		{ TL_AXIS_POLICY, "static", "policy 'static' needs its fractions: static:F1,F2,..." },
		{ TL_AXIS_POLICY, "static:", "policy 'static' needs its fractions" },
		{ TL_AXIS_POLICY, "static:1,,0", "static policy '1,,0': empty fraction" },
		{ TL_AXIS_POLICY, "static:1.5", "static fraction 1.5 is out of range (each must be 0 to 1)" },
		{ TL_AXIS_POLICY, "static:-0.5", "static fraction '-0.5' is not a number" },
		{ TL_AXIS_POLICY, "static:1e-1", "static fraction '1e-1' is not a number" },
		{ TL_AXIS_POLICY, "static:nan", "static fraction 'nan' is not a number" },
		{ TL_AXIS_ALLOCATOR, "jemaloc", "unknown allocator 'jemaloc' (did you mean 'jemalloc'?)" },
		{ TL_AXIS_ALLOCATOR, "tcmalloc", "unknown allocator 'tcmalloc' (known: " },
		{ TL_AXIS_SAMPLER, "faults", "unknown sampler 'faults' (did you mean 'fault'?)" },
		{ TL_AXIS_SAMPLER, "ibs", "unknown sampler 'ibs' (known: " },
		{ TL_AXIS_LOG, "counter", "unknown log 'counter' (did you mean 'counters'?)" },
		{ TL_AXIS_WORKLOAD, "my app", "workload name 'my app' may only hold letters, digits and . _ + -" },
		{ TL_AXIS_SIZE, "x=y", "size name 'x=y' may only hold letters, digits and . _ + -" },
	};
	struct tl_error err;

	(void)state;
	for (size_t i = 0; i < N(good); i++) {
		char *out = NULL;

		memset(&err, 0, sizeof(err));
		if (tl_axis_canonical(good[i].axis, good[i].in, &out, &err))
			fail_msg("%s '%s' refused: %s", tl_axes[good[i].axis].name, good[i].in, err.msg);
		if (strcmp(out, good[i].out))
			fail_msg("%s '%s' -> '%s', expected '%s'", tl_axes[good[i].axis].name, good[i].in, out,
				 good[i].out);
		free(out);
	}
	for (size_t i = 0; i < N(bad); i++) {
		char *out = (char *)"untouched";

		memset(&err, 0, sizeof(err));
		if (tl_axis_canonical(bad[i].axis, bad[i].in, &out, &err) != -EINVAL)
			fail_msg("%s '%s' accepted as '%s'", tl_axes[bad[i].axis].name, bad[i].in, out);
		if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("%s '%s': expected '%s...', got '%s'", tl_axes[bad[i].axis].name, bad[i].in,
				 bad[i].msg, err.msg);
		assert_string_equal(out, "untouched");
	}
	/* err may be NULL; an out-of-range axis is refused */
	assert_int_equal(tl_axis_canonical(TL_AXIS_RATE, "x", &(char *){ NULL }, NULL), -EINVAL);
	assert_int_equal(tl_axis_canonical(TL_AXIS__COUNT, "x", &(char *){ NULL }, NULL), -EINVAL);
	assert_int_equal(tl_axis_canonical(TL_AXIS_RATE, NULL, &(char *){ NULL }, NULL), -EINVAL);
}

/* No fixed limit on a value's length; a static policy is capped at the runtime's fraction count. */
static void test_long_values(void **state)
{
	size_t cap = TL_STATIC_MAX_FRACTIONS * 40 + 64, n;
	char *in = malloc(cap), *want = malloc(cap), *out = NULL;
	struct tl_error err = { { 0 } };

	(void)state;
	assert_non_null(in);
	assert_non_null(want);
	/* fractions with 30 digits each, far over the 1023 characters once allowed */
	n = (size_t)sprintf(in, "  static:");
	for (int i = 0; i < TL_STATIC_MAX_FRACTIONS; i++)
		n += (size_t)sprintf(in + n, "%s0.250000000000000000000000000000", i ? "," : "");
	n = (size_t)sprintf(want, "static:");
	for (int i = 0; i < TL_STATIC_MAX_FRACTIONS; i++)
		n += (size_t)sprintf(want + n, "%s0.25", i ? "," : "");
	if (tl_axis_canonical(TL_AXIS_POLICY, in, &out, &err))
		fail_msg("%zu characters refused: %s", strlen(in), err.msg);
	assert_string_equal(out, want);
	free(out);
	strcat(in, ",1");
	assert_int_equal(tl_axis_canonical(TL_AXIS_POLICY, in, &out, &err), -EINVAL);
	assert_string_equal(err.msg, "static policy has 257 fractions; at most 256 (one per large allocation, "
			    "the most the runtime takes)");
	/* a long name is kept whole */
	memset(in, 'w', 3000);
	in[3000] = '\0';
	assert_int_equal(tl_axis_canonical(TL_AXIS_WORKLOAD, in, &out, &err), 0);
	assert_int_equal(strlen(out), 3000);
	free(out);
	free(in);
	free(want);
}

/* Canonical fractions read back as the very same double, and never with an exponent. */
static void test_fraction_round_trip(void **state)
{
	struct tl_error err = { { 0 } };
	uint64_t x = 88172645463325252ULL;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		char in[64], *out = NULL;
		double f, back;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift64 */
		f = (double)(x >> 11) / 9007199254740992.0;	/* [0, 1) */
		if (i % 4 == 1)
			f = f * 1e-9;	/* small ones, where %g would use an exponent */
		snprintf(in, sizeof(in), "static:%.17f", f);
		if (i % 4 == 2)	/* short texts: the canonical form is the text as written */
			snprintf(in, sizeof(in), "static:0.%d", (int)(x % 1000) + 1000);
		if (tl_axis_canonical(TL_AXIS_POLICY, in, &out, &err))
			fail_msg("'%s' refused: %s", in, err.msg);
		assert_null(strchr(out, 'e'));
		back = strtod(out + 7, NULL);
		assert_true(back == strtod(in + 7, NULL));
		if (i % 4 == 2 && strcmp(in + 9, "") && in[strlen(in) - 1] != '0')
			assert_string_equal(out, in);
		free(out);
	}
}

static void test_did_you_mean(void **state)
{
	static const char *const keys[] = { "name", "workload", "workloads", "policy", "runtime", "threshold",
					    "repetitions", "timeout", NULL };
	static const struct {
		const char *word;
		const char *const *names;
		const char *want;
	} rows[] = {
		{ "lur", tl_policy_names, "lru" },		/* a swap */
		{ "lr", tl_policy_names, "lru" },		/* a letter missing */
		{ "lruu", tl_policy_names, "lru" },		/* one too many */
		{ "windw", tl_policy_names, "window" },
		{ "all_slow", tl_policy_names, "all-slow" },
		{ "ALL-FAST", tl_policy_names, "all-fast" },	/* case does not count */
		{ "x", tl_policy_names, NULL },			/* too short to guess from */
		{ "hot", tl_policy_names, NULL },
		{ "zzzzzz", tl_policy_names, NULL },
		{ "windoww", tl_policy_names, "window" },
		{ "wimdoww", tl_policy_names, "window" },	/* two edits, same first letter */
		{ "vindoww", tl_policy_names, NULL },		/* two edits, another first letter */
		{ "lurr", tl_policy_names, NULL },		/* two edits in a short word */
		{ "polcy", keys, "policy" },
		{ "treshold", keys, "threshold" },
		{ "workload", keys, "workload" },		/* closest wins: exact before plural */
		{ "workloadss", keys, "workloads" },
		{ "workloadz", keys, "workload" },		/* a tie: the first listed */
		{ "repetition", keys, "repetitions" },
		{ "timeuot", keys, "timeout" },
		{ "names", keys, "name" },
		{ "color", keys, NULL },
		{ "", keys, NULL },
		{ NULL, keys, NULL },
		{ "fat", tl_allocator_names, "fat" },
		{ "jemaloc", tl_allocator_names, "jemalloc" },
		{ "tcmalloc", tl_allocator_names, NULL },
		{ "uffd", tl_sampler_names, NULL },
		{ "uffdwp", tl_sampler_names, "uffd-wp" },
		{ "counter", tl_log_names, "counters" },
	};

	(void)state;
	for (size_t i = 0; i < N(rows); i++) {
		const char *got = tl_did_you_mean(rows[i].word, rows[i].names);

		if (!!got != !!rows[i].want || (got && strcmp(got, rows[i].want)))
			fail_msg("did-you-mean '%s': got %s, expected %s", rows[i].word ? rows[i].word : "NULL",
				 got ? got : "nothing", rows[i].want ? rows[i].want : "nothing");
	}
	assert_null(tl_did_you_mean("lru", NULL));
}

/*
 * The name lists come from the tables (axes.h, TLP_BUILTINS): each name is
 * taken as itself, none twice, and an unknown name is answered with all of
 * them in the table's order. Expectations are built from the lists, so a
 * policy, sampler or allocator added is one row and no edit here.
 */
static void test_name_lists(void **state)
{
	static const enum tl_axis axes[] = { TL_AXIS_POLICY, TL_AXIS_ALLOCATOR, TL_AXIS_SAMPLER, TL_AXIS_LOG };
	static const char *const want_first[] = { "none", "system", NULL, NULL };

	(void)state;
	for (size_t i = 0; i < N(axes); i++) {
		const char *const *names = tl_kind_names(tl_axes[axes[i]].kind);
		bool policy = axes[i] == TL_AXIS_POLICY;
		char want[512], *out = NULL;
		struct tl_error err = { 0 };
		size_t n;

		assert_non_null(names);
		assert_non_null(names[0]);
		if (want_first[i])
			assert_string_equal(names[0], want_first[i]);
		n = (size_t)snprintf(want, sizeof(want), "unknown %s 'zzzzzz' (known: ", tl_axes[axes[i]].name);
		for (size_t j = 0; names[j]; j++) {
			for (size_t k = 0; k < j; k++)
				assert_string_not_equal(names[j], names[k]);
			n += (size_t)snprintf(want + n, sizeof(want) - n, "%s%s", policy ? "" : j ? ", " : "",
					      policy && !strcmp(names[j], "static") ? "static:F,..." : names[j]);
			if (policy)
				n += (size_t)snprintf(want + n, sizeof(want) - n, ", ");
			if (policy && !strcmp(names[j], "static"))
				continue;	/* static takes its fractions: test_canonical */
			assert_int_equal(tl_axis_canonical(axes[i], names[j], &out, &err), 0);
			assert_string_equal(out, names[j]);
			free(out);
		}
		snprintf(want + n, sizeof(want) - n, "%s", policy ? "or a plugin path ending in .so)" : ")");
		assert_int_equal(tl_axis_canonical(axes[i], "zzzzzz", &out, &err), -EINVAL);
		assert_string_equal(err.msg, want);
	}
	/* the policies are none, the built-ins, the kernel's and the memory policies, in that order */
	{
		static const char *const rows[] = {
			"none",
#define ROW(id, name, ...) name,
			TLP_BUILTINS(ROW) TL_KERNEL_POLICIES(ROW) TL_MEM_POLICIES(ROW)
#undef ROW
		};

		for (size_t i = 0; i < N(rows); i++)
			assert_string_equal(tl_policy_names[i], rows[i]);
		assert_null(tl_policy_names[N(rows)]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_applies),
		cmocka_unit_test(test_policy_classes),
		cmocka_unit_test(test_canonical),
		cmocka_unit_test(test_long_values),
		cmocka_unit_test(test_fraction_round_trip),
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_name_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
