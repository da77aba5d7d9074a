# libfatalloc on 1 GiB hugetlb pages, in a QEMU guest booted with two of
# them (hugepagesz=1G hugepages=2 on its command line: nothing on this
# machine changes). The guest (tests/guest/fat-session.sh) runs memaccess
# --order random --size 1G (one lap) under glibc and under libfatalloc, then
# frees a 1 GiB block under libfatalloc. Checked:
#   - both memaccess runs validate; under libfatalloc the first pool got
#     backing hugetlb-1G and the list its own pool of one page: peak
#     HugetlbPages 2 GiB, not 3 (the list's 16-byte header lies on the
#     pool's ordinary front page), and both pages free again after exit;
#   - the page tables: libfatalloc's peak VmPTE at most a tenth of glibc's
#     (the list is mapped by one PUD entry instead of 262144 PTEs);
#   - the freed 1 GiB block's page goes back while the process runs
#     (HugetlbPages down by 1 GiB).
# The guest's wall times are printed, not checked: under TCG the guest's
# TLB is emulated by QEMU's own, which ignores the guest's page sizes.
# Skips (77) when QEMU, the kernel or busybox is missing, the guest does
# not boot, or it could not reserve the two pages at boot.
. "$(dirname "$0")/lib.sh"
guest=$top/tests/guest/run-in-guest.sh
session=$top/tests/guest/fat-session.sh
for f in "$B/libexec/tierlab/memaccess" "$B/lib/tierlab/libfatalloc.so" "$B/tests/alloc/reuse"; do
	[ -x "$f" ] || fail "$f is not built"
done

# the programs and every shared library they need (ldd), at the loader's paths
stage=$scratch/root
install -D -m 755 "$B/libexec/tierlab/memaccess" "$stage/usr/libexec/tierlab/memaccess"
install -D -m 755 "$B/lib/tierlab/libfatalloc.so" "$stage/usr/lib/tierlab/libfatalloc.so"
install -D -m 755 "$B/tests/alloc/reuse" "$stage/opt/tierlab-test/reuse"
for f in "$stage"/usr/libexec/tierlab/* "$stage"/usr/lib/tierlab/* "$stage"/opt/tierlab-test/*; do
	LC_ALL=C ldd "$f" 2>/dev/null
done | awk '$3 == "=>" && $4 ~ /^\// { print $4 } $1 ~ /^\// { print $1 }' | sort -u >"$scratch/libs.txt"
grep -q ld-linux "$scratch/libs.txt" || fail "ldd named no dynamic loader"
while read -r lib; do
	mkdir -p "$stage$(dirname "$lib")" && cp -L "$lib" "$stage$lib" || fail "cannot copy $lib"
done <"$scratch/libs.txt"
adds=()
for d in "$stage"/*; do
	adds+=(--add "$d:/$(basename "$d")")
done

# 2 nodes of 2 GiB: the two 1 GiB pages, and room for glibc's 1 GiB list
start=$SECONDS
timeout 900 "$guest" --nodes 2 --mem 2G --append "hugepagesz=1G hugepages=2" --timeout 850 "${adds[@]}" \
	-- "$session" 1G >"$scratch/console" 2>&1
rc=$?
out=$(tr -d '\r' <"$scratch/console")
[ $rc = 77 ] && skip "$(grep -a -m1 '^SKIP' <<<"$out" | sed 's/^SKIP: //')"
grep -a '^FAT-GUEST' <<<"$out" | sed 's/^FAT-GUEST: /  /'
[ $rc = 0 ] || fail "the guest session exited $rc:
$(grep -a -e FAT-GUEST -e GUEST- -e error <<<"$out" | tail -n 30)"
grep -aq 'FAT-GUEST: start: 1G pages 2, free 2' <<<"$out" ||
	skip "the guest did not get two 1 GiB pages at boot: $(grep -a -m1 'FAT-GUEST: start' <<<"$out")"

line() { grep -a -m1 "^FAT-GUEST: $1 exit" <<<"$out"; }
num() { sed -n "s/.* $1 \([0-9.]*\).*/\1/p" <<<"$2"; }
g=$(line glibc) f=$(line fat)
expect_contains "$g" "glibc exit 0"
expect_contains "$f" "fat exit 0"
[ "$(grep -ac 'validation: passed' <<<"$out")" = 2 ] || fail "memaccess did not validate twice"
expect_contains "$out" "FAT-GUEST: status backing: hugetlb-1G"
expect_contains "$out" "FAT-GUEST: status pool_backings: hugetlb-1G,hugetlb-1G"
[ "$(num hugetlb_kb "$f")" = 2097152 ] || fail "libfatalloc held $(num hugetlb_kb "$f") kB of hugetlb pages, not 2 GiB: $f"
[ "$(num free_1g_after "$f")" = 2 ] || fail "the 1 GiB pages were not free after the program: $f"
gpte=$(num vmpte_kb "$g") fpte=$(num vmpte_kb "$f")
[ "$gpte" -gt 0 ] && [ "$fpte" -gt 0 ] || fail "no VmPTE sampled: $g / $f"
[ $((fpte * 10)) -le "$gpte" ] || fail "VmPTE under libfatalloc ($fpte kB) is not a tenth of glibc's ($gpte kB)"
tb=$(sed -n 's/^FAT-GUEST: tail hugetlb_kb_before: //p' <<<"$out")
ta=$(sed -n 's/^FAT-GUEST: tail hugetlb_kb_after: //p' <<<"$out")
expect_contains "$out" "FAT-GUEST: tail backing: hugetlb-1G"
[ -n "$tb" ] && [ -n "$ta" ] && [ "$ta" -le $((tb - 1048576)) ] ||
	fail "the freed 1 GiB block kept its page: before $tb kB, after $ta kB"
echo "1 GiB pages in the guest: VmPTE $fpte kB under libfatalloc, $gpte kB under glibc;" \
	"wall (TCG) $(num wall "$f") s against $(num wall "$g") s; a freed 1 GiB block's page went back;" \
	"$((SECONDS - start)) s of QEMU"
