#!/usr/bin/env bash
# `make fuzz`: runs each libFuzzer target for a set time, one at a time.
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS TARGET...
#
# A target's corpus lives in BUILD_DIR/fuzz/corpus/TARGET and grows from
# run to run; it starts from the seeds (tests/fuzz/seeds/TARGET, for spec
# also every spec and descriptor of the tree) and the kept crash inputs
# (tests/fuzz/regress/TARGET). Crash, leak and timeout inputs go to
# BUILD_DIR/fuzz/artifacts/TARGET/; any there makes this fail, naming them:
# fix the cause, then keep the input in tests/fuzz/regress/TARGET so
# `make test` replays it. FUZZ_ARGS adds libFuzzer options (-runs=N, ...).
set -u
B=$1 seconds=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
status=0

seeds() {
	local t=$1
	[ -d "tests/fuzz/seeds/$t" ] && echo "tests/fuzz/seeds/$t"
	[ -d "tests/fuzz/regress/$t" ] && echo "tests/fuzz/regress/$t"
	if [ "$t" = spec ]; then
		echo tests/spec experiments
	fi
}

for t in "$@"; do
	corpus="$B/fuzz/corpus/$t" art="$B/fuzz/artifacts/$t" log="$B/fuzz/$t.log"
	mkdir -p "$corpus" "$art"
	dict=()
	if [ "$t" = rt-options ]; then
		# the variables' names, from the tables that define them
		grep -oh '"\(TIERLAB\|SHAMBLES\)_[A-Z_]*"' lib/axis/axes.h lib/tiermem/options.h |
			sort -u | sed 's/"$/="/' >"$B/fuzz/rt-options.dict"
		dict=(-dict="$B/fuzz/rt-options.dict")
	fi
	echo "fuzz: $t for ${seconds}s (log: $log)"
	# shellcheck disable=SC2046,SC2086
	"$B/fuzz/fuzz-$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
		-print_final_stats=1 -artifact_prefix="$art/" "${dict[@]}" ${FUZZ_ARGS:-} \
		"$corpus" $(seeds "$t") >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	echo "fuzz: $t: ${execs:-?} executions, corpus $(ls "$corpus" | wc -l) inputs, exit $rc"
	found=$(ls -A "$art")
	if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
		status=1
		grep -m3 -E 'ERROR|fuzz check failed|runtime error|Test unit written' "$log" | sed 's/^/    /'
		for f in $found; do echo "fuzz: $t: kept input $art/$f"; done
	fi
done
[ "$status" -eq 0 ] || echo "fuzz: findings above; fix them, then keep each input in tests/fuzz/regress/TARGET/"
exit "$status"
