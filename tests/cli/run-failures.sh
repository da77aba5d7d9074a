# Failing workloads — crash, timeout, non-zero exit, missing binary, no
# figure of merit — are each recorded with their status, the sweep goes on,
# and tierlab exits 1 saying how many failed.
. "$(dirname "$0")/lib.sh"

cat >"$scratch/fail.yaml" <<'YAML'
name: failures
timeout: 2s
workloads:
  - {name: good, command: [sh, -c, "echo 'rate: 42.5 ops'"], fom: {regex: "rate: ([0-9.]+)", unit: ops, higher_is_better: true}}
  - {name: crash, command: [sh, -c, "kill -SEGV $$"]}
  - {name: hang, command: [sleep, "30"]}
  - {name: exit3, command: [sh, -c, "echo bad >&2; exit 3"]}
  - {name: missing, command: [/nonexistent/tierlab-no-such-program]}
  - {name: nofom, command: [echo, "nothing to see"], fom: {regex: "rate: ([0-9.]+)", unit: ops}}
matrix:
  workload: [good, crash, hang, exit3, missing, nofom]
YAML

start=$SECONDS
expect_exit 1 "$TIERLAB" run -q "$scratch/fail.yaml"
[ $((SECONDS - start)) -lt 20 ] || fail "the sweep took $((SECONDS - start))s; the 2s timeout did not stop 'hang'"
expect_contains "$out" "6 runs: 1 ok, 5 failed"

status_of() { sqlite3 "$TIERLAB_DB" "select status || '|' || coalesce(error,'') from runs where workload='$1'"; }
expect_contains "$(status_of good)" "ok|"
expect_contains "$(status_of crash)" "crashed|killed by SIGSEGV"
expect_contains "$(status_of hang)" "timeout|"
expect_contains "$(status_of exit3)" "failed|exit status 3"
expect_contains "$(status_of missing)" "failed|cannot run"
# a program that never started has no exit status (docs/schema.md), not the 127 of a shell
[ "$(sqlite3 "$TIERLAB_DB" "select typeof(exit_code) from runs where workload='missing'")" = null ] \
	|| fail "the missing program's exit_code is $(sqlite3 "$TIERLAB_DB" "select exit_code from runs where workload='missing'"), expected NULL"
[ "$(sqlite3 "$TIERLAB_DB" "select exit_code from runs where workload='exit3'")" = 3 ] || fail "exit3's exit_code"
expect_contains "$(status_of nofom)" "failed|no figure of merit"
[ "$(sqlite3 "$TIERLAB_DB" "select fom from runs where workload='good'")" = "42.5" ] || fail "fom of 'good' not stored as 42.5"
[ "$(sqlite3 "$TIERLAB_DB" "select count(*) from runs where workload<>'good' and fom is not null")" = 0 ] \
	|| fail "a failed run has a figure of merit"

# stdout and stderr are kept per run
dir=$(run_dir "$(sqlite3 "$TIERLAB_DB" "select out_dir from runs where workload='exit3'")")
grep -q bad "$dir/stderr.txt" || fail "stderr of exit3 not captured in $dir"

# show prints the failed run whole, with the end of its stderr
key=$(sqlite3 "$TIERLAB_DB" "select run_key from runs where workload='exit3'")
expect_exit 0 "$TIERLAB" show "$key"
expect_contains "$out" "exit status 3"
expect_contains "$out" "bad"

# the report counts each status
expect_exit 0 "$TIERLAB" report --format csv
expect_contains "$out" "failures"
echo ok
