# Replay is the runtime's own decision code: a live run in log mode (fault
# sampler at 500 Hz on a Zipf pattern, fast = slow = node 0, so migrations
# happen logically and are logged), then `tierlab simulate --trace LOG`
# replays its samples with the run's policy and parameters (the log's P
# record). For lru and window, with a fixed budget in chunks and with a
# percentage budget that follows the footprint:
#   - --verify: every sample's chunk and hit and every placement and
#     migration, in order, as the run logged them;
#   - independently of --verify: the replay's own stream (--events) is the
#     log's S chunk/hit and M chunk/direction columns, line for line, and
#     holds migrations (not only initial placements);
#   - the check can fail: the same log with one sample's hit flipped, and
#     with one migration dropped, is refused (exit 1).
# Then the same for a plugin given by path (the example policy of
# docs/policies.md, first-touch): the replay opens it with dlopen as the
# runtime does. Last, the multi-threaded allocation stress with injected
# samples (tests/tiermem/stress.c): its run directory replays exactly.
. "$(dirname "$0")/lib.sh"
GEN="$B/bench/fidelity/accessgen"
TIERMEM="$B/lib/tierlab/libtiermem.so"
[ -x "$GEN" ] && [ -f "$TIERMEM" ] || fail "build first: $GEN, $TIERMEM"

# check NAME POLICY MIN-MIGRATIONS VAR=VALUE...
check() {
	local name=$1 policy=$2 min=$3; shift 3
	mkdir -p "$scratch/$name"
	expect_exit 0 env LD_PRELOAD="$TIERMEM" TIERLAB_POLICY="$policy" TIERLAB_RATE=500Hz \
		TIERLAB_THRESHOLD=1M TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 TIERLAB_LOG=log \
		TIERLAB_OUT="$scratch/$name" "$@" \
		"$GEN" --pattern zipf --arrays 16M,24M,8M --seconds 2 --truth "$scratch/$name/truth.tsv"
	local log
	log=$(ls "$scratch/$name"/tiermem-*.log)
	expect_exit 0 "$TIERLAB" simulate --trace "$log" --verify
	expect_contains "$out" "replay matches the run"
	# the replay's stream against the log's, line for line
	expect_exit 0 "$TIERLAB" simulate --trace "$log" --events
	printf '%s\n' "$out" >"$scratch/$name/replay.txt"
	awk -F'\t' '$1 == "S" { print "S\t" $6 "\t" $7 } $1 == "M" { print "M\t" $3 "\t" $6 }' "$log" \
		>"$scratch/$name/live.txt"
	local samples moves
	samples=$(grep -c '^S' "$scratch/$name/live.txt")
	moves=$(grep -cE '^M.*(slow-to-fast|fast-to-slow)' "$scratch/$name/live.txt")
	[ "$samples" -ge 50 ] || fail "$name: only $samples samples"
	[ "$moves" -ge "$min" ] || fail "$name: only $moves migrations: nothing to compare"
	diff "$scratch/$name/live.txt" "$scratch/$name/replay.txt" >"$scratch/$name/diff.txt" ||
		fail "$name: replay differs from the run: $(head -5 "$scratch/$name/diff.txt")"
	# a changed log must be refused: flip the hit of the 50th sample, drop the 5th migration
	awk -F'\t' -v OFS='\t' '$1 == "S" && ++n == 50 { $7 = 1 - $7 } 1' "$log" >"$scratch/$name/flip.log"
	expect_exit 1 "$TIERLAB" simulate --trace "$scratch/$name/flip.log" --verify
	expect_contains "$out" "replay differs from the run"
	awk '/^M\t/ && /(slow-to-fast|fast-to-slow)/ && ++n == 5 { next } 1' "$log" >"$scratch/$name/drop.log"
	expect_exit 1 "$TIERLAB" simulate --trace "$scratch/$name/drop.log" --verify
	expect_contains "$out" "replay differs from the run"
}

check lru-chunks lru 10 TIERLAB_FAST_MEM=16M TIERLAB_CHUNKS=8
check window-chunks window 10 TIERLAB_FAST_MEM=16M TIERLAB_CHUNKS=8 TIERLAB_WINDOW=16
check lru-percent lru 10 TIERLAB_FAST_MEM=40% TIERLAB_CHUNK_SIZE=1M
check window-percent window 10 TIERLAB_FAST_MEM=40% TIERLAB_CHUNK_SIZE=1M TIERLAB_WINDOW=128
# a plugin by path, loaded by the runtime and by the replay with dlopen: the example of docs/policies.md
PLUGIN="$B/obj/policies-doc/policy-first-touch.so"
[ -f "$PLUGIN" ] || fail "build first: $PLUGIN"
check plugin-path "$PLUGIN" 5 TIERLAB_FAST_MEM=16M TIERLAB_CHUNKS=8

# the allocation stress of tests/cli/tiermem-stress.sh: 4 threads allocating, reallocating and
# freeing across the threshold while a fifth injects samples anywhere (also past the ends of
# blocks and outside managed memory), then a fork; the run's directory replays as it ran
STRESS="$B/tests/tiermem/stress"
[ -x "$STRESS" ] || fail "build first: $STRESS"
mkdir -p "$scratch/stress"
expect_exit 0 env LD_PRELOAD="$TIERMEM" TIERLAB_POLICY=lru TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 \
	TIERLAB_SAMPLER=fault TIERLAB_RATE=100Hz TIERLAB_THRESHOLD=256KiB TIERLAB_CHUNKS=8 TIERLAB_CHUNK_SIZE=1MiB \
	TIERLAB_LOG=log TIERLAB_OUT="$scratch/stress" "$STRESS" 4 800
expect_contains "$out" "0 failures"
expect_exit 0 "$TIERLAB" simulate --trace "$scratch/stress" --verify
expect_contains "$out" "replay matches the run"
# the fork child's log starts from its parent's state, which no log holds: said, not replayed
expect_contains "$out" "a fork child"
moves=$(sed -n 's/.* samples, \([0-9]*\) placements and migrations.*/\1/p' <<<"$out")
[ "${moves:-0}" -ge 1000 ] || fail "stress: only ${moves:-0} placements and migrations compared"
echo ok
