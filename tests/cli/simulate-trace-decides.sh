# A replay's answer for DGEMM and Himeno comes from the recorded trace and
# the calibrated machine, not from a constant chosen per workload (issue
# 28, "must show"):
#   - one recording of DGEMM small (A, B, C managed) and a copy of its
#     trace in which every sample in C is moved to the same offset in A:
#     with the same tier model and the same placement (C alone fast),
#     the real trace keeps most samples fast and estimates well above
#     all-slow, the edited one keeps none fast and estimates all-slow's
#     figure; keeping A fast instead, the two swap. Himeno small, replayed
#     at the same placements, gives its own answer;
#   - the same trace with the machine's figures changed (the slow tier
#     slower) changes the answer; a model holding a per-workload hand
#     constant (estimate: {bound, memory_fraction}) is refused at its
#     line, and --memory-fraction is not an option.
. "$(dirname "$0")/lib.sh"
[ -x "$LIBEXEC/dgemm" ] && [ -x "$LIBEXEC/himeno" ] || skip "the dgemm and himeno workloads are not built"
[ -f "$B/lib/tierlab/libtiermem.so" ] || skip "the runtime is not built"
command -v sqlite3 >/dev/null && command -v python3 >/dev/null || skip "sqlite3 and python3 are needed"
export TIERLAB_OUT="$scratch/out"
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
MODEL=$top/experiments/machines/xeon-max-9468.yaml

spec() {	# NAME WORKLOAD THRESHOLD MATRIX
	cat <<YAML
name: $1
workload: {name: $2, size: small, threads: 1}
machine: {fast: "0", slow: "0"}
runtime: {threshold: $3, sampler: fault}
timeout: 5m
matrix:
$4
YAML
}
# static fractions by allocation, in the order the program makes them: DGEMM's A, B, C
spec rec-dgemm dgemm 1MiB '  policy: ["static:0"]' >"$scratch/rec-dgemm.yaml"
spec rec-himeno himeno 64KiB '  policy: ["static:0"]' >"$scratch/rec-himeno.yaml"
# at the recording's rate: every recorded sample counts
spec at dgemm 1MiB "$(printf '  policy: [all-slow, "static:0,0,1", "static:1,0,0"]\n  rate: [1kHz]')" >"$scratch/at.yaml"
for w in dgemm himeno; do
	expect_exit 0 "$TIERLAB" simulate --record "$scratch/rec-$w.yaml"
done
key=$(q "select r.run_key from runs r join experiments e on e.id = r.experiment_id where e.name = 'rec-dgemm'")
hkey=$(q "select r.run_key from runs r join experiments e on e.id = r.experiment_id where e.name = 'rec-himeno'")
expect_exit 0 "$TIERLAB" simulate --export "$key" -o "$scratch/dgemm.trace"

# the edit: samples in the third allocation (C) moved to the same offset in the first (A)
python3 - "$scratch/dgemm.trace" "$scratch/edited.trace" <<'PY' || fail "the trace could not be edited"
import sys
lines = open(sys.argv[1]).read().split("\n")
allocs = [l.split("\t") for l in lines if l.startswith("A\t")]
big = sorted((int(a[4]), int(a[3], 16)) for a in allocs)[-3:]	# the three matrices, by size
starts = sorted(s for _, s in big)
a, c, size = starts[0], starts[2], big[0][0]
moved = 0
out = []
for l in lines:
    f = l.split("\t")
    if f[0] == "S" and c <= int(f[2], 16) < c + size:
        f[2] = hex(a + int(f[2], 16) - c)
        moved += 1
    out.append("\t".join(f))
assert moved > 100, moved
open(sys.argv[2], "w").write("\n".join(out))
PY

replay() {	# ARGS...: the CSV rows as "config estimate samples hit_rate"
	"$TIERLAB" simulate --no-store --format csv --model "$MODEL" "$@" 2>/dev/null |
		python3 -c 'import csv,sys
for r in csv.DictReader(sys.stdin): print(r["config"].replace(" ", "_"), r["estimate"], r["hit_rate"], r["samples_managed"])'
}
real=$(replay "$key" "$scratch/at.yaml") || fail "replay of the recording"
edited=$(replay --trace "$scratch/edited.trace" "$scratch/at.yaml") || fail "replay of the edited trace"
himeno=$(replay "$hkey" "$scratch/at.yaml" --policy all-slow,"static:1,1,1,1,0,0,0,0,0,0") || fail "replay of Himeno"
echo "real:"; echo "$real"; echo "edited:"; echo "$edited"; echo "himeno:"; echo "$himeno"
python3 - "$real" "$edited" <<'PY' || fail "the answer does not follow the trace (above)"
import sys
def rows(t):
    return {l.split()[0]: (float(l.split()[1]), float(l.split()[2])) for l in t.strip().split("\n")}
r, e = rows(sys.argv[1]), rows(sys.argv[2])
slow = "policy=all-slow"
c_fast = [k for k in r if "static:0,0,1" in k][0]
a_fast = [k for k in r if "static:1,0,0" in k][0]
assert r[slow][0] == e[slow][0], (r[slow], e[slow])	# all-slow: no sample fast in either
# the real trace: C holds most samples; the edited one: none there, A holds them
assert r[c_fast][1] > 0.5 and e[c_fast][1] < 0.02, (r[c_fast], e[c_fast])
assert e[a_fast][1] > r[a_fast][1] + 0.3, (r[a_fast], e[a_fast])
assert r[c_fast][0] > r[slow][0] * 1.2 and abs(e[c_fast][0] - e[slow][0]) < 0.02, (r[c_fast], e[c_fast], r[slow])
assert e[a_fast][0] > r[a_fast][0] * 1.2, (r[a_fast], e[a_fast])
PY
[ "$himeno" != "$real" ] || fail "Himeno's recording gives DGEMM's answer"

# the machine: a slower slow tier (half its bandwidth) changes the same trace's answer
sed 's/bandwidth_gbs: 60.1/bandwidth_gbs: 30.05/' "$MODEL" >"$scratch/slower.yaml"
cmp -s "$MODEL" "$scratch/slower.yaml" && fail "the model's slow bandwidth was not found to change"
slower=$("$TIERLAB" simulate --no-store --format csv --model "$scratch/slower.yaml" "$key" "$scratch/at.yaml" 2>/dev/null |
	python3 -c 'import csv,sys
for r in csv.DictReader(sys.stdin): print(r["config"].replace(" ", "_"), r["estimate"], r["hit_rate"])') ||
	fail "replay with the slower model"
python3 - "$real" "$slower" <<'PY' || fail "the machine's figures do not change the answer (above)"
import sys
rows = lambda t: {l.split()[0]: float(l.split()[1]) for l in t.strip().split("\n")}
r, s = rows(sys.argv[1]), rows(sys.argv[2])
assert s["policy=all-slow"] < r["policy=all-slow"] * 0.8, (r, s)
PY

# no per-workload hand constant left to turn
cp "$MODEL" "$scratch/hand.yaml"
printf 'estimate: {bound: latency, memory_fraction: 0.05}\n' >>"$scratch/hand.yaml"
expect_exit 2 "$TIERLAB" simulate --no-store --model "$scratch/hand.yaml" "$key" "$scratch/at.yaml"
expect_contains "$out" "hand.yaml:$(wc -l <"$scratch/hand.yaml")"
expect_contains "$out" "estimate"
"$TIERLAB" simulate --no-store --memory-fraction 0.05 "$key" "$scratch/at.yaml" >/dev/null 2>&1 &&
	fail "--memory-fraction is still accepted"
echo ok
