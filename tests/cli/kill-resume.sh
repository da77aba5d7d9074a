# A sweep killed with SIGKILL midway loses nothing that finished; --resume
# runs the rest; every planned run is then stored exactly once and the
# database passes PRAGMA integrity_check.
. "$(dirname "$0")/lib.sh"

cat >"$scratch/slow.yaml" <<'YAML'
name: killme
repetitions: 12
workload: {name: nap, command: [sleep, "0.25"]}
YAML

"$TIERLAB" run -q "$scratch/slow.yaml" >"$scratch/log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	n=$(sqlite3 "$TIERLAB_DB" "select count(*) from runs" 2>/dev/null || echo 0)
	[ "${n:-0}" -ge 4 ] && break
	sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
before=$(sqlite3 "$TIERLAB_DB" "select count(*) from runs")
[ "$before" -ge 4 ] && [ "$before" -lt 12 ] || fail "expected 4-11 runs stored before the kill, found $before"
[ "$(sqlite3 "$TIERLAB_DB" "pragma integrity_check")" = ok ] || fail "integrity_check after SIGKILL"

expect_exit 0 "$TIERLAB" run -q --resume "$scratch/slow.yaml"
expect_contains "$out" "skipped"
total=$(sqlite3 "$TIERLAB_DB" "select count(*) || '/' || count(distinct run_key) from runs")
[ "$total" = "12/12" ] || fail "after resume: runs/distinct keys = $total, expected 12/12"
[ "$(sqlite3 "$TIERLAB_DB" "pragma integrity_check")" = ok ] || fail "integrity_check after resume"

# a second --resume runs nothing
expect_exit 0 "$TIERLAB" run -q --resume "$scratch/slow.yaml"
expect_contains "$out" "12 skipped"
echo ok
