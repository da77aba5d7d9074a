# TIERLAB_SAMPLER=perf on a machine without precise memory-access sampling
# (no CPU PMU here: no PEBS, no ibs_op, no arm_spe) must fail out loud,
# never run on and take no samples: the preloaded runtime stands aside
# with one line naming what it looked for (exit 2 with TIERLAB_STRICT=1),
# and `tierlab run` records the run as failed with that line. On a machine
# that has such a PMU this cannot be shown, and the test skips (the
# sampler's path is tested on a software event by test_sampler_perf).
. "$(dirname "$0")/lib.sh"
SO="$B/lib/tierlab/libtiermem.so"
T="$B/tests/tiermem"
[ -f "$SO" ] && [ -x "$T/stress" ] || fail "build first: $SO, $T/stress"
dev=/sys/bus/event_source/devices
for pmu in "$dev"/ibs_op "$dev"/arm_spe_* "$dev"/cpu "$dev"/cpu_core; do
	[ -e "$pmu" ] && skip "this machine has $pmu: the no-PMU failure cannot be shown here"
done
# what PEBS says depends on whether libpfm4 knows this CPU's event (from CPUID): the kernel has no PMU for it either way
reason="perf: no precise memory-access sampling on this CPU (no ibs_op or arm_spe PMU in $dev; PEBS: "

policy="$T/policy-test.so"
[ -f "$B/lib/tierlab/policy-lru.so" ] && policy=lru
run() {
	(cd "$scratch/run" && env LD_PRELOAD="$SO" TIERLAB_POLICY="$policy" TIERLAB_FAST_NODES=0 \
		TIERLAB_SLOW_NODES=0 TIERLAB_SAMPLER=perf TIERLAB_RATE=100Hz TIERLAB_THRESHOLD=256KiB \
		TIERLAB_OUT="$scratch/run" "$@")
}
mkdir -p "$scratch/run"

# preloaded: one line with the reason, the program runs unmanaged, no files
expect_exit 0 run "$T/stress" 2 50
expect_contains "$out" "tiermem: sampler 'perf': $reason"
[ "$(grep -c "^tiermem: sampler 'perf'" <<<"$out")" -eq 1 ] || fail "expected the reason once:
$out"
expect_contains "$out" "0 failures"
[ -z "$(ls "$scratch/run")" ] || fail "files written by a runtime that stood aside: $(ls "$scratch/run")"
expect_exit 2 run env TIERLAB_STRICT=1 "$T/stress" 2 50
expect_contains "$out" "tiermem: sampler 'perf': $reason"

# through tierlab: the run fails, and says why
[ -x "$LIBEXEC/memaccess" ] || { echo "note: memaccess not built; tierlab run not checked"; echo ok; exit 0; }
[ "$policy" = lru ] || { echo "note: policy-lru.so not built; tierlab run not checked"; echo ok; exit 0; }
cat >"$scratch/perf.yaml" <<YAML
name: sampler-perf
workload: {name: memaccess, size: tiny}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 1MiB, budget: 40%, rate: 100Hz, sampler: perf}
timeout: 2m
matrix:
  policy: [lru]
YAML
expect_exit 1 "$TIERLAB" run -q "$scratch/perf.yaml"
expect_contains "$out" "1 run: 0 ok, 1 failed"
err=$(sqlite3 -batch -noheader "$TIERLAB_DB" "select status || '|' || error from runs")
expect_contains "$err" "failed|the tiering runtime did not manage this run"
expect_contains "$err" "tiermem: sampler 'perf': $reason"
echo ok
