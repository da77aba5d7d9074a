# The allocator axis: a run records which allocator and runtime libraries
# were really mapped in the workload; jemalloc serves when asked.
. "$(dirname "$0")/lib.sh"
[ -e /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ] || [ -e /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 ] \
	|| skip "libjemalloc2 is not installed"

cat >"$scratch/a.yaml" <<'YAML'
name: allocators
workload: {name: mb, command: [mallocbench, --blocks, "100", --iterations, "3000000"], fom: {regex: "figure-of-merit: ([0-9.eE+-]+)", unit: ns/pair, higher_is_better: false}}
matrix:
  allocator: [system, jemalloc]
YAML
expect_exit 0 "$TIERLAB" run -q "$scratch/a.yaml"
q() { sqlite3 "$TIERLAB_DB" "$1"; }
mapped() { q "select e.value from environment e join runs r on r.id=e.run_id where r.allocator='$1' and e.key='allocator.mapped'"; }
expect_contains "$(mapped jemalloc)" "libjemalloc"
expect_not_contains "$(mapped system)" "libjemalloc"
# mallocbench names the allocator that answered malloc
dir=$(run_dir "$(q "select out_dir from runs where allocator='jemalloc'")")
grep -qi jemalloc "$dir/stdout.txt" || fail "mallocbench under jemalloc did not report jemalloc"

# the FAT allocator: the run records the pool backing it really got
if [ -e "$B/lib/tierlab/libfatalloc.so" ]; then
	expect_exit 0 "$TIERLAB" sweep -q "$scratch/a.yaml" --allocator fat
	expect_contains "$(mapped fat)" "libfatalloc"
	backing=$(q "select e.value from environment e join runs r on r.id=e.run_id where r.allocator='fat' and e.key='allocator.backing'")
	case "$backing" in
	hugetlb-1G|hugetlb-2M|thp|pages*) ;;
	*) fail "allocator.backing of the fat run is '$backing'" ;;
	esac
	dir=$(run_dir "$(q "select out_dir from runs where allocator='fat'")")
	grep -qi fatalloc "$dir/stdout.txt" || fail "mallocbench under fat did not report fatalloc"
fi
echo ok
