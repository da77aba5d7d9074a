/*
 * The sbatch scripts of a submission (lib/slurm/slurm-script.c), without
 * Slurm: runs split into tasks, the options sbatch reads, every value
 * from outside quoted so bash reads back the same words (checked by
 * running the generated lines through bash), and the merge job's glob.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "slurm/slurm.h"

static char *script(const struct tl_slurm_job *job, int merge)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(merge ? tl_slurm_merge_script(job, "77", f) : tl_slurm_array_script(job, f), 0);
	fclose(f);
	return buf;
}

static void test_split(void **state)
{
	const char *keys[] = { "a-r1", "a-r2", "b-r1", "b-r2", "c-r1" };
	struct tl_slurm_job job = { 0 };

	(void)state;
	assert_int_equal(tl_slurm_split(&job, keys, 5, 2), 0);
	assert_int_equal(job.ntasks, 3);
	assert_int_equal(job.nruns, 5);
	assert_string_equal(job.tasks[0], "a-r1,a-r2");
	assert_string_equal(job.tasks[1], "b-r1,b-r2");
	assert_string_equal(job.tasks[2], "c-r1");
	tl_slurm_job_release(&job);
	assert_int_equal(tl_slurm_split(&job, keys, 5, 0), 0);	/* default: one run a task */
	assert_int_equal(job.ntasks, 5);
	assert_string_equal(job.tasks[4], "c-r1");
	tl_slurm_job_release(&job);
}

static void test_array_script(void **state)
{
	const char *keys[] = { "k1-r1", "k2-r1", "k3-r1" };
	char *const argv[] = { "/opt/tl/bin/tierlab", "sweep", "--events", "cycles,{a,b}",
			       "/home/u/it's here/spec.yaml", "--chunks", "2,8", NULL };
	const char *extra[] = { "--qos=debug", "--exclusive", NULL };
	struct tl_slurm_job job = {
		.tierlab = argv[0], .experiment = "demo", .spec_hash = "abc",
		.main_db = "/data/r/tierlab.db", .shard_dir = "/data/r/shards/demo", .task_argv = argv,
		.opts = { .partition = "gpu", .account = "proj1", .time_limit = "1:00:00", .nodes = 2,
			  .ntasks = 96, .array_limit = 4, .sbatch_args = extra },
	};
	char *s, cmd[256];
	FILE *p;

	(void)state;
	assert_int_equal(tl_slurm_split(&job, keys, 3, 1), 0);
	s = script(&job, 0);
	assert_non_null(strstr(s, "#!/bin/bash\n"));
	assert_non_null(strstr(s, "#SBATCH --array=0-2%4\n"));
	assert_non_null(strstr(s, "#SBATCH --partition=gpu\n"));
	assert_non_null(strstr(s, "#SBATCH --account=proj1\n"));
	assert_non_null(strstr(s, "#SBATCH --time=1:00:00\n"));
	assert_non_null(strstr(s, "#SBATCH --nodes=2\n#SBATCH --ntasks=96\n"));
	assert_non_null(strstr(s, "#SBATCH --qos=debug\n#SBATCH --exclusive\n"));
	assert_non_null(strstr(s, "#SBATCH --output=/data/r/shards/demo/slurm-%A_%a.out\n"));
	assert_non_null(strstr(s, "#SBATCH --requeue\n#SBATCH --open-mode=append\n"));
	assert_non_null(strstr(s, "shard=/data/r/shards/demo/${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}/shard.db\n"));
	/* every #SBATCH line comes before the first command: sbatch stops reading at it */
	assert_true(strrchr(strstr(s, "#SBATCH --exclusive"), '\n') > strstr(s, "#SBATCH --exclusive"));
	assert_true(strstr(s, "runs=(") > strstr(s, "#SBATCH --exclusive"));

	/* bash reads back the words task 1 runs: the script's body with exec replaced by a printer */
	char *body = strstr(s, "runs=(");
	char *ex = strstr(body, "\nexec ");
	assert_non_null(ex);
	snprintf(cmd, sizeof(cmd), "/tmp/tierlab-slurm-test.%d", (int)getpid());
	FILE *f = fopen(cmd, "w");
	assert_non_null(f);
	fprintf(f, "%.*s\nprintf '%%s\\n' %s", (int)(ex - body), body, ex + 6);
	fclose(f);
	char run[512], out[4096] = "";
	snprintf(run, sizeof(run), "SLURM_ARRAY_JOB_ID=5 SLURM_ARRAY_TASK_ID=1 bash %s", cmd);
	p = popen(run, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
	remove(cmd);
	assert_string_equal(out,
		"/opt/tl/bin/tierlab\nsweep\n--quiet\n--resume\n--db\n/data/r/shards/demo/5_1/shard.db\n"
		"--only\nk2-r1\n--events\ncycles,{a,b}\n/home/u/it's here/spec.yaml\n--chunks\n2,8\n");
	free(s);

	/* no limit, no options: Slurm's defaults */
	memset(&job.opts, 0, sizeof(job.opts));
	s = script(&job, 0);
	assert_non_null(strstr(s, "#SBATCH --array=0-2\n"));
	assert_null(strstr(s, "--partition"));
	assert_null(strstr(s, "--time"));
	assert_non_null(strstr(s, "#SBATCH --ntasks=1\n"));
	free(s);
	tl_slurm_job_release(&job);
}

static void test_merge_script(void **state)
{
	char *const argv[] = { "/opt/tl/bin/tierlab", "run", "/s.yaml", NULL };
	struct tl_slurm_job job = {
		.tierlab = argv[0], .experiment = "demo", .spec_hash = "abc",
		.main_db = "/data/my results/tierlab.db", .shard_dir = "/data/my results/shards/demo",
		.task_argv = argv, .opts = { .partition = "gpu" },
	};
	char *s;

	(void)state;
	s = script(&job, 1);
	assert_non_null(strstr(s, "#SBATCH --partition=gpu\n"));
	assert_non_null(strstr(s, "#SBATCH --ntasks=1\n"));
	assert_non_null(strstr(s, "shards=('/data/my results/shards/demo'/77_*/shard.db)\n"));
	assert_non_null(strstr(s, "exec /opt/tl/bin/tierlab merge --db '/data/my results/tierlab.db' "
			       "--experiment demo --spec-hash abc \"${shards[@]}\"\n"));
	free(s);
}

/* A value that cannot be one #SBATCH value fails either script, whichever option carries it, and none becomes a line. */
static void test_values_refused(void **state)
{
	char *const argv[] = { "/opt/tl/bin/tierlab", "run", "/s.yaml", NULL };
	const char *extra[] = { "--qos=a", "--qos=b\n#SBATCH --uid=0", NULL };
	struct tl_slurm_job job = {
		.tierlab = argv[0], .experiment = "demo", .main_db = "/data/r/t.db",
		.task_argv = argv, .ntasks = 1,
	};
	struct tl_slurm_opts *o = &job.opts;
	char *buf = NULL, *keys[] = { "k1" };
	size_t len = 0;
	FILE *f;

	(void)state;
	job.tasks = keys;
	for (int i = 0; i < 5; i++) {
		*o = (struct tl_slurm_opts){ 0 };
		job.shard_dir = "/data/r/shards/demo";
		switch (i) {
		case 0: o->partition = "gpu\ntouch x"; break;
		case 1: o->account = ""; break;
		case 2: o->time_limit = "1:00:00\r"; break;
		case 3: o->sbatch_args = extra; break;
		case 4: job.shard_dir = "/data/a\nb/shards/demo"; break;
		}
		f = open_memstream(&buf, &len);
		assert_non_null(f);
		assert_int_equal(i == 3 || i == 4 ? tl_slurm_array_script(&job, f) : tl_slurm_merge_script(&job, "7", f),
				 -EINVAL);
		fclose(f);
		assert_null(strstr(buf, "\ntouch x"));
		assert_null(strstr(buf, "\n#SBATCH --uid=0"));
		free(buf);
		buf = NULL;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_array_script),
		cmocka_unit_test(test_merge_script),
		cmocka_unit_test(test_values_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
