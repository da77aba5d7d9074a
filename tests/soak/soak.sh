#!/usr/bin/env bash
# Soak (not part of make test): an experiment of RUNS short runs (default
# 1000) that tierlab works through while it is killed at random moments
# (every KILL_EVERY seconds on average): SIGKILL, SIGTERM or SIGINT to
# tierlab, which is then started again with --resume, or (half of the
# time) SIGKILL to the workload it is running. A reader runs
# `tierlab report` on the same database all along. At the end every
# planned run must be stored ok exactly once, the database must pass
# PRAGMA integrity_check, and the reader must never have failed once the
# first run was stored. Prints what it did.
#
#   tests/soak/soak.sh [BUILD_DIR]      RUNS=1000 SEED=1 KILL_EVERY=0.05 (mean seconds between kills)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$top/build}
case $B in /*) ;; *) B=$top/$B ;; esac
T="$B/bin/tierlab"
runs=${RUNS:-1000} seed=${SEED:-1} every=${KILL_EVERY:-0.05}
work=$(mktemp -d /tmp/tierlab-soak.XXXXXX)
db="$work/soak.db"
RANDOM=$seed
for f in "$T" "$B/tests-helpers/sleeper"; do
	[ -x "$f" ] || { echo "soak: build first: $f" >&2; exit 2; }
done

cat >"$work/soak.yaml" <<YAML
name: soak
repetitions: $runs
workload: {name: nap, command: [$B/tests-helpers/sleeper, "0.02"]}
YAML

# The reader: report in a loop until told to stop; counts its failures.
reader() {
	local n=0 bad=0
	while [ ! -e "$work/stop" ]; do
		if [ -e "$db" ] && [ -n "$(sqlite3 "$db" "select 1 from runs limit 1" 2>/dev/null)" ]; then
			n=$((n + 1))
			if ! "$T" report --db "$db" >/dev/null 2>"$work/reader.err"; then
				bad=$((bad + 1))
				sed 's/^/reader: /' "$work/reader.err" | head -3 >>"$work/reader.log"
			fi
		fi
		sleep 0.05
	done
	echo "$n $bad" >"$work/reader.count"
}
reader &
reader_pid=$!

# A pause of about `every` seconds, at random (exponential).
pause() { awk -v m="$every" -v r="$RANDOM" 'BEGIN { srand(r); x = -m * log(1 - rand()); printf "%.3f", x < 0.001 ? 0.001 : x }'; }

# job control: a background job would otherwise start with SIGINT ignored
set -m
start=$SECONDS starts=0 kill9=0 term=0 int=0 wl=0 tries=0 done_ok=0
while :; do
	starts=$((starts + 1))
	"$T" run -q --resume "$work/soak.yaml" --db "$db" >"$work/last.out" 2>&1 &
	pid=$!
	# kill its workloads now and then, until tierlab itself is killed or ends
	while sleep "$(pause)"; kill -0 "$pid" 2>/dev/null; do
		tries=$((tries + 1))
		case $((RANDOM % 6)) in
		0) kill -KILL "$pid" 2>/dev/null && kill9=$((kill9 + 1)); break ;;
		1) kill -TERM "$pid" 2>/dev/null && term=$((term + 1)); break ;;
		2) kill -INT "$pid" 2>/dev/null && int=$((int + 1)); break ;;
		*) child=$(pgrep -P "$pid" | head -1)
		   [ -n "$child" ] && kill -KILL "$child" 2>/dev/null && wl=$((wl + 1)) ;;
		esac
	done
	wait "$pid"
	rc=$?
	if [ "$rc" -eq 0 ] && grep -q " 0 failed" "$work/last.out"; then
		done_ok=1
		break
	fi
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && [ "$rc" -ne 130 ] && [ "$rc" -ne 137 ] && [ "$rc" -ne 143 ]; then
		echo "soak: tierlab exited $rc:" >&2
		cat "$work/last.out" >&2
	fi
	[ $((SECONDS - start)) -lt 3600 ] || break
done
touch "$work/stop"
wait "$reader_pid"

planned=$("$T" run -n "$work/soak.yaml" --db "$db" 2>/dev/null | grep -c -- '-r[0-9]')
ok=$(sqlite3 "$db" "select count(*) from runs where status = 'ok'")
distinct=$(sqlite3 "$db" "select count(distinct run_key) from runs where status = 'ok'")
attempts=$(sqlite3 "$db" "select status || ' ' || count(*) from runs group by status" | tr '\n' ',')
integrity=$(sqlite3 "$db" "pragma integrity_check")
read -r reads bad_reads <"$work/reader.count"
echo "soak: $runs planned runs ($planned in the plan), $starts starts of tierlab in $((SECONDS - start)) s"
echo "soak: kills: $kill9 SIGKILL, $term SIGTERM, $int SIGINT to tierlab; $wl SIGKILL to the workload ($tries moments picked)"
echo "soak: stored: $ok ok ($distinct distinct); rows by status: ${attempts%,}; integrity_check: $integrity"
echo "soak: reader: $reads reports, $bad_reads failed"
[ -s "$work/reader.log" ] && sort "$work/reader.log" | uniq -c | sort -rn | head -5
status=0
[ "$done_ok" -eq 1 ] || { echo "soak: FAIL: the experiment did not complete within the hour"; status=1; }
[ "$ok" -eq "$runs" ] && [ "$distinct" -eq "$runs" ] || { echo "soak: FAIL: $ok ok rows for $distinct keys; $runs planned"; status=1; }
[ "$integrity" = ok ] || { echo "soak: FAIL: integrity_check"; status=1; }
[ "$bad_reads" -eq 0 ] || { echo "soak: FAIL: the reader failed $bad_reads times"; status=1; }
[ "$status" -eq 0 ] && echo "soak: ok" && rm -rf "$work"
[ "$status" -eq 0 ] || echo "soak: kept $work"
exit "$status"
