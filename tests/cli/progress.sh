# On a terminal a sweep shows one rewritten progress line with the run
# count and an ETA; elsewhere plain lines only.
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null || skip "no 'script' to fake a terminal"

cat >"$scratch/p.yaml" <<'YAML'
name: progress
repetitions: 4
workload: {name: nap, command: [sleep, "0.1"]}
YAML
script -qec "'$TIERLAB' run '$scratch/p.yaml'" "$scratch/tty.log" >/dev/null 2>&1 || fail "run under a terminal failed"
tty=$(cat "$scratch/tty.log")
expect_contains "$tty" "ETA"
expect_contains "$tty" "[4/4]"
expect_contains "$tty" $'\r'
expect_exit 0 "$TIERLAB" run "$scratch/p.yaml"
expect_not_contains "$out" "ETA"
expect_not_contains "$out" $'\r'
[ "$(grep -c '^\[[0-9]/4\] ok' <<<"$out")" -eq 4 ] || fail "expected 4 plain 'ok' lines:
$out"
echo ok
