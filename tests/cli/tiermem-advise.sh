# madvise of managed memory: a program advising huge pages for one managed
# array and none for another (tests/tiermem/advise.c) keeps all managed
# memory one mapping carrying the last advice, its data intact, and the
# fault sampler arming it; without the runtime the same calls split the
# arrays' mappings as the kernel does (the program is not special).
. "$(dirname "$0")/lib.sh"
SO="$B/lib/tierlab/libtiermem.so"
T="$B/tests/tiermem"
[ -f "$SO" ] && [ -x "$T/advise" ] || fail "build first: $SO, $T/advise"
policy="$T/policy-test.so"
[ -f "$B/lib/tierlab/policy-lru.so" ] && policy=lru

mkdir -p "$scratch/run"
expect_exit 0 env LD_PRELOAD="$SO" TIERLAB_POLICY="$policy" TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 \
	TIERLAB_SAMPLER=fault TIERLAB_RATE=200Hz TIERLAB_THRESHOLD=1MiB TIERLAB_FAST_MEM=8MiB \
	TIERLAB_OUT="$scratch/run" "$T/advise"
expect_contains "$out" "hugepage flag on a: 1, on b: 1"
expect_contains "$out" "data: intact"
expect_not_contains "$out" "no longer one mapping"
# one mapping over both arrays: the arena, whole GiBs
kib=$(sed -n 's/^mapping of a: \([0-9]*\) KiB, of b: \([0-9]*\) KiB$/\1 \2/p' <<<"$out")
read -r ka kb <<<"$kib"
[ "$ka" = "$kb" ] && [ $((ka % 1048576)) = 0 ] || fail "managed memory split into mappings of $ka and $kb KiB"
dump=$("$T/counters-dump" "$scratch"/run/tiermem-*.counters)
echo "$dump" | grep -E "^(ticks|samples_managed|ticks_late) "
samples=$(awk '$1 == "samples_managed" { print $2 }' <<<"$dump")
ticks=$(awk '$1 == "ticks" { print $2 }' <<<"$dump")
# most ticks armed and took their sample (100 ticks in 0.5 s on a quiet host; a loaded one
# gives fewer ticks, not fewer samples per tick)
[ "$samples" -gt 0 ] && [ $((2 * samples)) -ge "$ticks" ] ||
	fail "$samples samples in $ticks ticks at 200 Hz: the fault sampler did not arm"
echo "runtime: one mapping of $ka KiB, $samples samples"

# the kernel's own behaviour without the runtime: the arrays are mappings of their own
expect_exit 0 "$T/advise"
expect_contains "$out" "hugepage flag on a: 1, on b: 0"
expect_contains "$out" "data: intact"
echo "ok"
