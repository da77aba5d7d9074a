# Every ready spec under experiments/ plans and dry-runs on this machine,
# including the paper-size ones whose node sets this machine lacks.
. "$(dirname "$0")/lib.sh"

declare -A want=(
	[demo]=16 [hpcg-40pct]=90 [dgemm-third]=36 [himeno-L]=30 [himeno-L-ddr-fast]=30
	[fat-tlb]=63 [baselines]=42 [hpcg-40pct-paper]=90 [dgemm-third-paper]=48 [simulate-hpcg]=18
	[simulate-hpcg-medium]=18 [simulate-hpcg-paper]=18
)
n=0
for spec in "$top"/experiments/*.yaml "$top"/experiments/paper/*.yaml; do
	expect_exit 0 "$TIERLAB" run --dry-run "$spec"
	name=$(sed -n '1s/^\([^:]*\): .*/\1/p' <<<"$out")
	runs=$(sed -n '1s/.* = \([0-9]*\) runs.*/\1/p' <<<"$out")
	[ -n "${want[$name]:-}" ] || fail "$spec: experiment '$name' has no expected run count here"
	[ "$runs" = "${want[$name]}" ] || fail "$spec: $runs runs planned, expected ${want[$name]}"
	n=$((n + 1))
done
[ $n -eq ${#want[@]} ] || fail "dry-ran $n specs, expected ${#want[@]}"
# the sketch's count: 1 + 1 + (2 static x 2 rates) + (4x2 lru) + (4x2x2 window) = 30 configurations
expect_exit 0 "$TIERLAB" run -n "$top/experiments/hpcg-40pct.yaml"
expect_contains "$out" "30 configurations x 3 repetitions = 90 runs"
# paper specs say which nodes this machine lacks, without failing the dry run
expect_exit 0 "$TIERLAB" run -n "$top/experiments/paper/hpcg-40pct.yaml"
if [ "$(cat /sys/devices/system/node/online)" = 0 ]; then
	expect_contains "$out" "note: machine.fast '2' names nodes this machine does not have"
	# and a real run of those is refused before anything runs or is stored
	expect_exit 2 "$TIERLAB" run --where policy=all-fast "$top/experiments/paper/hpcg-40pct.yaml"
	expect_contains "$out" "machine.fast '2' names nodes this machine does not have"
	[ "$(sqlite3 "$TIERLAB_DB" 'select count(*) from runs' 2>/dev/null || echo 0)" = 0 ] || fail "runs stored"
fi
echo ok
