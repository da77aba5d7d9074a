# The memory-policy baselines with policy_args scope=managed on this
# one-node host (fast and slow both node 0): the workload (memaccess tiny,
# --numa-maps: its own /proc/self/numa_maps lines once its list is built)
# runs under libtiermem, which puts the policy on its managed memory only:
# the list's mapping is "prefer (many):0", "interleave:0" or "weighted
# interleave:0" while its heap and stack stay "default"; with scope
# process (the default, and scope=process is the same run) all three are
# under the policy, as numactl sets it. The run's environment records
# mempolicy.scope; the runtime says once that one node changes nothing;
# it places nothing itself (no initial placement counted); a run it did
# not manage fails, as for its placement policies. A bad scope is
# refused with the spec's file:line, the runtime refuses a bad
# TIERLAB_MEMPOLICY in one line. The placement on two nodes is
# tests/cli/mempolicy-guest.sh's.
# tierlab-test: serial (sets the machine's weighted-interleave weights: mempolicy-host sets them too and checks them after)
. "$(dirname "$0")/lib.sh"
export TIERLAB_OUT=$scratch/out TIERLAB_STATE_DIR=$scratch/state
mkdir -p "$TIERLAB_STATE_DIR"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
wi=/sys/kernel/mm/mempolicy/weighted_interleave
auto=$(cat "$wi/auto" "$wi/__auto_type" 2>/dev/null | head -n 1)
policies="preferred, interleave"
# weighted-interleave sets the machine's weights: root, the sysfs weights, no auto mode (mempolicy-host.sh)
if [ -d "$wi" ] && [ "$auto" != true ] && [ "$(id -u)" = 0 ]; then
	policies="$policies, weighted-interleave"
else
	echo "weighted-interleave left out: no weights to set here"
fi

cat >"$scratch/s.yaml" <<YAML
name: mempolicy-managed
workload: {name: maps, command: [memaccess, --size, 4M, --accesses, "1000", --numa-maps]}
machine: {fast: "0", slow: "0"}
matrix:
  policy: [$policies]
  policy_args: ["fast_weight=3,slow_weight=1,scope=managed", "scope=process,fast_weight=3,slow_weight=1"]
YAML
# the key says the scope once, when managed: scope=process is the run without it
expect_exit 0 "$TIERLAB" run -n "$scratch/s.yaml"
expect_contains "$out" "policy=interleave policy_args=scope=managed"
expect_contains "$out" "policy=preferred policy_args=scope=managed"
grep -q "policy=interleave\$" <<<"$out" || fail "scope=process is not the plain interleave run: $out"
expect_not_contains "$out" "scope=process"
expect_exit 0 "$TIERLAB" run "$scratch/s.yaml"

q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
dir_of() { run_dir "$(q "select out_dir from runs where policy = '$1' and coalesce(policy_args, '') $2")"; }
maps() { grep "^numa_maps $3:" "$(dir_of "$1" "$2")/stdout.txt"; }
env_of() { q "select value from environment e join runs r on r.id = e.run_id where r.policy = '$1' and coalesce(r.policy_args, '') $2 and e.key = '$3'"; }
managed="like '%scope=managed'"
process="not like '%scope=managed'"

for p in preferred interleave weighted-interleave; do
	case $p in
	preferred) shows="prefer (many):0" mode=MPOL_PREFERRED_MANY ;;
	interleave) shows=" interleave:0" mode=MPOL_INTERLEAVE ;;
	weighted-interleave) shows="weighted interleave:0" mode=MPOL_WEIGHTED_INTERLEAVE ;;
	esac
	case ", $policies," in *", $p,"*) ;; *) continue ;; esac
	# managed: the list's mapping (the runtime's arena) alone is under the policy
	expect_contains "$(maps $p "$managed" list)" "$shows"
	expect_contains "$(maps $p "$managed" heap)" " default heap"
	expect_contains "$(maps $p "$managed" stack)" " default stack"
	[ "$(env_of $p "$managed" mempolicy.scope)" = managed ] || fail "$p: scope recorded '$(env_of $p "$managed" mempolicy.scope)'"
	[ "$(env_of $p "$managed" mempolicy.mode)" = $mode ] || fail "$p managed: mode recorded '$(env_of $p "$managed" mempolicy.mode)'"
	stderr=$(cat "$(dir_of $p "$managed")/stderr.txt")
	expect_contains "$stderr" "fast and slow tiers are both node 0: the memory policy '$p' is applied to managed memory over node 0 alone"
	[ "$(grep -c "tiermem:" <<<"$stderr")" = 1 ] || fail "$p: the runtime said more than once: $stderr"
	# managed by the runtime (its counters), which placed nothing itself
	id=$(q "select id from runs where policy = '$p' and coalesce(policy_args, '') $managed")
	[ "$(q "select value from metrics where run_id = $id and name = 'rt.allocs'")" = 1.0 ] || fail "$p: the runtime managed no allocation"
	[ "$(q "select value from metrics where run_id = $id and name = 'rt.mig_initial_slow'")" = 0.0 ] || fail "$p: the runtime placed chunks"
	# process: everything, heap and stack too, as numactl
	expect_contains "$(maps $p "$process" list)" "$shows"
	expect_contains "$(maps $p "$process" heap)" "$shows"
	expect_contains "$(maps $p "$process" stack)" "$shows"
	[ "$(env_of $p "$process" mempolicy.scope)" = process ] || fail "$p: scope recorded '$(env_of $p "$process" mempolicy.scope)'"
	expect_not_contains "$(cat "$(dir_of $p "$process")/stderr.txt")" "tiermem:"
	echo "$p: managed: list '$(maps $p "$managed" list | cut -d' ' -f4- | sed 's/ anon=.*//')', heap default; process: all"
done

# a bad scope: the spec's line and field, before anything runs
for bad in "scope=heap" "scope=Managed"; do
	sed "s/policy_args: .*/policy_args: [\"$bad\"]/" "$scratch/s.yaml" >"$scratch/bad.yaml"
	rm -f "$TIERLAB_DB"
	expect_exit 2 "$TIERLAB" run "$scratch/bad.yaml"
	expect_contains "$out" "bad.yaml:6:"
	v=${bad#scope}
	expect_contains "$out" "matrix.policy_args: scope '${v#=}' is not a scope (process: the whole process, as numactl; managed: the runtime's managed memory only)"
	[ ! -e "$TIERLAB_DB" ] || fail "the database was made although the spec was refused"
done
# only the memory policies take it
printf 'name: x\nworkload: {name: t, command: [/bin/true]}\nmachine: {fast: "0", slow: "0"}\nmatrix:\n  policy: [lru]\n  policy_args: ["scope=managed"]\n' >"$scratch/lru.yaml"
expect_exit 2 "$TIERLAB" run "$scratch/lru.yaml"
expect_contains "$out" "no policy of this spec takes a parameter 'scope'"

# the threshold says what is managed, so it stays in a scope=managed run (and only there);
# the policy is the runtime's to apply: a run it did not manage (the 4 MiB list under an
# 8 MiB threshold) is no such run
sed -e 's/^matrix:/runtime: {threshold: 8MiB}\nmatrix:/' -e 's/policy: \[.*\]/policy: [interleave]/' \
	-e 's/policy_args: .*/policy_args: ["scope=managed", "scope=process"]/' "$scratch/s.yaml" >"$scratch/big.yaml"
rm -f "$TIERLAB_DB"
expect_exit 1 "$TIERLAB" run -q "$scratch/big.yaml"
[ "$(q "select coalesce(threshold, '-') from runs where policy_args = 'scope=managed'")" = 8MiB ] ||
	fail "threshold of the scope=managed run: $(q "select threshold from runs")"
[ "$(q "select coalesce(threshold, '-') from runs where policy_args is null")" = - ] ||
	fail "the scope=process run has a threshold: $(q "select threshold from runs")"
expect_contains "$(q "select status || '|' || error from runs where policy_args = 'scope=managed'")" \
	"failed|the tiering runtime managed no allocation (none reached the threshold 8MiB), so the policy never ran"
expect_contains "$(cat "$(dir_of interleave "$managed")/stdout.txt" | grep "numa_maps list")" " default "

# the runtime's variable: a bad value in one line, the program runs unmanaged
out=$(LD_PRELOAD="$B/lib/tierlab/libtiermem.so" TIERLAB_MEMPOLICY=bind TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 \
	TIERLAB_OUT="$scratch" "$B/libexec/tierlab/memaccess" --size 4M --accesses 1000 --numa-maps 2>&1)
expect_contains "$out" "tiermem: TIERLAB_MEMPOLICY='bind': not a memory policy (preferred, interleave, weighted-interleave)"
expect_contains "$(grep "numa_maps list" <<<"$out")" " default "
echo ok
