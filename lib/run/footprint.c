/*
 * Measuring a configuration's managed footprint (see footprint.h).
 */
#include "run/footprint.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/error.h"
#include "util/fs.h"
#include "util/hash.h"
#include "measure/ingest.h"
#include "run/launch.h"
#include "run/runner.h"
#include "util/paths.h"
#include "tiermem/rt-stats.h"

bool tl_footprint_needed(const struct tl_config *c)
{
	const char *b = c->values[TL_AXIS_BUDGET];

	/* preferred's budget binds bytes on the fast node: a share needs the footprint too */
	return b && strchr(b, '%') && (c->values[TL_AXIS_CHUNKS] ||
				       tl_policy_mempolicy(c->values[TL_AXIS_POLICY]) == TL_MEMPOL_PREFERRED);
}

/*
 * What determines the footprint, hashed: the command, the workload's env
 * and the axes that change what the runtime manages (TL_AXIS_FOOTPRINT),
 * walked from the last axis down: the order the keys stored in databases
 * were first written in.
 */
static void footprint_key(const struct tl_config *c, char key[17])
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		memset(key, '0', 16);
		key[16] = '\0';
		return;
	}
	for (size_t i = 0; i < c->argv.n; i++)
		fprintf(f, "%s\x1f", c->argv.v[i]);
	for (size_t i = 0; i < c->workload->env.n; i++)
		fprintf(f, "\x1e%s", c->workload->env.v[i]);
	fputc('\n', f);
	for (int a = TL_AXIS__COUNT - 1; a >= 0; a--)
		if (tl_axes[a].flags & TL_AXIS_FOOTPRINT)
			fprintf(f, "%s=%s\n", tl_axes[a].name, c->values[a] ? c->values[a] : "");
	fclose(f);
	tl_hash_hex(text, len, key);
	free(text);
}

static int calibrate(const struct tl_plan *plan, const struct tl_config *c, char *out_dir, size_t out_len,
		     const char *spec_dir, uint64_t *bytes, struct tl_error *err)
{
	struct tl_config cal = *c;
	struct tl_run_result res;
	struct tl_ingest ing;
	struct tl_launch re;
	char *all_slow = tl_path_lib("policy-all-slow.so");
	char **argv;
	int rc;

	if (!all_slow) {
		tl_error_set(err, "the policy plugin policy-all-slow.so is not built");
		return -EIO;
	}
	/*
	 * The same program and memory settings under the runtime (the plugin
	 * by path: "all-slow" by name means a plain memory binding); nothing
	 * sampled, nothing promoted: of the runtime's axes only those that
	 * change what it manages stay.
	 */
	for (int a = 0; a < TL_AXIS__COUNT; a++)
		if (tl_axes[a].applies != TL_APPLIES_ALL && !(tl_axes[a].flags & TL_AXIS_FOOTPRINT))
			cal.values[a] = NULL;
	cal.values[TL_AXIS_POLICY] = all_slow;
	cal.values[TL_AXIS_SAMPLER] = "none";
	cal.values[TL_AXIS_LOG] = "counters";
	/* a new directory: another database's run there would be read as this one */
	if ((rc = tl_mkdir_new(out_dir, out_len))) {
		tl_error_set(err, "cannot create '%s': %s", out_dir, strerror(-rc));
		free(all_slow);
		return -EIO;
	}
	rc = tl_launch_build(plan->spec, &cal, out_dir, spec_dir, 0, &re, err);
	free(all_slow);
	if (rc)
		return -EIO;
	/* with the spec's launch: as ranks, each rank's peak its own (the largest is taken) */
	argv = tl_launch_argv(&re, c->argv.v, c->argv.n);
	if (!argv) {
		tl_launch_release(&re);
		tl_error_set(err, "out of memory");
		return -ENOMEM;
	}
	struct tl_run_request req = {
		.argv = argv, .envp = re.envp, .dir = re.dir, .out_dir = out_dir,
		.cpu_nodes = plan->spec->machine.cpus, .mem_nodes = re.mem_nodes, .mem_mode = re.mem_mode,
		.timeout = plan->spec->timeout,
	};
	tl_runner_run(&req, &res);
	free(argv);
	tl_launch_release(&re);
	if (res.status != TL_STATUS_OK) {
		tl_error_set(err, "the calibration run (files in %.300s) %.150s", out_dir, res.error);
		return -EIO;
	}
	rc = tl_ingest_scan(out_dir, &ing);
	*bytes = 0;
	for (size_t i = 0; !rc && i < ing.nprocs; i++)
		if (ing.procs[i].stats && ing.procs[i].stats[RT_STAT_managed_bytes_peak] > *bytes)
			*bytes = ing.procs[i].stats[RT_STAT_managed_bytes_peak];
	tl_ingest_release(&ing);
	if (!*bytes) {
		tl_error_set(err, "the calibration run managed no memory (no allocation reached the "
			 "threshold %s; files in %.300s)", c->values[TL_AXIS_THRESHOLD] ?
			 c->values[TL_AXIS_THRESHOLD] : "", out_dir);
		return -EIO;
	}
	return 0;
}

int tl_footprint_get(struct tl_store *st, int64_t experiment_id, const struct tl_plan *plan,
		     const struct tl_config *c, const char *results_dir, const char *spec_dir,
		     uint64_t *bytes, struct tl_error *err)
{
	char key[17], name[64], dir[PATH_MAX], value[32];
	char *cached = NULL;
	int rc;

	footprint_key(c, key);
	snprintf(name, sizeof(name), "footprint.%s", key);
	rc = tl_store_env_latest(st, name, &cached);
	if (!rc && cached) {
		*bytes = strtoull(cached, NULL, 10);
		free(cached);
		if (*bytes)
			return 0;
	}
	snprintf(dir, sizeof(dir), "%s/%s/calibrate-%s/e%lld", results_dir, plan->spec->name, key,
		 (long long)experiment_id);
	fprintf(stderr, "measuring the managed footprint of %s (a percentage budget with chunks needs it)\n",
		c->workload->name);
	rc = calibrate(plan, c, dir, sizeof(dir), spec_dir, bytes, err);
	if (rc)
		return rc;
	snprintf(value, sizeof(value), "%" PRIu64, *bytes);
	return tl_store_set_env(st, experiment_id, 0, name, value);
}
