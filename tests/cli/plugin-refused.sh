# A run whose policy plugin cannot be loaded is failed with the reason,
# never an `ok` run with a figure of merit that ran unmanaged under the
# plugin's name: a missing file (by path, also relative to the spec), a
# file that is no shared object, and a program none of whose allocations
# reached the threshold (so no policy ever loaded).
. "$(dirname "$0")/lib.sh"

[ -e "$B/lib/tierlab/libtiermem.so" ] || skip "libtiermem.so is not built"
mkdir "$scratch/spec"
echo "not an ELF file" >"$scratch/spec/bad.so"
# spec POLICY [WORKLOAD]: the spec, run from its own directory's point of view
spec() {
	cat >"$scratch/spec/p.yaml" <<YAML
name: plug
workload: ${2:-{name: memaccess, size: tiny\}}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 1MiB, budget: 2MiB}
policy: $1
YAML
}
status() { sqlite3 "$TIERLAB_DB" "select status || '|' || coalesce(fom, 'no fom') || '|' || error from runs order by id desc limit 1"; }

spec "$scratch/nonexistent.so"
expect_exit 1 "$TIERLAB" run -q "$scratch/spec/p.yaml"
expect_contains "$(status)" "failed|no fom|policy plugin '$scratch/nonexistent.so': No such file or directory"

# relative to the spec's directory, not to where the workload runs
spec ./missing.so
expect_exit 1 "$TIERLAB" run -q "$scratch/spec/p.yaml"
expect_contains "$(status)" "failed|no fom|policy plugin '$scratch/spec/./missing.so': No such file or directory"

spec ./bad.so
expect_exit 1 "$TIERLAB" run -q "$scratch/spec/p.yaml"
expect_contains "$(status)" "failed|no fom|the tiering runtime did not manage this run"
expect_contains "$(status)" "tiermem: policy '$scratch/spec/./bad.so'"

# nothing reached the threshold: the plugin was never even loaded
spec ./bad.so "{command: [true]}"
expect_exit 1 "$TIERLAB" run -q "$scratch/spec/p.yaml"
expect_contains "$(status)" "failed|no fom|the tiering runtime managed no allocation (none reached the threshold 1MiB)"
echo ok
