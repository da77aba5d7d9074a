#!/usr/bin/env bash
# Runs every test: the cmocka unit binaries in $B/tests and the shell tests
# in tests/cli. A shell test passes with exit 0, is skipped with exit 77
# (it must say why on its output), and fails otherwise. Ends with one line
# "tests: N passed, N failed, N skipped". Exit 1 when anything failed.
#
#   tests/run.sh [BUILD_DIR] [PATTERN]   PATTERN filters test names (grep -E)
set -u
B=${1:-build}
pattern=${2:-.}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
export TIERLAB_BUILD="$top/$B"
export PATH="$top/$B/bin:$PATH"
logdir=$(mktemp -d /tmp/tierlab-tests.XXXXXX)
pass=0 fail=0 skip=0 failed=()

run_one() {
	local name=$1; shift
	local log="$logdir/$(echo "$name" | tr / _).log"
	local start=$SECONDS rc
	"$@" >"$log" 2>&1
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS  %-40s %3ds\n' "$name" $((SECONDS - start)) ;;
	77) skip=$((skip + 1)); printf 'SKIP  %-40s %s\n' "$name" "$(grep -m1 -i 'skip' "$log")" ;;
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

[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}  (logs in $logdir)"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
