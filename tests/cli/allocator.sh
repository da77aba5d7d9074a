# The allocator axis: a run records which allocator and runtime libraries
# were really mapped in the workload; jemalloc serves when asked, and so do
# mimalloc and mimalloc-large (its large-OS-page option in the workload's
# environment) where libmimalloc2.0 is installed; glibc-thp and
# glibc-hugetlb give the workload glibc.malloc.hugetlb=1 and =2 (read back
# from its own environment and recorded), after a GLIBC_TUNABLES the user
# set; a workload whose environment lost the tunable fails the run.
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
# glibc told by its tunable: the workload's environment, as it received it
cat >"$scratch/g.yaml" <<'YAML'
name: glibc-allocators
workload: {name: mb, command: [mallocbench, --blocks, "100", --iterations, "3000000"], fom: {regex: "figure-of-merit: ([0-9.eE+-]+)", unit: ns/pair, higher_is_better: false}}
matrix:
  allocator: [glibc-thp, glibc-hugetlb]
YAML
GLIBC_TUNABLES=glibc.malloc.arena_max=2 expect_exit 0 "$TIERLAB" run -q "$scratch/g.yaml"
envkey() { q "select e.value from environment e join runs r on r.id=e.run_id where r.allocator='$1' and e.key='$2'"; }
[ "$(envkey glibc-thp allocator.glibc_hugetlb)" = 1 ] || fail "glibc-thp: the workload had glibc.malloc.hugetlb '$(envkey glibc-thp allocator.glibc_hugetlb)'"
[ "$(envkey glibc-hugetlb allocator.glibc_hugetlb)" = 2 ] || fail "glibc-hugetlb: the workload had '$(envkey glibc-hugetlb allocator.glibc_hugetlb)'"
# the user's tunables stay, the run's come after them
expect_contains "$(q "select value from environment e join runs r on r.id=e.run_id where r.allocator='glibc-thp' and e.key='env.GLIBC_TUNABLES'")" "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"
case "$(envkey glibc-hugetlb allocator.hugetlb_mapped)" in yes|no) ;; *) fail "glibc-hugetlb: hugetlb_mapped not recorded" ;; esac
# a workload that drops the tunable (env -u) did not run under the allocator asked for
cat >"$scratch/drop.yaml" <<'YAML'
name: glibc-dropped
workload: {name: drop, command: [env, -u, GLIBC_TUNABLES, sleep, "0.5"]}
matrix:
  allocator: [glibc-thp]
YAML
"$TIERLAB" run -q "$scratch/drop.yaml" >"$scratch/drop.out" 2>&1
expect_contains "$(q "select error from runs where allocator='glibc-thp' and workload='drop'")" "GLIBC_TUNABLES has glibc.malloc.hugetlb=unset, not 1"

if [ -e /usr/lib/x86_64-linux-gnu/libmimalloc.so.2 ] || [ -e /usr/lib/aarch64-linux-gnu/libmimalloc.so.2 ]; then
	expect_exit 0 "$TIERLAB" sweep -q "$scratch/a.yaml" --allocator mimalloc,mimalloc-large
	for a in mimalloc mimalloc-large; do
		expect_contains "$(mapped $a)" "libmimalloc"
		dir=$(run_dir "$(q "select out_dir from runs where allocator='$a'")")
		grep -qi mimalloc "$dir/stdout.txt" || fail "mallocbench under $a did not report mimalloc"
	done
	[ "$(q "select value from environment e join runs r on r.id=e.run_id where r.allocator='mimalloc-large' and e.key='env.MIMALLOC_LARGE_OS_PAGES'")" = 1 ] ||
		fail "mimalloc-large: MIMALLOC_LARGE_OS_PAGES not 1 in the run's environment"
else
	echo "note: libmimalloc2.0 not installed: mimalloc not checked"
fi
echo ok
