# dgemm workload: help, argument errors, the tiny preset validates, and the
# OpenBLAS core-type fix re-executes once (simulated: this machine's
# OpenBLAS may well choose the right core by itself).
. "$(dirname "$0")/lib.sh"
prog="$LIBEXEC/dgemm"
[ -x "$prog" ] || fail "$prog not built"

expect_exit 0 "$prog" --help
for o in --size --n --repeats --alpha --beta --no-coretype-fix OPENBLAS_CORETYPE tiny small paper; do
	expect_contains "$out" "$o"
done

# the presets in --help are the descriptor's (same names, same arguments)
help=$out
desc="$top/workloads/dgemm/workload.yaml"
names=$(sed -n 's/^  \([a-z]*\): \[.*/\1/p' "$desc")
[ "$(echo $names)" = "tiny small paper" ] || fail "descriptor presets: $names"
for name in $names; do
	args=$(sed -n "s/^  $name: \[\(.*\)\].*/\1/p" "$desc" | tr -d '",')
	grep -Eq "^  $name +$args  " <<<"$help" || fail "preset '$name' in --help does not read '$args'"
done

# a bad argument: one line on stderr, exit 2, nothing on stdout
for bad in "--n 0" "--n x" "--repeats 0" "--alpha nope" "--size huge" "--bogus" "--n" \
	"--size tiny --n 100" "stray"; do
	err=$("$prog" $bad 2>&1 >/dev/null); rc=$?
	[ "$rc" -eq 2 ] || fail "'dgemm $bad' exited $rc, expected 2"
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "'dgemm $bad' printed more than one line: $err"
	expect_contains "$err" "dgemm: "
	[ -z "$("$prog" $bad 2>/dev/null)" ] || fail "'dgemm $bad' printed on stdout"
done

# the tiny preset, the way tierlab runs it (descriptor argv) and by name
expect_exit 0 env OMP_NUM_THREADS=1 "$prog" --n 512 --repeats 4
expect_contains "$out" "validation: passed"
expect_contains "$out" "threads: 1"
expect_contains "$out" "openblas core: "
echo "$out" | tail -n 1 | grep -Eq '^figure-of-merit: [0-9.eE+-]+ GF/s$' ||
	fail "last line is not the figure of merit: $out"
fom=$(echo "$out" | sed -n 's,^figure-of-merit: \([0-9.eE+-]*\) GF/s$,\1,p')
awk -v f="$fom" 'BEGIN { exit !(f > 0) }' || fail "figure of merit '$fom' is not positive"
expect_exit 0 env OMP_NUM_THREADS=2 "$prog" --size tiny --alpha 0.5 --beta -0.25
expect_contains "$out" "alpha=0.5 beta=-0.25"
expect_contains "$out" "validation: passed"

# The core-type fix. Pretending OpenBLAS chose Prescott: on a CPU with AVX2
# and FMA the program says so once, re-executes itself with
# OPENBLAS_CORETYPE set, and runs that core. Only this command runs without
# the caller's OPENBLAS_CORETYPE.
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
	expect_exit 0 env -u OPENBLAS_CORETYPE TIERLAB_DGEMM_PRETEND_CORE=Prescott "$prog" --size tiny
	expect_contains "$out" "dgemm: OpenBLAS chose core Prescott on a CPU with AVX"
	[ "$(grep -c 're-running with OPENBLAS_CORETYPE=' <<<"$out")" -eq 1 ] ||
		fail "expected exactly one re-run: $out"
	want=$(sed -n 's/.*re-running with OPENBLAS_CORETYPE=\([A-Za-z]*\) .*/\1/p' <<<"$out")
	case $want in Haswell|SkylakeX) ;; *) fail "unexpected core type '$want'" ;; esac
	expect_contains "$out" "openblas core: $want"
	expect_contains "$out" "re-executed with OPENBLAS_CORETYPE=$want (OpenBLAS had chosen Prescott)"
	expect_contains "$out" "validation: passed"

	# --no-coretype-fix: says so, does not re-execute
	expect_exit 0 env -u OPENBLAS_CORETYPE TIERLAB_DGEMM_PRETEND_CORE=Prescott "$prog" --size tiny --no-coretype-fix
	expect_contains "$out" "not re-running (--no-coretype-fix"
	expect_not_contains "$out" "re-executed"
	expect_contains "$out" "validation: passed"

	# a user's OPENBLAS_CORETYPE is kept
	expect_exit 0 env OPENBLAS_CORETYPE=Haswell TIERLAB_DGEMM_PRETEND_CORE=Prescott "$prog" --size tiny
	expect_contains "$out" "as OPENBLAS_CORETYPE=Haswell asks"
	expect_not_contains "$out" "re-running"
	expect_contains "$out" "openblas core: Haswell"
else
	expect_exit 0 env -u OPENBLAS_CORETYPE TIERLAB_DGEMM_PRETEND_CORE=Prescott "$prog" --size tiny
	expect_not_contains "$out" "re-running"
fi

# a core that fits the CPU is left alone
expect_exit 0 env TIERLAB_DGEMM_PRETEND_CORE=Haswell "$prog" --size tiny
expect_not_contains "$out" "re-running"
expect_not_contains "$out" "re-executed"
