#!/usr/bin/env bash
# Runs every test: the cmocka unit binaries in $B/tests and the shell tests
# in tests/cli. A shell test passes with exit 0, is skipped with exit 77
# (it must say why on its output), and fails otherwise. Ends with one line
# "tests: N passed, N failed, N skipped". Exit 1 when anything failed.
#
#   tests/run.sh [BUILD_DIR] [PATTERN]   PATTERN filters test names (grep -E)
#
# Each test is killed, with everything it started, after
# TIERLAB_TEST_TIMEOUT seconds (default 1200: the guest tests boot QEMU
# under TCG, up to about 10 minutes with a retry); the slowest are listed
# at the end.
set -u
B=${1:-build}
pattern=${2:-.}
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

run_one() {
	local name=$1; shift
	local log="$logdir/$(echo "$name" | tr / _).log"
	local start=$SECONDS rc
	# at the limit the whole test goes: timeout kills its process group, and what
	# left that group (a test's own timeout, setsid, QEMU) by the mark in its environment
	TIERLAB_TEST_MARK="$$.$name" timeout -k 10 "$limit" "$@" >"$log" 2>&1 </dev/null
	rc=$?
	[ $rc = 124 ] || [ $rc = 137 ] && kill_marked "$$.$name"
	times+=("$((SECONDS - start)) $name")
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS  %-40s %3ds\n' "$name" $((SECONDS - start)) ;;
	77) skip=$((skip + 1)); printf 'SKIP  %-40s %s\n' "$name" "$(grep -m1 -i 'skip' "$log")" ;;
	124 | 137) fail=$((fail + 1)); failed+=("$name"); printf 'FAIL  %-40s (killed after %d s: TIERLAB_TEST_TIMEOUT)\n' "$name" "$limit"
	   sed 's/^/    | /' "$log" | tail -n 40 ;;
	*) fail=$((fail + 1)); failed+=("$name"); printf 'FAIL  %-40s (exit %d)\n' "$name" $rc
	   sed 's/^/    | /' "$log" | tail -n 40 ;;
	esac
}

for t in "$B"/tests/*; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	name=unit/$(basename "$t")
	echo "$name" | grep -Eq -- "$pattern" || continue
	run_one "$name" "$t"
done
for t in tests/cli/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	[ -f "$t" ] || continue
	name=cli/$(basename "$t" .sh)
	echo "$name" | grep -Eq -- "$pattern" || continue
	run_one "$name" bash "$t"
done

[ ${#times[@]} -gt 1 ] && echo "slowest: $(printf '%s\n' "${times[@]}" | sort -rn | head -n 5 |
	awk '{ printf "%s%s %ss", (NR > 1 ? ", " : ""), $2, $1 }')"
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}  (logs in $logdir)"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
