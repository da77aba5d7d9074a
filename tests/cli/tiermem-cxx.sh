# C++'s operators new and delete go through the runtime whichever
# allocator comes next: jemalloc and mimalloc define their own, which
# took every `new` past it before (issue 31). tests/tiermem/cxx-new.c
# calls them by their mangled names (large arrays, small blocks, the
# sized, nothrow and aligned forms, a nothrow request that cannot be
# served) and checks its data; under the runtime with a 1 MiB threshold
# its four large blocks must be managed and its 20000 small ones left to
# the next allocator (not managed), over glibc, jemalloc and mimalloc
# alike.
. "$(dirname "$0")/lib.sh"
SO="$B/lib/tierlab/libtiermem.so"
T="$B/tests/tiermem"
[ -f "$SO" ] && [ -x "$T/cxx-new" ] || fail "build first: $SO, $T/cxx-new"
counter() {	# counter NAME DIR: the sum of NAME over the counters files in DIR
	local f sum=0 v
	for f in "$2"/tiermem-*.counters; do
		[ -f "$f" ] || continue
		v=$("$T/counters-dump" "$f" | awk -v n="$1" '$1 == n { print $2 }')
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}
ran=0
for lib in "" /usr/lib/*/libjemalloc.so.2 /usr/lib/*/libmimalloc.so.2; do
	[ -z "$lib" ] || [ -e "$lib" ] || continue
	name=${lib:+over $(basename "$lib")}
	name=${name:-over glibc}
	expect_exit 0 env LD_PRELOAD="$lib" "$T/cxx-new"
	expect_contains "$out" "ok"
	outdir=$scratch/out$ran; mkdir -p "$outdir"
	expect_exit 0 env LD_PRELOAD="$SO${lib:+ $lib}" TIERLAB_POLICY=all-fast TIERLAB_FAST_NODES=0 \
		TIERLAB_SLOW_NODES=0 TIERLAB_SAMPLER=none TIERLAB_THRESHOLD=1MiB TIERLAB_OUT="$outdir" "$T/cxx-new"
	expect_contains "$out" "ok"
	a=$(counter allocs "$outdir")
	[ "$a" -ge 4 ] || fail "$name: $a managed allocations, expected the 4 large blocks of new"
	[ "$a" -lt 100 ] || fail "$name: $a managed allocations, the 20000 small blocks of new were managed"
	echo "$name: same output, $a managed allocations"
	ran=$((ran + 1))
done
echo ok
