# Policy parameters through policy_args: a spec's values reach each policy
# that takes them, and only those, through TIERLAB_POLICY_ARGS. A tiny real
# experiment (memaccess tiny, fast = slow = node 0): lru takes no
# parameter and is planned once, window takes `window` and is planned per
# value; the store keeps the value per run, and the runtime's P record
# shows each value got there. A window the axis refuses (0, or more than
# its cost in the program allows: issue 27) is refused in the spec, with
# its place, before anything runs; so is the same value as the window axis.
. "$(dirname "$0")/lib.sh"

libdir=$B/lib/tierlab
[ -f "$libdir/libtiermem.so" ] || skip "libtiermem.so is not built in $libdir"
[ -f "$libdir/policy-window.so" ] && [ -f "$libdir/policy-lru.so" ] || skip "policy plugins are not built"
[ -x "$LIBEXEC/memaccess" ] || skip "the memaccess workload is not built"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"

cat >"$scratch/args.yaml" <<YAML
name: policy-args
workload: {name: memaccess, size: tiny}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 1MiB, chunks: 4, log: log}
matrix:
  policy: [lru, window]
  policy_args: [{window: 8}, "window=3"]
YAML
expect_exit 0 "$TIERLAB" run --dry-run "$scratch/args.yaml"
expect_contains "$out" "3 configurations"
expect_contains "$out" "policy=window policy_args=window=8"
expect_contains "$out" "policy=window policy_args=window=3"
[ "$(grep -c 'policy=lru' <<<"$out")" -eq 1 ] || fail "lru planned more than once:
$out"

# bounds: a window's cost in the program (24 bytes a sample) bounds it at 10^6 samples, wherever it is given
for v in '"window=0"|parameter window: '"'0'"' is not a positive integer' \
	 '"window=1000001"|parameter window: '"'1000001'"' is too large (at most 1000000)' \
	 '{window: 1000000000}|parameter window: '"'1000000000'"' is too large (at most 1000000)'; do
	sed "s/^  policy_args: .*/  policy_args: [${v%%|*}]/" "$scratch/args.yaml" >"$scratch/bad.yaml"
	expect_exit 2 "$TIERLAB" run --dry-run "$scratch/bad.yaml"
	expect_contains "$out" "bad.yaml:7:"
	expect_contains "$out" "matrix.policy_args: ${v#*|}"
done
expect_exit 2 "$TIERLAB" sweep --dry-run "$scratch/args.yaml" --window 1000000000
expect_contains "$out" "'1000000000' is too large (at most 1000000)"

expect_exit 0 "$TIERLAB" run -q "$scratch/args.yaml"
expect_contains "$out" "3 runs: 3 ok"
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
[ "$(q "select status from runs where policy = 'lru' and policy_args is null")" = ok ] \
	|| fail "lru: $(q "select policy, policy_args, status, error from runs")"
[ "$(q "select status from runs where policy = 'window' and policy_args = 'window=8'")" = ok ] \
	|| fail "window=8: $(q "select policy, policy_args, status, error from runs")"
for w in 3 8; do
	dir=$(run_dir "$(q "select out_dir from runs where policy_args = 'window=$w'")")
	grep -q "^P.*	window	window=$w	" "$dir"/tiermem-*.log \
		|| fail "window=$w: no P record with it: $(grep -h '^P' "$dir"/tiermem-*.log)"
done

# the report shows the parameter as a column
expect_exit 0 "$TIERLAB" report
expect_contains "$out" "policy_args"
echo ok
