# memaccess workload: help, argument errors, the tiny preset validates, a sweep.
. "$(dirname "$0")/lib.sh"
prog="$LIBEXEC/memaccess"
[ -x "$prog" ] || fail "$prog not built"

expect_exit 0 "$prog" --help
for o in --size --from --to --order --accesses --seed --thp tiny small lap medium paper 4M 256M 1G 4G; do
	expect_contains "$out" "$o"
done

# the presets in --help are the descriptor's (same names, same working sets)
help=$out
desc="$top/workloads/memaccess/workload.yaml"
for name in $(sed -n 's/^  \([a-z]*\): \[.*/\1/p' "$desc"); do
	size=$(sed -n "s/^  $name: \[--size, \([0-9A-Z]*\).*/\1/p" "$desc")
	[ -n "$size" ] || fail "preset '$name' has no --size in $desc"
	grep -Eq "^  $name +--size $size( |$)" <<<"$help" || fail "preset '$name' in --help is not --size $size"
done

for bad in "--size 4X" "--size huge" "--order backwards" "--from 1M" "--from 8M --to 1M" \
	   "--size 4M --from 1M --to 2M" "--accesses 0" "--size 100" "--bogus" "--size"; do
	err=$("$prog" $bad 2>&1 >/dev/null); rc=$?
	[ "$rc" -eq 2 ] || fail "'memaccess $bad' exited $rc, expected 2"
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "'memaccess $bad' printed more than one line: $err"
	expect_contains "$err" "memaccess: "
done

expect_exit 0 "$prog" --size 4M --accesses 2000000
expect_contains "$out" "random order"
expect_contains "$out" "working set 4 MiB: 58254 nodes"
expect_contains "$out" "validation: passed"
echo "$out" | tail -n 1 | grep -Eq '^figure-of-merit: [0-9.eE+-]+ ns/access$' ||
	fail "last line is not the figure of merit: $out"

expect_exit 0 "$prog" --size tiny --order seq --accesses 100000
expect_contains "$out" "sequential order"
expect_contains "$out" "validation: passed"

# a doubling sweep prints one line per size; the figure of merit is the last size's
expect_exit 0 "$prog" --from 256K --to 1M --accesses 100000 --thp
[ "$(grep -c '^working set' <<<"$out")" -eq 3 ] || fail "expected 3 sizes: $out"
last=$(grep '^working set 1 MiB' <<<"$out" | sed 's/.*: \([0-9.]*\) ns\/access$/\1/')
fom=$(tail -n 1 <<<"$out" | awk '{print $2}')
awk -v a="$last" -v b="$fom" 'BEGIN { exit !(a > 0 && (a - b) ^ 2 < 1e-6 * a * a) }' ||
	fail "figure of merit $fom is not the largest size's $last: $out"
