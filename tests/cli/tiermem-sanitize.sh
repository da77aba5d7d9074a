# The runtime under sanitizers and valgrind.
#  - ASan+UBSan and TSan: ASan and TSan replace malloc themselves, so they
#    cannot sit under an LD_PRELOADed allocator; instead the core is linked
#    directly into tests/tiermem/core-test.c (core-asan, core-tsan) and
#    driven through its tlrt_* entry points. TSan cannot follow a thread
#    started in the child of a threaded fork, so its fork case is skipped.
#  - UBSan alone does not touch malloc: libtiermem.so is rebuilt with
#    -fsanitize=undefined and preloaded into the stress program.
#  - valgrind: by default its malloc replacement takes over the preloaded
#    one too (the runtime then sees nothing); with
#    --soname-synonyms=somalloc=NONE it replaces only glibc's, so the
#    runtime manages the large blocks and memcheck checks the small ones
#    and the runtime's own reads and writes.
. "$(dirname "$0")/lib.sh"
T="$B/tests/tiermem"
SO="$B/lib/tierlab/libtiermem.so"
for f in "$T/core-asan" "$T/core-tsan" "$T/stress" "$T/policy-test.so" "$SO"; do
	[ -e "$f" ] || fail "build first: $f"
done

echo "== ASan+UBSan (core linked directly)"
# reports go to files: a fault sampler handler thread has no stderr (sampler-sanitize.sh)
ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:log_path="$scratch/r-asan" \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path="$scratch/r-asan" \
	"$T/core-asan" >"$scratch/asan.txt" 2>&1; rc=$?
cat "$scratch"/r-asan.* >>"$scratch/asan.txt" 2>/dev/null
[ "$rc" -eq 0 ] || { cat "$scratch/asan.txt"; fail "core-asan"; }
grep -q "PASSED" "$scratch/asan.txt" || fail "core-asan did not pass"
! grep -q "runtime error\|AddressSanitizer" "$scratch/asan.txt" || { cat "$scratch/asan.txt"; fail "sanitizer report"; }
tail -1 "$scratch/asan.txt"

echo "== TSan (core linked directly)"
TLRT_TEST_NO_FORK=1 TSAN_OPTIONS=halt_on_error=1:log_path="$scratch/r-tsan" "$T/core-tsan" >"$scratch/tsan.txt" 2>&1; rc=$?
cat "$scratch"/r-tsan.* >>"$scratch/tsan.txt" 2>/dev/null
[ "$rc" -eq 0 ] || { cat "$scratch/tsan.txt"; fail "core-tsan"; }
! grep -q "ThreadSanitizer" "$scratch/tsan.txt" || { cat "$scratch/tsan.txt"; fail "TSan report"; }
grep "PASSED\|SKIPPED" "$scratch/tsan.txt" | head -2

echo "== UBSan build of libtiermem.so, preloaded into the stress program"
src=$(ls "$top"/lib/tiermem/*.c)
${CC:-cc} -std=gnu11 -O1 -g -I"$top/lib" -D_GNU_SOURCE -fPIC -fvisibility=hidden -shared \
	-fsanitize=undefined -fno-sanitize-recover=undefined -o "$scratch/libtiermem-ubsan.so" \
	$src "$top/lib/util/units.c" -ldl -lnuma -lpthread -lm || fail "UBSan build"
mkdir -p "$scratch/ub"
expect_exit 0 env LD_PRELOAD="$scratch/libtiermem-ubsan.so" TIERLAB_POLICY="$T/policy-test.so" \
	TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 TIERLAB_SAMPLER=none TIERLAB_CHUNKS=8 TIERLAB_LOG=log \
	TIERLAB_OUT="$scratch/ub" UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$T/stress" 4 400
expect_not_contains "$out" "runtime error"
expect_contains "$out" "0 failures"
"$T/counters-dump" "$(ls "$scratch"/ub/*.counters | head -1)" | grep -q '^allocs [1-9]' || fail "runtime inactive"
echo "stress under the UBSan runtime: ok"

echo "== valgrind memcheck, runtime preloaded"
if ! command -v valgrind >/dev/null; then
	echo "note: valgrind not installed; that part is not run"
	exit 0
fi
mkdir -p "$scratch/vg"
expect_exit 0 env LD_PRELOAD="$SO" TIERLAB_POLICY="$T/policy-test.so" TIERLAB_FAST_NODES=0 \
	TIERLAB_SLOW_NODES=0 TIERLAB_SAMPLER=none TIERLAB_CHUNKS=8 TIERLAB_OUT="$scratch/vg" \
	STRESS_UNDER_VALGRIND=1 valgrind -q --fair-sched=yes --error-exitcode=9 --soname-synonyms=somalloc=NONE "$T/stress" 4 150
expect_contains "$out" "0 failures"
allocs=$(for f in "$scratch"/vg/*.counters; do "$T/counters-dump" "$f"; done | awk '$1 == "allocs" { s += $2 } END { print s + 0 }')
[ "$allocs" -gt 0 ] || fail "under valgrind the runtime managed nothing"
echo "stress under valgrind: ok ($allocs managed allocations)"
