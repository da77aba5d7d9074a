# A percentage budget with a chunk count: the footprint is measured once
# (a calibration run under the runtime), stored, passed to the runs as
# TIERLAB_FOOTPRINT, and reused by later runs.
. "$(dirname "$0")/lib.sh"
[ -e "$B/lib/tierlab/libtiermem.so" ] && [ -e "$B/lib/tierlab/policy-lru.so" ] \
	|| skip "the runtime or the lru policy is not built"

cat >"$scratch/f.yaml" <<'YAML'
name: footprint
workload: {name: hpcg, size: tiny}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 256KiB, budget: 40%, sampler: none}
policy: lru
matrix:
  chunks: [2, 4]
YAML
expect_exit 0 "$TIERLAB" run -q "$scratch/f.yaml"
expect_contains "$out" "measuring the managed footprint of hpcg"
[ "$(grep -c 'measuring the managed footprint' <<<"$out")" -eq 1 ] || fail "the footprint was measured more than once"
fp=$(sqlite3 "$TIERLAB_DB" "select value from environment where key like 'footprint.%'")
[ "${fp:-0}" -gt 1048576 ] || fail "footprint '$fp' is not plausible for hpcg 16^3 (> 1 MiB expected)"
for d in $(sqlite3 "$TIERLAB_DB" "select out_dir from runs"); do
	d=$(run_dir "$d")
	# each run's runtime got a fixed budget: 40% of the footprint, split into its chunks
	[ -n "$(ls "$d"/tiermem-*.counters 2>/dev/null)" ] || fail "no counters file in $d"
done
expect_exit 0 "$TIERLAB" run -q "$scratch/f.yaml"
expect_not_contains "$out" "measuring the managed footprint"
echo ok
