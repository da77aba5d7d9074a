# The fault sampler at 10 kHz never takes a program's SIGSEGV: a program's
# own handler gets exactly its own faults, and a real invalid access still
# kills the program with SIGSEGV (exit status 128+11 in the shell).
. "$(dirname "$0")/lib.sh"
prog="$B/tests-helpers/sampler-segv"
[ -x "$prog" ] || fail "$prog not built"

out=$("$prog" own 2>&1); rc=$?
[ "$rc" -eq 77 ] && skip "$out"
[ "$rc" -eq 0 ] || fail "own handler: exit $rc, expected 0; output: $out"
expect_contains "$out" "others 0"

"$prog" crash >"$scratch/crash.out" 2>&1; rc=$?
[ "$rc" -eq 139 ] || fail "crash: exit $rc, expected 139 (SIGSEGV); output: $(cat "$scratch/crash.out")"
echo "ok: own handler got its own faults; a real fault still kills with SIGSEGV"
