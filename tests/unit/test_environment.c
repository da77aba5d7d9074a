/*
 * The environment record: every documented key present and non-empty on
 * this machine, values checked against what the test reads itself (uname,
 * sysconf, the THP file), the BLAS core type taken from the workload's
 * OPENBLAS_CORETYPE when it sets one, comparing records (which keys count,
 * the one-line description, its truncation), the BLAS advice, and the
 * round trip through the store for an experiment and for a run.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <cmocka.h>

#include "measure/environment.h"
#include "store/query.h"
#include "util/version.h"

static const char *const keys[] = {
	"tierlab_version", "spec_hash", "host", "kernel", "kernel_version", "arch", "cpu_model",
	"cpu_flags", "cpu_count", "numa_nodes", "numa_cpu_nodes", "numa_mem_nodes",
	"numa_distances", "thp_enabled", "thp_defrag", "numa_balancing", "demotion_enabled",
	"perf_event_paranoid", "blas_coretype", "blas_coretype_source", "blas_config",
};

static void test_collect_every_key(void **state)
{
	struct tl_env env = { 0 };
	struct utsname u;
	char buf[64], line[256] = "";
	const char *thp;
	FILE *f;

	(void)state;
	assert_int_equal(tl_env_collect(&env, "0123456789abcdef", NULL), 0);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = tl_env_get(&env, keys[i]);

		if (!v || !*v)
			fail_msg("key '%s' missing or empty", keys[i]);
	}
	for (size_t i = 0; i < env.n; i++)
		assert_true(env.v[i].value[0] != '\0');

	assert_string_equal(tl_env_get(&env, "tierlab_version"), tl_version);
	assert_string_equal(tl_env_get(&env, "spec_hash"), "0123456789abcdef");
	assert_int_equal(uname(&u), 0);
	assert_string_equal(tl_env_get(&env, "kernel"), u.release);
	assert_string_equal(tl_env_get(&env, "arch"), u.machine);
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	assert_string_equal(tl_env_get(&env, "cpu_count"), buf);
	/* Every Linux machine has node 0. */
	assert_int_equal(tl_env_get(&env, "numa_nodes")[0], '0');
	assert_int_equal(tl_env_get(&env, "numa_mem_nodes")[0], '0');
	assert_string_not_equal(tl_env_get(&env, "cpu_model"), "unknown");
	assert_string_not_equal(tl_env_get(&env, "cpu_flags"), "unknown");
	/* The value in effect, without the brackets, and one of the file's words. */
	thp = tl_env_get(&env, "thp_enabled");
	f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f) {
		char want[64];

		assert_non_null(fgets(line, sizeof(line), f));
		fclose(f);
		snprintf(want, sizeof(want), "[%s]", thp);
		assert_non_null(strstr(line, want));
		assert_null(strchr(tl_env_get(&env, "thp_defrag"), '['));
	} else {
		assert_string_equal(thp, "absent");
	}
	/* A number, or absent. */
	assert_true(strspn(tl_env_get(&env, "perf_event_paranoid"), "-0123456789") ==
			    strlen(tl_env_get(&env, "perf_event_paranoid")) ||
		    !strcmp(tl_env_get(&env, "perf_event_paranoid"), "absent"));
	if (!access("/sys/kernel/mm/hugepages/hugepages-2048kB", F_OK)) {
		assert_non_null(tl_env_get(&env, "hugetlb_2048kB_nr"));
		assert_non_null(tl_env_get(&env, "hugetlb_2048kB_free"));
	}
	if (!getenv("OPENBLAS_CORETYPE") && !access("/usr/lib/x86_64-linux-gnu/libopenblas.so.0", F_OK)) {
		assert_string_equal(tl_env_get(&env, "blas_coretype_source"), "detected");
		assert_string_not_equal(tl_env_get(&env, "blas_coretype"), "absent");
		assert_non_null(strstr(tl_env_get(&env, "blas_config"), "OpenBLAS"));
	}
	for (size_t i = 0; i < env.n; i++)
		if (strcmp(env.v[i].key, "cpu_flags") && strcmp(env.v[i].key, "kernel_version"))
			print_message("  %-22s %s\n", env.v[i].key, env.v[i].value);

	/* Collecting again replaces: no key twice. */
	assert_int_equal(tl_env_collect(&env, NULL, NULL), 0);
	assert_string_equal(tl_env_get(&env, "spec_hash"), "absent");
	for (size_t i = 0; i < env.n; i++)
		for (size_t j = i + 1; j < env.n; j++)
			assert_string_not_equal(env.v[i].key, env.v[j].key);
	tl_env_release(&env);
	assert_int_equal(env.n, 0);
}

static void test_blas_from_child_env(void **state)
{
	char *envp[] = { "PATH=/usr/bin", "OPENBLAS_CORETYPE=SkylakeX", NULL };
	char *plain[] = { "PATH=/usr/bin", NULL };
	struct tl_env env = { 0 };
	char advice[256];

	(void)state;
	assert_int_equal(tl_env_collect(&env, NULL, envp), 0);
	assert_string_equal(tl_env_get(&env, "blas_coretype"), "SkylakeX");
	assert_string_equal(tl_env_get(&env, "blas_coretype_source"), "OPENBLAS_CORETYPE");
	/* Chosen by the user: no advice. */
	assert_int_equal(tl_env_blas_advice(&env, advice, sizeof(advice)), 0);
	assert_int_equal(tl_env_collect(&env, NULL, plain), 0);
	assert_string_not_equal(tl_env_get(&env, "blas_coretype_source"), "OPENBLAS_CORETYPE");
	tl_env_release(&env);
}

static void test_blas_advice(void **state)
{
	struct tl_env env = { 0 };
	char advice[256];

	(void)state;
	assert_int_equal(tl_env_set(&env, "cpu_model", "AMD EPYC"), 0);
	assert_int_equal(tl_env_set(&env, "cpu_flags", "fpu sse2 avx avx2 fma"), 0);
	assert_int_equal(tl_env_set(&env, "blas_coretype", "Prescott"), 0);
	assert_int_equal(tl_env_set(&env, "blas_coretype_source", "detected"), 0);
	assert_int_equal(tl_env_blas_advice(&env, advice, sizeof(advice)), 1);
	assert_string_equal(advice, "OpenBLAS uses the 'Prescott' kernels although the CPU has AVX2: "
				    "set OPENBLAS_CORETYPE=Zen");
	assert_int_equal(tl_env_set(&env, "cpu_model", "Intel(R) Xeon(R) CPU Max 9468"), 0);
	assert_int_equal(tl_env_set(&env, "cpu_flags", "fpu avx2 avx512f avx512bw"), 0);
	assert_int_equal(tl_env_blas_advice(&env, advice, sizeof(advice)), 1);
	assert_non_null(strstr(advice, "AVX-512: set OPENBLAS_CORETYPE=SkylakeX"));
	/* "avx2" inside another flag's name is not AVX2. */
	assert_int_equal(tl_env_set(&env, "cpu_flags", "fpu xavx2 avx2x avx512fx"), 0);
	assert_int_equal(tl_env_blas_advice(&env, advice, sizeof(advice)), 0);
	assert_int_equal(tl_env_set(&env, "cpu_flags", "fpu avx2"), 0);
	assert_int_equal(tl_env_set(&env, "blas_coretype", "Haswell"), 0);
	assert_int_equal(tl_env_blas_advice(&env, advice, sizeof(advice)), 0);
	tl_env_release(&env);
}

static void test_diff(void **state)
{
	struct tl_env a = { 0 }, b = { 0 };
	struct tl_env_change *c;
	char text[512], small[16];
	size_t n;
	int need;

	(void)state;
	assert_int_equal(tl_env_set(&a, "kernel", "6.1.0"), 0);
	assert_int_equal(tl_env_set(&a, "thp_enabled", "madvise"), 0);
	assert_int_equal(tl_env_set(&a, "spec_hash", "aaaa"), 0);
	assert_int_equal(tl_env_set(&a, "hugetlb_2048kB_nr", "0"), 0);
	assert_int_equal(tl_env_set(&a, "hugetlb_2048kB_free", "0"), 0);
	assert_int_equal(tl_env_set(&a, "cpu_flags", "fpu sse2 avx2"), 0);
	assert_int_equal(tl_env_set(&a, "demotion_enabled", "false"), 0);

	assert_int_equal(tl_env_set(&b, "kernel", "6.1.0"), 0);
	assert_int_equal(tl_env_set(&b, "thp_enabled", "always"), 0);
	assert_int_equal(tl_env_set(&b, "spec_hash", "bbbb"), 0);
	assert_int_equal(tl_env_set(&b, "hugetlb_2048kB_nr", "0"), 0);
	assert_int_equal(tl_env_set(&b, "hugetlb_2048kB_free", "12"), 0);
	assert_int_equal(tl_env_set(&b, "cpu_flags", "fpu avx2 avx512f"), 0);
	assert_int_equal(tl_env_set(&b, "numa_balancing", "1"), 0);

	assert_int_equal(tl_env_diff(&a, &a, &c, &n), 0);
	assert_int_equal(n, 0);
	free(c);

	assert_int_equal(tl_env_diff(&a, &b, &c, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(c[0].key, "thp_enabled");
	assert_string_equal(c[0].a, "madvise");
	assert_string_equal(c[0].b, "always");
	assert_string_equal(c[1].key, "cpu_flags");
	assert_string_equal(c[2].key, "demotion_enabled");
	assert_null(c[2].b);
	assert_string_equal(c[3].key, "numa_balancing");
	assert_null(c[3].a);
	need = tl_env_diff_describe(c, n, text, sizeof(text));
	assert_string_equal(text, "thp_enabled madvise vs always, cpu_flags +avx512f -sse2, "
				  "demotion_enabled false vs (unset), numa_balancing (unset) vs 1");
	assert_int_equal(need, (int)strlen(text));
	/* Too small a buffer: cut and terminated, the length it needed returned. */
	assert_int_equal(tl_env_diff_describe(c, n, small, sizeof(small)), need);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(strncmp(small, text, sizeof(small) - 1), 0);
	assert_int_equal(tl_env_diff_describe(c, n, NULL, 0), need);
	free(c);

	assert_false(tl_env_key_compared("spec_hash"));
	assert_false(tl_env_key_compared("hugetlb_1048576kB_free"));
	assert_true(tl_env_key_compared("hugetlb_1048576kB_nr"));
	assert_true(tl_env_key_compared("thp_enabled"));
	tl_env_release(&a);
	tl_env_release(&b);
}

static void test_store_round_trip(void **state)
{
	char dir[] = "/tmp/tl-env-XXXXXX", path[PATH_MAX];
	struct tl_env env = { 0 }, back = { 0 }, run = { 0 };
	struct tl_experiment_record e = { .name = "env", .env = &env };
	struct tl_run_result res = { .status = TL_STATUS_OK };
	struct tl_run_record r = { .run_key = "k-r1", .config_key = "k", .rep = 1, .result = &res };
	struct tl_env_change *c;
	struct tl_store *st;
	int64_t exp, rid;
	char *value;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	assert_int_equal(tl_store_open(path, &st), 0);

	/* An experiment's record goes in with the experiment and comes back in order. */
	assert_int_equal(tl_env_collect(&env, "feedface", NULL), 0);
	assert_int_equal(tl_store_add_experiment(st, &e, &exp), 0);
	assert_int_equal(tl_store_env_load(st, exp, 0, &back), 0);
	assert_int_equal(back.n, env.n);
	for (size_t i = 0; i < env.n; i++) {
		assert_string_equal(back.v[i].key, env.v[i].key);
		assert_string_equal(back.v[i].value, env.v[i].value);
	}
	assert_int_equal(tl_env_diff(&env, &back, &c, &n), 0);
	assert_int_equal(n, 0);
	free(c);
	assert_int_equal(tl_store_experiment_env(st, "env", "thp_enabled", &value), 0);
	assert_string_equal(value, tl_env_get(&env, "thp_enabled"));
	free(value);

	/* A run's record is its own scope, written with the run. */
	r.experiment_id = exp;
	assert_int_equal(tl_store_add_run(st, &r, &rid), 0);
	assert_int_equal(tl_store_env_load(st, exp, rid, &run), 0);
	assert_int_equal(run.n, 0);
	assert_int_equal(tl_env_set(&env, "thp_enabled", "always"), 0);
	for (size_t i = 0; i < env.n; i++)
		assert_int_equal(tl_env_put(&r.env, env.v[i].key, env.v[i].value), 0);
	assert_int_equal(tl_store_add_run(st, &r, &rid), 0);
	tl_record_release(&r);
	assert_int_equal(tl_store_env_load(st, exp, rid, &run), 0);
	assert_int_equal(run.n, env.n);
	assert_string_equal(tl_env_get(&run, "thp_enabled"), "always");
	assert_int_equal(tl_env_diff(&back, &run, &c, &n), 0);
	if (strcmp(tl_env_get(&back, "thp_enabled"), "always")) {
		assert_int_equal(n, 1);
		assert_string_equal(c[0].key, "thp_enabled");
	}
	free(c);

	/* One fact set later replaces the value of its scope. */
	assert_int_equal(tl_store_set_env(st, exp, rid, "thp_enabled", "never"), 0);
	assert_int_equal(tl_store_set_env(st, exp, rid, "thp_enabled", "madvise"), 0);
	assert_int_equal(tl_store_env_load(st, exp, rid, &run), 0);
	assert_int_equal(run.n, env.n);
	assert_string_equal(tl_env_get(&run, "thp_enabled"), "madvise");

	/* A value stored as NULL (a node set not given) compares as "absent". */
	assert_int_equal(tl_env_put(&back, "machine.fast", NULL), 0);
	assert_int_equal(tl_env_put(&run, "machine.fast", "absent"), 0);
	assert_int_equal(tl_env_put(&run, "thp_enabled", tl_env_get(&back, "thp_enabled")), 0);
	assert_int_equal(tl_env_diff(&back, &run, &c, &n), 0);
	assert_int_equal(n, 0);
	free(c);

	tl_env_release(&env);
	tl_env_release(&back);
	tl_env_release(&run);
	tl_store_close(st);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect_every_key),
		cmocka_unit_test(test_blas_from_child_env),
		cmocka_unit_test(test_blas_advice),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_store_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
