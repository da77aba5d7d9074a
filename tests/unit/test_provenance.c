/*
 * A run's provenance (issue 26, item 5): SHA-256 against FIPS 180-4's
 * vectors; the program's build id, compiler and flags read from an ELF
 * file made here (and a damaged one, and a script); the host's load and
 * clock from the files' text and a sysfs tree made here; the variables
 * that set a run's threads; the quiet-host wait with a clock, a load and
 * a sleep of the test's own.
 */
#include <elf.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
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
#include "scratch.h"

#include "measure/environment.h"
#include "run/quiet-host.h"
#include "util/sha256.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("prov");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_sha256(void **state)
{
	static const struct { const char *in, *hex; } v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	struct tl_sha256 s;
	char hex[65], path[128];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		tl_sha256_init(&s);
		tl_sha256_update(&s, v[i].in, strlen(v[i].in));
		tl_sha256_hex(&s, hex);
		assert_string_equal(hex, v[i].hex);
	}
	/* a million 'a's, fed in odd pieces across block boundaries */
	tl_sha256_init(&s);
	for (int i = 0; i < 1000000; i += 7)
		tl_sha256_update(&s, "aaaaaaa", 1000000 - i < 7 ? (size_t)(1000000 - i) : 7);
	tl_sha256_hex(&s, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	snprintf(path, sizeof(path), "%s/abc", dir);
	write_file(path, "abc", 3);
	assert_int_equal(tl_sha256_file(path, hex), 0);
	assert_string_equal(hex, v[1].hex);
	assert_int_equal(tl_sha256_file("/nonexistent/x", hex), -ENOENT);
}

/*
 * A 64-bit ELF file of sections only: a build-id note, .comment with a
 * compiler twice (two units), .GCC.command.line with one unit's options
 * twice and another's once, and the name table.
 */
static size_t make_elf(unsigned char *buf, size_t cap)
{
	static const char names[] = "\0.shstrtab\0.note.gnu.build-id\0.comment\0.GCC.command.line";
	static const char comment[] = "GCC: (Test 1.0) 1.0\0GCC: (Test 1.0) 1.0";
	static const char options[] = "GNU C11 -O3 -march=x\0GNU C11 -O3 -march=x\0GNU C11 -O2";
	static const unsigned char id[] = { 0xde, 0xad, 0xbe, 0xef, 0x01, 0x23 };
	Elf64_Ehdr *h = (void *)buf;
	Elf64_Shdr *sh;
	size_t at = sizeof(*h), off[5], size[5];
	Elf64_Nhdr note = { .n_namesz = 4, .n_descsz = sizeof(id), .n_type = NT_GNU_BUILD_ID };

	memset(buf, 0, cap);
	/* the name table */
	off[1] = at;
	size[1] = sizeof(names);
	memcpy(buf + at, names, sizeof(names));
	at += sizeof(names);
	/* the note: header, "GNU\0", the id padded to 4 */
	at = (at + 3) & ~(size_t)3;
	off[2] = at;
	memcpy(buf + at, &note, sizeof(note));
	memcpy(buf + at + sizeof(note), "GNU", 4);
	memcpy(buf + at + sizeof(note) + 4, id, sizeof(id));
	size[2] = sizeof(note) + 4 + 8;
	at += size[2];
	off[3] = at;
	size[3] = sizeof(comment);
	memcpy(buf + at, comment, sizeof(comment));
	at += sizeof(comment);
	off[4] = at;
	size[4] = sizeof(options);
	memcpy(buf + at, options, sizeof(options));
	at += sizeof(options);
	at = (at + 7) & ~(size_t)7;
	memcpy(h->e_ident, ELFMAG, SELFMAG);
	h->e_ident[EI_CLASS] = ELFCLASS64;
	h->e_ident[EI_DATA] = ELFDATA2LSB;
	h->e_ident[EI_VERSION] = EV_CURRENT;
	h->e_type = ET_EXEC;
	h->e_machine = EM_X86_64;
	h->e_version = EV_CURRENT;
	h->e_ehsize = sizeof(*h);
	h->e_shentsize = sizeof(Elf64_Shdr);
	h->e_shnum = 5;
	h->e_shstrndx = 1;
	h->e_shoff = at;
	sh = (void *)(buf + at);
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = off[1], .sh_size = size[1] };
	sh[2] = (Elf64_Shdr){ .sh_name = 11, .sh_type = SHT_NOTE, .sh_offset = off[2], .sh_size = size[2] };
	sh[3] = (Elf64_Shdr){ .sh_name = 30, .sh_type = SHT_PROGBITS, .sh_offset = off[3], .sh_size = size[3] };
	sh[4] = (Elf64_Shdr){ .sh_name = 39, .sh_type = SHT_PROGBITS, .sh_offset = off[4], .sh_size = size[4] };
	at += 5 * sizeof(Elf64_Shdr);
	assert_true(at <= cap);
	return at;
}

static void test_program_id(void **state)
{
	unsigned char elf[4096];
	size_t n = make_elf(elf, sizeof(elf));
	struct tl_env env = { 0 };
	char path[128], script[128], hex[65];

	(void)state;
	snprintf(path, sizeof(path), "%s/prog", dir);
	write_file(path, elf, n);
	assert_int_equal(tl_env_put_program(&env, path), 0);
	assert_string_equal(tl_env_get(&env, "workload.program"), path);
	assert_string_equal(tl_env_get(&env, "workload.build_id"), "deadbeef0123");
	assert_null(tl_env_get(&env, "workload.sha256"));
	/* each compilation unit's text once */
	assert_string_equal(tl_env_get(&env, "workload.compiler"), "GCC: (Test 1.0) 1.0");
	assert_string_equal(tl_env_get(&env, "workload.cflags"), "GNU C11 -O3 -march=x; GNU C11 -O2");
	tl_env_release(&env);

	/* section headers past the end: no ELF to read, named by its content */
	((Elf64_Ehdr *)elf)->e_shoff = 1 << 20;
	write_file(path, elf, n);
	assert_int_equal(tl_env_put_program(&env, path), 0);
	assert_null(tl_env_get(&env, "workload.build_id"));
	assert_int_equal(tl_sha256_file(path, hex), 0);
	assert_string_equal(tl_env_get(&env, "workload.sha256"), hex);
	assert_string_equal(tl_env_get(&env, "workload.compiler"), "unknown (not an ELF program)");
	tl_env_release(&env);

	snprintf(script, sizeof(script), "%s/run.sh", dir);
	write_file(script, "#!/bin/sh\necho fom: 1\n", 22);
	assert_int_equal(tl_env_put_program(&env, script), 0);
	assert_int_equal(tl_sha256_file(script, hex), 0);
	assert_string_equal(tl_env_get(&env, "workload.sha256"), hex);
	assert_string_equal(tl_env_get(&env, "workload.cflags"),
			    "not recorded (built without -frecord-gcc-switches)");
	tl_env_release(&env);

	assert_int_equal(tl_env_put_program(&env, "/nonexistent/prog"), 0);
	assert_string_equal(tl_env_get(&env, "workload.build_id"), "unreadable");
	tl_env_release(&env);
}

static void test_host_load(void **state)
{
	struct tl_host_load l;
	struct tl_env env = { 0 };
	char path[256];

	(void)state;
	assert_int_equal(tl_host_load_parse("3.05 3.97 4.08 5/102 18473\n",
					    "cpu  1 2 3\nintr 5\nprocs_running 4\nprocs_blocked 0\n", &l), 0);
	assert_true(l.load[0] == 3.05 && l.load[1] == 3.97 && l.load[2] == 4.08);
	assert_int_equal(l.running, 4);
	assert_int_equal(tl_host_load_parse("", "cpu 1\n", &l), -EINVAL);
	assert_true(isnan(l.load[0]));
	assert_int_equal(l.running, -1);
	tl_host_load_read(&l);
	assert_true(l.cpus > 0);

	/* two CPUs clocked apart under two governors; cpufreq where a VM has none */
	for (int c = 0; c < 2; c++) {
		snprintf(path, sizeof(path), "%s/cpu%d", dir, c);
		assert_int_equal(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/cpu%d/cpufreq", dir, c);
		assert_int_equal(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/cpu%d/cpufreq/scaling_cur_freq", dir, c);
		write_file(path, c ? "1200000\n" : "2400000\n", 8);
		snprintf(path, sizeof(path), "%s/cpu%d/cpufreq/scaling_governor", dir, c);
		write_file(path, c ? "powersave\n" : "performance\n", c ? 10 : 12);
	}
	snprintf(path, sizeof(path), "%s/cpufreq", dir);	/* not a CPU */
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(tl_env_put_cpufreq_from(&env, dir), 0);
	assert_string_equal(tl_env_get(&env, "cpu.freq_mhz"), "1800 (1200-2400 over 2 CPUs)");
	assert_string_equal(tl_env_get(&env, "cpu.governor"), "performance x1, powersave x1");
	snprintf(path, sizeof(path), "%s/cpufreq", dir);
	assert_int_equal(tl_env_put_cpufreq_from(&env, path), 0);
	assert_string_equal(tl_env_get(&env, "cpu.freq_mhz"), "unreadable (no cpufreq in sysfs)");
	assert_string_equal(tl_env_get(&env, "cpu.governor"), "unreadable (no cpufreq in sysfs)");
	tl_env_release(&env);
}

static void test_variables(void **state)
{
	char *with[] = { "PATH=/bin", "OMP_NUM_THREADS=3", "KMP_AFFINITY=compact", "OMPX=no", NULL };
	char *without[] = { "PATH=/bin", "LD_PRELOAD=/x/libtiermem.so", NULL };
	struct tl_env env = { 0 };

	(void)state;
	assert_int_equal(tl_env_put_variables(&env, with), 0);
	assert_string_equal(tl_env_get(&env, "env.OMP_NUM_THREADS"), "3");
	assert_string_equal(tl_env_get(&env, "env.KMP_AFFINITY"), "compact");
	assert_null(tl_env_get(&env, "env.OMPX"));
	assert_null(tl_env_get(&env, "env.PATH"));
	assert_null(tl_env_get(&env, "env.threading"));
	tl_env_release(&env);
	assert_int_equal(tl_env_put_variables(&env, without), 0);
	assert_string_equal(tl_env_get(&env, "env.LD_PRELOAD"), "/x/libtiermem.so");
	assert_string_equal(tl_env_get(&env, "env.threading"), "none of OMP_*, GOMP_*, KMP_*, MKL_*, OPENBLAS_* set");
	tl_env_release(&env);
}

/* A host of the test's own: the load falls along loads[], each sleep advances the clock. */
struct fake {
	double t, loads[8];
	int n, next, sleeps;
};

static double fake_now(void *arg)
{
	return ((struct fake *)arg)->t;
}

static double fake_load(void *arg)
{
	struct fake *f = arg;

	return f->loads[f->next < f->n ? f->next : f->n - 1];
}

static void fake_sleep(double s, void *arg)
{
	struct fake *f = arg;

	f->t += s;
	f->next++;
	f->sleeps++;
}

static void test_quiet_host(void **state)
{
	struct tl_quiet_host q;
	struct tl_quiet_result r;
	struct tl_error err = { { 0 } };
	struct fake f = { .t = 100, .loads = { 3.0, 2.5, 1.5 }, .n = 3 };
	struct tl_quiet_ops ops = { fake_now, fake_load, fake_sleep, &f };
	volatile sig_atomic_t stop = 0;
	char text[160];

	(void)state;
	assert_int_equal(tl_quiet_host_parse("2", &q, &err), 0);
	assert_true(q.load == 2 && q.wait_s == TL_QUIET_WAIT_S);
	assert_int_equal(tl_quiet_host_parse("0.5:90s", &q, &err), 0);
	assert_true(q.load == 0.5 && q.wait_s == 90);
	assert_int_equal(tl_quiet_host_parse("1.5:2m", &q, &err), 0);
	assert_true(q.wait_s == 120);
	assert_int_equal(tl_quiet_host_parse("x", &q, &err), -EINVAL);
	assert_string_equal(err.msg, "--quiet-host: 'x': LOAD is a 1-minute load average above 0 (2, 0.5), then "
				     ":WAIT if you like (2:10m)");
	assert_int_equal(tl_quiet_host_parse("0", &q, &err), -EINVAL);
	assert_int_equal(tl_quiet_host_parse("2:soon", &q, &err), -EINVAL);
	assert_string_equal(err.msg, "--quiet-host: '2:soon': WAIT is a duration (90s, 10m)");

	/* below 2 at the third look: two polls of 5 s */
	q = (struct tl_quiet_host){ .load = 2, .wait_s = 60 };
	tl_quiet_host_wait(&q, &ops, &stop, NULL, &r);
	assert_false(r.gave_up);
	assert_true(r.waited_s == 10 && r.load == 1.5);
	tl_quiet_result_text(&q, &r, text, sizeof(text));
	assert_string_equal(text, "load 1.50 below 2 after 10 s");
	/* never below 1: gives up after 12 s (5, 5, then the 2 left), saying so */
	f = (struct fake){ .t = 0, .loads = { 3.0, 2.5, 1.5 }, .n = 3 };
	q = (struct tl_quiet_host){ .load = 1, .wait_s = 12 };
	tl_quiet_host_wait(&q, &ops, &stop, NULL, &r);
	assert_true(r.gave_up);
	assert_int_equal(f.sleeps, 3);
	assert_true(r.waited_s == 12 && r.load == 1.5);
	tl_quiet_result_text(&q, &r, text, sizeof(text));
	assert_string_equal(text, "gave up after 12 s: load 1.50, not below 1");
	/* quiet already: no sleep at all */
	f = (struct fake){ .loads = { 0.2 }, .n = 1 };
	tl_quiet_host_wait(&q, &ops, &stop, NULL, &r);
	assert_int_equal(f.sleeps, 0);
	assert_true(r.waited_s == 0 && !r.gave_up);
	/* a load it cannot read is not waited for */
	f = (struct fake){ .loads = { NAN }, .n = 1 };
	tl_quiet_host_wait(&q, &ops, &stop, NULL, &r);
	assert_int_equal(f.sleeps, 0);
	tl_quiet_result_text(&q, &r, text, sizeof(text));
	assert_string_equal(text, "load unreadable: not waited for");
	/* interrupted: stops at once */
	f = (struct fake){ .loads = { 9 }, .n = 1 };
	stop = 1;
	tl_quiet_host_wait(&q, &ops, &stop, NULL, &r);
	assert_true(r.stopped && !r.gave_up);
	assert_int_equal(f.sleeps, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sha256, setup, teardown),
		cmocka_unit_test_setup_teardown(test_program_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_load, setup, teardown),
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_quiet_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
