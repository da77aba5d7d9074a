# The memory-policy baselines on real tiers: the installed tool in a 2-node
# QEMU guest with HMAT (node 0 fast, node 1 slow, 512 MiB each, THP never),
# tests/guest/placement (64 MiB touched in order, then every page's node
# from move_pages) as the workload. In the guest
# (tests/guest/mempolicy-session.sh):
#
#  - interleave alternates: node 0 and node 1 hold half the pages each
#    (within 1%), and at least 98% of consecutive pages are on different
#    nodes;
#  - weighted-interleave with fast_weight=3, slow_weight=1 places 3/4 of
#    the pages on node 0 (within 2% of the pages), and with no weights
#    given the ratio of the weights it derived from the nodes' HMAT
#    bandwidths (recorded in the run's environment), within 2%;
#  - preferred with budget 24 MiB fills node 0 first and spills to node 1
#    once node 0 is full: node 0 ends with 0.7 to 1.5 times the budget,
#    the rest on node 1, and almost no page touched after the first spill
#    lands on node 0 (at most 2% of the pages); preferred without a budget
#    (the fast node's free memory, 400+ MiB) keeps every page on node 0;
#  - the settings (both nodes' interleave weights, node 0's huge pages)
#    after the runs are the ones before; kill -9 of tierlab in the middle
#    of a weighted-interleave run and of a preferred run with a budget
#    leaves them changed, and the next `tierlab run` puts them back;
#  - with policy_args scope=managed (the workload's 64 MiB from malloc,
#    so the runtime's arena, and 16 MiB more mmap'd, not the runtime's):
#    interleave alternates on the managed range as above while the
#    unmanaged range stays on one node with no alternation (the default
#    policy), weighted-interleave 3:1 puts 3/4 of the managed pages on
#    node 0, preferred with budget 24 MiB fills node 0 with 0.5 to 1.5
#    times the budget of managed pages and then spills them to node 1;
#    recorded as mempolicy.scope managed;
#  - `tierlab report` names every policy.
# Skips (77) when QEMU, the kernel, busybox, sqlite3 is missing or the guest
# does not boot.
# tierlab-test: serial (boots a QEMU guest under TCG, which must come up within its timeout)
. "$(dirname "$0")/lib.sh"
guest=$top/tests/guest/run-in-guest.sh
session=$top/tests/guest/mempolicy-session.sh
placement=$B/guest/placement
[ -x "$placement" ] || fail "$placement is not built (make $placement)"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"

. "$top/tests/guest/stage-tool.sh"
stage_tool "$placement"

wl='{name: placement, command: [/opt/tierlab-test/placement, --mib, "64"], fom: {regex: "figure-of-merit: ([0-9.]+)", unit: Mpages/s}}'
cat >"$scratch/spec.yaml" <<YAML
name: mempolicy-guest
description: memory-policy baselines on a 2-node guest (node 0 fast, node 1 slow)
workload: $wl
machine: {fast: "0", slow: "1"}
runtime: {budget: 24MiB}
timeout: 120s
matrix:
  policy: [preferred, interleave, weighted-interleave]
  policy_args: ["fast_weight=3,slow_weight=1"]
YAML
cat >"$scratch/more.yaml" <<YAML
name: mempolicy-guest-more
workload: $wl
machine: {fast: "0", slow: "1"}
timeout: 120s
matrix:
  policy: [preferred, weighted-interleave]
YAML
cat >"$scratch/managed.yaml" <<YAML
name: mempolicy-guest-managed
workload: {name: placement-malloc, command: [/opt/tierlab-test/placement, --malloc, --mib, "64"], fom: {regex: "figure-of-merit: ([0-9.]+)", unit: Mpages/s}}
machine: {fast: "0", slow: "1"}
runtime: {budget: 24MiB}
timeout: 120s
matrix:
  policy: [interleave, weighted-interleave, preferred]
  policy_args: ["scope=managed,fast_weight=3,slow_weight=1"]
YAML
sed -e 's/"64"\]/"64", --hold, "60"]/' -e 's/policy: \[.*\]/policy: [weighted-interleave]/' "$scratch/spec.yaml" >"$scratch/kill-weighted.yaml"
sed -e '/policy_args/d' -e 's/"64"\]/"64", --hold, "60"]/' -e 's/policy: \[.*\]/policy: [preferred]/' "$scratch/spec.yaml" >"$scratch/kill-preferred.yaml"
printf 'name: noop\nworkload: {name: true, command: [/bin/true]}\n' >"$scratch/noop.yaml"
for f in spec more kill-weighted kill-preferred noop managed; do
	adds+=(--add "$scratch/$f.yaml:/$f.yaml")
done

failed=0
bad() { echo "FAIL: $*"; failed=1; }
for try in 1 2; do
	timeout 590 "$guest" --nodes 2 --hmat --mem 512M --thp never --timeout 570 "${adds[@]}" \
		-- "$session" /spec.yaml /more.yaml /kill-weighted.yaml /kill-preferred.yaml /noop.yaml /managed.yaml \
		>"$scratch/console" 2>&1
	rc=$?
	[ $rc = 77 ] && grep -aq '^SKIP: the guest' "$scratch/console" && [ $try = 1 ] && continue
	break
done
[ $rc = 77 ] && skip "$(grep -a -m1 '^SKIP' "$scratch/console" | sed 's/^SKIP: //')"
console=$(tr -d '\r' <"$scratch/console")
[ -z "${MEMPOLICY_GUEST_CONSOLE:-}" ] || cp "$scratch/console" "$MEMPOLICY_GUEST_CONSOLE"
grep -a -e '^TIERLAB-GUEST:' -e 'runs:' -e 'error' -e 'warning' <<<"$console" | grep -v -e 'BEGIN' -e 'END' | head -40
[ $rc = 0 ] || fail "the guest session exited $rc; console:
$(grep -av '^[A-Za-z0-9+/=]*$' <<<"$console" | tail -n 60)"
expect_contains "$console" "TIERLAB-GUEST: nodes 2"
expect_contains "$console" "3 runs: 3 ok, 0 failed"
expect_contains "$console" "2 runs: 2 ok, 0 failed"

setting() { sed -n "s/^TIERLAB-GUEST: settings $1 //p" <<<"$console"; }
before=$(setting before-run)
[ -n "$before" ] || fail "no settings printed before the runs"
[ "$(setting after-run)" = "$before" ] || bad "settings after the runs: $(setting after-run), before: $before"
for pol in weighted preferred; do
	during=$(setting during-kill-$pol) killed=$(setting after-kill-$pol) back=$(setting after-restart-$pol)
	[ -n "$during" ] && [ "$during" != "$before" ] || bad "kill -9 $pol: nothing changed during the run: '$during'"
	[ "$killed" != "$before" ] || bad "kill -9 $pol: settings back before tierlab started again (nothing shown)"
	[ "$back" = "$before" ] || bad "kill -9 $pol: the next tierlab start did not put everything back: $back"
	grep -q "kill-$pol: the workload outlived tierlab" <<<"$console" && bad "kill -9 $pol: the workload outlived tierlab"
	echo "kill -9 of tierlab during $pol: before '$before'; during '$during'; after the kill '$killed'; after the next start '$back'"
done
expect_contains "$console" "a tierlab that died left kernel tiering settings changed: put back as they were"

mkdir -p "$scratch/out"
sed -n '/^TIERLAB-GUEST: BEGIN results.tar.gz.b64$/,/^TIERLAB-GUEST: END results.tar.gz.b64/p' <<<"$console" |
	sed '1d;$d' | base64 -d | tar -C "$scratch/out" -xzf - || fail "the results did not come back whole over the console"
res=$scratch/out/results
q() { sqlite3 -batch -noheader "$res/tierlab.db" "$1"; }
report=$(sed -n '/^TIERLAB-GUEST: BEGIN report$/,/^TIERLAB-GUEST: END report/p' <<<"$console" | sed '1d;$d')
echo "$report"
for pol in preferred interleave weighted-interleave; do
	grep -Fq -- "$pol" <<<"$report" || bad "the report does not name $pol"
done
# placement EXPERIMENT POLICY: the run's placement lines as "n n0 n1 changes fast_after"
placement() {
	local id dir out
	id=$(q "select r.id from runs r join experiments e on e.id = r.experiment_id where e.name = '$1' and r.policy = '$2'")
	dir=$(q "select out_dir from runs where id = $id")
	out=$(cat "$res/$dir/stdout.txt")
	echo "$1 $2: $(grep '^placement:' <<<"$out" | tr '\n' ' ')" >&2
	awk '/^placement: pages/ { n = $3; a = $5; b = $7 } /^placement: changes/ { c = $3 }
	     /^placement: node0 after/ { f = $8 } END { print n, a, b, c, f }' <<<"$out"
}
envof() { q "select value from environment e join runs r on r.id = e.run_id join experiments x on x.id = r.experiment_id
	     where x.name = '$1' and r.policy = '$2' and e.key = '$3'"; }
within() { awk -v v="$1" -v want="$2" -v tol="$3" 'BEGIN { exit !(v >= want - tol && v <= want + tol) }'; }

read -r n a b c f <<<"$(placement mempolicy-guest interleave)"
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "interleave: no placement"
within "$a" $((n / 2)) $((n / 100)) && within "$b" $((n / 2)) $((n / 100)) || bad "interleave: $a and $b pages of $n on nodes 0 and 1"
[ $((100 * c)) -ge $((98 * (n - 1))) ] || bad "interleave: only $c of $((n - 1)) consecutive pages alternate"

read -r n a b c f <<<"$(placement mempolicy-guest weighted-interleave)"
within "$a" $((3 * n / 4)) $((n / 50)) || bad "weighted-interleave 3:1: $a of $n pages on node 0, want $((3 * n / 4)) +- $((n / 50))"
[ "$(envof mempolicy-guest weighted-interleave mempolicy.weights)" = "fast 3, slow 1" ] || bad "weights recorded: $(envof mempolicy-guest weighted-interleave mempolicy.weights)"

w=$(envof mempolicy-guest-more weighted-interleave mempolicy.weights)
from=$(envof mempolicy-guest-more weighted-interleave mempolicy.weights_from)
echo "weights derived: $w ($from)"
grep -q HMAT <<<"$from" || bad "derived weights do not say they came from HMAT: '$from'"
wf=$(sed -n 's/^fast \([0-9]*\), slow \([0-9]*\)$/\1/p' <<<"$w") ws=$(sed -n 's/^fast \([0-9]*\), slow \([0-9]*\)$/\2/p' <<<"$w")
[ -n "$wf" ] && [ -n "$ws" ] || fail "no derived weights recorded: '$w'"
read -r n a b c f <<<"$(placement mempolicy-guest-more weighted-interleave)"
within "$a" $((wf * n / (wf + ws))) $((n / 50)) || bad "weighted-interleave $wf:$ws: $a of $n pages on node 0"

budget_pages=$((24 * 256))
read -r n a b c f <<<"$(placement mempolicy-guest preferred)"
# measured 0.84-0.87 x: tierlab's own and the kernel's allocations on node 0 during the
# run share the budget (docs/policies.md); 0.7 leaves room for a busier guest
[ $((10 * a)) -ge $((7 * budget_pages)) ] && [ $((2 * a)) -le $((3 * budget_pages)) ] ||
	bad "preferred, budget $budget_pages pages: $a pages on node 0"
[ "$b" -gt 0 ] || bad "preferred: nothing spilled to node 1 ($a on node 0)"
[ $((50 * f)) -le "$n" ] || bad "preferred: $f pages on node 0 after the first spill to node 1"
echo "preferred, budget $budget_pages pages: node 0 $a, node 1 $b, node 0 after the first spill $f; reserved $(q "select cast(value as integer) >> 20 from metrics m join runs r on r.id = m.run_id where r.policy = 'preferred' and m.name = 'ktier.reserved_bytes'") MiB"
read -r n a b c f <<<"$(placement mempolicy-guest-more preferred)"
[ "$a" = "$n" ] || bad "preferred without a budget: $a of $n pages on node 0"

# scope managed: the policy on the runtime's memory only
[ "$(grep -c "^\[[0-9]/3\] ok .*scope=managed" <<<"$console")" = 3 ] || bad "the scope=managed runs did not all run ok"
read -r n a b c f <<<"$(placement mempolicy-guest-managed interleave)"
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "interleave, scope managed: no placement"
within "$a" $((n / 2)) $((n / 100)) && within "$b" $((n / 2)) $((n / 100)) ||
	bad "interleave, scope managed: $a and $b pages of $n on nodes 0 and 1"
[ $((100 * c)) -ge $((98 * (n - 1))) ] || bad "interleave, scope managed: only $c of $((n - 1)) consecutive pages alternate"
unmanaged() {
	local id dir
	id=$(q "select r.id from runs r join experiments e on e.id = r.experiment_id where e.name = '$1' and r.policy = '$2'")
	dir=$(q "select out_dir from runs where id = $id")
	sed -n 's/^placement: unmanaged pages \([0-9]*\) node0 \([0-9]*\) node1 \([0-9]*\) other [0-9]* changes \([0-9]*\)$/\1 \2 \3 \4/p' \
		"$res/$dir/stdout.txt"
}
read -r un ua ub uc <<<"$(unmanaged mempolicy-guest-managed interleave)"
echo "interleave, scope managed: managed $a/$b of $n pages on nodes 0/1, $c changes; unmanaged $ua/$ub of $un, $uc changes"
[ -n "$un" ] && [ "$un" -gt 0 ] || fail "interleave, scope managed: no unmanaged placement"
# the default policy: one node (the CPU's), no alternation
[ "$ua" = "$un" ] || [ "$ub" = "$un" ] || bad "interleave, scope managed: the unmanaged range is on both nodes ($ua, $ub of $un)"
[ "$uc" = 0 ] || bad "interleave, scope managed: the unmanaged range alternates ($uc changes)"
[ "$(envof mempolicy-guest-managed interleave mempolicy.scope)" = managed ] ||
	bad "interleave, scope managed: scope recorded '$(envof mempolicy-guest-managed interleave mempolicy.scope)'"
read -r n a b c f <<<"$(placement mempolicy-guest-managed weighted-interleave)"
within "$a" $((3 * n / 4)) $((n / 50)) || bad "weighted-interleave 3:1, scope managed: $a of $n pages on node 0"
read -r un ua ub uc <<<"$(unmanaged mempolicy-guest-managed weighted-interleave)"
[ "$uc" = 0 ] || bad "weighted-interleave, scope managed: the unmanaged range alternates ($uc changes)"
echo "weighted-interleave 3:1, scope managed: managed $a of $n pages on node 0; unmanaged $ua/$ub of $un"
read -r n a b c f <<<"$(placement mempolicy-guest-managed preferred)"
# measured 0.68-1.01 x in 4 runs: whatever else allocates on node 0 meanwhile shares the
# budget (with scope managed, the rest of the process too, under the default policy), and
# varied more than with scope process, so the floor is half of it
[ $((2 * a)) -ge "$budget_pages" ] && [ $((2 * a)) -le $((3 * budget_pages)) ] ||
	bad "preferred, scope managed, budget $budget_pages pages: $a managed pages on node 0"
[ "$b" -gt 0 ] || bad "preferred, scope managed: nothing spilled to node 1 ($a on node 0)"
# Pages after the first spill may land on node 0 again once kswapd, woken at its low
# watermark, has freed some (seen: 992 of 16384 in one run, 0 in another): fast first is
# node 0's total within the budget's bounds above; a tenth of the pages leaves room for that
[ $((10 * f)) -le "$n" ] || bad "preferred, scope managed: $f pages on node 0 after the first spill to node 1"
read -r un ua ub uc <<<"$(unmanaged mempolicy-guest-managed preferred)"
echo "preferred, scope managed, budget $budget_pages pages: managed node 0 $a, node 1 $b, node 0 after the first spill $f; unmanaged $ua/$ub of $un"
[ $failed = 0 ] || exit 1
echo ok
