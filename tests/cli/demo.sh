# The demo experiment end to end (its quick half, hpcg at 16^3): run,
# store, report with the baseline and the simulated-tier note.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$TIERLAB" run -q --where workload=hpcg "$top/experiments/demo.yaml"
expect_contains "$out" "8 runs: 8 ok, 0 failed"
expect_exit 0 "$TIERLAB" report
expect_contains "$out" "baseline policy=all-fast"
[ "$(grep -c '^hpcg ' <<<"$out")" -eq 4 ] || fail "expected 4 hpcg rows:
$out"
expect_contains "$out" "100.0%"
if [ "$(cat /sys/devices/system/node/online)" = 0 ]; then
	expect_contains "$out" "tiers were simulated"
fi
expect_exit 0 "$TIERLAB" report --format json
python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["rows"]) == 4, d' <<<"$out" 2>/dev/null \
	|| { command -v python3 >/dev/null && fail "report JSON does not parse or has not 4 rows"; }
# `make demo` (scripts/demo.sh) stores where the README's next command,
# `tierlab report`, looks: the default database (here with a stand-in spec)
mkdir -p "$scratch/d/experiments"
printf 'name: demo\nworkload: {command: [true]}\n' >"$scratch/d/experiments/demo.yaml"
(cd "$scratch/d" && unset TIERLAB_DB && sh "$top/scripts/demo.sh" "$B") >"$scratch/d/log" 2>&1 \
	|| fail "scripts/demo.sh: $(cat "$scratch/d/log")"
out=$(cd "$scratch/d" && unset TIERLAB_DB && "$TIERLAB" report 2>&1) || fail "after the demo, 'tierlab report' fails: $out"
expect_contains "$out" "experiment demo"

# the lru rows ran under the runtime: its counters were ingested
[ "$(sqlite3 "$TIERLAB_DB" "select count(*) from process_stats p join runs r on r.id=p.run_id where r.policy='lru'")" -gt 0 ] \
	|| fail "the lru runs have no runtime counters"
echo ok
