# The tiering runtime in a 2-node QEMU guest (tests/guest/tiermem-guest.c):
# LRU with the fast tier on node 1 and the slow tier on node 0; every chunk
# the runtime reports fast is on node 1 page by page (move_pages), every
# slow one on node 0, the budget holds, migrations went both ways, the data
# is intact, and a freed array reused from the cache of freed regions has
# each chunk's pages on its new node. Twice: THP always and THP never
# (huge-page moves behave differently). Then, with sampler none and with
# the fault sampler, that nothing is populated at malloc and each page
# comes at first touch on its chunk's tier, before and after promotions. Passes only on the program's PASS marker; skips (77) when
# QEMU, the kernel or busybox is missing or the guest does not boot.
# tierlab-test: serial (boots a QEMU guest under TCG, which must come up within its timeout)
. "$(dirname "$0")/lib.sh"
guest=$top/tests/guest/run-in-guest.sh
prog=$B/guest/tiermem-guest
[ -x "$prog" ] || fail "$prog is not built (make $prog)"

# boot THP [ARG]: the guest's console in $scratch/THP.out; one retry when the
# guest itself did not come up (TCG sometimes trips the kernel at boot).
boot() {
	local thp=$1 arg=${2:-} rc try start
	for try in 1 2; do
		start=$SECONDS
		timeout 100 "$guest" --nodes 2 --thp "$thp" --timeout 75 -- "$prog" $arg >"$scratch/$thp.out" 2>&1
		rc=$?
		secs=$((SECONDS - start))
		[ $rc = 77 ] && grep -aq -e '^SKIP: the guest' "$scratch/$thp.out" && [ $try = 1 ] && continue
		break
	done
	[ $rc = 77 ] && skip "thp=$thp: $(grep -a -m1 '^SKIP' "$scratch/$thp.out" | sed 's/^SKIP: //')"
	out=$(tr -d '\r' <"$scratch/$thp.out")
	[ $rc = 0 ] || fail "guest with thp=$thp exited $rc; console:
$(grep -a -e TIERMEM-GUEST -e FAIL -e tiermem: -e GUEST- -e SKIP <<<"$out" | tail -n 40)"
	expect_contains "$out" "GUEST-EXIT 0"
	expect_contains "$out" "TIERMEM-GUEST: nodes 2,"
	expect_not_contains "$out" "FAIL:"
	expect_contains "$out" "TIERMEM-GUEST: PASS"
	# the kernel's timestamp at power-off: boot plus the program, in guest time
	echo "thp=$thp${arg:+ $arg}: PASS in ${secs}s of QEMU (guest powered off at $(sed -n 's/^\[ *\([0-9.]*\)\] reboot: Power down.*/\1/p' <<<"$out") s)"
	grep -a -e 'TIERMEM-GUEST: phase' -e 'TIERMEM-GUEST: counters' -e 'TIERMEM-GUEST: migrated' -e 'TIERMEM-GUEST: placement' \
		-e 'TIERMEM-GUEST: AnonHuge' -e 'TIERMEM-GUEST: fault sampler' -e 'TIERMEM-GUEST: array' -e 'TIERMEM-GUEST: no fault' -e 'TIERMEM-GUEST: reuse' \
		-e 'TIERMEM-GUEST: first touch' <<<"$out" | sed 's/^/  /'
}

boot always
boot never
# without the fault sampler: pages at first touch on their chunk's tier
boot always first-touch
boot never first-touch
# under the fault sampler: its handler places each first touch
boot always first-touch-fault
boot never first-touch-fault
echo ok
