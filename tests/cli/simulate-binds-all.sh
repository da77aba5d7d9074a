# all-fast and all-slow bind all of the program's memory live (no runtime,
# no threshold), so a replay gives them every recorded allocation whatever
# its size: on a trace whose only array is under the default threshold (1 MiB),
# all-fast hits every sample, all-slow none, and all-slow's estimate is
# static:0's, the same placement (issue 26: both managed nothing and
# all-slow was estimated at 100% of all-fast).
. "$(dirname "$0")/lib.sh"
MODEL=$top/experiments/machines/xeon-max-9468.yaml
{
	printf 'P\t1099511627776\t524288\t1048576\t2097152\t4294967295\t0\t16\t1000\t262144\tstatic:0\t-\t0\n'
	printf 'A\t1000\t0\t0x10000000\t524288\t0\t1\t0x0\t-\n'
	for i in $(seq 1 100); do
		printf 'S\t%d\t0x%x\t0x0\t1\t0\t0\t0\n' $((1000000 * i)) $((0x10000000 + i * 4096))
	done
} >"$scratch/small.log"
cat >"$scratch/small.yaml" <<'YAML'
name: binds-all
workload: {command: [/bin/true], fom: {regex: "x ([0-9.]+)"}, unit: x, higher_is_better: true}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 256KiB, budget: 40%, sampler: fault, rate: 1kHz}
baseline: {policy: all-fast}
matrix:
  policy: [all-fast, all-slow, {static: [0.0]}]
YAML
expect_exit 0 "$TIERLAB" simulate --no-store --format csv --trace "$scratch/small.log" "$scratch/small.yaml" --model "$MODEL"
expect_not_contains "$out" "threshold 0 is below"
row() { awk -F, -v c="policy=$1" '{ gsub(/"/, "", $1) } $1 == c { print $3, $4, $13 }' <<<"$out"; }
read -r fm fh fe <<<"$(row all-fast)"
read -r sm sh se <<<"$(row all-slow)"
read -r zm zh ze <<<"$(row static:0)"
[ "$fm $fh $fe" = "100 1.000000 1.0000" ] || fail "all-fast: managed $fm, hit rate $fh, estimate $fe: $out"
[ "$sm $sh" = "100 0.000000" ] || fail "all-slow: managed $sm, hit rate $sh: $out"
[ "$zm $zh" = "0 0.000000" ] && fail "static:0 managed nothing: $out"
[ "$se" = "$ze" ] || fail "all-slow's estimate $se is not static:0's $ze (the same placement): $out"
echo ok
