# hpcg workload: help, argument errors, the tiny preset validates, runs are
# reproducible across thread counts, and a corrupted matrix fails validation.
. "$(dirname "$0")/lib.sh"
prog="$LIBEXEC/hpcg"
[ -x "$prog" ] || fail "$prog not built"

expect_exit 0 "$prog" --help
for o in --nx --ny --nz --sets --time --size tiny small medium paper OMP_NUM_THREADS; do
	expect_contains "$out" "$o"
done

# a bad argument: one line on stderr, nothing on stdout, exit 2
for bad in "--nx 12" "--nx 0" "--nx x" "--ny 2000" "--size huge" "--bogus" "--sets" "--sets 0" \
	   "--time -1" "--sets 2 --time 3" "extra" "--nx 1024 --ny 1024 --nz 1024"; do
	err=$("$prog" $bad 2>&1 >/dev/null); rc=$?
	[ "$rc" -eq 2 ] || fail "'hpcg $bad' exited $rc, expected 2"
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "'hpcg $bad' printed more than one line: $err"
	expect_contains "$err" "hpcg: "
	[ -z "$("$prog" $bad 2>/dev/null)" ] || fail "'hpcg $bad' printed on stdout"
done

# the tiny size as the descriptor gives it (the argv of its "tiny:" line)
desc="$top/workloads/hpcg/workload.yaml"
tiny=$(sed -n 's/^  tiny: *\[\(.*\)\].*/\1/p' "$desc" | tr -d '",')
[ -n "$tiny" ] || fail "no tiny size in $desc"
for size in tiny small medium paper; do
	grep -q "^  $size: \[" "$desc" || fail "size $size missing from $desc"
done
expect_exit 0 env OMP_NUM_THREADS=1 "$prog" $tiny
expect_contains "$out" "validation: passed"
expect_contains "$out" "grid 16 x 16 x 16"
expect_contains "$out" "A0.values"
echo "$out" | tail -n 1 | grep -Eq '^figure-of-merit: [0-9.]+(e[+-]?[0-9]+)? GF/s$' ||
	fail "last line is not the figure of merit: $out"
fom=$(echo "$out" | tail -n 1 | awk '{print $2}')
awk -v f="$fom" 'BEGIN { exit !(f > 0) }' || fail "figure of merit $fom is not positive"
ref1=$(grep '^reference CG' <<<"$out")

# the same preset by name, on two threads: the same residuals bit for bit
expect_exit 0 env OMP_NUM_THREADS=2 "$prog" --size tiny
expect_contains "$out" "2 thread(s)"
expect_contains "$out" "validation: passed"
[ "$(grep '^reference CG' <<<"$out")" = "$ref1" ] ||
	fail "thread counts disagree: '$ref1' vs '$(grep '^reference CG' <<<"$out")'"

# explicit options override the preset
expect_exit 0 env OMP_NUM_THREADS=1 "$prog" --size tiny --nz 8 --sets 1
expect_contains "$out" "grid 16 x 16 x 8"
expect_contains "$out" "timed sets: 1 x 50"

# a wrong matrix: validation fails, exit 1, no figure of merit
expect_exit 1 env TIERLAB_HPCG_CORRUPT=0 OMP_NUM_THREADS=1 "$prog" --size tiny
expect_contains "$out" "validation: FAILED: "
expect_not_contains "$out" "figure-of-merit"
