# Stopping tierlab never leaves the workload's processes behind, whatever
# the signal: SIGINT, SIGTERM, SIGHUP (a closed terminal) end the sweep
# with a summary that says how many planned runs did not run and the
# command that runs them; SIGKILL, which tierlab cannot catch, still takes
# the workload's whole process group with it (its guard process does).
. "$(dirname "$0")/lib.sh"

cat >"$scratch/k.yaml" <<'YAML'
name: stopme
repetitions: 3
workload: {name: nap, command: [sh, -c, "sleep 60 & echo $! >sleep.pid; wait"]}
YAML
cd "$scratch" || exit 1

# gone: PID is not running (a zombie not yet reaped by init counts as gone)
gone() {
	local state
	for _ in $(seq 50); do
		state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
		[ -z "$state" ] || [ "$state" = Z ] && return 0
		sleep 0.1
	done
	return 1
}

# stop SIGNAL: starts the sweep, sends SIGNAL once the first run's sleep is up, checks it is gone
stop() {
	local sig=$1 pid sleeper=
	rm -rf stopme "$TIERLAB_DB"
	"$TIERLAB" run -q k.yaml >log 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		# run directories are beside the database ($scratch)
		sleeper=$(cat stopme/*/e*/sleep.pid 2>/dev/null) && [ -n "$sleeper" ] && break
		sleep 0.1
	done
	[ -n "$sleeper" ] || fail "$sig: the workload did not start: $(cat log)"
	kill -"$sig" "$pid"
	wait "$pid" 2>/dev/null
	rc=$?
	gone "$sleeper" || { kill "$sleeper"; fail "$sig: the workload's child $sleeper outlived tierlab (exit $rc)"; }
}

for sig in INT TERM HUP; do
	stop $sig
	[ "$rc" = 130 ] || fail "$sig: tierlab exited $rc, expected 130: $(cat log)"
	expect_contains "$(cat log)" "stopme: 3 runs: 0 ok, 0 failed, 0 skipped, 3 not run (stored in $TIERLAB_DB, session 1); interrupted"
	expect_contains "$(cat log)" "to run the rest: tierlab run --resume k.yaml"
done

stop KILL
[ "$rc" = 137 ] || fail "KILL: tierlab exited $rc"

# the command it gave runs the rest (here: all three, now quick)
stop INT
resume=$(sed -n 's/^to run the rest: tierlab //p' log)
[ "$resume" = "run --resume k.yaml" ] || fail "resume command: '$resume'"
sed -i 's/sleep 60 &/sleep 0 \&/' k.yaml
expect_exit 0 "$TIERLAB" $resume
expect_contains "$out" "3 runs: 3 ok, 0 failed, 0 skipped"
[ "$(sqlite3 "$TIERLAB_DB" "select count(*) || '/' || count(distinct run_key) from runs")" = 3/3 ] \
	|| fail "after --resume: $(sqlite3 "$TIERLAB_DB" "select run_key, status from runs")"
echo ok
