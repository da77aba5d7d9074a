# A hit rate says how many samples it stands on, in every format of report
# and in export report, and one from fewer than 30 gets a warning: over the
# fixture database (tests/plot/make-fixture.sh), where every hit rate is of
# 1000 managed samples a run but window 128's, which is 6 hits in 10.
# Wilson's interval of 6/10 by hand: p = 0.6, z = 1.959964, d = 1 + z^2/10
# = 1.384146, centre (0.6 + z^2/20) / d = 0.572246, half z/d x sqrt(0.024 +
# z^2/400) = 0.259572: 0.312674 .. 0.831820.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
"$top/tests/plot/make-fixture.sh" "$TIERLAB" "$TIERLAB_DB" || fail "the fixture was not made"

words="hit rate 60.0% from 10 samples (fewer than 30; 95% interval 31-83%)"
expect_exit 0 "$TIERLAB" report --wide
grep -Eq '^hpcg +window +8 +10Hz +128 .* n<3, few samples .* 60\.0% \(10\) ' <<<"$out" ||
	fail "window 128: no 60.0% (10) marked few samples:
$out"
grep -Eq '^hpcg +lru +8 +10Hz +- .* 92\.0% \(3000\) ' <<<"$out" || fail "lru 8 10Hz: no 92.0% (3000):
$out"
expect_contains "$out" "warning: workload=hpcg policy=window chunks=8 rate=10Hz window=128: $words"
[ "$(grep -c 'samples (fewer than 30' <<<"$out")" = 1 ] || fail "expected one few-samples warning:
$out"

expect_exit 0 "$TIERLAB" report --format markdown
expect_contains "$out" "60.0% (10)"
expect_contains "$out" "- warning: workload=hpcg policy=window chunks=8 rate=10Hz window=128: $words"

check_csv() {	# check_csv WHAT: $out is a report as CSV
	local csv row
	csv=$(tr -d '\r' <<<"$out")
	row=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$2 == "win8-10-128" { printf "%s|%.6f|%.6f|%s", $c["hit_samples"], $c["hit_rate_ci95_low"],
			$c["hit_rate_ci95_high"], $c["caution"] }' <<<"$csv")
	[ "$row" = "10|0.312674|0.831820|n<3;few samples" ] || fail "$1: window 128 is '$row':
$csv"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $2 == "lru8-10" { exit $c["hit_samples"] != 3000 }' \
		<<<"$csv" || fail "$1: lru 8 10Hz does not stand on 3000 samples"
}
json_check() {	# json_check WHAT: $out is a report as JSON
	printf '%s\n' "$out" >"$scratch/r.json"
	python3 - "$scratch/r.json" <<'PY' || fail "$1: the JSON's samples are wrong: $out"
import json, sys
rows = {r["config_key"]: r for r in json.load(open(sys.argv[1]))["rows"]}
w = rows["win8-10-128"]
assert w["hit_samples"] == 10, w
lo, hi = w["hit_rate_ci95"]
assert abs(lo - 0.312674) < 1e-6 and abs(hi - 0.831820) < 1e-6, w
assert w["caution"] == ["n<3", "few samples"], w
assert rows["lru8-10"]["hit_samples"] == 3000
assert rows["fast"]["hit_samples"] is None and rows["fast"]["hit_rate_ci95"] is None
PY
}
expect_exit 0 "$TIERLAB" report --format csv
check_csv "report --format csv"
expect_exit 0 "$TIERLAB" export report
check_csv "export report"
expect_exit 0 "$TIERLAB" report --format json
json_check "report --format json"
expect_contains "$out" "$words"
expect_exit 0 "$TIERLAB" export report --format json
json_check "export report --format json"
echo ok
