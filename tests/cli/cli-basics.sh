# Exit codes, --version, unknown commands and options, a bad spec that
# stores nothing, --dry-run, --only and --where.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$TIERLAB" --version
expect_contains "$out" "tierlab "
expect_exit 2 "$TIERLAB" frobnicate
expect_contains "$out" "'frobnicate' is not a tierlab command"
expect_exit 2 "$TIERLAB" run --no-such-option x.yaml
expect_contains "$out" "unknown option '--no-such-option'"
expect_exit 2 "$TIERLAB" run
expect_contains "$out" "usage: tierlab run"
# every command with printers takes, lists and refuses formats alike (OPT_FORMAT)
for c in report compare export probe; do
	expect_exit 0 "$TIERLAB" "$c" -h
	expect_contains "$out" " or json (default "
	expect_exit 2 "$TIERLAB" "$c" --format yaml
	expect_contains "$out" "error: --format: unknown format 'yaml' ("
	expect_contains "$out" "usage: tierlab $c"
done
expect_exit 0 "$TIERLAB" simulate -h
expect_contains "$out" "text or csv (default text)"
expect_exit 2 "$TIERLAB" simulate --format yaml
expect_contains "$out" "error: --format: unknown format 'yaml' (text or csv)"
expect_contains "$out" "usage: tierlab simulate"

# a bad spec: one line naming file:line:col, exit 2, nothing stored
cat >"$scratch/bad.yaml" <<'YAML'
name: bad
workload: {name: t, command: [true]}
matrix:
  policy: [all-fast, lur]
YAML
expect_exit 2 "$TIERLAB" run "$scratch/bad.yaml"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "expected one error line, got:
$out"
expect_contains "$out" "bad.yaml:4:"
expect_contains "$out" "did you mean 'lru'"
[ ! -e "$TIERLAB_DB" ] || fail "a bad spec created the database"

# a missing spec
expect_exit 2 "$TIERLAB" run "$scratch/none.yaml"
expect_contains "$out" "none.yaml"

# dry run, selection
cat >"$scratch/sel.yaml" <<'YAML'
name: sel
repetitions: 2
workload: {name: t, command: [true]}
machine: {fast: "0", slow: "0"}
matrix:
  policy: [none, all-fast, all-slow]
YAML
expect_exit 0 "$TIERLAB" run --dry-run "$scratch/sel.yaml"
expect_contains "$out" "3 configurations x 2 repetitions = 6 runs"
expect_exit 0 "$TIERLAB" run -n --where policy=all-slow "$scratch/sel.yaml"
expect_contains "$out" "(2 selected)"
expect_exit 2 "$TIERLAB" run -n --where polcy=all-slow "$scratch/sel.yaml"
expect_contains "$out" "did you mean 'policy'"
expect_exit 2 "$TIERLAB" run -n --only 9 "$scratch/sel.yaml"
expect_contains "$out" "--only"
[ ! -e "$TIERLAB_DB" ] || fail "a dry run created the database"

expect_exit 2 "$TIERLAB" run -n --where policy=none,threads=4 "$scratch/sel.yaml"
expect_contains "$out" "no planned run is selected"
expect_exit 0 "$TIERLAB" run -q --only 1,3-4 "$scratch/sel.yaml"
[ "$(sqlite3 "$TIERLAB_DB" "select count(*) from runs")" = 3 ] || fail "--only 1,3-4 did not store 3 runs"
expect_exit 0 "$TIERLAB" run -q --where policy=all-slow "$scratch/sel.yaml"
[ "$(sqlite3 "$TIERLAB_DB" "select count(*) from runs where policy='all-slow'")" = 2 ] || fail "--where"

# a re-run keeps the first run's files: each execution has its own directory
expect_exit 0 "$TIERLAB" run -q --only 1 "$scratch/sel.yaml"
[ "$(sqlite3 "$TIERLAB_DB" "select count(distinct out_dir) from runs where run_key like '%-r1' and policy='none'")" = 2 ] \
	|| fail "two executions of one run share an output directory"
# a baseline that names no configuration is an error, not a table of dashes
expect_exit 2 "$TIERLAB" report --baseline policy=window
expect_contains "$out" "matches no configuration"

# sweep replaces an axis from the command line
expect_exit 0 "$TIERLAB" sweep -n "$scratch/sel.yaml" --policy none,all-fast
expect_contains "$out" "2 configurations x 2 repetitions = 4 runs"
expect_exit 2 "$TIERLAB" sweep -n "$scratch/sel.yaml" --rate fast
expect_contains "$out" "--rate"

# report and show on a database that does not exist
expect_exit 2 "$TIERLAB" report --db "$scratch/nothing.db"
expect_contains "$out" "nothing.db"
[ ! -e "$scratch/nothing.db" ] || fail "report created a database"

# a corrupt database: one error line naming it, exit 2, file untouched
head -c 8192 /dev/urandom >"$scratch/corrupt.db"
sum=$(md5sum <"$scratch/corrupt.db")
expect_exit 2 "$TIERLAB" report --db "$scratch/corrupt.db"
expect_contains "$out" "corrupt.db"
[ "$(md5sum <"$scratch/corrupt.db")" = "$sum" ] || fail "the corrupt database was modified"
expect_exit 2 "$TIERLAB" run -q --db "$scratch/corrupt.db" "$scratch/sel.yaml"
expect_exit 2 "$TIERLAB" list experiments --db "$scratch/corrupt.db"
expect_contains "$out" "corrupt.db"
echo ok
