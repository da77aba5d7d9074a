#!/usr/bin/env bash
# Runs every test: the cmocka unit binaries in $B/tests and the shell tests
# in tests/cli. A shell test passes with exit 0, is skipped with exit 77
# (it must say why on its output), and fails otherwise. Ends with one line
# "tests: N passed, N failed, N skipped". Exit 1 when anything failed.
#
#   tests/run.sh [-j JOBS] [-x EXCLUDE] [BUILD_DIR] [PATTERN]
#
# Names are unit/BINARY and cli/SCRIPT. PATTERN keeps the tests whose name
# matches (grep -E), EXCLUDE leaves out those whose name matches (-x
# -guest: every test but the QEMU guests').
#
# JOBS tests run at once (-j, else TIERLAB_TEST_JOBS, else twice the CPUs:
# many tests mostly wait on their workloads); -j 1 runs one at a time. A
# test that measures time or a rate, compares live runs' samples, boots a
# QEMU guest or changes the machine's settings runs alone, after the
# others: a shell test says so with a line "# tierlab-test: serial (WHY)",
# a unit binary by its name in tests/serial-units. Each test's
# PASS/FAIL/SKIP line is printed whole when it ends, a failure's with the
# end of its output; the longest tests (by the last run's times, kept in
# BUILD_DIR/.test-times, else tests/test-times) start first.
#
# Each test is killed, with everything it started, after
# TIERLAB_TEST_TIMEOUT seconds (default 1200: the guest tests boot QEMU
# under TCG, up to about 10 minutes with a retry); the slowest are listed
# at the end.
set -u
jobs=${TIERLAB_TEST_JOBS:-}
exclude=
while getopts 'j:x:' o; do
	case $o in
	j) jobs=$OPTARG ;;
	x) exclude=$OPTARG ;;
	*) echo "usage: tests/run.sh [-j JOBS] [-x EXCLUDE] [BUILD_DIR] [PATTERN]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
B=${1:-build}
pattern=${2:-.}
[ -n "$jobs" ] || jobs=$((2 * $(nproc 2>/dev/null || echo 1)))
case $jobs in '' | *[!0-9]* | 0) echo "tests/run.sh: -j '$jobs' (TIERLAB_TEST_JOBS) is not a number of tests" >&2; exit 2 ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
export TIERLAB_BUILD="$top/$B"
export PATH="$top/$B/bin:$PATH"
logdir=$(mktemp -d /tmp/tierlab-tests.XXXXXX)
pass=0 fail=0 skip=0 failed=() times=()
limit=${TIERLAB_TEST_TIMEOUT:-1200}
case $limit in '' | *[!0-9]* | 0) echo "tests/run.sh: TIERLAB_TEST_TIMEOUT=$limit is not a number of seconds" >&2; exit 2 ;; esac

# kill_marked MARK: SIGKILL to every process whose environment holds TIERLAB_TEST_MARK=MARK
kill_marked() {
	local e pid
	for e in /proc/[0-9]*/environ; do
		pid=${e#/proc/}
		pid=${pid%/environ}
		{ tr '\0' '\n' <"$e"; } 2>/dev/null | grep -Fxq "TIERLAB_TEST_MARK=$1" && kill -9 "$pid" 2>/dev/null
	done
}

# start_one NAME CMD...: runs the test in the background; "EXIT SECONDS NAME"
# goes to $logdir/ID.rc once it has ended (whole: written, then renamed)
declare -A running=()
start_one() {
	local name=$1 id
	shift
	id=$(tr / _ <<<"$name")
	(
		start=$SECONDS
		# at the limit the whole test goes: timeout kills its process group, and what
		# left that group (a test's own timeout, setsid, QEMU) by the mark in its environment
		TIERLAB_TEST_MARK="$$.$name" timeout -k 10 "$limit" "$@" >"$logdir/$id.log" 2>&1 </dev/null
		rc=$?
		[ $rc = 124 ] || [ $rc = 137 ] && kill_marked "$$.$name"
		echo "$rc $((SECONDS - start)) $name" >"$logdir/$id.rc.tmp" && mv "$logdir/$id.rc.tmp" "$logdir/$id.rc"
	) &
	running[$id]=$name
}

# report ID: the test's line (a failure's with the end of its output), counted
report() {
	local log="$logdir/$1.log" rc secs name
	read -r rc secs name <"$logdir/$1.rc"
	times+=("$secs $name")
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS  %-40s %3ds\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); printf 'SKIP  %-40s %s\n' "$name" "$(grep -m1 -i 'skip' "$log")" ;;
	124 | 137) fail=$((fail + 1)); failed+=("$name"); printf 'FAIL  %-40s (killed after %d s: TIERLAB_TEST_TIMEOUT)\n' "$name" "$limit"
	   sed 's/^/    | /' "$log" | tail -n 40 ;;
	*) fail=$((fail + 1)); failed+=("$name"); printf 'FAIL  %-40s (exit %d)\n' "$name" "$rc"
	   sed 's/^/    | /' "$log" | tail -n 40 ;;
	esac
}

# reap: reports every test that has ended
reap() {
	local id
	for id in "${!running[@]}"; do
		[ -f "$logdir/$id.rc" ] || continue
		unset "running[$id]"
		report "$id"
	done
}

# run_batch AT_ONCE: runs the tests in queue, AT_ONCE at a time
run_batch() {
	local at_once=$1 i=0 id
	while [ $i -lt ${#queue[@]} ] || [ ${#running[@]} -gt 0 ]; do
		while [ $i -lt ${#queue[@]} ] && [ ${#running[@]} -lt "$at_once" ]; do
			eval "start_one ${queue[$i]}"
			i=$((i + 1))
		done
		wait -n 2>/dev/null
		reap
		# a test whose runner ended without its .rc (no space left?) is not waited for for ever
		if [ ${#running[@]} -gt 0 ] && [ -z "$(jobs -pr)" ]; then
			sleep 1
			reap
			for id in "${!running[@]}"; do
				echo "tests/run.sh: the runner of ${running[$id]} ended without its exit code" >>"$logdir/$id.log"
				echo "125 0 ${running[$id]}" >"$logdir/$id.rc"
			done
			reap
		fi
	done
}

# the tests, each "NAME CMD..." quoted for eval; those that must run alone apart
parallel=() serial=()
wanted() { grep -Eq -- "$pattern" <<<"$1" && { [ -z "$exclude" ] || ! grep -Eq -- "$exclude" <<<"$1"; }; }
serial_units=" $(sed 's/#.*//' tests/serial-units 2>/dev/null | tr -s ' \t\n' '   ') "
for t in "$B"/tests/*; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	name=unit/$(basename "$t")
	wanted "$name" || continue
	if [[ $serial_units == *" $(basename "$t") "* ]]; then
		serial+=("$(printf '%q %q' "$name" "$t")")
	else
		parallel+=("$(printf '%q %q' "$name" "$t")")
	fi
done
for t in tests/cli/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	[ -f "$t" ] || continue
	name=cli/$(basename "$t" .sh)
	wanted "$name" || continue
	if grep -q '^# tierlab-test: serial' "$t"; then
		serial+=("$(printf '%q bash %q' "$name" "$t")")
	else
		parallel+=("$(printf '%q bash %q' "$name" "$t")")
	fi
done

# the longest first, so that none of them starts last: by the times of the
# last run here, else of one in tests/test-times; one not timed counts as long
times_file=$top/$B/.test-times
declare -A prev=()
for f in tests/test-times "$times_file"; do
	[ -f "$f" ] || continue
	while read -r secs name; do [ -n "$name" ] && prev[$name]=$secs; done < <(grep -v '^#' "$f")
done
if [ ${#parallel[@]} -gt 1 ]; then
	mapfile -t parallel < <(for e in "${parallel[@]}"; do
		printf '%s\t%s\n' "${prev[${e%% *}]:-99999}" "$e"
	done | sort -s -t "$(printf '\t')" -k1,1rn | cut -f2-)
fi

# interrupted: the tests running go too, with all they started (timeout put them in groups of their own)
stop_all() {
	local id
	for id in "${!running[@]}"; do kill_marked "$$.${running[$id]}"; done
	echo "tests/run.sh: interrupted (logs in $logdir)"
	exit 130
}
trap stop_all INT TERM HUP

echo "tests/run.sh: ${#parallel[@]} tests, $jobs at a time, then ${#serial[@]} alone"
wall=$SECONDS
queue=("${parallel[@]}")
run_batch "$jobs"
queue=("${serial[@]}")
run_batch 1

if [ ${#times[@]} -gt 0 ]; then
	{ printf '%s\n' "${times[@]}"; cat "$times_file" 2>/dev/null; } | awk '!seen[$2]++' >"$times_file.tmp" &&
		mv "$times_file.tmp" "$times_file"
fi
[ ${#times[@]} -gt 1 ] && echo "slowest: $(printf '%s\n' "${times[@]}" | sort -rn | head -n 5 |
	awk '{ printf "%s%s %ss", (NR > 1 ? ", " : ""), $2, $1 }')  (all: ${#times[@]} in $((SECONDS - wall)) s)"
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}  (logs in $logdir)"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
