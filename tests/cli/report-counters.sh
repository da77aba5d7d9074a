# tierlab report --counters over the fixture database
# (tests/plot/make-fixture.sh): the events counted, per configuration, in
# every format against tests/golden/fixture/report-counters.*, and by hand:
# all-fast counted instructions 1e9, 2e9, 3e9 (mean 2e9) and
# dTLB-load-misses 1e6..3e6 (mean 2e6): 1.000 per 1k instructions; lru
# chunks 8 at 10Hz lost dTLB-load-misses in one of its three runs (mean of
# 4e6 and 6e6 = 5e6, shown "(2/3)"): 5e6 / 2e9 = 2.500 per 1k; cycles was
# unavailable everywhere: "unavailable", never 0; rows that counted
# nothing show "-".
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
golden=$top/tests/golden/fixture
"$top/tests/plot/make-fixture.sh" "$TIERLAB" "$TIERLAB_DB" || fail "the fixture was not made"
cd "$scratch" || fail "no scratch directory"
for f in text:txt markdown:md csv:csv json:json; do
	"$TIERLAB" report --counters --format "${f%%:*}" >"report-counters.${f#*:}" 2>&1 ||
		fail "report --counters --format ${f%%:*} failed: $(cat "report-counters.${f#*:}")"
	if [ -n "${TIERLAB_UPDATE_GOLDEN:-}" ]; then
		cp "report-counters.${f#*:}" "$golden/"
	else
		cmp -s "$golden/report-counters.${f#*:}" "report-counters.${f#*:}" ||
			fail "report-counters.${f#*:} differs: $(diff "$golden/report-counters.${f#*:}" "report-counters.${f#*:}" | head)"
	fi
done
grep -Eq '^hpcg +all-fast .* unavailable +2000000 +2000000000 +1\.000 +- *$' report-counters.txt ||
	fail "all-fast: expected cycles unavailable, 2e6 misses, 2e9 instructions, 1.000 per 1k:
$(cat report-counters.txt)"
grep -Eq '^hpcg +lru +8 +10Hz .* unavailable +5000000 \(2/3\) +2000000000 +2\.500 +- *$' report-counters.txt ||
	fail "lru 8 10Hz: expected 5e6 (2/3) misses and 2.500 per 1k:
$(cat report-counters.txt)"
grep -Eq '^hpcg +all-slow .* - +- +- +- +- *$' report-counters.txt || fail "all-slow counted nothing: expected dashes"
# CSV too: the ratio is computed before it is written, not read before it is set
tr -d '\r' <report-counters.csv | grep -q '^fixture,fast,.*,unavailable,2000000,ok,2000000000,ok,1,$' ||
	fail "CSV: all-fast's 1.000 dTLB-load-misses per 1k instructions is missing: $(cat report-counters.csv)"
grep -q '"cycles": {"mean": null, "n": 0, "missing": 3, "status": "unavailable"}' report-counters.json ||
	fail "JSON: cycles of all-fast is not null and unavailable"
! grep -q '"cycles": {"mean": 0' report-counters.json || fail "an unavailable counter became 0"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' report-counters.json || fail "not JSON"
echo ok
