# The demo experiment end to end (its quick half, hpcg at 16^3): run,
# store, report with the baseline and the simulated-tier note, and a first
# screen a newcomer reads right (every % base beside its caution).
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
# the first screen (24 lines of 100 columns) reads right: two repetitions
# are too few, so no % of the baseline stands there without its caution,
# and the notes that say how to read it (the cautions, simulated tiers)
# are on it too
first=$(head -24 <<<"$out")
[ "$(python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in sys.stdin))' <<<"$first")" -le 100 ] ||
	fail "the report's first screen is wider than 100 columns:
$out"
! grep -E '^hpcg ' <<<"$first" | grep -Ev '[0-9.]+% +n<3' || fail "a % of baseline without its caution:
$out"
expect_contains "$first" "note: caution (n<3"
# a run taken on a busy host (a 1-minute load above the CPUs online, as on
# a shared machine) puts "busy host" beside its row's figure, on the first
# screen, and what it means under the table
busy=$(sqlite3 "$TIERLAB_DB" "select group_concat(distinct r.policy) from runs r
	where (select max(value) from metrics where run_id = r.id and name in ('host.load1_before', 'host.load1_after'))
	    > (select value from metrics where run_id = r.id and name = 'host.cpus')")
for p in ${busy//,/ }; do
	grep -E "^hpcg +$p " <<<"$first" | grep -q "busy host" || fail "policy $p ran on a busy host, its row does not say so:
$out"
	grep -Eq '^note: caution \(.*busy host' <<<"$first" || fail "the first screen does not say what 'busy host' means:
$out"
done
if [ "$(cat /sys/devices/system/node/online)" = 0 ]; then
	expect_contains "$first" "tiers were simulated"
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

# `make demo` builds `make demo-tool` only, whose workloads the Makefile
# reads from experiments/demo.yaml: it builds the program of every
# workload the demo plans (and none of the others, nor their libraries)
expect_exit 0 "$TIERLAB" run -n "$top/experiments/demo.yaml"
planned=$(grep -o ' workload=[^ ]*' <<<"$out" | sed 's/.*=//' | sort -u)
[ -n "$planned" ] || fail "the demo plans no workload: $out"
built=$(make -s -n -C "$top" demo-tool B="$scratch/demo-build" 2>&1) || fail "make -n demo-tool: $built"
for w in $planned; do
	grep -q -- "-o $scratch/demo-build/libexec/tierlab/$w " <<<"$built" ||
		fail "make demo-tool does not build $w, which experiments/demo.yaml runs:
$built"
done
! grep -Eq -- "-o $scratch/demo-build/libexec/tierlab/dgemm |-lopenblas" <<<"$built" ||
	fail "make demo-tool builds dgemm (OpenBLAS), which the demo does not run"

# the lru rows ran under the runtime: its counters were ingested
[ "$(sqlite3 "$TIERLAB_DB" "select count(*) from process_stats p join runs r on r.id=p.run_id where r.policy='lru'")" -gt 0 ] \
	|| fail "the lru runs have no runtime counters"
echo ok
