# hpcg-mpi (hpcg with MPI ranks, built when mpicc is found): one rank
# without a launcher and under mpirun, two ranks; each validates and prints
# a figure of merit; 2 ranks of 16^3 stacked in z solve the problem 1 rank
# solves on 16 x 16 x 32 (the halo is checked by unpreconditioned CG, which
# depends on the global grid only); a matrix corrupted on one rank fails
# every rank; tierlab runs it as an external workload through mpirun.
. "$(dirname "$0")/lib.sh"
command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 || skip "no mpicc/mpirun"
prog="$LIBEXEC/hpcg-mpi"
[ -x "$prog" ] || fail "$prog not built (mpicc is present)"
export OMP_NUM_THREADS=1
mpi() { local np=$1; shift; mpirun --allow-run-as-root --oversubscribe -np "$np" "$@"; }

# the value after "$2" on the line starting with "$1" in $3
field() { grep "^$1" <<<"$3" | sed -n "s/.*$2 \([^ ,]*\).*/\1/p"; }
# relative difference of two numbers is at most $3
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d;
	m = a < 0 ? -a : a; exit !(a != "" && b != "" && d <= t * m) }'; }
# validation passed and the last line is a positive figure of merit
valid() {
	expect_contains "$out" "validation: passed"
	echo "$out" | tail -n 1 | grep -Eq '^figure-of-merit: [0-9.]+(e[+-]?[0-9]+)? GF/s$' ||
		fail "last line is not the figure of merit: $out"
	awk -v f="$(echo "$out" | tail -n 1 | awk '{print $2}')" 'BEGIN { exit !(f > 0) }' ||
		fail "figure of merit is not positive: $out"
}

expect_exit 0 "$prog" --help
expect_contains "$out" "mpirun -np N"
expect_contains "$out" "each rank's box"
err=$("$prog" --nx 12 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || fail "'hpcg-mpi --nx 12' exited $rc, expected 2"
expect_contains "$err" "hpcg-mpi: --nx"

# the descriptor's tiny preset, one rank, no launcher (an MPI singleton)
desc="$top/workloads/hpcg-mpi/workload.yaml"
grep -q '^command: \[hpcg-mpi\]' "$desc" || fail "$desc does not run hpcg-mpi by its bare name"
tiny=$(sed -n 's/^  tiny: *\[\(.*\)\].*/\1/p' "$desc" | tr -d '",')
[ -n "$tiny" ] || fail "no tiny size in $desc"
expect_exit 0 "$prog" $tiny
valid
expect_contains "$out" "grid 16 x 16 x 16 (1 rank(s): 1 x 1 x 1, each 16 x 16 x 16)"
# one rank is the serial hpcg: the same reference residual
serial=$("$LIBEXEC/hpcg" $tiny 2>&1 | grep '^reference CG')
[ -n "$serial" ] && [ "$(grep '^reference CG' <<<"$out")" = "$serial" ] ||
	fail "1-rank hpcg-mpi and hpcg disagree: '$(grep '^reference CG' <<<"$out")' vs '$serial'"

# one rank under mpirun: the same run
one=$out
expect_exit 0 mpi 1 "$prog" $tiny
valid
[ "$(grep -E '^(reference|unpreconditioned) CG:|^CG test' <<<"$out")" = \
  "$(grep -E '^(reference|unpreconditioned) CG:|^CG test' <<<"$one")" ] || fail "mpirun -np 1 differs from the singleton"

# the global grid 16 x 16 x 32 on one rank, and as two 16^3 boxes stacked in z
expect_exit 0 "$prog" --nx 16 --nz 32 --sets 2
valid
ref=$out
expect_exit 0 mpi 2 "$prog" --nx 16 --sets 2
valid
two=$out
expect_contains "$two" "grid 16 x 16 x 32 (2 rank(s): 1 x 1 x 2, each 16 x 16 x 16)"
# only rank 0 prints
[ "$(grep -c '^figure-of-merit' <<<"$two")" -eq 1 ] || fail "more than one rank printed: $two"
# the same problem: rows, nonzeros, the exact solution's residual
[ "$(grep '^rows' <<<"$two" | cut -d, -f1-2)" = "$(grep '^rows' <<<"$ref" | cut -d, -f1-2)" ] ||
	fail "rows/nonzeros differ: $(grep '^rows' <<<"$two") vs $(grep '^rows' <<<"$ref")"
expect_contains "$two" "max |b - A*xexact| 0.000e+00"
# unpreconditioned CG: the same residual and solution norm to rounding
for what in "scaled residual" "|x|"; do
	a=$(field "unpreconditioned CG" "$what" "$ref") b=$(field "unpreconditioned CG" "$what" "$two")
	close "$a" "$b" 1e-9 || fail "unpreconditioned CG $what: 1 rank $a, 2 ranks $b"
done
a=$(field "unpreconditioned CG" "scaled residual" "$ref")
awk -v a="$a" 'BEGIN { exit !(a > 0 && a < 1e-6) }' || fail "unpreconditioned CG did not converge: $a"
# HPCG's CG test agrees on the unpreconditioned iteration counts; the
# preconditioned history may differ (each rank's Gauss-Seidel sweeps its box
# against the halo as it was), but both reach HPCG's bars
[ "$(field "CG test" unpreconditioned "$two")" = "$(field "CG test" unpreconditioned "$ref")" ] ||
	fail "CG test iteration counts differ"
for o in "$ref" "$two"; do
	r=$(field "reference CG" "scaled residual" "$o")
	awk -v r="$r" 'BEGIN { exit !(r < 1e-20) }' || fail "reference CG reduced only to $r"
done

# a matrix corrupted on rank 1 only: every rank exits 1, rank 0 says why, no figure of merit
expect_exit 1 mpi 2 env TIERLAB_HPCG_CORRUPT=5 TIERLAB_HPCG_CORRUPT_RANK=1 "$prog" $tiny
expect_contains "$out" "validation: FAILED: "
expect_not_contains "$out" "figure-of-merit"
[ "$(grep -c '^validation: FAILED' <<<"$out")" -eq 1 ] || fail "the verdict was printed more than once"

# tierlab runs it with ranks as an external workload through mpirun
cat >"$scratch/mpi.yaml" <<YAML
name: hpcg-mpi-ranks
workload:
  command: [mpirun, --allow-run-as-root, --oversubscribe, -np, "2", $prog, --nx, "16", --sets, "1"]
  fom: {regex: "figure-of-merit: ([0-9.eE+-]+)", unit: GF/s}
YAML
expect_exit 0 "$TIERLAB" run -q "$scratch/mpi.yaml"
expect_contains "$out" "1 ok"
expect_exit 0 "$TIERLAB" report
expect_contains "$out" "GF/s"

echo ok
