# tierlab compare over the fixture database (tests/plot/make-fixture.sh):
# two selectors in text, CSV and JSON against tests/golden/fixture/; the
# Welch numbers of one pair worked by hand; Holm's adjustment over three
# pairs; pairs only of configurations equal on every axis but the compared
# ones, and an ambiguous pairing refused either way round, naming the
# candidates; n < 3 said; two experiments; refusals.
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
	expect_exit 0 "$TIERLAB" compare -f "${f%%:*}" policy=lru policy=window,window=16
	same "compare.${f#*:}" "$out"
done
expect_contains "$(cat "$golden/compare.txt")" "pairs: equal on every axis but policy, window; of one workload, size and unit"
expect_contains "$(cat "$golden/compare.txt")" 'note: n<3: a side has fewer than 3 successful runs'
# lru chunks 8 10Hz (1.85 1.87 1.89) against window 16 (1.80 1.82): by hand
# va = 0.0004/3, vb = 0.0002/2, t = 0.06 / sqrt(va + vb) = 3.928,
# df = (va + vb)^2 / (va^2/2 + vb^2/1) = 2.882; two pairs tested, this p
# (0.0316) the larger, so Holm's step-down leaves it as it is (the other,
# 0.0116, is doubled); the ratio 1.81/1.87 = 0.968 inside its interval, n < 3
# on B's side (B's name, quoted for its comma, is taken out before awk)
expect_exit 0 "$TIERLAB" compare -f csv policy=lru policy=window,window=16
out=$(tr -d '\r' <<<"$out" | sed 's/"policy=window,window=16"/B/')
line=$(grep ',lru8-10,win8-10,' <<<"$out") || fail "no lru8-10 / win8-10 pair:
$out"
awk -F, '{ exit !($14 > 3.927 && $14 < 3.929 && $15 > 2.881 && $15 < 2.883 && $16 < 0.05 &&
	$20 == $16 && $17 == "true" && $18 < $13 && $13 < $19 && $18 > 0.9 && $19 < 1 && $21 == "true") }' \
	<<<"$line" || fail "Welch: expected t 3.928, df 2.882, p < 0.05, Holm p, the ratio in its interval: $line"
grep -q ',lru8-100,win8-100,.*,0\.0116[0-9]*,true,[0-9.]*,[0-9.]*,0\.02325[0-9]*,true,true,false$' <<<"$out" ||
	fail "Holm: the smaller p 0.0116 of two is not doubled:
$out"
# one run of window 128: untested
expect_exit 0 "$TIERLAB" compare -f csv policy=lru,chunks=8 policy=window,window=128
grep -q ',lru8-10,win8-10-128,.*,,,,,[0-9.]*,[0-9.]*,,true' <<<"$(tr -d '\r' <<<"$out")" ||
	fail "one run of window 128 was tested:
$out"

# an experiment that is not there is named as given, not as '-'
expect_exit 2 "$TIERLAB" compare -e nosuch rate=10Hz rate=100Hz -f csv
expect_contains "$out" "error: no runs of experiment 'nosuch' in '$TIERLAB_DB'"
expect_exit 2 "$TIERLAB" compare --session 99 rate=10Hz rate=100Hz
expect_contains "$out" "no run of session 99"

# window has 16 and 128 beside lru's chunks 8 at 10Hz: which one is lru's pair? refused, both named
expect_exit 2 "$TIERLAB" compare policy=lru policy=window
expect_contains "$out" "error: ambiguous pairing: workload=hpcg size=small chunks=8 rate=10Hz of A ('policy=lru') pairs with 2 configurations of B: window=16, window=128"

# rate against rate: each pair its own A, labelled by its own chunks; Holm over the three
# raw p 0.1987 0.2850 0.0715: 3 x 0.0715 = 0.2146, then 2 x 0.1987 = 0.3975 for both others
expect_exit 0 "$TIERLAB" compare -f csv rate=10Hz rate=100Hz
out=$(tr -d '\r' <<<"$out")
pairs=$(awk -F, 'NR > 1 { printf "%s|%s|%s|%.4f|%s\n", $3, $4, $5, $20, $17 }' <<<"$out")
[ "$pairs" = "workload=hpcg size=small policy=lru chunks=2|lru2-10|lru2-100|0.3975|false
workload=hpcg size=small policy=lru chunks=8|lru8-10|lru8-100|0.3975|false
workload=hpcg size=small policy=window chunks=8 window=16|win8-10|win8-100|0.2146|false" ] ||
	fail "rate=10Hz against rate=100Hz paired wrongly:
$pairs"

# an experiment where lru has no chunks and window ran chunks 2 and 8: no pair is right
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
q "insert into experiments (id, name, baseline, created_at) values (3, 'unset', 'policy=all-fast', 1700000002);"
k=0
unset_run() {	# unset_run CONFIG POLICY CHUNKS FOM
	k=$((k + 1))
	q "insert into runs (experiment_id, run_key, config_key, rep, workload, size, policy, chunks, rate, status,
		fom, fom_unit, higher_is_better, wall_s)
	   values (3, 'u$k', '$1', $k, 'hpcg', 'small', '$2', $3, '10Hz', 'ok', $4, 'GF/s', 1, 1);"
}
for f in 1.5 1.6 1.7; do unset_run lru lru null $f; done
for f in 1.4 1.5 1.6; do unset_run w2 window 2 $f; done
for f in 1.8 1.9 2.0; do unset_run w8 window 8 $f; done
expect_exit 2 "$TIERLAB" compare -e unset policy=lru policy=window
expect_contains "$out" "pairs with 2 configurations of B: chunks=2, chunks=8"
# the other way round: lru would be the counterpart of both
expect_exit 2 "$TIERLAB" compare -e unset policy=window policy=lru
expect_contains "$out" "('policy=lru') is the counterpart of 2 configurations of A: chunks=2, chunks=8"
# three runs a side: no n<3 note
expect_exit 0 "$TIERLAB" compare -e unset chunks=2 chunks=8
expect_contains "$out" "workload=hpcg size=small policy=window rate=10Hz"
expect_not_contains "$out" "n<3"

# two experiments: the fixture against a copy of itself; every pair the same, nothing significant
q "insert into experiments (id, name, baseline, created_at) values (2, 'copy', 'policy=all-fast', 1700000001);
   insert into runs (experiment_id, run_key, config_key, rep, workload, size, policy, chunks, rate, window,
	status, fom, fom_unit, higher_is_better, wall_s)
   select 2, run_key, config_key, rep, workload, size, policy, chunks, rate, window, status, fom, fom_unit,
	higher_is_better, wall_s from runs where experiment_id = 1;"
expect_exit 0 "$TIERLAB" compare -f csv fixture copy
out=$(tr -d '\r' <<<"$out")
[ "$(grep -c ',1,' <<<"$out")" -ge 10 ] || fail "the copy's ratios are not 1:
$out"
! awk -F, '$17 == "true"' <<<"$out" | grep -q . || fail "a copy differs significantly:
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
