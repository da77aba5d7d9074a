# The achieved sampling rate in `tierlab report --wide` and `tierlab show`, from
# what the store holds: runs written straight into the database (no
# runtime runs here) beside one real run without the runtime. lru at
# 1000Hz achieved 488 Hz with its ticks behind too (short), lru at 100Hz
# achieved 95 Hz (within 10%), static with sampler none ticked and took
# nothing. Every format shows an achieved rate for the two that sampled
# and warns about the short one only; show says the same for one run.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"

cat >"$scratch/t.yaml" <<YAML
name: rate-short
workload: {name: t, command: [true]}
YAML
expect_exit 0 "$TIERLAB" run -q "$scratch/t.yaml"

q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
# the real run's host load is this machine's at the moment: not what this test is about
q "delete from metrics where name like 'host.%'"
exp=$(q "select id from experiments where name = 'rate-short'")
[ -n "$exp" ] || fail "the experiment was not stored"
# run(key, policy, chunks, rate, sampler, samples, ticks, run_ns)
run() {
	q "insert into runs (experiment_id, run_key, config_key, rep, workload, allocator, policy, chunks, rate,
		sampler, log, status, fom, fom_unit, higher_is_better, wall_s)
	   values ($exp, '$1-r1', '$1', 1, 't', 'system', '$2', $3, '$4', '$5', 'counters', 'ok', 1, 's', 0, 2);
	   insert into metrics (run_id, name, value, unit) values
		(last_insert_rowid(), 'rt.samples', $6, null), (last_insert_rowid(), 'rt.ticks', $7, null),
		(last_insert_rowid(), 'rt.run_ns', $8, 'ns');"
}
run short lru 8 1000Hz fault 976 980 2e9
run fine lru 8 100Hz fault 190 199 2e9
run quiet static:1 null 100Hz none 0 200 2e9
[ "$(q "select count(*) from metrics m join runs r on r.id = m.run_id where r.run_key = 'short-r1'")" = 3 ] ||
	fail "the synthetic run's metrics were not stored"

words="rate 1000Hz achieved 488 Hz (49%): the sampler could not keep up"
expect_exit 0 "$TIERLAB" report --wide
text=$out
expect_contains "$text" "achieved Hz"
expect_contains "$text" "warning: workload=t policy=lru chunks=8 sampler=fault log=counters: $words"
[ "$(grep -c '^warning:' <<<"$text")" = 1 ] || fail "expected one warning line:
$text"
grep -Eq '^t +lru +8 +100Hz +95\.0 ' <<<"$text" || fail "no achieved 95.0 beside 100Hz:
$text"
grep -Eq '^t +static:1 +- +100Hz +- ' <<<"$text" || fail "sampler none shows an achieved rate:
$text"

expect_exit 0 "$TIERLAB" report --format markdown
expect_contains "$out" "- warning: workload=t policy=lru chunks=8 sampler=fault log=counters: $words"

expect_exit 0 "$TIERLAB" report --format csv
printf '%s\n' "$out" >"$scratch/r.csv"
col() {	# col KEY NAME: the field NAME of config KEY
	awk -F, -v k="$1" -v n="$2" '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$2 == k { if (!(n in c)) exit 1; print $c[n] }' "$scratch/r.csv"
}
[ "$(col short rate_achieved_hz)" = 488 ] || fail "csv: short achieved '$(col short rate_achieved_hz)'"
[ "$(col short rate_short)" = true ] || fail "csv: short not flagged"
[ "$(col fine rate_short)" = false ] || fail "csv: fine flagged '$(col fine rate_short)'"
[ "$(col quiet rate_achieved_hz)" = "" ] && [ "$(col quiet rate_short)" = "" ] ||
	fail "csv: sampler none has an achieved rate"

expect_exit 0 "$TIERLAB" report --format json
expect_contains "$out" "\"warnings\": [
    \"workload=t policy=lru chunks=8 sampler=fault log=counters: $words\"
  ]"
expect_contains "$out" "\"rate_achieved_hz\": 95,"

expect_exit 0 "$TIERLAB" show short-r1
expect_contains "$out" "sampling       rate 1000Hz, achieved 488 Hz (49%), ticks 490 Hz"
expect_contains "$out" "warning: $words"
expect_exit 0 "$TIERLAB" show fine-r1
expect_contains "$out" "sampling       rate 100Hz, achieved 95.0 Hz (95%), ticks 99.5 Hz"
expect_not_contains "$out" "warning:"
expect_exit 0 "$TIERLAB" show quiet-r1
expect_not_contains "$out" "sampling"
echo ok
