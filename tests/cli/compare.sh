# tierlab compare over the fixture database (tests/plot/make-fixture.sh):
# two selectors in text, CSV and JSON against tests/golden/fixture/; the
# Welch numbers of one pair worked by hand; two experiments; refusals.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
golden=$top/tests/golden/fixture
"$top/tests/plot/make-fixture.sh" "$TIERLAB" "$TIERLAB_DB" || fail "the fixture was not made"
same() {
	if [ -n "${TIERLAB_UPDATE_GOLDEN:-}" ]; then
		printf '%s\n' "$2" >"$golden/$1"
		return
	fi
	[ "$(cat "$golden/$1")" = "$2" ] || fail "$1 differs from the golden file:
$(diff "$golden/$1" <(printf '%s\n' "$2") | head -20)"
}
for f in text:txt csv:csv json:json; do
	expect_exit 0 "$TIERLAB" compare -f "${f%%:*}" policy=lru policy=window
	same "compare.${f#*:}" "$out"
done
# lru chunks 8 10Hz (1.85 1.87 1.89) against window 16 (1.80 1.82): by hand
# va = 0.0004/3, vb = 0.0002/2, t = 0.06 / sqrt(va + vb) = 3.928,
# df = (va + vb)^2 / (va^2/2 + vb^2/1) = 2.882
expect_exit 0 "$TIERLAB" compare -f csv policy=lru policy=window
out=$(tr -d '\r' <<<"$out")
line=$(grep ',lru8-10,win8-10,' <<<"$out") || fail "no lru8-10 / win8-10 pair:
$out"
awk -F, '{ exit !($14 > 3.927 && $14 < 3.929 && $15 > 2.881 && $15 < 2.883 && $16 < 0.05 && $17 == "true") }' \
	<<<"$line" || fail "Welch: expected t 3.928, df 2.882, p < 0.05: $line"
grep -q ',win8-10-128,.*,,,,$' <<<"$out" || fail "one run of window 128 was tested:
$out"

# two experiments: the fixture against a copy of itself; every pair the same, nothing significant
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
q "insert into experiments (id, name, baseline, created_at) values (2, 'copy', 'policy=all-fast', 1700000001);
   insert into runs (experiment_id, run_key, config_key, rep, workload, size, policy, chunks, rate, window,
	status, fom, fom_unit, higher_is_better, wall_s)
   select 2, run_key, config_key, rep, workload, size, policy, chunks, rate, window, status, fom, fom_unit,
	higher_is_better, wall_s from runs where experiment_id = 1;"
expect_exit 0 "$TIERLAB" compare -f csv fixture copy
out=$(tr -d '\r' <<<"$out")
[ "$(grep -c ',1,' <<<"$out")" -ge 10 ] || fail "the copy's ratios are not 1:
$out"
! grep -q ',true$' <<<"$out" || fail "a copy differs significantly:
$out"
[ "$(grep -c . <<<"$out")" = 11 ] || fail "expected 10 pairs (one per configuration):
$out"

expect_exit 2 "$TIERLAB" compare policy=lru
expect_exit 2 "$TIERLAB" compare policy=lru chunks=64
expect_contains "$out" "matches no run"
expect_exit 2 "$TIERLAB" compare nosuch fixture
expect_contains "$out" "no runs of experiment 'nosuch'"
expect_exit 2 "$TIERLAB" compare -f markdown policy=lru policy=window
echo ok
