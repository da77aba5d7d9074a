# kmeans workload: help, argument errors, the tiny preset validates.
. "$(dirname "$0")/lib.sh"
prog="$LIBEXEC/kmeans"
[ -x "$prog" ] || fail "$prog not built"

expect_exit 0 "$prog" --help
for o in -p -d -c -s --seed --threads --max-iter --size tiny small paper; do
	expect_contains "$out" "$o"
done

# the presets in --help are the descriptor's (same names, same arguments)
help=$out
desc="$top/workloads/kmeans/workload.yaml"
for name in $(sed -n 's/^  \([a-z]*\): \[.*/\1/p' "$desc"); do
	args=$(sed -n "s/^  $name: \[\(.*\)\].*/\1/p" "$desc" | tr -d '",')
	grep -Eq "^  $name +$args\$" <<<"$help" || fail "preset '$name' in --help does not read '$args'"
done

# a bad argument: one line on stderr, exit 2
for bad in "-p 0" "-d x" "--size huge" "--bogus" "-c" "-s 100000 -d 40"; do
	err=$("$prog" $bad 2>&1 >/dev/null); rc=$?
	[ "$rc" -eq 2 ] || fail "'kmeans $bad' exited $rc, expected 2"
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "'kmeans $bad' printed more than one line: $err"
	expect_contains "$err" "kmeans: "
done

# the tiny preset, the way tierlab runs it (descriptor argv) and by name
expect_exit 0 "$prog" -p 2000 -d 3 -c 10
expect_contains "$out" "validation: passed"
echo "$out" | tail -n 1 | grep -Eq '^figure-of-merit: [0-9.eE+-]+ ms/iteration$' ||
	fail "last line is not the figure of merit: $out"
expect_exit 0 env OMP_NUM_THREADS=2 "$prog" --size tiny
expect_contains "$out" "2 threads"
expect_contains "$out" "validation: passed"

# explicit options override the preset; a cap too low fails validation with exit 1
expect_exit 0 "$prog" --size tiny -p 500 --threads 2
expect_contains "$out" "500 points, 3 dimensions, 10 clusters"
expect_exit 1 "$prog" --size tiny --max-iter 2
expect_contains "$out" "validation: FAILED: did not converge in 2 iterations"
expect_not_contains "$out" "figure-of-merit"
