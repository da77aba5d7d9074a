# Values the schema does not allow, written into a database by hand, are
# never shown as results (issue 27, item 10): a run holding one is left
# out of report, export, compare and plot with a warning naming the run
# and the column; show of that run fails with that line; a bad metric or
# counter is left out of show and report --counters with a warning; a bad
# row of a run's log stops export, plot --timeline and show --allocations
# with an error. The fixture's numbers are in tests/plot/make-fixture.sh.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
"$top/tests/plot/make-fixture.sh" "$TIERLAB" "$TIERLAB_DB" || fail "the fixture was not made"
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1" || fail "sqlite3: $1"; }
key() { q "select run_key from runs where id = $1"; }
# all-fast 2.0 (run 1) as text, all-slow 1.2 (run 4) as a blob; lru 2 10Hz's hit rate 0.80 (run 8) as 5
q "update runs set fom = 'abc' where id = 1; update runs set fom = x'00010203' where id = 4;
   update metrics set value = 5 where run_id = 8 and name = 'hit_rate'"
k1=$(key 1) k4=$(key 4) k8=$(key 8)
warned() {
	expect_contains "$out" "warning: database '$TIERLAB_DB': run 1 ($k1) left out: its fom is text 'abc', not a number"
	expect_contains "$out" "warning: database '$TIERLAB_DB': run 4 ($k4) left out: its fom is a blob of 4 bytes, not a number"
	expect_contains "$out" "warning: database '$TIERLAB_DB': run 8 ($k8) left out: its metric hit_rate is 5, not a fraction from 0 to 1"
}

expect_exit 0 "$TIERLAB" report
warned
# all-fast keeps 1.9 and 1.95, all-slow 1.25, lru 2 10Hz 1.8 at 82%: no 0 ± 0, no 500%
expect_contains "$out" "1.925 ± 0.035 (2)"
expect_contains "$out" "1.250 (1)"
expect_not_contains "$out" "290.0%"
expect_not_contains "$out" "500.0%"
expect_exit 0 "$TIERLAB" report -f csv --stats
warned
line=$(grep '^fixture,lru2-10,' <<<"$out") || fail "no lru2-10 row: $out"
grep -q ',1,GF/s,.*,0\.82,' <<<"$line" || fail "lru2-10 should hold its one good run at hit rate 0.82: $line"
grep -q '^fixture,fast,.*,1\.92[45][0-9]*,[0-9.]*,2,GF/s,' <<<"$out" || fail "all-fast should pool 1.9 and 1.95:
$out"

expect_exit 0 "$TIERLAB" export report
warned
expect_not_contains "$out" ",0,0,1,GF/s,"

expect_exit 0 "$TIERLAB" compare -f csv policy=all-fast policy=all-slow
warned

expect_exit 0 "$TIERLAB" plot --script-only -o "$scratch/p.svg"
warned
grep -q '"lru" "lru 2 n=1" 1.8 .* 82 ' "$scratch/p.dat" || fail "the plot should draw lru chunks=2 from its good run:
$(cat "$scratch/p.dat")"

# one run asked for by name: its bad value is the error
expect_exit 2 "$TIERLAB" show 1
expect_contains "$out" "error: database '$TIERLAB_DB': run 1 ($k1): its fom is text 'abc', not a number"
[ "$(grep -c . <<<"$out")" = 1 ] || fail "show printed more than its error: $out"
expect_exit 2 "$TIERLAB" show "$k8"
expect_contains "$out" "run 8 ($k8): its metric hit_rate is 5, not a fraction from 0 to 1"

# a metric or counter of a run with a bad value: left out, with a warning; the run is shown
q "insert into metrics (run_id, name, value) values (9, 'rt.samples_lost', 'many');
   insert into counters (run_id, event, value, status) values (9, 'cycles', x'ff', 'ok'), (9, 'instructions', 1e9, 'ok')"
expect_exit 0 "$TIERLAB" show 9
expect_contains "$out" "warning: database '$TIERLAB_DB': metric 'rt.samples_lost' of run 9 left out: its value is text 'many', not a number"
expect_contains "$out" "warning: database '$TIERLAB_DB': counter 'cycles' of run 9 left out: its value is a blob of 1 bytes, not a number from 0 up"
expect_not_contains "$out" "rt.samples_lost  "
expect_contains "$out" "instructions"
expect_exit 0 "$TIERLAB" report --counters
expect_contains "$out" "counter 'cycles' of run 9 left out"

# a bad row of a run's log stops the command that reads it, naming the run, the table and the column
k9=$(key 9)
q "insert into allocations (run_id, pid, seq, t_ns, addr, size) values (9, 1, 0, 0, 4096, 65536);
   insert into samples (run_id, pid, t_ns, addr, hit) values (9, 1, 10, 8192, 1), (9, 1, 20, 'x', 1);
   insert into migrations (run_id, pid, t_ns, addr, bytes, direction, ok) values (9, 1, 30, 4096, -8, 'slow-to-fast', 1)"
expect_exit 2 "$TIERLAB" export --run "$k9" samples
expect_contains "$out" "error: database '$TIERLAB_DB': run 9: a row of samples: its addr is text 'x', not a whole number"
expect_exit 2 "$TIERLAB" export --run "$k9" migrations
expect_contains "$out" "run 9: a row of migrations: its bytes is -8, not a whole number from 0 up"
expect_exit 2 "$TIERLAB" plot --script-only --timeline "$k9" -o "$scratch/t.svg"
expect_contains "$out" "run 9: a row of "
expect_exit 2 "$TIERLAB" show --allocations "$k9"
expect_contains "$out" "run 9: a row of samples: its addr is text 'x', not a whole number"
echo ok
