# tierlab simulate --calibrate against a ground truth made here: "live"
# runs whose figures of merit are a truth model's estimates (a tier model
# with known workload parameters, replayed on the same recording), so a
# calibration from the uncalibrated shipped model must
#   - fit them with residuals near zero and print a residual per run;
#   - write a model file with a source for every section that
#     `--model` reads back as calibrated, whose estimates are the truth's
#     for every configuration, including a static fraction not fitted;
#   - refuse without a measured all-fast run, without -o, without --model.
. "$(dirname "$0")/lib.sh"
export TIERLAB_OUT="$scratch/out"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
command -v python3 >/dev/null || skip "python3 is needed to read CSV"
[ -f "$B/lib/tierlab/libtiermem.so" ] || skip "the runtime is not built"
[ -x "$LIBEXEC/memaccess" ] || skip "the memaccess workload is not built"
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
MODEL=$top/experiments/machines/xeon-max-9468.yaml

# a recording: three arrays (4, 4, 8 MiB), 3000 samples at 1 kHz, 60% in the first, 30% in the second
{
	printf 'P\t1099511627776\t524288\t1048576\t2097152\t4294967295\t0\t16\t1000\t262144\tstatic:0\t-\t0\n'
	printf 'A\t1000\t0\t0x10000000\t4194304\t0\t2\t0x0\t-\n'
	printf 'A\t1001\t1\t0x20000000\t4194304\t2\t2\t0x0\t-\n'
	printf 'A\t1002\t2\t0x30000000\t8388608\t4\t4\t0x0\t-\n'
	awk 'BEGIN { for (i = 1; i <= 3000; i++) { r = (i * 7919) % 10; a = r < 6 ? 0x10000000 : r < 9 ? 0x20000000 : 0x30000000;
		printf "S\t%d\t0x%x\t0x0\t1\t0\t0\t0\n", 1000000 * i, a + (i * 4096) % 4194304 } }'
} >"$scratch/rec.log"
spec() {
	cat <<YAML
name: calib
workload: {name: memaccess, size: tiny}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 256KiB, budget: 100%, sampler: fault, rate: 1kHz}
baseline: {policy: all-fast}
matrix:
  policy: [$1]
YAML
}
spec 'all-fast, all-slow, {static: [0.25, 0.25, 0.25]}, {static: [1.0, 0.0, 0.0]}, {static: [1.0, 1.0, 0.0]}, {static: [0.5, 0.5, 0.5]}' >"$scratch/calib.yaml"
spec 'all-fast, {static: [1.0, 0.5, 0.0]}' >"$scratch/held.yaml"
{ grep -v '^#' "$MODEL"; echo "workload: {compute_ns_per_byte: 0.006, overlap: 0.4, mlp: 350, source: truth of this test}"; } >"$scratch/truth.yaml"

expect_exit 0 "$TIERLAB" run "$scratch/calib.yaml"
# each live run's figure of merit (memaccess: ns per access, lower is better): all-fast's time over the truth's estimate
sim() { "$TIERLAB" simulate --no-store --format csv --unmanaged 0 --trace "$scratch/rec.log" "$@" 2>/dev/null; }
sim "$scratch/calib.yaml" --model "$scratch/truth.yaml" >"$scratch/truth.csv" || fail "replay with the truth model"
python3 - "$scratch/truth.csv" >"$scratch/set.sql" <<'PY' || fail "no truth estimates"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6, rows
for r in rows:
    pol = r["config"].split("policy=", 1)[1].split(" ")[0]
    print("update runs set fom = %.9f where policy = '%s' and simulated = 0;" % (100 / float(r["estimate"]), pol))
PY
sqlite3 "$TIERLAB_DB" <"$scratch/set.sql" || fail "cannot set the figures of merit"
[ "$(q "select count(*) from runs where simulated = 0 and fom > 100.5")" = 5 ] ||
	fail "the live runs' figures were not set from the truth: $(q 'select policy, fom from runs')"

expect_exit 0 "$TIERLAB" simulate --calibrate --unmanaged 0 --trace "$scratch/rec.log" "$scratch/calib.yaml" \
	--model "$MODEL" -o "$scratch/fitted.yaml"
expect_contains "$out" "fitted model written to $scratch/fitted.yaml"
[ "$(grep -c '^policy=' <<<"$out")" = 6 ] || fail "not one residual line per configuration: $out"
rms=$(sed -n 's/.*residual rms \([0-9.]*\) points.*/\1/p' <<<"$out")
awk -v r="$rms" 'BEGIN { exit !(r != "" && r < 0.05) }' || fail "residual rms '$rms' points on the model's own figures: $out"
for k in 'source: .SHAMBLES' 'source: assumed' 'source: .tierlab simulate --calibrate' compute_ns_per_byte; do
	grep -q "$k" "$scratch/fitted.yaml" || fail "the fitted model has no '$k':
$(cat "$scratch/fitted.yaml")"
done

# the fitted model is calibrated and gives the truth's estimates, on the fitted and on a held-out placement
for s in calib held; do
	expect_exit 0 "$TIERLAB" simulate --no-store --format csv --unmanaged 0 --trace "$scratch/rec.log" \
		"$scratch/$s.yaml" --model "$scratch/fitted.yaml"
	expect_not_contains "$out" "not calibrated"
	grep -v '^note: ' <<<"$out" >"$scratch/fit-$s.csv"
	sim "$scratch/$s.yaml" --model "$scratch/truth.yaml" >"$scratch/truth-$s.csv"
	python3 - "$scratch/fit-$s.csv" "$scratch/truth-$s.csv" <<'PY' || fail "$s: the fitted model's estimates are not the truth's"
import csv, sys
fit = {r["config"]: float(r["estimate"]) for r in csv.DictReader(open(sys.argv[1]))}
truth = {r["config"]: float(r["estimate"]) for r in csv.DictReader(open(sys.argv[2]))}
assert fit.keys() == truth.keys() and len(fit) >= 2, (fit, truth)
bad = {k: (fit[k], truth[k]) for k in fit if abs(fit[k] - truth[k]) > 2e-3}
assert not bad, bad
assert any(v < 0.99 for v in truth.values()), truth   # the truth is not flat: the check can fail
PY
done

# refused: no -o, no --model, no measured all-fast run
expect_exit 2 "$TIERLAB" simulate --calibrate --trace "$scratch/rec.log" "$scratch/calib.yaml" --model "$MODEL"
expect_contains "$out" "--calibrate needs -o"
expect_exit 2 "$TIERLAB" simulate --calibrate --trace "$scratch/rec.log" "$scratch/calib.yaml" -o "$scratch/x.yaml"
expect_contains "$out" "--calibrate needs a recording, a spec and --model"
q "delete from runs where policy = 'all-fast'"
expect_exit 2 "$TIERLAB" simulate --calibrate --trace "$scratch/rec.log" "$scratch/calib.yaml" --model "$MODEL" -o "$scratch/x.yaml"
expect_contains "$out" "no measured all-fast run of experiment 'calib'"
[ ! -e "$scratch/x.yaml" ] || fail "a refused calibration wrote a model"
echo ok
