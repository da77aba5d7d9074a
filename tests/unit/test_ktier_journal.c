/*
 * The settings journal of the kernel policies (lib/ktier/journal.c), over
 * plain files standing for /proc/sys and /sys settings (this host's are
 * the machine's and never written): a run's changes are put back at its
 * end; a tierlab killed with SIGKILL in the middle leaves a journal that
 * the next start replays, exactly once; a live tierlab's journal is left
 * alone and a second run is refused; an unchanged value leaves no entry;
 * a kdamond is stopped only while it runs with the pid journaled; and the
 * policy arguments and the kernel-policy classes of the axis table.
 * Hostile journals (issue 27, the state directory may be shared): an entry
 * naming anything but a known tiering setting, a journal that is a
 * symbolic link, a hard link, someone else's or writable by others: none
 * is replayed or used, nothing is written or truncated, and each says why.
 * The settings are plain files under a directory standing for /
 * (tl_ktier_settings_root).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "axis/axis.h"
#include "ktier/ktier.h"
#include "ktier/settings.h"

static char dir[64], jpath[128], a[128], b[128];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *get(const char *path)
{
	static char buf[2][256];
	static int i;

	i ^= 1;
	assert_int_equal(tl_ktier_read(path, buf[i], sizeof(buf[i])), 0);
	return buf[i];
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/tierlab-journal.XXXXXX");
	assert_non_null(mkdtemp(dir));
	char cmd[256];

	snprintf(jpath, sizeof(jpath), "%s/state/ktier.journal", dir);
	snprintf(a, sizeof(a), "%s" TL_KS_NUMA_BALANCING, dir);
	snprintf(b, sizeof(b), "%s" TL_KS_DEMOTION, dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/proc/sys/kernel' '%s/sys/kernel/mm/numa'", dir, dir);
	assert_int_equal(system(cmd), 0);
	tl_ktier_settings_root(dir);
	put(a, "0\n");
	put(b, "false\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void test_run_restores(void **state)
{
	struct tl_journal j;
	char why[256] = "";
	struct stat st;

	(void)state;
	assert_int_equal(tl_journal_begin(&j, jpath, why, sizeof(why)), 0);
	assert_int_equal(tl_journal_set(&j, a, "2", why, sizeof(why)), 0);
	assert_int_equal(tl_journal_set(&j, b, "true", why, sizeof(why)), 0);
	/* written twice: the first value found is the one put back */
	assert_int_equal(tl_journal_set(&j, a, "1", why, sizeof(why)), 0);
	assert_string_equal(get(a), "1");
	assert_string_equal(get(b), "true");
	assert_int_equal(tl_journal_end(&j, why, sizeof(why)), 0);
	assert_string_equal(get(a), "0");
	assert_string_equal(get(b), "false");
	assert_int_equal(stat(jpath, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), 0);
}

static void test_unchanged_leaves_no_entry(void **state)
{
	struct tl_journal j;
	char why[256] = "";
	struct stat st;

	(void)state;
	assert_int_equal(tl_journal_begin(&j, jpath, why, sizeof(why)), 0);
	assert_int_equal(tl_journal_set(&j, b, "false", why, sizeof(why)), 0);
	assert_int_equal(stat(jpath, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(tl_journal_end(&j, why, sizeof(why)), 0);
}

/* A child takes the journal, changes both settings and is killed before it can put them back. */
static pid_t killed_mid_run(bool wait_for_it)
{
	int sv[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct tl_journal j;
		char why[256];

		if (tl_journal_begin(&j, jpath, why, sizeof(why)) || tl_journal_set(&j, a, "2", why, sizeof(why)) ||
		    tl_journal_set(&j, b, "true", why, sizeof(why)))
			_exit(1);
		write(sv[1], "c", 1);
		pause();
		_exit(0);
	}
	close(sv[1]);
	assert_int_equal(read(sv[0], &c, 1), 1);
	close(sv[0]);
	if (wait_for_it) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return pid;
}

static void test_sigkill_then_replay(void **state)
{
	char why[256] = "";

	(void)state;
	killed_mid_run(true);
	assert_string_equal(get(a), "2");
	assert_string_equal(get(b), "true");
	assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), 1);
	assert_string_equal(get(a), "0");
	assert_string_equal(get(b), "false");
	/* once: a later start finds nothing to do, even after the values move on */
	put(a, "1\n");
	assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), 0);
	assert_string_equal(get(a), "1");
	put(a, "0\n");
}

static void test_sigkill_then_next_run(void **state)
{
	struct tl_journal j;
	char why[256] = "";

	(void)state;
	killed_mid_run(true);
	/* a run's own start replays first, then journals from the true old values */
	assert_int_equal(tl_journal_begin(&j, jpath, why, sizeof(why)), 0);
	assert_string_equal(get(a), "0");
	assert_int_equal(tl_journal_set(&j, a, "2", why, sizeof(why)), 0);
	assert_int_equal(tl_journal_end(&j, why, sizeof(why)), 0);
	assert_string_equal(get(a), "0");
	assert_string_equal(get(b), "false");
}

static void test_live_holder_left_alone(void **state)
{
	struct tl_journal j;
	char why[256] = "";
	pid_t pid;

	(void)state;
	pid = killed_mid_run(false);	/* alive, holding the journal */
	assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), 0);
	assert_string_equal(get(a), "2");
	assert_int_equal(tl_journal_begin(&j, jpath, why, sizeof(why)), -EBUSY);
	assert_non_null(strstr(why, "another tierlab holds the kernel's tiering settings"));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), 1);
	assert_string_equal(get(a), "0");
}

/* A fake kdamonds directory: nr_kdamonds 1, kdamond 0 on with pid 4242. */
static void fake_kdamond(char *kd, size_t len)
{
	char p[256];

	snprintf(kd, len, "%s" TL_KS_KDAMONDS, dir);
	snprintf(p, sizeof(p), "mkdir -p '%s/0'", kd);
	assert_int_equal(system(p), 0);
	snprintf(p, sizeof(p), "%s/nr_kdamonds", kd);
	put(p, "1\n");
	snprintf(p, sizeof(p), "%s/0/state", kd);
	put(p, "on\n");
	snprintf(p, sizeof(p), "%s/0/pid", kd);
	put(p, "4242\n");
}

static void test_kdamond_only_ours(void **state)
{
	struct tl_journal j;
	char kd[200], entry[300], p[256], why[512] = "";

	(void)state;
	fake_kdamond(kd, sizeof(kd));
	/* journaled before it started (pid 0) and never seen running: the one running is someone else's */
	assert_int_equal(tl_journal_begin(&j, jpath, why, sizeof(why)), 0);
	snprintf(entry, sizeof(entry), "D %s 0", kd);
	assert_int_equal(tl_journal_note(&j, entry, why, sizeof(why)), 0);
	assert_int_equal(tl_journal_end(&j, why, sizeof(why)), -EBUSY);
	assert_non_null(strstr(why, "is not the one tierlab started"));
	snprintf(p, sizeof(p), "%s/0/state", kd);
	assert_string_equal(get(p), "on");
	/* the journal is kept: empty it for the next case by hand */
	truncate(jpath, 0);

	/* the pid journaled once it ran: stopped, then removed */
	assert_int_equal(tl_journal_begin(&j, jpath, why, sizeof(why)), 0);
	assert_int_equal(tl_journal_note(&j, entry, why, sizeof(why)), 0);
	snprintf(entry, sizeof(entry), "D %s 4242", kd);
	assert_int_equal(tl_journal_note(&j, entry, why, sizeof(why)), 0);
	assert_int_equal(tl_journal_end(&j, why, sizeof(why)), 0);
	assert_string_equal(get(p), "off");
	snprintf(p, sizeof(p), "%s/nr_kdamonds", kd);
	assert_string_equal(get(p), "0");
}

/* The journal as someone else could leave it in a shared state directory. */
static void put_journal(const char *text)
{
	char state[160];

	snprintf(state, sizeof(state), "%s/state", dir);
	mkdir(state, 0700);
	put(jpath, text);
	assert_int_equal(chmod(jpath, 0600), 0);
}

static off_t size_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_size;
}

/* Issue 27: a W entry wrote whatever path it named, as root, at every tierlab start. */
static void test_unknown_path_not_replayed(void **state)
{
	struct tl_journal j;
	char victim[128], text[512], want[600], why[1024] = "";
	off_t len;

	(void)state;
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	put(victim, "precious\n");
	put(a, "2\n");
	snprintf(text, sizeof(text), "W %s 0\nW %s 0\n", a, victim);
	put_journal(text);
	len = size_of(jpath);
	assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), -EINVAL);
	snprintf(want, sizeof(want), "settings journal %s: line 2: '%s' is not a kernel setting tierlab changes: "
		 "not replayed", jpath, victim);
	assert_non_null(strstr(why, want));
	assert_null(strchr(why, '\n'));
	/* nothing at all: not even the valid entry, and the journal is kept as it was */
	assert_string_equal(get(victim), "precious");
	assert_string_equal(get(a), "2");
	assert_int_equal(size_of(jpath), len);
	assert_int_equal(tl_journal_begin(&j, jpath, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, want));
	assert_string_equal(get(victim), "precious");
	assert_int_equal(size_of(jpath), len);

	/* the same for a kdamonds directory, a value or a line that is not tierlab's */
	snprintf(text, sizeof(text), "D %s 12\n", dir);
	put_journal(text);
	assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "line 1: '"));
	assert_non_null(strstr(why, "' is not DAMON's kdamonds directory"));
	snprintf(text, sizeof(text), "W %s \x1b[2J\n", a);
	put_journal(text);
	assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "is not a setting's value"));
	put_journal("rm -rf /\n");
	assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "line 1: not an entry (W path value, or D dir pid)"));
	assert_string_equal(get(a), "2");

	/* and a run never journals (nor writes) a path outside the list */
	assert_int_equal(unlink(jpath), 0);
	assert_int_equal(tl_journal_begin(&j, jpath, why, sizeof(why)), 0);
	assert_int_equal(tl_journal_set(&j, victim, "0", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not a kernel setting tierlab changes"));
	assert_string_equal(get(victim), "precious");
	assert_int_equal(tl_journal_end(&j, why, sizeof(why)), 0);
	put(a, "0\n");
}

/* Issue 27: a journal that was a symbolic link had its target truncated to 0 bytes. */
static void test_journal_file_checked(void **state)
{
	struct tl_journal j;
	char target[128], other[160], want[600], why[1024] = "";
	int fd;

	(void)state;
	snprintf(target, sizeof(target), "%s/target", dir);
	put(target, "precious\n");
	put_journal("");
	assert_int_equal(unlink(jpath), 0);
	assert_int_equal(symlink(target, jpath), 0);
	assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), -ELOOP);
	snprintf(want, sizeof(want), "settings journal %s is a symbolic link; it must be a regular file of yours that "
		 "only you can write: not used", jpath);
	assert_non_null(strstr(why, want));
	assert_int_equal(tl_journal_begin(&j, jpath, why, sizeof(why)), -ELOOP);
	assert_non_null(strstr(why, want));
	assert_string_equal(get(target), "precious");
	assert_int_equal(size_of(target), 9);
	assert_int_equal(unlink(jpath), 0);

	/* a hard link: another name for a file the journal does not own */
	assert_int_equal(link(target, jpath), 0);
	assert_int_equal(chmod(target, 0600), 0);
	assert_int_equal(tl_journal_begin(&j, jpath, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "has 2 links"));
	assert_string_equal(get(target), "precious");
	assert_int_equal(unlink(jpath), 0);

	/* writable by others, and not a regular file */
	put_journal("");
	assert_int_equal(chmod(jpath, 0622), 0);
	assert_int_equal(tl_journal_begin(&j, jpath, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is writable by others (mode 0622)"));
	assert_int_equal(unlink(jpath), 0);
	assert_int_equal(mkfifo(jpath, 0600), 0);
	assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "is not a regular file"));
	assert_int_equal(unlink(jpath), 0);

	/* someone else's (as root, the only one who can give a file away) */
	if (geteuid() == 0) {
		char text[200];

		put(a, "2\n");
		snprintf(text, sizeof(text), "W %s 0\n", a);
		put_journal(text);
		assert_int_equal(chown(jpath, 65534, 65534), 0);
		assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "is owned by uid 65534, not by you (uid 0)"));
		assert_string_equal(get(a), "2");
		assert_int_equal(tl_journal_begin(&j, jpath, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "is owned by uid 65534, not by you (uid 0)"));
		assert_int_equal(unlink(jpath), 0);
		put(a, "0\n");
	}
	/* no journal at all: nothing to do, nothing said */
	why[0] = '\0';
	assert_int_equal(tl_journal_replay(jpath, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	snprintf(other, sizeof(other), "%s/state/missing/ktier.journal", dir);
	assert_int_equal(tl_journal_replay(other, why, sizeof(why)), 0);
	fd = open(target, O_RDONLY);
	assert_true(fd >= 0);
	close(fd);
}

static void test_known_settings(void **state)
{
	char p[256];

	(void)state;
	tl_ktier_settings_root(NULL);
	assert_true(tl_ktier_setting_known("/proc/sys/kernel/numa_balancing"));
	assert_true(tl_ktier_setting_known("/sys/kernel/debug/sched/numa_balancing/hot_threshold_ms"));
	assert_true(tl_ktier_setting_known("/sys/devices/system/node/node12/hugepages/hugepages-2048kB/nr_hugepages"));
	assert_false(tl_ktier_setting_known("/sys/devices/system/node/node01/hugepages/hugepages-2048kB/nr_hugepages"));
	assert_false(tl_ktier_setting_known("/sys/devices/system/node/node/hugepages/hugepages-2048kB/nr_hugepages"));
	assert_false(tl_ktier_setting_known("/sys/devices/system/node/node1/../../../../etc/passwd"));
	assert_false(tl_ktier_setting_known("/proc/sys/kernel/numa_balancing/../../../etc/passwd"));
	assert_false(tl_ktier_setting_known("/proc/sys/kernel/core_pattern"));
	assert_false(tl_ktier_setting_known("proc/sys/kernel/numa_balancing"));
	assert_true(tl_ktier_kdamonds_known("/sys/kernel/mm/damon/admin/kdamonds"));
	assert_false(tl_ktier_kdamonds_known("/sys/kernel/mm/damon/admin/kdamonds/0"));
	assert_true(tl_ktier_value_ok("2"));
	assert_false(tl_ktier_value_ok(""));
	assert_false(tl_ktier_value_ok("a b"));
	/* under a root standing for / only what is under it */
	tl_ktier_settings_root("/tmp/x");
	snprintf(p, sizeof(p), "/tmp/x%s", TL_KS_DEMOTION);
	assert_true(tl_ktier_setting_known(p));
	assert_false(tl_ktier_setting_known(TL_KS_DEMOTION));
	assert_false(tl_ktier_setting_known("/tmp/xy" TL_KS_DEMOTION));
	tl_ktier_settings_root(NULL);
}

static void test_args_and_classes(void **state)
{
	char v[32];

	(void)state;
	assert_true(tl_ktier_arg("scan_delay=100,scan_period=200", "scan_period", v, sizeof(v)));
	assert_string_equal(v, "200");
	assert_true(tl_ktier_arg("scan_delay=100,scan_period=200", "scan_delay", v, sizeof(v)));
	assert_string_equal(v, "100");
	assert_false(tl_ktier_arg("scan_delay=100", "scan", v, sizeof(v)));
	assert_false(tl_ktier_arg(NULL, "scan", v, sizeof(v)));
	assert_int_equal(tl_ktier_kind("autonuma"), TL_KTIER_AUTONUMA);
	assert_int_equal(tl_ktier_kind("damos"), TL_KTIER_DAMOS);
	assert_int_equal(tl_ktier_kind("lru"), TL_KTIER_NONE);
	/* no runtime, but dynamic (a budget applies), and their own parameters */
	assert_true(tl_policy_is_kernel("damos"));
	assert_false(tl_policy_uses_runtime("autonuma"));
	assert_true(tl_policy_is_dynamic("autonuma"));
	assert_true(tl_axis_applies(TL_AXIS_BUDGET, "damos"));
	assert_false(tl_axis_applies(TL_AXIS_SAMPLER, "damos"));
	assert_true(tl_policy_takes("damos", "quota_mb"));
	assert_false(tl_policy_takes("damos", "window"));
	assert_true(tl_policy_takes("autonuma", "rate_limit"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unchanged_leaves_no_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigkill_then_replay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigkill_then_next_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_holder_left_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kdamond_only_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_path_not_replayed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_file_checked, setup, teardown),
		cmocka_unit_test(test_known_settings),
		cmocka_unit_test(test_args_and_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
