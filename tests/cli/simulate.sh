# tierlab simulate end to end on a one-node machine: record DGEMM small
# (three 32 MiB matrices managed) once with --record, then
#   - the recording is a run like any other (static:0, log mode, 1 kHz),
#     and replaying it with its own configuration matches what it did;
#   - --export writes one trace file (magic line, a T line per process)
#     that replays exactly as the stored run does (--verify, and the same
#     matrix gives the same figures from the file and from the run), and
#     --import makes it a run of another database that replays the same;
#   - a spec's matrix: all-fast hits every sample and migrates nothing,
#     all-slow hits none, lru/window hit rates lie in [0, 1], thinning to
#     100 Hz keeps fewer samples than 1 kHz; with the (uncalibrated) tier
#     model, all-fast is 100% and all-slow the slow/fast bandwidth ratio;
#   - every configuration is stored as a run marked simulated (the
#     recording is not), report shows the source column and the note,
#     csv a simulated column, show says so; a schema 2 database (before
#     runs.simulated) is read as it is and migrated by the next replay
#     stored in it;
#   - --advise with the whole footprint places every sampled allocation
#     whole and replays to a 100% hit rate; at 40% its placement fits the
#     budget and its line is a matrix axis a spec takes (tierlab run
#     --dry-run plans it);
#   - a tier model from a probe profile (its JSON file, or saved in the
#     store) takes the mean figures of each recommended tier's nodes; a
#     one-node profile is refused;
#   - a tier model with a bad value is refused at its line and column.
. "$(dirname "$0")/lib.sh"
libdir=$B/lib/tierlab
[ -f "$libdir/libtiermem.so" ] && [ -f "$libdir/policy-static.so" ] || skip "the runtime and policies are not built in $libdir"
[ -x "$LIBEXEC/dgemm" ] || skip "the dgemm workload is not built"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
command -v python3 >/dev/null || skip "python3 is needed to read CSV"
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
MODEL=$top/experiments/machines/xeon-max-9468.yaml

cat >"$scratch/sim.yaml" <<YAML
name: sim-test
workload: {name: dgemm, size: small, threads: 1}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 1MiB, budget: 40%, sampler: fault}
baseline: {policy: all-fast}
timeout: 5m
matrix:
  policy: [all-fast, all-slow, lru, window]
  chunks: [2, 32]
  rate: [100Hz, 1kHz]
YAML

expect_exit 0 "$TIERLAB" simulate --record "$scratch/sim.yaml"
expect_contains "$out" "1 run: 1 ok"
key=$(q "select run_key from runs")
[ "$(q "select policy || ' ' || rate || ' ' || log || ' ' || simulated from runs")" = "static:0 1000Hz log 0" ] ||
	fail "the recording is not static:0 at 1000Hz in log mode: $(q 'select policy, rate, log, simulated from runs')"

# the recording says what it is: its delivered rate, the cache and its managed footprint as facts of the run
[ "$(q "select count(*) from environment where key in ('recording.delivered_hz', 'recording.managed_bytes') and value + 0 > 0")" = 2 ] ||
	fail "the recording's delivered rate or managed footprint is not stored: $(q "select key, value from environment where key like 'recording.%'")"
expect_exit 0 "$TIERLAB" simulate "$key" --verify
expect_contains "$out" "replay matches the run"

expect_exit 0 "$TIERLAB" simulate --export "$key" -o "$scratch/run.trace"
[ "$(head -1 "$scratch/run.trace")" = "# tierlab trace 1" ] || fail "no magic line in the trace file"
grep -q "^T	[0-9]" "$scratch/run.trace" || fail "no T line in the trace file"
grep -q "^P	" "$scratch/run.trace" || fail "no P record in the trace file"
expect_exit 0 "$TIERLAB" simulate --trace "$scratch/run.trace" --verify
expect_contains "$out" "replay matches the run"

# imported into another database, the trace is a run that replays as the original
expect_exit 0 env TIERLAB_DB="$scratch/other.db" "$TIERLAB" simulate --import "$scratch/run.trace"
expect_contains "$out" "imported '$scratch/run.trace' as run"
ikey=$(sqlite3 -batch -noheader "$scratch/other.db" "select run_key from runs")
[ "$(sqlite3 -batch -noheader "$scratch/other.db" "select policy || ' ' || rate || ' ' || log || ' ' || simulated from runs")" = "static:0 1000Hz log 0" ] ||
	fail "the imported run's configuration is not the recording's"
expect_exit 0 env TIERLAB_DB="$scratch/other.db" "$TIERLAB" simulate "$ikey" --verify
expect_contains "$out" "replay matches the run"
expect_exit 2 env TIERLAB_DB="$scratch/other.db" "$TIERLAB" simulate --import "$scratch/run.trace"
expect_contains "$out" "was imported already"
# (with the model as below: its migration speed and pace decide which samples find their chunk still
# moving; a trace file has no measured footprint, so the same --unmanaged for all three)
expect_exit 0 env TIERLAB_DB="$scratch/other.db" "$TIERLAB" simulate --no-store --format csv --model "$MODEL" --unmanaged 0 "$ikey" "$scratch/sim.yaml"
printf '%s\n' "$out" | grep -v -e '^note: ' -e '^warning: rate ' | cut -d, -f1-13 >"$scratch/imported.csv"

# the matrix from the file (not stored) and from the run (stored): the same figures
expect_exit 0 "$TIERLAB" simulate --no-store --format csv --model "$MODEL" --unmanaged 0 --trace "$scratch/run.trace" "$scratch/sim.yaml"
printf '%s\n' "$out" | grep -v -e '^note: ' -e '^warning: rate ' | cut -d, -f1-13 >"$scratch/file.csv"
expect_exit 0 "$TIERLAB" simulate --format csv --model "$MODEL" --unmanaged 0 "$key" "$scratch/sim.yaml"
printf '%s\n' "$out" | grep -v -e 'stored in' -e '^note: ' -e '^warning: rate ' | cut -d, -f1-13 >"$scratch/run.csv"
diff "$scratch/file.csv" "$scratch/run.csv" >/dev/null || fail "the trace file and the run replay differently:
$(diff "$scratch/file.csv" "$scratch/run.csv" | head)"
diff "$scratch/run.csv" "$scratch/imported.csv" >/dev/null ||
	fail "the imported trace replays differently from the run"

python3 - "$scratch/run.csv" "$MODEL" <<'PY' || fail "the replayed matrix is wrong (above)"
import csv, sys, re
rows = {r["config"]: r for r in csv.DictReader(open(sys.argv[1]))}
model = open(sys.argv[2]).read()
bw = [float(x) for x in re.findall(r"bandwidth_gbs: ([0-9.]+)", model)[:2]]   # fast, slow
bad = []
def check(ok, what):
    if not ok: bad.append(what)
fast, slow = rows["policy=all-fast"], rows["policy=all-slow"]
check(float(fast["hit_rate"]) == 1 and int(fast["mig_slow_to_fast"]) == 0 and int(fast["mig_fast_to_slow"]) == 0,
      "all-fast: hit rate %s, migrations %s/%s" % (fast["hit_rate"], fast["mig_slow_to_fast"], fast["mig_fast_to_slow"]))
check(float(slow["hit_rate"]) == 0, "all-slow: hit rate %s" % slow["hit_rate"])
check(abs(float(fast["estimate"]) - 1) < 1e-9, "all-fast estimate %s" % fast["estimate"])
# uncalibrated (memory-bound, bandwidth-bound): all-slow streams at the slow tier's bandwidth
want = bw[1] / bw[0]
check(abs(float(slow["estimate"]) - want) < 1e-3, "all-slow estimate %s, the equations give %.4f" % (slow["estimate"], want))
dyn = [r for k, r in rows.items() if "lru" in k or "window" in k]
check(len(dyn) == 8, "%d lru/window configurations, expected 8" % len(dyn))
for r in dyn:
    check(0 <= float(r["hit_rate"]) <= 1 and int(r["samples_managed"]) > 0, "%s: hit rate %s" % (r["config"], r["hit_rate"]))
for k, r in rows.items():
    if "rate=100Hz" in k:
        hi = rows[k.replace("rate=100Hz", "rate=1000Hz")]
        check(int(r["samples"]) < int(hi["samples"]), "%s: %s samples, not fewer than %s at 1 kHz" % (k, r["samples"], hi["samples"]))
for b in bad: print(b)
sys.exit(1 if bad else 0)
PY

nconf=$(($(wc -l <"$scratch/run.csv") - 1))
[ "$(q "select count(*) from runs where simulated = 1")" = "$nconf" ] ||
	fail "$(q 'select count(*) from runs where simulated = 1') simulated runs stored, expected $nconf"
[ "$(q "select count(*) from runs where simulated = 0")" = 1 ] || fail "the recording is no longer the one measured run"
[ "$(q "select count(*) from runs r where simulated = 1 and fom is null and out_dir is null
	and exists (select 1 from metrics where run_id = r.id and name = 'sim.estimate')")" = "$nconf" ] ||
	fail "a simulated run has a figure of merit, an output directory or no estimate"
expect_exit 0 "$TIERLAB" report
expect_contains "$out" "source"
expect_contains "$out" "simulated  dgemm"
expect_contains "$out" "measured   dgemm"
expect_contains "$out" "$nconf configurations are simulated"
expect_exit 0 "$TIERLAB" report --format csv
expect_contains "$(head -1 <<<"$out")" ",simulated"
# a simulated row shows the model's estimate, marked as the model's, and no
# wall time: the replay's time is not how long the configuration runs
python3 - "$out" <<'PY' || fail "report CSV: a simulated row's estimate or wall time:
$out"
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
sim = [r for r in rows if r["simulated"] == "true"]
assert sim and all(r["wall_s"] == "" and r["model_pct_of_all_fast"] != "" for r in sim), sim
fast = [r for r in sim if r["policy"] == "all-fast"][0]
assert abs(float(fast["model_pct_of_all_fast"]) - 100) < 1e-6, fast
measured = [r for r in rows if r["simulated"] == "false"]
assert measured and all(r["wall_s"] != "" and r["model_pct_of_all_fast"] == "" for r in measured), measured
PY
expect_exit 0 "$TIERLAB" report --columns source,policy,model,wall
grep -Eq '^source +policy +% all-fast \(model\) +wall s$' <<<"$out" || fail "no model column:
$out"
grep -Eq '^simulated +all-fast +100\.0% +- *$' <<<"$out" || fail "simulated all-fast: not 100% by the model, or a wall time:
$out"
grep -Eq '^measured +static:0 +- +[0-9.]+ *$' <<<"$out" || fail "the recording: a model estimate, or no wall time:
$out"
expect_contains "$out" "% all-fast (model): a simulated row's estimated performance"
expect_exit 0 "$TIERLAB" report --format json
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); s=[r for r in d["rows"] if r.get("simulated")]; assert s and all(r["wall_s"] is None and r["model_pct_of_all_fast"] is not None for r in s), s' "$out" ||
	fail "report JSON: a simulated row's estimate or wall time"
expect_exit 0 "$TIERLAB" show "$(q "select run_key from runs where simulated = 1 and policy = 'all-fast' limit 1")"
expect_contains "$out" "simulated      yes"
expect_contains "$out" "estimate       100.0% of all-fast, the tier model's estimate (not measured)"
expect_contains "$out" "(how long the replay took, not a run's wall time)"
expect_not_contains "$out" "rusage"
expect_exit 0 "$TIERLAB" show "$key"
expect_not_contains "$out" "simulated      yes"

# the advisor
expect_exit 0 "$TIERLAB" simulate --advise "$key" --budget 100%
expect_contains "$out" "# replayed hit rate 100.0%"
expect_exit 0 "$TIERLAB" simulate --advise "$key" --budget 40%
line=$(grep '^policy: \[{static: \[' <<<"$out") || fail "no policy line:
$out"
budget=$(sed -n 's/^# budget \([0-9]*\) bytes.*/\1/p' <<<"$out")
python3 - "$budget" <<PY || fail "the advised placement exceeds the budget $budget:
$out"
import re, sys
fr = [float(x) for x in re.search(r"static: \[(.*?)\]", """$line""").group(1).split(",")]
sizes = [int(x) for x in re.findall(r"allocation (\d+) \((\d+) bytes", """$out""") for x in [x[1]]]
idx = [int(x) for x in re.findall(r"allocation (\d+) \(", """$out""")]
used = sum(fr[i] * s for i, s in zip(idx, sizes))
sys.exit(0 if used <= int(sys.argv[1]) + 1 and used > 0 else 1)
PY
sed "/^baseline:/d; s/^  policy: .*/  $line/; s/^  chunks:.*//; s/^  rate:.*//" "$scratch/sim.yaml" >"$scratch/advised.yaml"
expect_exit 0 "$TIERLAB" run --dry-run "$scratch/advised.yaml"
expect_contains "$out" "policy=static:"

# a model from a probe profile: a two-tier one (as a file and saved in the store), a one-node one refused
cat >"$scratch/probe.json" <<'JSON'
{"cpu_node": 0, "nodes": [
  {"id": 0, "latency_ns": 100.0, "read_gbs": 60.0, "skipped": null},
  {"id": 1, "latency_ns": 120.0, "read_gbs": 180.0, "skipped": null},
  {"id": 2, "latency_ns": 130.0, "read_gbs": 200.0, "skipped": null}],
 "recommendation": {"basis": "measured", "fast": "1-2", "slow": "0", "note": null}}
JSON
q "insert into machine_profiles (name, created_at, json) values ('two-tier', 0, readfile('$scratch/probe.json'))"
for model in "$scratch/probe.json" profile:two-tier; do
	expect_exit 0 "$TIERLAB" simulate --no-store --format csv --model "$model" "$key" "$scratch/sim.yaml" --policy all-slow
	est=$(tail -1 <<<"$out" | awk -F, '{ print $(NF - 1) }')
	# fast: the mean of nodes 1 and 2 (190 GB/s), slow: node 0 (60 GB/s); uncalibrated, bandwidth-bound
	awk -v e="$est" 'BEGIN { w = 60 / 190; exit !(e - w < 1e-3 && w - e < 1e-3) }' ||
		fail "$model: all-slow estimate $est, the probe's figures give $(awk 'BEGIN { print 60 / 190 }')"
done
sed 's/"fast": "1-2", "slow": "0"/"fast": "0", "slow": null/' "$scratch/probe.json" >"$scratch/one.json"
expect_exit 2 "$TIERLAB" simulate --no-store --model "$scratch/one.json" "$key" "$scratch/sim.yaml"
expect_contains "$out" "recommends no fast and slow tiers"

# a database of schema 2 (no runs.simulated, no allocations.freed_ns): readers read it as it is, a replay's store migrates it
cp "$TIERLAB_DB" "$scratch/v2.db"
sqlite3 "$scratch/v2.db" "pragma foreign_keys = on; delete from runs where simulated = 1; alter table runs drop column simulated;
	alter table allocations drop column freed_ns; drop index runs_session; alter table runs drop column session_id;
	drop table sessions; pragma user_version = 2" ||
	fail "cannot make a schema 2 database"
expect_exit 0 env TIERLAB_DB="$scratch/v2.db" "$TIERLAB" report --baseline policy=static:0
expect_not_contains "$out" "source"
[ "$(sqlite3 "$scratch/v2.db" 'pragma user_version')" = 2 ] || fail "a reader migrated the database"
expect_exit 0 env TIERLAB_DB="$scratch/v2.db" "$TIERLAB" simulate "$key" "$scratch/sim.yaml" --policy lru --chunks 2 --rate 100Hz
[ "$(sqlite3 "$scratch/v2.db" 'pragma user_version')" = 5 ] || fail "storing a replay did not migrate to schema 5"
[ "$(sqlite3 "$scratch/v2.db" 'select count(*) from runs where simulated = 1')" = 1 ] || fail "no simulated run in the migrated database"

# a bad model is refused where it is wrong
{ cat "$MODEL"; echo "workload: {compute_ns_per_byte: 0.01, overlap: 1.5, mlp: 0}"; } >"$scratch/bad.yaml"
expect_exit 2 "$TIERLAB" simulate --no-store --model "$scratch/bad.yaml" "$key" "$scratch/sim.yaml"
expect_contains "$out" "bad.yaml:"
expect_contains "$out" "workload.overlap: '1.5': expected a number in [0, 1]"
# a hand constant of the old model is no longer a model's field
{ cat "$MODEL"; echo "estimate: {bound: latency, memory_fraction: 0.05}"; } >"$scratch/old.yaml"
expect_exit 2 "$TIERLAB" simulate --no-store --model "$scratch/old.yaml" "$key" "$scratch/sim.yaml"
expect_contains "$out" "estimate"

# issue 27: a P record with a chunk size of 0 (or all zero) was a SIGFPE in --verify; refused, naming file and line
for f in p-chunk-size-zero p-all-zero; do
	expect_exit 2 "$TIERLAB" simulate --verify --trace "$top/tests/fuzz/regress/trace/$f"
	expect_contains "$out" "error: '$top/tests/fuzz/regress/trace/$f': line 1: P record: "
done
expect_contains "$out" "reserve_bytes 0: not a multiple of 2 MiB"
printf '# tierlab trace 1\nT\t5\nP\t1073741824\t512\t1024\t4096\t8\t0\t1000000000\t10\t1\twindow\t-\t-\n' >"$scratch/w.trace"
expect_exit 2 "$TIERLAB" simulate --verify --trace "$scratch/w.trace"
expect_contains "$out" "w.trace': line 3: P record: window 1000000000: not from 1 to 1000000"
echo ok
