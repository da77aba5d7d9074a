# Another process holding the database's write lock for longer than the
# busy timeout (5 s) does not drop a finished run nor stop the sweep:
# tierlab says it is waiting, stores the run once the lock is free and
# goes on.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed to hold a SQLite lock"
cat >"$scratch/l.yaml" <<'YAML'
name: locked
repetitions: 2
workload: {name: nap, command: [sleep, "2"]}
YAML
"$TIERLAB" run -q "$scratch/l.yaml" >"$scratch/log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	[ "$(sqlite3 "$TIERLAB_DB" "select count(*) from experiments" 2>/dev/null)" = 1 ] && break
	sleep 0.1
done
# hold the write lock for 8 s from within the first run
python3 - "$TIERLAB_DB" <<'PY' &
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
db.execute("BEGIN IMMEDIATE")
time.sleep(8)
db.execute("COMMIT")
PY
locker=$!
wait $pid
rc=$?
wait $locker
log=$(cat "$scratch/log")
echo "$log"
[ $rc = 0 ] || fail "tierlab exited $rc while the database was locked:
$log"
expect_contains "$log" "is locked by another process"
expect_contains "$log" "the lock is free after"
expect_contains "$log" "locked: 2 runs: 2 ok, 0 failed, 0 skipped"
[ "$(sqlite3 "$TIERLAB_DB" "select count(*) from runs where status = 'ok'")" = 2 ] \
	|| fail "runs stored: $(sqlite3 "$TIERLAB_DB" "select run_key, status from runs")"
[ "$(sqlite3 "$TIERLAB_DB" "pragma integrity_check")" = ok ] || fail "integrity_check"
echo ok
