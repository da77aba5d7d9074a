# A static policy samples at the rate and with the sampler a spec asks
# for: a tiny real experiment (memaccess tiny, fast = slow = node 0, so
# nothing moves) with static:1 at 250Hz under the fault sampler and under
# `none`. The store records rate and sampler for both, the runtime ran at
# what was asked (its counters file header says so), the fault run took
# samples and the none run took none (its ticks may count). The report
# and `tierlab show` give the fault run an achieved rate and the none run
# none. No rate is asserted: the run lasts tens of milliseconds.
. "$(dirname "$0")/lib.sh"

libdir=$B/lib/tierlab
T=$B/tests/tiermem
[ -f "$libdir/libtiermem.so" ] || skip "libtiermem.so is not built in $libdir"
[ -f "$libdir/policy-static.so" ] || skip "policy-static.so is not built in $libdir"
[ -x "$LIBEXEC/memaccess" ] || skip "the memaccess workload is not built"
[ -x "$T/counters-dump" ] || skip "tests/tiermem/counters-dump is not built"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"

cat >"$scratch/static.yaml" <<YAML
name: static-sampling
workload: {name: memaccess, size: tiny}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 1MiB, rate: 250Hz}
matrix:
  policy: [{static: [1.0]}]
  sampler: [fault, none]
YAML
expect_exit 0 "$TIERLAB" run -q "$scratch/static.yaml"
expect_contains "$out" "2 runs: 2 ok, 0 failed"

q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
stat() { q "select sum(value) from process_stats where run_id = $1 and name = '$2'"; }
for sampler in fault none; do
	id=$(q "select id from runs where sampler = '$sampler'")
	[ -n "$id" ] || fail "no run stored with sampler '$sampler'; stored (policy|rate|sampler):
$(q 'select policy, rate, sampler from runs')"
	got=$(q "select policy || ' ' || rate || ' ' || log from runs where id = $id")
	[ "$got" = "static:1 250Hz counters" ] || fail "sampler $sampler: stored '$got', expected 'static:1 250Hz counters'"

	# what the runtime ran with: the header of its counters file
	dir=$(run_dir "$(q "select out_dir from runs where id = $id")")
	files=("$dir"/tiermem-*.counters)
	[ -f "${files[0]}" ] || fail "sampler $sampler: no counters file in $dir"
	dump=$("$T/counters-dump" "${files[0]}")
	expect_contains "$dump" "rate_hz 250"
	expect_contains "$dump" "sampler $sampler"
	expect_contains "$dump" "policy static"

	samples=$(stat "$id" samples)
	ticks=$(stat "$id" ticks)
	echo "sampler $sampler: $ticks ticks, $samples samples"
	if [ "$sampler" = fault ]; then
		[ "${samples:-0}" -gt 0 ] || fail "static with the fault sampler took no sample ($ticks ticks)"
		[ "$(stat "$id" samples_managed)" = "$(( $(stat "$id" hits) + $(stat "$id" misses) ))" ] ||
			fail "samples_managed is not hits + misses"
		[ -n "$(q "select value from metrics where run_id = $id and name = 'hit_rate'")" ] ||
			fail "static with the fault sampler has no hit_rate"
	else
		[ "$samples" = 0 ] || fail "static with sampler none took $samples samples"
		[ -z "$(q "select value from metrics where run_id = $id and name = 'hit_rate'")" ] ||
			fail "static with sampler none has a hit_rate"
	fi
done

# the report: the rate column, an achieved rate for fault only
expect_exit 0 "$TIERLAB" report --format csv
printf '%s\n' "$out" >"$scratch/report.csv"
expect_contains "$(head -n 1 "$scratch/report.csv")" ",rate_achieved_hz,"
for sampler in fault none; do
	line=$(grep ",$sampler," "$scratch/report.csv") || fail "no report row for sampler $sampler:
$out"
	expect_contains "$line" ",250Hz,"
	achieved=$(awk -F, -v s="$sampler" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["sampler"] == s { print $c["rate_achieved_hz"] }' "$scratch/report.csv")
	if [ "$sampler" = fault ]; then
		awk -v v="$achieved" 'BEGIN { exit !(v > 0) }' || fail "fault: achieved rate '$achieved' in:
$out"
	else
		[ -z "$achieved" ] || fail "none: an achieved rate '$achieved' for a run that took no samples"
	fi
done
expect_exit 0 "$TIERLAB" report
expect_contains "$out" "achieved Hz"
fid=$(q "select id from runs where sampler = 'fault'")
nid=$(q "select id from runs where sampler = 'none'")
expect_exit 0 "$TIERLAB" show "$fid"
expect_contains "$out" "sampling       rate 250Hz, achieved "
expect_exit 0 "$TIERLAB" show "$nid"
expect_not_contains "$out" "achieved"
echo ok
