# A run whose output could not be captured whole is not ok (issue 27). The
# run directories on a file system that fills (the database elsewhere):
# the program printed "fom: 1.0", filler, then its real "fom: 9.0"; stdout
# was cut short at the full disk, and the run was stored ok with 1.0. Now
# the run fails naming the file, the error and the full file system, and
# `--resume` runs it again once there is room. Two ways to fill the disk:
# a tmpfs of 256 KiB (as root, in a private mount namespace, so the mount
# goes with it whatever happens), and, for anyone, the fault-injection
# shim failing tierlab's writes with ENOSPC from the second on.
. "$(dirname "$0")/lib.sh"

cat >"$scratch/full.yaml" <<'YAML'
name: full
workload:
  name: printer
  command: [sh, -c, 'echo "fom: 1.0"; sleep 0.3; head -c 600000 /dev/zero | tr "\0" x; echo; echo "fom: 9.0"; exit 0'] # a program that ignores its write errors
  fom: {regex: "fom: ([0-9.]+)"}
machine: {fast: "0", slow: "0"}
YAML
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"

check_failed() {	# the one run is stored failed with the reason, not ok with a wrong figure
	[ "$(q "select status from runs")" = failed ] || fail "$1: stored $(q "select status, fom, error from runs")"
	expect_contains "$(q "select error from runs")" "output not captured whole: stdout.txt: No space left on device: the file system is full"
	expect_contains "$(q "select error from runs")" "$scratch/full/"
	[ -z "$(q "select fom from runs")" ] || fail "$1: a figure of merit stored: $(q "select fom from runs")"
}

if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare -m --propagation private true 2>/dev/null; then
	mkdir -p "$scratch/full"
	cat >"$scratch/in-ns.sh" <<EOF
mount -t tmpfs -o size=256k tmpfs '$scratch/full' || exit 99
echo "== full"; '$TIERLAB' run -q '$scratch/full.yaml'; echo "rc=\$?"
'$TIERLAB' run -q '$scratch/full.yaml' 2>&1 | grep -c 'no match for' | sed 's/^/nomatch=/'
mount -o remount,size=4m '$scratch/full'
echo "== room"; '$TIERLAB' run -q --resume '$scratch/full.yaml'; echo "rc=\$?"
EOF
	out=$(unshare -m --propagation private bash "$scratch/in-ns.sh" 2>&1)
	[ $? -ne 99 ] || fail "cannot mount a tmpfs: $out"
	full=$(sed -n '/^== full/,/^== room/p' <<<"$out")
	expect_contains "$full" "rc=1"
	expect_contains "$full" "1 run: 0 ok, 1 failed"
	expect_contains "$full" "nomatch=0"
	mountpoint -q "$scratch/full" && fail "the tmpfs outlived its namespace"
	[ "$(q "select count(*) from runs where status = 'failed'")" = 2 ] || fail "tmpfs: $(q "select status, fom, error from runs")"
	expect_contains "$(q "select error from runs order by id limit 1")" "output not captured whole: stdout.txt: No space left on device: the file system is full"
	expect_contains "$(sed -n '/^== room/,$p' <<<"$out")" "rc=0"
	[ "$(q "select fom from runs where status = 'ok'")" = 9.0 ] || fail "after --resume: $(q "select status, fom, error from runs")"
	echo "tmpfs: failed with the reason, then --resume stored fom 9"
	rm -f "$TIERLAB_DB"
fi

SHIM="$B/tests/fault/fault-inject.so"
[ -f "$SHIM" ] || fail "build first: $SHIM"
expect_exit 1 env LD_PRELOAD="$SHIM" TLFI_POINT=write TLFI_FAIL=2 TLFI_PERSIST=1 TLFI_OUT="$scratch/fi.out" \
	"$TIERLAB" run -q "$scratch/full.yaml"
expect_contains "$out" "1 run: 0 ok, 1 failed"
check_failed shim
grep -q '^write [1-9]' "$scratch/fi.out" || fail "the shim failed no write: $(cat "$scratch/fi.out")"
expect_contains "$(cat "$scratch"/full/*/e*/stdout.txt)" "fom: 1.0"
expect_not_contains "$(cat "$scratch"/full/*/e*/stdout.txt)" "fom: 9.0"
expect_exit 0 "$TIERLAB" run -q --resume "$scratch/full.yaml"
[ "$(q "select fom from runs where status = 'ok'")" = 9.0 ] || fail "after --resume: $(q "select status, fom, error from runs")"
echo ok
