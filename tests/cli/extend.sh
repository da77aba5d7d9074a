# docs/architecture.md's "How to add ..." walks, done as a newcomer would:
# the tree copied (git ls-files) into a scratch directory, then a policy,
# a sampler, a report format, a workload and a subcommand added by writing
# exactly the files each walk names and nothing else, the tool built
# (`make tool`, starting from this build's objects so that only what the
# additions touch is compiled), and each one used: the policy and the
# sampler in a run of the new workload under the runtime, the format
# printing that run's report, the subcommand answering, -h and its page
# agreeing (help.sh), the name lists following their tables (test_axis).
# A walk that needs one more file than the doc says fails here.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || skip "git is needed to list the tree's files"
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || skip "$top is not a git checkout"
[ -f "$B/lib/tierlab/libtiermem.so" ] || skip "libtiermem.so is not built in $B (make tool first)"

tree=$scratch/tree
mkdir -p "$tree/build"
# tracked files as they are in the working tree, with their times, so the copied objects stay current
git -C "$top" ls-files -z | (cd "$top" && tar --null -T - -cf -) | tar -xf - -C "$tree" || fail "cannot copy the tree"
for d in obj bin lib libexec; do
	[ -d "$B/$d" ] && cp -a "$B/$d" "$tree/build/"
done
rm -rf "$tree/build/obj/asan"

# The doc's walks, each its files and nothing else.
row() {	# row FILE MACRO LINE: LINE as the first row of the X-macro list MACRO in FILE
	grep -q "^#define $2(X) \\\\\$" "$tree/$1" || fail "$1 has no '#define $2(X) \\' to add a row to"
	sed -i "/^#define $2(X) \\\\\$/a\\	$3 \\\\" "$tree/$1"
}

# A policy: lib/policies/<name>.c and its row in TLP_BUILTINS.
cat >"$tree/lib/policies/halves.c" <<'C'
/* halves: even chunks on the fast tier, odd ones on the slow; never moves them. */
#include "policies/policy.h"

static char halves_token;

static void *halves_init(const struct tlp_params *p)
{
	(void)p;
	return &halves_token;
}

static void halves_on_alloc(void *st, const struct tlp_alloc *a, struct tlp_decisions *out)
{
	(void)st;
	for (uint32_t i = 0; i < a->nchunks; i++)
		if (tlp_decide(out, a->first_chunk + i, (a->first_chunk + i) % 2 ? TLP_SLOW : TLP_FAST))
			break;
}

static void halves_on_free(void *st, const struct tlp_alloc *a)
{
	(void)st, (void)a;
}

static void halves_on_sample(void *st, uint32_t chunk, struct tlp_decisions *out)
{
	(void)st, (void)chunk, (void)out;
}

static void halves_fini(void *st)
{
	(void)st;
}

static const struct tlp_policy halves_policy = {
	.size = sizeof(struct tlp_policy),
	.abi_version = TLP_ABI_VERSION,
	.name = "halves",
	.init = halves_init,
	.on_alloc = halves_on_alloc,
	.on_free = halves_on_free,
	.on_sample = halves_on_sample,
	.fini = halves_fini,
};
TLP_POLICY_ENTRY(halves, halves_policy)
C
row lib/policies/policies.h TLP_BUILTINS 'X(halves, "halves")'

# A sampler: lib/tiermem/sampler-<name>.c and its row in TL_SAMPLERS.
cat >"$tree/lib/tiermem/sampler-quiet.c" <<'C'
/* The quiet sampler: starts and stops, and takes no sample. */
#include "tiermem/rt-sampler.h"

static int quiet_start(const struct rt_sampler_env *env, char *why, size_t whylen)
{
	(void)env, (void)why, (void)whylen;
	return 0;
}

static void quiet_stop(void)
{
}

const struct rt_sampler_ops rt_sampler_quiet = {
	.name = "quiet",
	.start = quiet_start,
	.stop = quiet_stop,
};
C
row lib/axis/axes.h TL_SAMPLERS 'X(QUIET, "quiet", rt_sampler_quiet, "takes no sample (tests\/cli\/extend.sh)")'

# A report format: lib/report/report-<name>.c and its row in TL_REPORT_FORMATS.
cat >"$tree/lib/report/report-lines.c" <<'C'
/* The report as one line per row: its configuration's first axis value and its status. */
#include "report/report-format.h"

#include <errno.h>

int tl_report_print_lines(const struct tl_report *rep, FILE *out)
{
	fprintf(out, "lines: %s, %zu rows\n", rep->experiment, rep->nrows);
	return ferror(out) ? -EIO : 0;
}
C
row lib/report/report.h TL_REPORT_FORMATS 'X(LINES, lines)'

# A workload: workloads/<name>/workload.yaml and <name>.c.
mkdir -p "$tree/workloads/spin"
cat >"$tree/workloads/spin/workload.yaml" <<'Y'
name: spin
description: "Touches a block of memory a few times; prints the bytes touched per second"
command: [spin]
sizes:
  tiny: [--mib, "8"]
  small: [--mib, "64"]
default_size: tiny
fom: {regex: "figure-of-merit: ([0-9.eE+-]+)", unit: B/s, higher_is_better: true}
Y
cat >"$tree/workloads/spin/spin.c" <<'C'
/* spin: one block of --mib MiB, written four times over. */
#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include "wl.h"
#include "wl-options.h"
#include "wl-sizes.h"

enum { OPT_MIB = 1 };

static const struct wl_option options[] = {
	{ OPT_MIB, 0, "mib", "N", 0, 0, "MiB to touch" },
	{ 0, 0, NULL, NULL, 0, 0, NULL },
};

static void set(int key, const char *v, void *ctx)
{
	if (key == OPT_MIB)
		*(long *)ctx = wl_parse_long(WL_NAME, "--mib", v, 1, 1L << 20);
}

int main(int argc, char **argv)
{
	long mib = 0;
	const struct wl_cmd cmd = {
		WL_DESCRIPTOR, .default_size = WL_DEFAULT_SIZE, .options = options, .set = set, .ctx = &mib,
	};
	struct timespec t0, t1;
	size_t n;
	char *p;

	wl_parse(&cmd, argc, argv);
	n = (size_t)mib << 20;
	if (!(p = malloc(n)))
		wl_report("out of memory", 0, "B/s");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int pass = 0; pass < 4; pass++)
		for (size_t i = 0; i < n; i += 64)
			p[i] = (char)(i + (size_t)pass);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	free(p);
	wl_report(NULL, 4.0 * (double)n / ((double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9 + 1e-9),
		  "B/s");
	return 0;
}
C

# A subcommand: cmd/<name>.c and its row in TL_COMMANDS; its page docs/commands/<name>.md.
cat >"$tree/cmd/hello.c" <<'C'
/* tierlab hello: answers. */
#include <stdio.h>
#include "builtin.h"

int cmd_hello(int argc, const char **argv)
{
	const char *who = "tierlab";
	static const char *const usage[] = {
		"tierlab hello [--who <name>]",
		NULL
	};
	const struct option options[] = {
		OPT_STRING(0, "who", &who, "name", "whom to greet"),
		OPT_END(),
	};

	parse_options(argc, argv, options, usage);
	printf("hello, %s\n", who);
	return 0;
}
C
row cmd/builtin.h TL_COMMANDS 'X(hello, "answer (tests\/cli\/extend.sh)")'
cat >"$tree/docs/commands/hello.md" <<'M'
# tierlab hello

    tierlab hello [--who <name>]

| option | meaning |
| --- | --- |
| `--who <name>` | whom to greet |
M

# Nothing else changed: the files the walks name, and only those.
changed=$(cd "$tree" && git -C "$top" ls-files | while read -r f; do cmp -s "$top/$f" "$f" || echo "$f"; done)
[ "$changed" = "$(printf '%s\n' cmd/builtin.h lib/axis/axes.h lib/policies/policies.h lib/report/report.h)" ] ||
	fail "the walks changed other files than their rows' headers: $changed"

expect_exit 0 nice make -C "$tree" -j2 B=build tool build/tests/test_axis
T=$tree/build/bin/tierlab

# the name lists follow their tables
expect_exit 0 "$tree/build/tests/test_axis"
expect_exit 0 "$T" list
expect_contains "$out" "halves"
expect_contains "$out" "quiet"
expect_contains "$out" "spin"

# the subcommand answers, and its -h and page agree (as for every command)
expect_exit 0 "$T" hello --who newcomer
[ "$out" = "hello, newcomer" ] || fail "tierlab hello said '$out'"
expect_exit 0 env TIERLAB_BUILD="$tree/build" bash "$tree/tests/cli/help.sh"

# the workload, the policy and the sampler in one run under the runtime
cat >"$scratch/extend.yaml" <<'Y'
name: extend
workload: {name: spin, size: tiny}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 1MiB, rate: 100Hz, sampler: quiet}
timeout: 2m
matrix:
  policy: [halves]
Y
expect_exit 0 "$T" run -q "$scratch/extend.yaml"
expect_contains "$out" "1 run: 1 ok"
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
if command -v sqlite3 >/dev/null; then
	[ "$(q "select policy || ' ' || sampler from runs")" = "halves quiet" ] ||
		fail "the run was stored as '$(q "select policy || ' ' || sampler from runs")'"
	[ "$(q "select count(*) from metrics m join runs r on r.id = m.run_id where m.name like 'rt.%'")" -gt 0 ] ||
		fail "the runtime recorded nothing: it did not run the policy"
fi

# the report format prints that run
expect_exit 0 "$T" report -e extend --format lines
[ "$out" = "lines: extend, 1 rows" ] || fail "report --format lines printed: $out"
expect_exit 2 "$T" report -e extend --format line
expect_contains "$out" "lines"
echo ok
