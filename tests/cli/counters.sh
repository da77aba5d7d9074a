# Counters on a run: software events count, hardware events on a machine
# without a PMU are recorded as unavailable with the reason (never as 0)
# while the run succeeds; vmstat deltas and process peaks are stored;
# --events replaces the spec's list.
. "$(dirname "$0")/lib.sh"

cat >"$scratch/c.yaml" <<'YAML'
name: counted
workload: {name: hpcg, size: tiny}
events: [task-clock, page-faults, cycles, no-such-event, "{instructions,context-switches}"]
YAML
expect_exit 0 "$TIERLAB" run -q "$scratch/c.yaml"
q() { sqlite3 "$TIERLAB_DB" "$1"; }
[ "$(q "select status from counters where event='task-clock'")" = ok ] || fail "task-clock not counted"
[ "$(q "select value > 1e6 from counters where event='task-clock'")" = 1 ] || fail "task-clock below 1 ms"
[ "$(q "select value >= 100 from counters where event='page-faults'")" = 1 ] || fail "page-faults implausible"
[ "$(q "select status from counters where event='no-such-event'")" = unavailable ] || fail "bogus event not unavailable"
[ "$(q "select count(*) from counters where status<>'ok' and value is not null")" = 0 ] || fail "an unavailable counter has a value"
if ! perf_ok=$(q "select status from counters where event='cycles'") || [ "$perf_ok" != ok ]; then
	[ -n "$(q "select reason from counters where event='cycles'")" ] || fail "cycles unavailable without a reason"
fi
[ "$(q "select count(*) from metrics where name like 'vmstat.%'")" -gt 0 ] || fail "no vmstat deltas"
[ "$(q "select count(*) from metrics where name='proc.vmrss_peak' and value > 0")" = 1 ] \
	|| [ "$(q "select count(*) from metrics where name='proc.samples'")" = 0 ] || fail "no process peaks"
[ "$(q "select count(*) from environment where key='thp_enabled'")" = 1 ] || fail "no environment record"

expect_exit 0 "$TIERLAB" run -q --events page-faults "$scratch/c.yaml"
[ "$(q "select count(*) from counters c join runs r on r.id=c.run_id where r.id=(select max(id) from runs)")" = 1 ] \
	|| fail "--events did not replace the spec's events"
expect_exit 2 "$TIERLAB" run -n --events 'cycles,{instructions' "$scratch/c.yaml"
expect_contains "$out" "--events"
expect_exit 0 "$TIERLAB" show 1
expect_contains "$out" "counters:"
expect_contains "$out" "environment:"
echo ok
