# The samplers' tests (tests/sampler) built with ASan+UBSan and with TSan
# (tests/sampler/build.mk: $B/tests-helpers/*-asan, *-tsan; sanitizers
# replace malloc, so the sampler sources are linked into each test). Every
# cmocka case must pass with no sanitizer report, and sampler-segv must
# show that the program's own SIGSEGV handler gets exactly its own faults
# and that a real invalid access still kills it.
#
# TSan: real_segfault_kills starts a thread in the child of a
# multi-threaded fork (as the runtime does after fork); TSan refuses that
# unless die_after_fork=0, which is set.
# The fault sampler's handler threads run with a descriptor table of their
# own in which the program's stderr is closed, so a report from one of
# them would be lost: every report goes to a log_path file instead, read
# into the test's log. TSan models one descriptor table per process, so
# the test's deliberate dup2 over the handlers' numbers (in the program's
# table) races, for TSan, with the handlers' own use of the same numbers
# in theirs: tests/sampler/tsan.supp suppresses only races with that
# test function on one side.
# The sanitizers' own deadly-signal handlers turn a real SIGSEGV into a
# report; the crash case is run both with them (the report must name the
# SEGV) and with handle_segv=0 (killed by SIGSEGV, 139, as without them).
# tierlab-test: serial (test_sampler_program under ASan and TSan: its 10 kHz ticker waits up to a minute for samples when starved of CPU)
. "$(dirname "$0")/lib.sh"
H="$B/tests-helpers"
for s in asan tsan; do
	for t in test_sampler_fault test_sampler_program test_sampler_wp test_sampler_perf test_perf_ring test_perf_spe test_perf_pmu test_sampler_damon sampler-segv; do
		[ -x "$H/$t-$s" ] || fail "build first: $H/$t-$s"
	done
done

out=$("$H/sampler-segv-asan" own 2>&1); rc=$?
[ "$rc" -eq 77 ] && skip "$out"

asan_env=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)
tsan_env=(TSAN_OPTIONS="halt_on_error=1:die_after_fork=0")
reports='ERROR: AddressSanitizer|ERROR: LeakSanitizer|WARNING: ThreadSanitizer|ERROR: ThreadSanitizer|runtime error:'

# run_cm SAN TEST: the cmocka binary passes with no sanitizer report.
run_cm() {
	local san=$1 t=$2 log="$scratch/$2-$1.txt" env failed rc
	local to="$scratch/report-$t-$san"
	if [ "$san" = asan ]; then
		env=("${asan_env[0]}:log_path=$to" "${asan_env[1]}:log_path=$to")
	else
		env=("${tsan_env[0]}:log_path=$to:suppressions=$top/tests/sampler/tsan.supp")
	fi
	timeout 120 env "${env[@]}" "$H/$t-$san" >"$log" 2>&1; rc=$?
	cat "$to".* >>"$log" 2>/dev/null
	! grep -Eq "$reports" "$log" || { cat "$log"; fail "$t-$san: sanitizer report"; }
	failed=$(sed -n 's/^\[  FAILED  \] \([A-Za-z0-9_]*\)$/\1/p' "$log" | sort -u | tr '\n' ' ')
	if [ "$rc" -eq 0 ] && grep -q '^\[  PASSED  \]' "$log" && [ -z "$failed" ]; then
		echo "ok   $t-$san: $(grep '^\[  PASSED  \]' "$log")"
	else
		cat "$log"
		fail "$t-$san: exit $rc, failed: ${failed:-?}"
	fi
}

echo "== ASan+UBSan"
run_cm asan test_sampler_fault
run_cm asan test_sampler_wp
run_cm asan test_sampler_program
run_cm asan test_sampler_perf
run_cm asan test_perf_ring
run_cm asan test_perf_spe
run_cm asan test_perf_pmu
run_cm asan test_sampler_damon

echo "== TSan"
run_cm tsan test_sampler_fault
run_cm tsan test_sampler_wp
run_cm tsan test_sampler_program
run_cm tsan test_sampler_perf
run_cm tsan test_sampler_damon

# sampler-segv: own handler, then a real crash with and without the sanitizer's SEGV handler.
for s in asan tsan; do
	if [ "$s" = asan ]; then env=("${asan_env[@]}"); opt=ASAN_OPTIONS; else env=("${tsan_env[@]}"); opt=TSAN_OPTIONS; fi
	expect_exit 0 timeout 60 env "${env[@]}" "$H/sampler-segv-$s" own
	expect_contains "$out" "others 0"
	! grep -Eq "$reports" <<<"$out" || fail "sampler-segv-$s own: sanitizer report: $out"
	expect_exit 0 bash -c '"$@"; [ $? -ne 0 ]' _ timeout 60 env "${env[@]}" "$H/sampler-segv-$s" crash
	expect_contains "$out" "SEGV on unknown address"
	expect_contains "$out" "sampler-segv.c"
	timeout 60 env "${env[@]}" "$opt=${env[0]#*=}:handle_segv=0" "$H/sampler-segv-$s" crash >"$scratch/crash.txt" 2>&1; rc=$?
	[ "$rc" -eq 139 ] || fail "sampler-segv-$s crash (handle_segv=0): exit $rc, expected 139; $(cat "$scratch/crash.txt")"
	echo "ok   sampler-segv-$s: own handler got its own faults; a real fault is reported, or kills with SIGSEGV"
done
