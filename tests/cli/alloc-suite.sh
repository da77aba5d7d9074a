# The allocator suite under glibc, jemalloc and libfatalloc, then what only
# libfatalloc has: its status file and backing, pool growth and the counted
# fallback, reuse of what exited threads leave and memory given back to the
# kernel (THP pools, and hugetlb pools), hugetlb backings (2 MiB pages
# reserved here and given back; a 1 GiB page tried), its logic under
# ASan+UBSan and TSan, and its exports.
# The suite also runs under valgrind without a preload (a check of the
# suite itself). Every hugetlb setting changed is restored on every exit.
# tierlab-test: serial (grows and restores the machine's hugetlb pool, which ktier-host and mempolicy-host check unchanged and libfatalloc takes pages from)
. "$(dirname "$0")/lib.sh"
T="$B/tests/alloc"
FAT="$B/lib/tierlab/libfatalloc.so"
for f in "$T/suite" "$T/fill" "$T/reuse" "$T/fat-asan" "$T/fat-tsan" "$FAT"; do
	[ -e "$f" ] || fail "$f not built"
done
HP=/sys/kernel/mm/hugepages
old2m= old1g=
restore() {
	[ -n "$old2m" ] && echo "$old2m" >"$HP/hugepages-2048kB/nr_hugepages"
	[ -n "$old1g" ] && echo "$old1g" >"$HP/hugepages-1048576kB/nr_hugepages"
	rm -rf "$scratch"
}
trap restore EXIT
trap 'exit 130' INT TERM HUP

# suite ALLOCATOR [ENV...]: the suite must pass, served by ALLOCATOR
suite() {
	local who=$1; shift
	expect_exit 0 env "$@" ALLOC_SUITE_EXPECT="$who" "$T/suite"
	expect_contains "$out" "allocator: $who"
	expect_contains "$out" "PASSED  ] 8 test(s)"
	echo "suite under $who ($*): passed$(grep '^note' <<<"$out" | sed 's/^/; /' | tr -d '\n')"
}

suite glibc
jemalloc=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -n 1)
if [ -n "$jemalloc" ]; then
	suite jemalloc LD_PRELOAD="$jemalloc"
else
	echo "jemalloc not installed: suite not run under it"
fi
mkdir -p "$scratch/out"
suite fat LD_PRELOAD="$FAT" TIERLAB_OUT="$scratch/out"
# small pools: the 64 MiB blocks get pools of their own, then the system's
suite fat LD_PRELOAD="$FAT" TIERLAB_FAT_POOL=4M TIERLAB_FAT_MAX_POOLS=4

# the status file, with the keys tierlab reads: one, the suite's (its forked
# children leave with _exit and reserve no pool of their own: they write none)
status=$(ls "$scratch"/out/fatalloc-*.txt | head -n 1)
[ -n "$status" ] || fail "no fatalloc-PID.txt in TIERLAB_OUT"
[ "$(ls "$scratch"/out/fatalloc-*.txt | wc -l)" -eq 1 ] || fail "expected one status file: $(ls "$scratch/out")"
ls -a "$scratch/out" | grep -q '\.tmp$' && fail "a temporary status file was left behind"
for k in allocator backing backing_note pool_size pools max_pools pool_backings mallocs frees \
	 fallback_allocs bytes_allocated_peak pool_bytes_used pool_bytes_reserved; do
	grep -Eq "^$k: ." "$status" || fail "no '$k:' in $status:
$(cat "$status")"
done

hugetlb_free() { cat "$HP/hugepages-$1/free_hugepages" 2>/dev/null || echo 0; }
val() { sed -n "s/^$1: //p" <<<"$out"; }

# threads that come and go (mleak's pattern, 2000 threads): what exited
# threads leave is reused, so the peak RSS stays near glibc's (it was
# about 1 GB: a fresh segment per thread, each faulting a huge page)
expect_exit 0 "$T/reuse" threads 200 10
glibc_hwm=$(val vmhwm_kb)
expect_exit 0 env LD_PRELOAD="$FAT" "$T/reuse" threads 200 10
expect_contains "$out" "fallback_allocs: 0"
[ "$(val vmhwm_kb)" -le $((2 * glibc_hwm + 2048)) ] ||
	fail "peak RSS with threads coming and going: $(val vmhwm_kb) kB under fat, $glibc_hwm kB under glibc"
[ "$(val pool_bytes_used)" -le $((4 << 20)) ] || fail "2000 short-lived threads used too much pool: $out"
[ "$(val segments_reused)" -gt 0 ] || fail "no segment was reused: $out"
echo "2000 threads come and go: peak RSS $(val vmhwm_kb) kB (glibc $glibc_hwm kB)," \
	"$(val segments_reused) of $(val segments) segments reused"

# a freed block longer than TIERLAB_FAT_TRIM (64M) goes back to the kernel; with off it stays
expect_exit 0 env LD_PRELOAD="$FAT" "$T/reuse" tail 256
[ "$(val rss_kb_after)" -le $(($(val rss_kb_before) - 200 * 1024)) ] ||
	fail "a freed 256 MiB block stayed resident: $out"
[ "$(val bytes_released)" -ge $((250 << 20)) ] || fail "bytes_released does not say so: $out"
expect_exit 0 env LD_PRELOAD="$FAT" TIERLAB_FAT_TRIM=off "$T/reuse" tail 256
[ "$(val rss_kb_after)" -ge $(($(val rss_kb_before) - 8 * 1024)) ] ||
	fail "TIERLAB_FAT_TRIM=off, yet the freed block left memory: $out"
echo "a freed 256 MiB block goes back to the kernel (kept with TIERLAB_FAT_TRIM=off)"

# no hugetlb pages reserved (this machine's default): THP, and it says why
rm -f "$scratch"/out/*
expect_exit 0 env LD_PRELOAD="$FAT" TIERLAB_OUT="$scratch/out" TIERLAB_FAT_VERBOSE=1 \
	TIERLAB_FAT_POOL=4M TIERLAB_FAT_MAX_POOLS=3 "$T/fill" 200 65536
expect_contains "$out" "pools: 3"
expect_contains "$out" "blocks: 200"
fb=$(sed -n 's/^fallback_allocs: //p' <<<"$out")
inpool=$(sed -n 's/^in_pool: //p' <<<"$out")
[ "$fb" -gt 0 ] || fail "three 4 MiB pools held 200 blocks of 64 KiB: $out"
[ $((fb + inpool)) -eq 200 ] || fail "fallbacks ($fb) and pool blocks ($inpool) do not add up to 200"
[ "$(grep -c '^fatalloc: pool' <<<"$out")" -eq 1 ] || fail "the backing should be said once: $out"
status=$(cat "$scratch"/out/fatalloc-*.txt)
expect_contains "$status" "pools: 3"
expect_contains "$status" "fallback_allocs: $fb"
if [ "$(hugetlb_free 2048kB)" = 0 ] && [ "$(hugetlb_free 1048576kB)" = 0 ]; then
	expect_contains "$out" "backed by thp"
	expect_contains "$status" "backing: thp"
	expect_contains "$status" "hugetlb-2M: 2 pages needed, 0 free"
	echo "no hugetlb pages: backing thp, said once; pool growth to 3 pools, $fb fallbacks counted"
else
	echo "hugetlb pages are reserved on this machine: the no-hugetlb case was not checked"
fi

[ "$(id -u)" = 0 ] && [ -w "$HP/hugepages-2048kB/nr_hugepages" ] || {
	echo "SKIP: not root: hugetlb backings not tested (everything else passed)"
	exit 77
}

# 2 MiB hugetlb pages: reserve 40 more; an 8 MiB pool takes 4 of them
old2m=$(cat "$HP/hugepages-2048kB/nr_hugepages")
echo $((old2m + 40)) >"$HP/hugepages-2048kB/nr_hugepages"
if [ "$(hugetlb_free 2048kB)" -ge 40 ]; then
	rm -f "$scratch"/out/*
	expect_exit 0 env LD_PRELOAD="$FAT" TIERLAB_OUT="$scratch/out" TIERLAB_FAT_POOL=8M "$T/fill" 100 20000
	expect_contains "$out" "backing: hugetlb-2M"
	expect_contains "$(cat "$scratch"/out/fatalloc-*.txt)" "backing: hugetlb-2M"
	expect_contains "$(cat "$scratch"/out/fatalloc-*.txt)" "hugetlb-1G: pool smaller than a 1 GiB page"
	# the whole suite on hugetlb pages: two pools (8 pages), the rest the
	# system's. A forked child writing to a private hugetlb page needs a free
	# page for its copy (else SIGBUS: docs/fatalloc.md), hence the headroom.
	suite fat LD_PRELOAD="$FAT" TIERLAB_FAT_POOL=8M TIERLAB_FAT_MAX_POOLS=2 TIERLAB_FAT_BACKING=hugetlb-2M
	# a 32 MiB block takes 16 pages (its header lies on the pool's front
	# page, not on a 17th) and gives them back when freed
	expect_exit 0 env LD_PRELOAD="$FAT" TIERLAB_FAT_POOL=8M TIERLAB_FAT_TRIM=16M "$T/reuse" tail 32
	expect_contains "$out" "backing: hugetlb-2M"
	# (and one page for the small blocks of the 8 MiB pool)
	[ "$(val hugetlb_kb_before)" -le $((32768 + 2048)) ] || fail "more hugetlb pages than 16 + 1: $out"
	[ "$(val hugetlb_kb_after)" -le $(($(val hugetlb_kb_before) - 32768)) ] ||
		fail "the freed block's hugetlb pages stayed: $out"
	echo "2 MiB hugetlb pages reserved: backing hugetlb-2M; a freed 32 MiB block gave its 16 pages back"
else
	echo "could not reserve 2 MiB hugetlb pages (free: $(hugetlb_free 2048kB)): hugetlb-2M not checked"
fi
echo "$old2m" >"$HP/hugepages-2048kB/nr_hugepages"
[ "$(cat "$HP/hugepages-2048kB/nr_hugepages")" = "$old2m" ] || fail "nr_hugepages (2 MiB) not restored to $old2m"
old2m=

# a 1 GiB page: may fail by fragmentation; then the fallback is what is checked
if [ -w "$HP/hugepages-1048576kB/nr_hugepages" ]; then
	old1g=$(cat "$HP/hugepages-1048576kB/nr_hugepages")
	echo $((old1g + 1)) >"$HP/hugepages-1048576kB/nr_hugepages" 2>/dev/null
	rm -f "$scratch"/out/*
	expect_exit 0 env LD_PRELOAD="$FAT" TIERLAB_OUT="$scratch/out" TIERLAB_FAT_POOL=1G "$T/fill" 100 300000
	if [ "$(hugetlb_free 1048576kB)" -ge 1 ] 2>/dev/null || grep -q "backing: hugetlb-1G" <<<"$out"; then
		expect_contains "$out" "backing: hugetlb-1G"
		echo "a 1 GiB hugetlb page reserved: backing hugetlb-1G"
	else
		expect_contains "$out" "backing: thp"
		expect_contains "$(cat "$scratch"/out/fatalloc-*.txt)" "hugetlb-1G: 1 pages needed, 0 free"
		echo "no 1 GiB page could be reserved (memory fragmented): fell back to thp and said why"
	fi
	echo "$old1g" >"$HP/hugepages-1048576kB/nr_hugepages"
	[ "$(cat "$HP/hugepages-1048576kB/nr_hugepages")" = "$old1g" ] || fail "nr_hugepages (1 GiB) not restored"
	old1g=
fi

# the logic, linked directly, under the sanitizers
expect_exit 0 "$T/fat-asan"
expect_not_contains "$out" "runtime error"
expect_exit 0 env TSAN_OPTIONS=halt_on_error=1 "$T/fat-tsan"
expect_not_contains "$out" "WARNING: ThreadSanitizer"
echo "fatalloc logic clean under ASan+UBSan and TSan"

# only the malloc API and fat_* leave the library
exports=$(nm -D --defined-only "$FAT" | awk '{print $3}' | sort | tr '\n' ' ')
for s in $exports; do
	case $s in
	malloc|free|calloc|realloc|reallocarray|posix_memalign|aligned_alloc|memalign|valloc|pvalloc|\
	malloc_usable_size|fat_*) ;;
	*) fail "libfatalloc.so exports '$s'" ;;
	esac
done
for s in malloc free calloc realloc reallocarray posix_memalign aligned_alloc memalign valloc pvalloc \
	 malloc_usable_size; do
	expect_contains " $exports" " $s "
done

# the suite's own memory handling, checked by valgrind (no preload: valgrind's malloc);
# --fair-sched: with valgrind's default lock, test_fork's churn thread can
# keep the forking thread waiting for minutes (seen once in CI)
if command -v valgrind >/dev/null; then
	expect_exit 0 valgrind -q --fair-sched=yes --error-exitcode=9 "$T/suite"
	expect_contains "$out" "allocator: valgrind"
	echo "suite clean under valgrind"
else
	echo "valgrind not installed: the suite's own check skipped"
fi
