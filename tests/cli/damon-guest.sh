# The damon sampler against a real kdamond in a QEMU guest
# (tests/guest/damon-guest.c; the host's DAMON belongs to the machine and
# has no vaddr): refused when DAMON is in use and when not root, nothing
# changed; a hot/cold program under the runtime (90% of the accesses to
# 4 MiB of 32 MiB managed) gets samples, at least 60% of them in the hot set
# (a blind sampler gets 12.5%); a forked child is not sampled, says so and
# leaves the parent's kdamond on; DAMON is given back (nr_kdamonds 0) at
# the end of each run; a killed run leaves nr_kdamonds 1, as documented;
# a kdamond turned off under the sampler ends its samples (no stale ones);
# the sysfs layer keeps DAMON's regions inside the range given, commits a
# new one, and vaddr's ops update would replace them (why update_us is long).
# DAMON under TCG sees accesses only with pti=on. Skips (77) when QEMU, the
# kernel or busybox is missing or the guest does not boot.
# tierlab-test: serial (boots a QEMU guest under TCG, which must come up within its timeout)
. "$(dirname "$0")/lib.sh"
guest=$top/tests/guest/run-in-guest.sh
prog=$B/guest/damon-guest
[ -x "$prog" ] || fail "$prog is not built (make $prog)"

# one retry when the guest itself did not come up (TCG sometimes trips the kernel at boot)
for try in 1 2; do
	start=$SECONDS
	timeout 150 "$guest" --nodes 2 --append pti=on --timeout 120 -- "$prog" --seconds 20 >"$scratch/console" 2>&1
	rc=$?
	[ $rc = 77 ] && grep -aq -e '^SKIP: the guest' "$scratch/console" && [ $try = 1 ] && continue
	break
done
[ $rc = 77 ] && skip "$(grep -a -m1 '^SKIP' "$scratch/console" | sed 's/^SKIP: //')"
out=$(tr -d '\r' <"$scratch/console")
[ $rc = 0 ] || fail "guest exited $rc; console:
$(grep -a -e DAMON-GUEST -e FAIL -e tiermem: -e GUEST- -e SKIP <<<"$out" | tail -n 40)"
expect_contains "$out" "GUEST-EXIT 0"
expect_not_contains "$out" "FAIL:"
expect_contains "$out" "DAMON-GUEST: in use: start() = -16: DAMON is in use on this machine (nr_kdamonds is 1"
expect_contains "$out" "DAMON-GUEST: not root: start(): cannot write /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds (needs root)"
expect_contains "$out" "sampler 'damon' at 10 Hz"
expect_contains "$out" "tiermem: damon sampler: DAMON monitors the parent process; this forked child is not sampled"
expect_contains "$out" "tiermem: damon sampler: the kdamond was turned off; no more samples"
expect_contains "$out" "DAMON-GUEST: PASS"
echo "PASS in $((SECONDS - start))s of QEMU"
grep -a -e 'DAMON-GUEST: thp' -e 'DAMON-GUEST: killed' -e 'DAMON-GUEST: sysfs' -e 'DAMON-GUEST: turned' <<<"$out" | sed 's/^/  /'
echo ok
