# Every input the fuzzers found a defect with (tests/fuzz/regress/TARGET)
# and every seed, fed to the same fuzz targets without libFuzzer, built
# with ASan and UBSan by the ordinary compiler (tests/fuzz/build.mk): a
# crash, a sanitizer report or a failed property check fails the test.
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
total=0
for src in tests/fuzz/fuzz-*.c; do
	t=$(basename "$src" .c); t=${t#fuzz-}
	bin="$B/fuzz/replay-$t"
	[ -x "$bin" ] || fail "build first: $bin"
	inputs=()
	for d in "tests/fuzz/regress/$t" "tests/fuzz/seeds/$t"; do
		[ -d "$d" ] && inputs+=("$d")
	done
	[ "$t" = spec ] && inputs+=(tests/spec experiments)
	[ ${#inputs[@]} -gt 0 ] || fail "$t: no inputs (tests/fuzz/seeds/$t)"
	"$bin" "${inputs[@]}" >"$scratch/$t.log" 2>&1 || { tail -40 "$scratch/$t.log"; fail "replay-$t"; }
	n=$(sed -n 's/^replayed \([0-9]*\) inputs$/\1/p' "$scratch/$t.log")
	[ "${n:-0}" -gt 0 ] || fail "$t: replayed nothing"
	echo "$t: $n inputs"
	total=$((total + n))
done
echo "ok: $total inputs"
