# Real programs under libtiermem give the same results as without it:
# sort of a generated file (its buffers are managed), python3 building a
# large list, and the project's own workloads (kmeans, memaccess), each of
# which validates its own result.
. "$(dirname "$0")/lib.sh"
SO="$B/lib/tierlab/libtiermem.so"
T="$B/tests/tiermem"
[ -f "$SO" ] || fail "build first: $SO"
policy="$T/policy-test.so"
[ -f "$B/lib/tierlab/policy-lru.so" ] && policy=lru
sampler=none
probe=$(LD_PRELOAD="$SO" TIERLAB_POLICY="$policy" TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 \
	TIERLAB_LOG=none TIERLAB_SAMPLER=fault python3 -c 'x = bytearray(8 << 20)' 2>&1)
grep -q "'fault'" <<<"$probe" || sampler=fault
echo "policy $policy, sampler $sampler"
under() {
	LD_PRELOAD="$SO" TIERLAB_POLICY="$policy" TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 \
		TIERLAB_SAMPLER=$sampler TIERLAB_RATE=100Hz TIERLAB_CHUNKS=4 TIERLAB_OUT="$outdir" "$@"
}
allocs_of() {	# the largest allocs count among the counters files in directory $1
	local best=0 f v
	for f in "$1"/tiermem-*.counters; do
		[ -f "$f" ] || continue
		v=$("$T/counters-dump" "$f" | awk '$1 == "allocs" { print $2 }')
		[ "$v" -gt "$best" ] && best=$v
	done
	echo "$best"
}

# sort: 40 MiB of lines; GNU sort's buffers are large allocations
awk 'BEGIN { srand(7); for (i = 0; i < 1500000; i++) printf "%08d %s\n", int(rand() * 1e8), i }' >"$scratch/in.txt"
sort -S 64M "$scratch/in.txt" >"$scratch/want.txt"
outdir=$scratch/out1; mkdir -p "$outdir"
under sort -S 64M "$scratch/in.txt" >"$scratch/got.txt" 2>"$scratch/err.txt" || fail "sort failed: $(cat "$scratch/err.txt")"
cmp -s "$scratch/want.txt" "$scratch/got.txt" || fail "sort output differs under the runtime"
n=$(allocs_of "$outdir")
[ "$n" -gt 0 ] || fail "sort made no managed allocation"
echo "sort: identical output, $n managed allocations"

# python3: a large list and bytes objects (pymalloc hands big objects to malloc)
outdir=$scratch/out2; mkdir -p "$outdir"
got=$(under python3 -c '
import hashlib
xs = list(range(3000000))
b = bytes(range(256)) * 40000
xs.extend(range(1000))
ys = [x * 2 for x in xs]
print(sum(ys), hashlib.sha256(b).hexdigest()[:16], len(bytearray(50 << 20)))
' 2>"$scratch/err.txt") || fail "python3 failed: $(cat "$scratch/err.txt")"
want=$(python3 -c '
import hashlib
xs = list(range(3000000))
b = bytes(range(256)) * 40000
xs.extend(range(1000))
ys = [x * 2 for x in xs]
print(sum(ys), hashlib.sha256(b).hexdigest()[:16], len(bytearray(50 << 20)))
')
[ "$got" = "$want" ] || fail "python3 printed '$got', expected '$want'"
n=$(allocs_of "$outdir")
[ "$n" -gt 0 ] || fail "python3 made no managed allocation"
echo "python3: identical output, $n managed allocations"

# the project's workloads validate their own results
# (mallocbench with a low threshold: managed blocks churn through free and malloc)
for w in "kmeans -p 60000 -d 8 -c 20 --threads 2" \
	 "mallocbench --range large --blocks 25 --iterations 1500 --threads 2"; do
	set -- $w
	[ -x "$LIBEXEC/$1" ] || { echo "note: $LIBEXEC/$1 not built; skipped"; continue; }
	outdir=$scratch/out-$1; mkdir -p "$outdir"
	expect_exit 0 env TIERLAB_THRESHOLD=128KiB LD_PRELOAD="$SO" TIERLAB_POLICY="$policy" \
		TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 TIERLAB_SAMPLER=$sampler TIERLAB_RATE=100Hz \
		TIERLAB_CHUNKS=4 TIERLAB_OUT="$outdir" "$LIBEXEC/$1" "${@:2}"
	grep -qi "validation: passed\|validation: ok" <<<"$out" || fail "$1 did not validate:
$out"
	n=$(allocs_of "$outdir")
	[ "$n" -gt 0 ] || fail "$1 made no managed allocation"
	echo "$1: validated, $n managed allocations"
done

# Libraries initialised before libnuma allocate through the runtime too:
# early-alloc.so (a dependency of early-wrap.so, initialised before
# libnuma) takes 4 MiB in its constructor and checks it at exit; under
# jemalloc, libstdc++ takes 71 KiB while it starts. The runtime must leave
# those to the next allocator (libnuma exits the program when asked for a
# node mask before its constructor ran) and manage what follows.
sort_with() {	# sort with a 64 KiB threshold and LD_PRELOAD="$SO $1"; $2 names the case
	outdir=$scratch/out-${2// /-}; mkdir -p "$outdir"
	expect_exit 0 env TIERLAB_THRESHOLD=64KiB TIERLAB_POLICY="$policy" TIERLAB_FAST_NODES=0 \
		TIERLAB_SLOW_NODES=0 TIERLAB_SAMPLER=$sampler TIERLAB_RATE=1kHz TIERLAB_OUT="$outdir" \
		LD_PRELOAD="$SO $1" sort -S 64M "$scratch/in.txt" -o "$scratch/got.txt"
	cmp -s "$scratch/want.txt" "$scratch/got.txt" || fail "sort output differs $2"
	n=$(allocs_of "$outdir")
	[ "$n" -gt 0 ] || fail "nothing managed $2"
	echo "sort $2: identical output, $n managed allocations"
}
inits=$(LD_DEBUG=files LD_PRELOAD="$SO $T/early-wrap.so" /bin/true 2>&1 | sed -n 's/.*calling init: //p')
grep -q early-alloc <<<"$(sed '/libnuma/q' <<<"$inits")" \
	|| echo "note: this loader initialises libnuma before early-alloc.so; the first case checks less here"
sort_with "$T/early-wrap.so" "with early-wrap.so preloaded"
jemalloc=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -n 1)
if [ -n "$jemalloc" ]; then
	sort_with "$jemalloc" "over jemalloc"
else
	echo "note: jemalloc not installed; the case over it not run"
fi

# The runtime resolves the next allocator with dlsym, which may allocate
# (tests/tiermem/boot-dlsym.c: a dlsym of the program's own that does): a
# block asked for in the first lookups comes from the bootstrap buffer
# (usable size exactly the 100 bytes asked) and free leaves it be; one
# asked for once malloc, free, calloc and realloc are known is the next
# allocator's (glibc's usable size for 100 bytes is 104), and free gives
# it back there. Given to glibc's free, the bootstrap block would abort.
expect_exit 0 env LD_PRELOAD="$SO" TIERLAB_POLICY="$policy" TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 \
	TIERLAB_SAMPLER=none TIERLAB_LOG=none "$T/boot-dlsym"
expect_contains "$out" "first 100 late"
expect_contains "$out" "ok"
[ "$(sed -n 's/^first [0-9]* late \([0-9]*\)$/\1/p' <<<"$out")" -gt 100 ] ||
	fail "a block dlsym asked for after the next malloc was known came from the bootstrap buffer: $out"
echo "dlsym's allocations: $(grep '^first' <<<"$out")"
echo ok
