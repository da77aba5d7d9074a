# CSV from a database someone hands you (docs/reliability.md, "Hostile
# input"): the plot fixture (tests/plot/make-fixture.sh) with a unit, a
# policy plugin's path, policy_args and a call site that a spreadsheet
# would run as formulas (= + - @, a leading TAB), a comma, quotes and a
# newline, and a figure of merit of -3.5. Every CSV writer (report
# --format csv, export of a table and of the report, compare --format csv)
# writes RFC 4180 that Python's csv module reads back with each such text
# after a ', every number (-3.5 among them) as a number.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
"$top/tests/plot/make-fixture.sh" "$TIERLAB" "$TIERLAB_DB" || fail "the fixture was not made"
sqlite3 "$TIERLAB_DB" <<'SQL' || fail "the fixture was not made hostile"
UPDATE runs SET fom_unit = '=1+1';
UPDATE runs SET policy = '+cmd|'' /C calc''!A0' WHERE policy = 'lru';
UPDATE runs SET policy_args = '@SUM(A1:A9),"x"' || char(10) || 'y' WHERE policy = 'window';
UPDATE runs SET policy = char(9) || '=evil' WHERE policy = 'none';
UPDATE runs SET fom = -3.5 WHERE policy = 'all-slow';
UPDATE allocations SET callsite = '-2+3+cmd|x' WHERE seq = 0;
SQL
cd "$scratch" || fail "no scratch directory"

# check FILE WANT...: FILE parses as CSV; no cell a spreadsheet would take for a formula
# (one starting = + @ TAB CR, or - unless a number); each WANT (a cell's text) is there
check() {
	python3 - "$@" <<'PY' || fail "$1: $(head -c 2000 "$1")"
import csv, sys, re
rows = list(csv.reader(open(sys.argv[1], newline='')))
cells = [c for r in rows for c in r]
number = re.compile(r'-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$')
bad = [c for c in cells if c[:1] in ('=', '+', '@', '\t', '\r') or (c[:1] == '-' and not number.match(c))]
if bad:
    sys.exit('formula cells: %r' % bad)
missing = [w for w in sys.argv[2:] if w not in cells]
if missing:
    sys.exit('missing cells: %r' % missing)
PY
}
"$TIERLAB" report --format csv >report.csv || fail "report --format csv failed"
check report.csv "'=1+1" "'+cmd|' /C calc'!A0" "'"$'\t'"=evil" "-3.5"
"$TIERLAB" report --by policy_args --format csv >by-args.csv || fail "report --by policy_args failed"
check by-args.csv "'@SUM(A1:A9),\"x\""$'\n'"y"
"$TIERLAB" export report >export-report.csv || fail "export report failed"
check export-report.csv "'=1+1" "-3.5"
"$TIERLAB" export --run 10 allocations >allocations.csv || fail "export allocations failed"
check allocations.csv "'-2+3+cmd|x" "/opt/app/bin/app+0x1300"
"$TIERLAB" compare --format csv policy=all-fast policy=all-slow >compare.csv || fail "compare failed: $(cat compare.csv)"
check compare.csv "'=1+1" "-3.5"
echo ok
