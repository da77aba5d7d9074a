# himeno workload: help, argument errors, the tiny preset validates against
# the stored Gosa, other counts and the time-targeted mode validate too.
. "$(dirname "$0")/lib.sh"
prog="$LIBEXEC/himeno"
[ -x "$prog" ] || fail "$prog not built"

expect_exit 0 "$prog" --help
for o in --size --grid --iterations --seconds --reference XS XL tiny small medium large xl; do
	expect_contains "$out" "$o"
done

# the presets in --help are the descriptor's (same names, same arguments)
help=$out
desc="$top/workloads/himeno/workload.yaml"
names=$(sed -n 's/^  \([a-z]*\): \[.*/\1/p' "$desc")
[ "$(echo $names)" = "tiny small medium large xl" ] || fail "descriptor presets: $names"
for name in $names; do
	args=$(sed -n "s/^  $name: \[\(.*\)\].*/\1/p" "$desc" | tr -d '",')
	grep -Eq "^  $name +$args  " <<<"$help" || fail "preset '$name' in --help does not read '$args'"
done

# a bad argument: one line on stderr, exit 2, nothing on stdout
for bad in "--iterations 0" "--iterations x" "--grid XXL" "--size huge" "--bogus" "--seconds -1" \
	"--iterations 5 --seconds 1" "--size tiny --grid S" "--grid" "stray"; do
	err=$("$prog" $bad 2>&1 >/dev/null); rc=$?
	[ "$rc" -eq 2 ] || fail "'himeno $bad' exited $rc, expected 2"
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "'himeno $bad' printed more than one line: $err"
	expect_contains "$err" "himeno: "
	[ -z "$("$prog" $bad 2>/dev/null)" ] || fail "'himeno $bad' printed on stdout"
done

# the tiny preset, the way tierlab runs it (descriptor argv) and by name; checked against the table
expect_exit 0 env OMP_NUM_THREADS=1 "$prog" --grid XS --iterations 20
expect_contains "$out" "validation: passed"
expect_contains "$out" "threads: 1"
expect_contains "$out" "(double-precision reference, tolerance"
echo "$out" | tail -n 1 | grep -Eq '^figure-of-merit: [0-9.eE+-]+ MFLOPS$' ||
	fail "last line is not the figure of merit: $out"
fom=$(echo "$out" | sed -n 's/^figure-of-merit: \([0-9.eE+-]*\) MFLOPS$/\1/p')
awk -v f="$fom" 'BEGIN { exit !(f > 0) }' || fail "figure of merit '$fom' is not positive"
gosa1=$(echo "$out" | sed -n 's/^gosa: //p')
expect_exit 0 env OMP_NUM_THREADS=2 "$prog" --size tiny
expect_contains "$out" "threads: 2"
expect_contains "$out" "validation: passed"
gosa2=$(echo "$out" | sed -n 's/^gosa: //p')
awk -v a="$gosa1" -v b="$gosa2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * a) }' ||
	fail "gosa with 1 thread ($gosa1) and 2 threads ($gosa2) differ"

# the stored value is the one the double-precision reference prints
expect_exit 0 "$prog" --grid XS --iterations 20 --reference
ref=$(echo "$out" | sed -n 's/^reference gosa: grid XS, 20 iterations: //p')
[ -n "$ref" ] || fail "no reference gosa in: $out"
expect_exit 0 "$prog" --size tiny
stored=$(echo "$out" | sed -n 's/^expected gosa: \([0-9.eE+-]*\) .*/\1/p')
awk -v a="$ref" -v b="$stored" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-8 * a) }' ||
	fail "stored gosa $stored is not the reference's $ref"

# a count without a stored value, and the time-targeted mode, still validate
expect_exit 0 "$prog" --grid XS --iterations 7
expect_contains "$out" "no stored value for 7 iterations"
expect_contains "$out" "validation: passed"
expect_exit 0 "$prog" --grid XS --seconds 0.2
expect_contains "$out" "rehearsal: 3 iterations"
expect_contains "$out" "time-targeted"
expect_contains "$out" "validation: passed"
echo "$out" | tail -n 1 | grep -Eq '^figure-of-merit: [0-9.eE+-]+ MFLOPS$' ||
	fail "last line is not the figure of merit: $out"
