# The memory-policy baselines (preferred, interleave, weighted-interleave)
# on this one-node host, fast and slow both node 0: the mempolicy the
# workload runs under, read from its own /proc/self/numa_maps (prefer
# (many), interleave, weighted interleave over node 0), and recorded in the
# run's environment; weighted-interleave's weight on node 0 is the spec's
# while the workload runs and the one found before once tierlab is done (or,
# where this kernel cannot run it, the refusal says why and nothing
# changed), and with no weights given on a saved probe profile they
# follow its measured bandwidths; interleave takes no budget (its runs drop it); bad weights are
# refused with the spec's file:line; `tierlab list policies` names all three;
# a kernel before 6.9 (setarch --uname-2.6) is refused, with both scopes.
# preferred with a budget is refused here (one node for both tiers: the
# reservation would leave the whole machine the budget); its binding and
# real placement are tests/cli/mempolicy-guest.sh's.
# tierlab-test: serial (sets the machine's weighted-interleave weights and checks them after: mempolicy-managed sets them too)
. "$(dirname "$0")/lib.sh"
export TIERLAB_OUT=$scratch/out TIERLAB_STATE_DIR=$scratch/state
mkdir -p "$TIERLAB_STATE_DIR"
wi=/sys/kernel/mm/mempolicy/weighted_interleave
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"

out=$("$TIERLAB" list policies 2>&1)
expect_contains "$out" "preferred interleave weighted-interleave"
expect_contains "$out" "weighted-interleave takes fast_weight"

weight() { cat "$wi/node0" 2>/dev/null || echo none; }
before=$(weight)
# a weight unlike the one the node has, so the run shows it was set
w=7
[ "$before" = 7 ] && w=5
cat >"$scratch/s.yaml" <<YAML
name: mempolicy-host
workload: {name: maps, command: [/bin/sh, -c, "grep -m1 -E 'interleave|prefer' /proc/self/numa_maps; echo weight \$(cat $wi/node0 2>/dev/null)"]}
machine: {fast: "0", slow: "0"}
matrix:
  policy: [preferred, interleave, weighted-interleave]
  policy_args: ["fast_weight=$w,slow_weight=1"]
YAML
"$TIERLAB" run "$scratch/s.yaml" >"$scratch/run.out" 2>&1
rc=$?
out=$(cat "$scratch/run.out")
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
stdout_of() { cat "$(run_dir "$(q "select out_dir from runs where policy = '$1'")")/stdout.txt"; }
env_of() { q "select value from environment e join runs r on r.id = e.run_id where r.policy = '$1' and e.key = '$2'"; }

expect_contains "$(stdout_of preferred)" "prefer (many):0"
expect_contains "$(stdout_of interleave)" " interleave:0"
[ "$(env_of preferred mempolicy.mode)" = MPOL_PREFERRED_MANY ] || fail "preferred: mode recorded '$(env_of preferred mempolicy.mode)'"
[ "$(env_of interleave mempolicy.mode)" = MPOL_INTERLEAVE ] || fail "interleave: mode recorded '$(env_of interleave mempolicy.mode)'"
[ "$(env_of interleave mempolicy.nodes)" = "0,0" ] || fail "interleave: nodes recorded '$(env_of interleave mempolicy.nodes)'"
# the budget is preferred's (the fast tier's room); an interleave's placement is its ratio
sed 's/^matrix:/runtime: {budget: 16MiB}\nmatrix:/' "$scratch/s.yaml" >"$scratch/budget.yaml"
# (the run key says: the budget changes preferred's configuration, not interleave's)
keyof() { awk -v p="policy=$2" '$3 == p { print $2 }' <<<"$1"; }
expect_exit 0 "$TIERLAB" run -n "$scratch/s.yaml"
plain=$out
expect_exit 0 "$TIERLAB" run -n "$scratch/budget.yaml"
[ "$(keyof "$plain" interleave)" = "$(keyof "$out" interleave)" ] || fail "the budget changed interleave's run:
$plain
$out"
[ "$(keyof "$plain" preferred)" != "$(keyof "$out" preferred)" ] || fail "the budget did not change preferred's run"
# bound by filling the rest of the fast node: never with one node for both tiers (the whole machine)
sed -i -e 's/policy: \[.*\]/policy: [preferred]/' -e '/policy_args/d' "$scratch/budget.yaml"
before_huge=$(cat /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages 2>/dev/null)
expect_exit 2 "$TIERLAB" run "$scratch/budget.yaml"
expect_contains "$out" "policy 'preferred' with a budget needs a slow node apart from the fast one"
# a share of the footprint too, refused before the footprint is measured
sed -i 's/budget: 16MiB/budget: 40%/' "$scratch/budget.yaml"
expect_exit 2 "$TIERLAB" run "$scratch/budget.yaml"
expect_contains "$out" "policy 'preferred' with a budget needs a slow node apart from the fast one"
[ "$(cat /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages 2>/dev/null)" = "$before_huge" ] ||
	fail "node 0's huge pages changed"

auto=$(cat "$wi/auto" "$wi/__auto_type" 2>/dev/null | head -n 1)
rel=$(uname -r)
if [ ! -d "$wi" ] || [ "$auto" = true ]; then
	# refused before anything ran: the database is there (the other policies' plan), no weight changed
	[ $rc != 0 ] || fail "weighted-interleave ran where it must be refused: $out"
	if [ ! -d "$wi" ]; then
		expect_contains "$out" "policy 'weighted-interleave' cannot run here: "
	else
		expect_contains "$out" "would turn the kernel's automatic interleave weights off for good"
	fi
	echo "weighted-interleave refused on $rel: $(grep -o 'cannot run here: .*' <<<"$out")"
else
	[ $rc = 0 ] || fail "tierlab run exited $rc: $out"
	expect_contains "$(stdout_of weighted-interleave)" "weighted interleave:0"
	expect_contains "$(stdout_of weighted-interleave)" "weight $w"
	[ "$(weight)" = "$before" ] || fail "node 0's interleave weight is $(weight) after the run, $before before"
	[ "$(env_of weighted-interleave mempolicy.weights)" = "fast $w, slow 1" ] ||
		fail "weights recorded: '$(env_of weighted-interleave mempolicy.weights)'"
	[ "$(env_of weighted-interleave mempolicy.weights_from)" = spec ] || fail "weights_from not 'spec'"
	echo "weighted-interleave: node 0's weight $w during the run, $before before and after"
	# no weights given, a saved probe profile as the machine: the weights follow what it measured
	expect_exit 0 "$TIERLAB" probe --quick --save here
	printf 'name: from-probe\nworkload: {name: t, command: [/bin/true]}\nmachine: here\nmatrix:\n  policy: [weighted-interleave]\n' >"$scratch/probe.yaml"
	expect_exit 0 "$TIERLAB" run "$scratch/probe.yaml"
	gbs=$(sqlite3 -batch -noheader "$TIERLAB_DB" "select json_extract(json, '$.nodes[0].read_gbs') from machine_profiles where name = 'here'")
	from=$(q "select value from environment e join runs r on r.id = e.run_id join experiments x on x.id = r.experiment_id where x.name = 'from-probe' and e.key = 'mempolicy.weights_from'")
	expect_contains "$from" "(probe profile 'here')"
	# awk rounds a double as the C side does; bash's printf uses long double and rounds 8.85 up
	expect_contains "$from" "$(awk -v g="$gbs" 'BEGIN { printf "%.1f", g }') GB/s fast"
	[ "$(weight)" = "$before" ] || fail "node 0's interleave weight is $(weight) after the probe-weighted run"
	echo "weights from the probe: $from"
fi
[ ! -s "$TIERLAB_STATE_DIR/ktier.journal" ] || fail "the journal is not empty: $(cat "$TIERLAB_STATE_DIR/ktier.journal")"

# bad weights: the spec's line, before anything runs
for bad in "fast_weight=0,slow_weight=1" "fast_weight=3,slow_weight=x" "fast_weight=256,slow_weight=1"; do
	sed "s/policy_args: .*/policy_args: [\"$bad\"]/" "$scratch/s.yaml" >"$scratch/bad.yaml"
	expect_exit 2 "$TIERLAB" run "$scratch/bad.yaml"
	expect_contains "$out" "bad.yaml:6:"
	expect_contains "$out" "is not a weight (a whole number, 1 to 255)"
done
# one weight alone: refused by the plan's check, before the database
sed -e 's/policy: .*/policy: [weighted-interleave]/' -e 's/policy_args: .*/policy_args: ["fast_weight=3"]/' \
	"$scratch/s.yaml" >"$scratch/one.yaml"
rm -f "$TIERLAB_DB"
expect_exit 2 "$TIERLAB" run "$scratch/one.yaml"
[ -d "$wi" ] && [ "$auto" != true ] && expect_contains "$out" "needs both fast_weight and slow_weight, or neither"
[ ! -e "$TIERLAB_DB" ] || fail "the database was made although the plan was refused"
# no slow tier named: interleave needs both
printf 'name: x\nworkload: {name: t, command: [/bin/true]}\nmachine: {fast: "0"}\nmatrix:\n  policy: [interleave]\n' >"$scratch/noslow.yaml"
expect_exit 2 "$TIERLAB" run "$scratch/noslow.yaml"
expect_contains "$out" "policy 'interleave' needs machine.slow"

# a kernel before 6.9 (this one as 2.6.x: setarch's UNAME26 personality) is refused
# before anything is set, whole-process and managed-only alike, naming the release
if setarch x86_64 --uname-2.6 true 2>/dev/null; then
	before=$(weight)
	for scope in process managed; do
		printf 'name: old\nworkload: {name: t, command: [/bin/true]}\nmachine: {fast: "0", slow: "0"}\nruntime: {threshold: 1MiB}\nmatrix:\n  policy: [weighted-interleave]\n  policy_args: ["scope=%s"]\n' \
			"$scope" >"$scratch/old.yaml"
		expect_exit 2 setarch x86_64 --uname-2.6 "$TIERLAB" run "$scratch/old.yaml"
		expect_contains "$out" "policy 'weighted-interleave' needs Linux 6.9 or later (MPOL_WEIGHTED_INTERLEAVE); this is 2.6."
		[ "$(weight)" = "$before" ] || fail "scope $scope: the refusal changed node 0's weight: $before -> $(weight)"
	done
else
	echo "setarch --uname-2.6 is not available: the refusal before 6.9 is not checked"
fi
echo ok
