# Policy parameters through policy_args: a spec's values reach each policy
# that takes them, and only those, through TIERLAB_POLICY_ARGS. A tiny real
# experiment (memaccess tiny, fast = slow = node 0): lru takes no
# parameter and is planned once, window takes `window` and is planned per
# value; the store keeps the value per run. A value the window policy
# refuses (0 samples) makes its run fail with the policy's own words,
# which proves the value got there; the good one runs.
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
runtime: {threshold: 1MiB, chunks: 4}
matrix:
  policy: [lru, window]
  policy_args: [{window: 8}, "window=0"]
YAML
expect_exit 0 "$TIERLAB" run --dry-run "$scratch/args.yaml"
expect_contains "$out" "3 configurations"
expect_contains "$out" "policy=window policy_args=window=8"
expect_contains "$out" "policy=window policy_args=window=0"
[ "$(grep -c 'policy=lru' <<<"$out")" -eq 1 ] || fail "lru planned more than once:
$out"

expect_exit 1 "$TIERLAB" run -q "$scratch/args.yaml"
expect_contains "$out" "3 runs: 2 ok, 1 failed"
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
[ "$(q "select status from runs where policy = 'lru' and policy_args is null")" = ok ] \
	|| fail "lru: $(q "select policy, policy_args, status, error from runs")"
[ "$(q "select status from runs where policy = 'window' and policy_args = 'window=8'")" = ok ] \
	|| fail "window=8: $(q "select policy, policy_args, status, error from runs")"
bad=$(q "select out_dir from runs where policy_args = 'window=0' and status = 'failed'")
[ -n "$bad" ] && bad=$(run_dir "$bad")
[ -n "$bad" ] || fail "window=0 did not fail: $(q "select policy, policy_args, status, error from runs")"
expect_contains "$(cat "$bad/stderr.txt")" "policy 'window': window: not a number of samples from 1 to 1000000000: '0'"

# the report shows the parameter as a column
expect_exit 0 "$TIERLAB" report
expect_contains "$out" "policy_args"
echo ok
