# Sessions (issue 26, item 3): each run or sweep is a session; report,
# plot, export and compare take a row's baseline from its own session,
# say when they mix sessions, and take --session and --since. A workload
# whose figure of merit is $FOM: session 1 runs both configurations at
# 10, session 2 runs the baseline again at 20, session 3 the other
# configuration at 5.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"

cat >"$scratch/s.yaml" <<'YAML'
name: sess
workload: {name: t, command: [sh, -c, 'echo "fom: $FOM"'], fom: {regex: "fom: ([0-9.]+)", unit: ops, higher_is_better: true}}
repetitions: 3
baseline: {threads: 1}
matrix:
  threads: [1, 2]
YAML
FOM=10 expect_exit 0 "$TIERLAB" run -q "$scratch/s.yaml"
expect_contains "$out" "sess: 6 runs: 6 ok, 0 failed, 0 skipped (stored in $TIERLAB_DB, session 1)"
sleep 1.1	# so that --since can tell the sessions apart
FOM=20 expect_exit 0 "$TIERLAB" run -q --where threads=1 "$scratch/s.yaml"
expect_contains "$out" "session 2)"
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
[ "$(q "select count(distinct session_id) from runs")" = 2 ] || fail "expected 2 sessions in runs"
[ "$(q "select command from sessions where id = 2")" = "tierlab run -q --where 'threads=1' $scratch/s.yaml" ] ||
	fail "session 2's command: $(q "select command from sessions where id = 2")"

# threads=2 (session 1, 10) against the baseline of session 1 (10), not the
# baseline row shown (session 2, 20): 100%, and the report says why
expect_exit 0 "$TIERLAB" report --wide
text=$out
grep -Eq '^t +2 +10\.00 ± 0 \(3\) +100\.0%' <<<"$text" || fail "threads=2 is not 100% of its own session's baseline:
$text"
grep -Eq '^t +1 +20\.00 ± 0 \(3\) +100\.0%' <<<"$text" || fail "the baseline row is not session 2's:
$text"
expect_contains "$text" "note: runs of 2 sessions (1 started "
expect_contains "$text" "1 row's % base stands on the baseline's runs of its own session"
expect_exit 0 "$TIERLAB" report --format csv
python3 - "$out" <<'PY' || fail "CSV: $out"
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
two = [r for r in rows if r["threads"] == "2"][0]
assert float(two["pct_of_baseline"]) == 100, two
assert two["sessions"] == "1", two
PY
# export report says what report says
expect_exit 0 "$TIERLAB" export report -f json
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); r=[r for r in d["rows"] if r["config"]["threads"]=="2"][0]; assert r["pct_of_baseline"]==100 and r["sessions"]==[1], r' "$out" ||
	fail "export report: $out"

# one session: its own rows, the latest of each key within it
expect_exit 0 "$TIERLAB" report --session 1
expect_contains "$out" "experiment sess — baseline threads=1 — session 1"
grep -Eq '^t +1 +10\.00 ± 0 \(3\) +100\.0%' <<<"$out" || fail "--session 1: the baseline is not session 1's:
$out"
expect_not_contains "$out" "sessions ("
expect_exit 0 "$TIERLAB" report --session 2
[ "$(grep -c '^t ' <<<"$out")" = 1 ] || fail "--session 2 holds the baseline only:
$out"
since=$(q "select datetime(started_at, 'unixepoch', 'localtime') from sessions where id = 2")
expect_exit 0 "$TIERLAB" report --since "$since"
[ "$(grep -c '^t ' <<<"$out")" = 1 ] || fail "--since '$since' holds session 2 only:
$out"
expect_exit 0 "$TIERLAB" report --since 1h
[ "$(grep -c '^t ' <<<"$out")" = 2 ] || fail "--since 1h holds both sessions:
$out"
expect_exit 2 "$TIERLAB" report --session 9
expect_contains "$out" "no run of session 9"
expect_exit 2 "$TIERLAB" report --session x
expect_contains "$out" "error: --session: 'x' is not a session id"
expect_exit 2 "$TIERLAB" report --since 20
expect_contains "$out" "error: --since: '20' is neither a date and time"

# session 3 runs threads=2 alone: no baseline run of its session, so its %
# compares sessions, and says so beside the figure
FOM=5 expect_exit 0 "$TIERLAB" run -q --where threads=2 "$scratch/s.yaml"
expect_exit 0 "$TIERLAB" report --wide
grep -Eq '^t +2 +5\.000 ± 0 \(3\) +25\.0% +(busy host, )?other session' <<<"$out" || fail "no 'other session' beside 25%:
$out"
expect_contains "$out" "other session: no run of its baseline is of its session"

# compare marks a pair whose sides are of different sessions
expect_exit 0 "$TIERLAB" compare threads=1 threads=2
expect_contains "$out" "untested, sessions"
expect_contains "$out" "note: sessions: A's and B's runs are not all of one session"
expect_exit 0 "$TIERLAB" compare --session 1 threads=1 threads=2 -f csv
tr -d '\r' <<<"$out" | tail -1 | grep -Eq ',true,(true|false)$' || fail "--session 1: not one session: $out"

# invocations given one key (TIERLAB_SESSION, as a Slurm array's tasks are) are one session
TIERLAB_SESSION=mine FOM=7 expect_exit 0 "$TIERLAB" run -q --where threads=1 "$scratch/s.yaml"
expect_contains "$out" "session 4)"
TIERLAB_SESSION=mine FOM=7 expect_exit 0 "$TIERLAB" run -q --where threads=2 "$scratch/s.yaml"
expect_contains "$out" "session 4)"
expect_exit 0 "$TIERLAB" report --session 4
grep -Eq '^t +2 +7\.000 ± 0 \(3\) +100\.0%' <<<"$out" || fail "one key, one session:
$out"
FOM=7 expect_exit 0 "$TIERLAB" run -q --where threads=1 "$scratch/s.yaml"
expect_contains "$out" "session 5)"

# plot says on stderr what it mixes
command -v gnuplot >/dev/null || skip "gnuplot is not installed (the rest passed)"
expect_exit 0 "$TIERLAB" plot --by threads --script-only -o "$scratch/f.svg"
expect_contains "$out" "warning: the runs drawn come from 2 sessions"

# list sessions and show name them
expect_exit 0 "$TIERLAB" list sessions
expect_contains "$out" "tierlab run -q --where 'threads=2' $scratch/s.yaml"
[ "$(grep -Ec '^ +[1-5] +[0-9-]+ [0-9:]+ +sess ' <<<"$out")" = 5 ] || fail "list sessions: $out"
expect_exit 0 "$TIERLAB" show "$(q "select max(id) from runs")"
expect_contains "$out" "session        5, started "
echo ok
