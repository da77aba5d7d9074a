# TIERLAB_SAMPLER=damon on this host, where DAMON is the machine's: the
# runtime must refuse with the reason, by reading alone. Under strace, a
# program preloaded with the runtime runs unmanaged (its output as
# without it), says "DAMON is in use on this machine (nr_kdamonds is N",
# exits 2 with TIERLAB_STRICT=1, and opens nothing under
# /sys/kernel/mm/damon for writing; nr_kdamonds reads the same after.
# Not root: the reason says so. Where nr_kdamonds is 0 the refusal does
# not apply and running would start a kdamond: skipped (the guest test,
# damon-guest.sh, covers a free DAMON). Where there is no DAMON sysfs
# interface, that is the reason checked.
. "$(dirname "$0")/lib.sh"
so=$B/lib/tierlab/libtiermem.so
[ -f "$so" ] || fail "$so is not built"
command -v strace >/dev/null || skip "strace not installed (it shows that nothing is written)"
admin=/sys/kernel/mm/damon/admin
prog=(python3 -c 'b = bytearray(8 << 20); print(len(b))')
# TIERLAB_LOG=none: the runtime writes no file (nobody could not write in $scratch)
vars=(LD_PRELOAD="$so" TIERLAB_POLICY=lru TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 TIERLAB_SAMPLER=damon
      TIERLAB_LOG=none)

if [ ! -d "$admin" ]; then
	want="no DAMON sysfs interface here"
else
	nr=$(cat "$admin/kdamonds/nr_kdamonds") || fail "cannot read $admin/kdamonds/nr_kdamonds"
	[ "$nr" != 0 ] || skip "DAMON is free here (nr_kdamonds 0): the refusal does not apply, and this test never starts a kdamond"
	want="tiermem: sampler 'damon': DAMON is in use on this machine (nr_kdamonds is $nr;"
fi

# run_traced LOG PREFIX...: PREFIX... (env VARS, setpriv ...) running the program, under strace; output in $out, exit code in $rc
run_traced() {
	local log=$1; shift
	out=$(strace -f -qq -o "$log" -e trace=open,openat,openat2,creat,truncate,mkdir,rmdir,unlink,unlinkat,rename,renameat,renameat2 \
		"$@" "${prog[@]}" 2>&1)
	rc=$?
}
# no_writes LOG: nothing under /sys/kernel/mm/damon opened for writing, created, removed or renamed
no_writes() {
	local bad
	bad=$(grep -F /sys/kernel/mm/damon "$1" | grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|creat\(|truncate\(|mkdir\(|rmdir\(|unlink|rename' || true)
	[ -z "$bad" ] || fail "wrote under /sys/kernel/mm/damon:
$bad"
	echo "  $(grep -cF /sys/kernel/mm/damon "$1") read-only open(s) under /sys/kernel/mm/damon: $(grep -oF -e "/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds" -e avail_operations "$1" | sort -u | tr '\n' ' ')"
}

run_traced "$scratch/st1" env "${vars[@]}" TIERLAB_VERBOSE=1
[ $rc = 0 ] || fail "the program exited $rc under the runtime; output:
$out"
expect_contains "$out" "8388608"
expect_contains "$out" "$want"
no_writes "$scratch/st1"
echo "refused: $(grep -F "sampler 'damon'" <<<"$out")"

run_traced "$scratch/st2" env "${vars[@]}" TIERLAB_STRICT=1
[ $rc = 2 ] || fail "TIERLAB_STRICT=1: exit $rc, expected 2; output:
$out"
expect_contains "$out" "$want"
no_writes "$scratch/st2"

if [ -d "$admin" ]; then
	[ "$(cat "$admin/kdamonds/nr_kdamonds")" = "$nr" ] || fail "nr_kdamonds changed from $nr"
fi

# not root: the reason says what is missing (where this can be tried)
if [ "$(id -u)" = 0 ] && [ -d "$admin" ] && command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$so"; then
	run_traced "$scratch/st3" setpriv --reuid=65534 --regid=65534 --clear-groups env "${vars[@]}" TIERLAB_VERBOSE=1
	expect_contains "$out" "tiermem: sampler 'damon': cannot write $admin/kdamonds/nr_kdamonds (needs root)"
	expect_contains "$out" "8388608"
	no_writes "$scratch/st3"
	echo "not root: $(grep -F "sampler 'damon'" <<<"$out")"
fi
echo ok
