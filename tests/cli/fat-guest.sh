# libfatalloc on 1 GiB hugetlb pages, in a QEMU guest booted with two of
# them (hugepagesz=1G hugepages=2 on its command line, topped up at run
# time in the guest when boot got one: nothing on this machine changes). The guest (tests/guest/fat-session.sh) runs memaccess
# --order random --size 1G (one lap) under glibc and under libfatalloc, then
# frees a 1 GiB block under libfatalloc. Checked:
#   - both memaccess runs validate; under libfatalloc the first pool got
#     backing hugetlb-1G and the list a pool of its own on the other page:
#     two pages sufficed (the list's 16-byte header lies on the pool's
#     ordinary front page, not on a third 1 GiB page); the list's page is
#     faulted in (peak HugetlbPages 1 to 2 GiB: the first pool's page is
#     touched only if its small blocks outgrow its front page), and both
#     pages are free again after the exit;
#   - the page tables: libfatalloc's peak VmPTE at most a tenth of glibc's
#     (the list is mapped by one PUD entry instead of 262144 PTEs);
#   - the freed 1 GiB block's page goes back while the process runs
#     (HugetlbPages down by 1 GiB).
# The guest's wall times are printed, not checked: under TCG the guest's
# TLB is emulated by QEMU's own, which ignores the guest's page sizes.
# Skips (77) when QEMU, the kernel or busybox is missing, the guest does
# not boot, or it could not reserve the two pages at boot.
# tierlab-test: serial (boots a QEMU guest under TCG, which must come up within its timeout)
. "$(dirname "$0")/lib.sh"
guest=$top/tests/guest/run-in-guest.sh
session=$top/tests/guest/fat-session.sh
# memaccess built without -march=native ($B/guest/memaccess): the emulated CPU lacks this machine's extensions
for f in "$B/guest/memaccess" "$B/lib/tierlab/libfatalloc.so" "$B/tests/alloc/reuse"; do
	[ -x "$f" ] || fail "$f is not built"
done

# the programs and every shared library they need (ldd), at the loader's paths
stage=$scratch/root
install -D -m 755 "$B/guest/memaccess" "$stage/usr/libexec/tierlab/memaccess"
install -D -m 755 "$B/lib/tierlab/libfatalloc.so" "$stage/usr/lib/tierlab/libfatalloc.so"
install -D -m 755 "$B/tests/alloc/reuse" "$stage/opt/tierlab-test/reuse"
for f in "$stage"/usr/libexec/tierlab/* "$stage"/usr/lib/tierlab/* "$stage"/opt/tierlab-test/*; do
	LC_ALL=C ldd "$f" 2>/dev/null
done | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u >"$scratch/libs.txt"
grep -q ld-linux "$scratch/libs.txt" || fail "ldd named no dynamic loader"
while read -r lib; do
	mkdir -p "$stage$(dirname "$lib")" && cp -L "$lib" "$stage$lib" || fail "cannot copy $lib"
done <"$scratch/libs.txt"
adds=()
for d in "$stage"/*; do
	adds+=(--add "$d:/$(basename "$d")")
done

# 2 nodes of 4 GiB (with 3, boot got one 1 GiB page in two boots: too few aligned
# free GiB once the kernel lies in one): the two pages, and room for glibc's list;
# QEMU's default CPU has no 1 GiB pages (pdpe1gb) unless asked
start=$SECONDS
timeout 900 "$guest" --nodes 2 --mem 4G --cpu qemu64,+pdpe1gb --append "hugepagesz=1G hugepages=2" \
	--timeout 850 "${adds[@]}" \
	-- "$session" 1G 2 >"$scratch/console" 2>&1
rc=$?
out=$(tr -d '\r' <"$scratch/console")
[ $rc = 77 ] && skip "$(grep -a -m1 '^SKIP' <<<"$out" | sed 's/^SKIP: //')"
grep -a '^FAT-GUEST' <<<"$out" | sed 's/^FAT-GUEST: /  /'
[ $rc = 0 ] || fail "the guest session exited $rc:
$(grep -a -e FAT-GUEST -e GUEST- -e error <<<"$out" | tail -n 30)"
grep -aq 'FAT-GUEST: start: 1G pages 2 .*free 2,' <<<"$out" ||
	skip "the guest did not get two 1 GiB pages: $(grep -a -m1 'FAT-GUEST: start' <<<"$out")"

line() { grep -a -m1 "^FAT-GUEST: $1 exit" <<<"$out"; }
num() { sed -n "s/.* $1 \([0-9.]*\).*/\1/p" <<<"$2"; }
g=$(line glibc) f=$(line fat)
expect_contains "$g" "glibc exit 0"
expect_contains "$f" "fat exit 0"
[ "$(grep -ac 'validation: passed' <<<"$out")" = 2 ] || fail "memaccess did not validate twice"
expect_contains "$out" "FAT-GUEST: status backing: hugetlb-1G"
expect_contains "$out" "FAT-GUEST: status pool_backings: hugetlb-1G,hugetlb-1G"
h=$(num hugetlb_kb "$f")
[ "$h" -ge 1048576 ] && [ "$h" -le 2097152 ] || fail "libfatalloc held $h kB of hugetlb pages, not 1 to 2 GiB: $f"
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
