# libtiermem under LD_PRELOAD: the multi-threaded allocation stress
# (tests/tiermem/stress.c) on one node (fast = slow = node 0), the
# counters and log files it leaves, standing aside on bad values, without
# a policy and under RLIMIT_AS, and TIERLAB_STRICT.
. "$(dirname "$0")/lib.sh"
SO="$B/lib/tierlab/libtiermem.so"
T="$B/tests/tiermem"
[ -f "$SO" ] && [ -x "$T/stress" ] || fail "build first: $SO, $T/stress"
dump() { "$T/counters-dump" "$1"; }
val() { awk -v k="$2" '$1 == k { print $2 }' <<<"$1"; }

# lru when the policies part has built it, else the runtime's own test policy
policy="$T/policy-test.so"
[ -f "$B/lib/tierlab/policy-lru.so" ] && policy=lru
sampler=fault
probe=$(cd "$scratch" && LD_PRELOAD="$SO" TIERLAB_POLICY="$policy" TIERLAB_FAST_NODES=0 \
	TIERLAB_SLOW_NODES=0 TIERLAB_SAMPLER=fault TIERLAB_LOG=none "$T/stress" 1 20 2>&1)
if grep -q "sampler 'fault'\|SAMPLER='fault'" <<<"$probe"; then
	echo "note: fault sampler unavailable ($(grep -m1 "'fault'" <<<"$probe")); using none"
	sampler=none
fi

run() {
	(cd "$scratch/run" && LD_PRELOAD="$SO" TIERLAB_POLICY="$policy" TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 \
		TIERLAB_SAMPLER=$sampler TIERLAB_RATE=100Hz TIERLAB_THRESHOLD=256KiB TIERLAB_CHUNKS=8 \
		TIERLAB_CHUNK_SIZE=1MiB TIERLAB_LOG=log TIERLAB_OUT="$scratch/run" "$@")
}

# The parent's counters file: the one with most allocations (the fork
# child allocates little; pids wrap, so their order says nothing).
parent_counters() {
	local f best= most=-1 a
	for f in "$scratch"/run/tiermem-*.counters; do
		a=$(val "$(dump "$f")" allocs) || continue
		[ "${a:-0}" -gt "$most" ] && most=$a best=$f
	done
	echo "$best"
}

mkdir -p "$scratch/run"
expect_exit 0 run "$T/stress" 4 800
expect_contains "$out" "samples injected, 0 failures"
expect_contains "$out" "tiermem: fast and slow tiers are both node 0: placement calls are made and counted, nothing moves"
n=$(ls "$scratch/run"/tiermem-*.counters | wc -l)
[ "$n" -eq 2 ] || fail "expected counters files of the parent and the fork child, found $n"
parent=$(parent_counters)
d=$(dump "$parent") || fail "not a counters file: $parent"
echo "$d" | tr '\n' ' '; echo
[ "$(val "$d" complete)" = 1 ] || fail "complete != 1"
[ "$(val "$d" same_node)" = 1 ] || fail "same_node != 1"
[ "$(val "$d" allocs)" -gt 100 ] || fail "allocs too few"
[ "$(val "$d" frees)" -eq "$(val "$d" allocs)" ] || fail "frees != allocs (every block was freed)"
[ "$(val "$d" reallocs)" -gt 0 ] || fail "no reallocs counted"
[ "$(val "$d" retired_small_allocs)" -eq 0 ] || fail "retired_small_allocs is not 0"
[ "$(val "$d" chunk_size)" -eq 1048576 ] || fail "chunk size"
[ "$(val "$d" budget_bytes)" -eq $((8 * 1048576)) ] || fail "budget bytes"
[ "$(val "$d" samples_managed)" -eq $(( $(val "$d" hits) + $(val "$d" misses) )) ] || fail "hits + misses != samples_managed"
[ "$(val "$d" samples_managed)" -gt 0 ] || fail "no managed samples"
[ "$(val "$d" mig_slow_to_fast)" -gt 0 ] || fail "nothing promoted"
[ "$(val "$d" mig_failed)" -eq 0 ] || fail "failed migrations on one node"
initial=$(( $(val "$d" mig_initial_fast) + $(val "$d" mig_initial_slow) ))
[ "$initial" -gt "$(val "$d" allocs)" ] || fail "fewer initial placements than allocations"
# bytes are bytes: at most a chunk per migration, more than a page on average
for dir in initial_fast initial_slow slow_to_fast fast_to_slow; do
	m=$(val "$d" mig_$dir) b=$(val "$d" bytes_$dir)
	[ "$b" -le $((m * 1048576)) ] && [ "$b" -ge $((m * 4096)) ] || fail "bytes_$dir=$b for $m migrations"
done
log=${parent%.counters}.log
[ -s "$log" ] || fail "no log $log"
bad=$(awk -F'\t' '!(($1=="A" && NF==9) || ($1=="F" && NF==3) || ($1=="S" && NF==8) || ($1=="M" && NF==8) || ($1=="D" && NF==2) || ($1=="P" && NF==13 && NR==1)) { print NR": "$0; exit }' "$log")
[ -z "$bad" ] || fail "malformed log line $bad"
[ "$(grep -c '^A' "$log")" -eq "$(val "$d" allocs)" ] || fail "A records != allocs"
grep -q $'^M\t.*\tslow-to-fast\t1\t[0-9]*$' "$log" || fail "no successful promotion in the log"
grep -q $'^A\t.*stress+0x' "$log" || fail "call sites not named"
# freed blocks were reused (calloc into them is checked zero by the program)
[ "$(val "$d" cache_reuses)" -gt 0 ] || fail "no freed region reused"
bound=$(val "$d" managed_bytes_peak)
[ "$bound" -ge $((32 * 1048576)) ] || bound=$((32 * 1048576))
[ "$(val "$d" cache_bytes_peak)" -le "$bound" ] || fail "the cache outgrew its bound (100% of the peak, at least 32 MiB)"

# the same with the cache of freed regions off: every block fresh
rm -f "$scratch"/run/*
expect_exit 0 run env TIERLAB_CACHE=0 "$T/stress" 4 300
expect_contains "$out" "samples injected, 0 failures"
d=$(dump "$(parent_counters)")
[ "$(val "$d" cache_reuses)" -eq 0 ] && [ "$(val "$d" allocs)" -gt 50 ] || fail "TIERLAB_CACHE=0: $(tr '\n' ' ' <<<"$d")"

# a bad value: one line, the program runs unmanaged, no files
mkdir -p "$scratch/bad" && cd "$scratch/bad"
expect_exit 0 env LD_PRELOAD="$SO" TIERLAB_POLICY=lru TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 \
	TIERLAB_RATE=fast "$T/stress" 2 100
[ "$(grep -c '^tiermem:' <<<"$out")" -eq 1 ] || fail "expected exactly one tiermem line:
$out"
expect_contains "$out" "tiermem: TIERLAB_RATE='fast': not a rate (e.g. 10Hz, 1kHz)"
expect_contains "$out" "0 failures"
[ -z "$(ls)" ] || fail "files written while standing aside: $(ls)"
expect_exit 2 env LD_PRELOAD="$SO" TIERLAB_POLICY=lru TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 \
	TIERLAB_RATE=fast TIERLAB_STRICT=1 "$T/stress" 2 100
expect_contains "$out" "TIERLAB_RATE='fast'"
expect_exit 0 env LD_PRELOAD="$SO" SHAMBLES_PLUGIN=/nonexistent.so SHAMBLES_FAST_NODEMASK=1 \
	SHAMBLES_SLOW_NODEMASK=1 "$T/stress" 2 100
expect_contains "$out" "tiermem: policy '/nonexistent.so':"
# standing aside at the first managed allocation leaves no files either (tierlab then fails the run)
[ -z "$(ls)" ] || fail "files written by a runtime that stood aside: $(ls)"
# issue 27: under a limit on address space the reservation fails; the reason names RLIMIT_AS and its value
expect_exit 0 bash -c "ulimit -v 2097152 && exec env LD_PRELOAD='$SO' TIERLAB_POLICY=lru TIERLAB_FAST_NODES=0 \
	TIERLAB_SLOW_NODES=0 '$T/stress' 2 100"
expect_contains "$out" "tiermem: cannot reserve address space for managed memory: RLIMIT_AS (ulimit -v) is 2147483648 bytes (2GiB)"
expect_contains "$out" "0 failures"
[ -z "$(ls)" ] || fail "files written by a runtime that stood aside: $(ls)"
# no policy: silent, nothing written, and no thread of ours in a program that never allocates big
expect_exit 0 env LD_PRELOAD="$SO" "$T/stress" 2 100
expect_not_contains "$out" "tiermem"
threads=$(LD_PRELOAD="$SO" TIERLAB_POLICY=lru TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 TIERLAB_LOG=none \
	grep '^Threads:' /proc/self/status 2>/dev/null)
[ "$threads" = "Threads:	1" ] || fail "a small program got threads: '$threads'"
echo "ok"
