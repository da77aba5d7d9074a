# mallocbench workload: help, argument errors, the tiny preset validates.
. "$(dirname "$0")/lib.sh"
prog="$LIBEXEC/mallocbench"
[ -x "$prog" ] || fail "$prog not built"

expect_exit 0 "$prog" --help
for o in --blocks --range --min-size --max-size --threads --iterations --seconds --no-fill \
	 --seed --size tiny small mt 25 100 400 1600; do
	expect_contains "$out" "$o"
done

# the presets in --help are the descriptor's (same names, same arguments)
help=$out
desc="$top/workloads/mallocbench/workload.yaml"
for name in $(sed -n 's/^  \([a-z]*\): \[.*/\1/p' "$desc"); do
	args=$(sed -n "s/^  $name: \[\(.*\)\].*/\1/p" "$desc" | tr -d '",')
	grep -Eq "^  $name +$args\$" <<<"$help" || fail "preset '$name' in --help does not read '$args'"
done

for bad in "--blocks 0" "--range medium" "--min-size 100 --max-size 10" "--threads x" \
	   "--seconds -1" "--iterations 10 --seconds 1" "--size huge" "--bogus" "--blocks"; do
	err=$("$prog" $bad 2>&1 >/dev/null); rc=$?
	[ "$rc" -eq 2 ] || fail "'mallocbench $bad' exited $rc, expected 2"
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "'mallocbench $bad' printed more than one line: $err"
	expect_contains "$err" "mallocbench: "
done

expect_exit 0 "$prog" --blocks 100 --iterations 100000 --threads 1
expect_contains "$out" "1 thread, 100 blocks per thread, sizes 4..4096"
expect_contains "$out" "allocator: glibc"
expect_contains "$out" "thread 0: 100000 pairs"
expect_contains "$out" "validation: passed"
echo "$out" | tail -n 1 | grep -Eq '^figure-of-merit: [0-9.eE+-]+ ns/pair$' ||
	fail "last line is not the figure of merit: $out"

# threads from OMP_NUM_THREADS, the large range, time-bound runs
expect_exit 0 env OMP_NUM_THREADS=2 "$prog" --size tiny --threads 2 --range large --iterations 2000
expect_contains "$out" "thread 1: 2000 pairs"
expect_contains "$out" "sizes 4096..262144"
expect_contains "$out" "validation: passed"
expect_exit 0 env OMP_NUM_THREADS=2 "$prog" --blocks 25 --seconds 0.1 --no-fill
expect_contains "$out" "2 threads"
expect_contains "$out" "not touched"
expect_contains "$out" "validation: passed"

# the allocator that answers malloc is named when one is preloaded
jemalloc=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -n 1)
if [ -n "$jemalloc" ]; then
	expect_exit 0 env LD_PRELOAD="$jemalloc" "$prog" --size tiny
	expect_contains "$out" "allocator: jemalloc"
	expect_contains "$out" "validation: passed"
fi
