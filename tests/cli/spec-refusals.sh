# What `run` refuses before anything runs: each error names the spec's
# file, line and column, and no database (nor its directory) is left
# behind. Also: a plan too big to hold is refused at once, and a built-in
# workload named '..' does not read a descriptor outside the workloads
# directory.
. "$(dirname "$0")/lib.sh"

db="$scratch/r/x.db"
# refused: CODE EXPECTED-PREFIX SPEC [options]
refused() {
	local want=$1; shift
	expect_exit 2 "$TIERLAB" run -q --db "$db" "$@"
	expect_contains "$out" "error: $want"
	[ ! -e "$scratch/r" ] || fail "'$*' left $(ls -A "$scratch/r") behind in $scratch/r"
}

cd "$scratch" || exit 1
cat >nofast.yaml <<'YAML'
name: nofast
workload: {command: [true]}
matrix:
  policy: [none, all-fast]
YAML
refused "nofast.yaml:4:11: policy 'all-fast' needs machine.fast, which the spec does not set" nofast.yaml

cat >absent.yaml <<'YAML'
name: absent
workload: {command: [true]}
machine: {fast: "0", slow: "63"}
policy: all-slow
YAML
refused "absent.yaml:3:28: machine.slow '63' names nodes this machine does not have (present: " absent.yaml

cat >profile.yaml <<'YAML'
name: profiled
workload: {command: [true]}
machine: nosuchprofile
YAML
refused "profile.yaml:3:10: machine profile 'nosuchprofile': no database" profile.yaml

# the matrix passes its bound at the axis that makes it too big
{
	echo "name: huge"
	echo "workload: {command: [true]}"
	echo "matrix:"
	for a in threads chunks window; do
		printf '  %s: [' $a; seq -s, 1 128 | tr -d '\n'; echo ']'
	done
	echo "  policy: [window]"
} >huge.yaml
refused "huge.yaml:6:11: matrix.window: with this axis the matrix expands to more than 1048576 combinations" huge.yaml

# configurations x repetitions: refused at once, not after eating the memory
cat >reps.yaml <<'YAML'
name: reps
workload: {command: [true]}
repetitions: 10000
matrix:
  threads: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
  chunks: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  policy: [lru]
YAML
refused "reps.yaml:3:14: repetitions: 200 configurations x 10000 repetitions = 2000000 runs, more than a plan may hold (1048576)" reps.yaml
expect_exit 2 "$TIERLAB" run -n "$scratch/reps.yaml"
expect_contains "$out" "2000000 runs, more than a plan may hold"

# a workload named '..' is not the descriptor one directory up
mkdir -p wl/real
echo "name: real
command: [true]" >wl/real/workload.yaml
echo "name: outside
command: [sh, -c, 'echo escaped']" >workload.yaml
cat >dots.yaml <<'YAML'
name: dots
workload: {name: ..}
YAML
TIERLAB_WORKLOADS="$scratch/wl" expect_exit 2 "$TIERLAB" run -q --db "$db" dots.yaml
expect_contains "$out" "dots.yaml:2:18: workload.name: unknown workload '..'"
expect_not_contains "$out" "escaped"
[ ! -e "$scratch/r" ] || fail "the '..' workload ran"
echo ok
