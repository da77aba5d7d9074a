# Every reading command (report, show, export, compare, plot) and merge
# end, with one clear error and a non-zero exit, on a database made to
# hang them: a view that never ends where table runs should be (refused
# before any query), and tables whose indexes were dropped under enough
# rows to make their queries run for minutes (given up at the time budget,
# TIERLAB_DB_TIMEOUT). A shard of 30,000 runs without its indexes merges
# in about the time one with them does. docs/reliability.md, issue 27.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
command -v timeout >/dev/null || skip "no timeout command"
fx="$scratch/fixture.db"
"$top/tests/plot/make-fixture.sh" "$TIERLAB" "$fx" || fail "the fixture was not made"
unset TIERLAB_DB
q() { sqlite3 -batch -noheader "$1" "$2" || fail "sqlite3 $1: $2"; }
key=$(q "$fx" "select run_key from runs where id = 8")
readers=(report "show 8" "show --allocations $key" "export report" "export samples"
	"compare policy=lru policy=window,window=16" "plot --script-only -o $scratch/p.svg")

# ends CODE SECONDS DB CMD...: the command ends within SECONDS with CODE
ends() {
	local want=$1 limit=$2 db=$3 rc
	shift 3
	out=$(timeout "$limit" "$TIERLAB" "$@" --db "$db" 2>&1)
	rc=$?
	[ "$rc" -ne 124 ] || fail "tierlab $* --db $db did not end within $limit s"
	[ "$rc" -eq "$want" ] || fail "tierlab $* --db $db exited $rc, expected $want:
$out"
}

# a normal database: unaffected by the budget
for c in "${readers[@]}"; do
	# shellcheck disable=SC2086
	ends 0 60 "$fx" $c
done

# the time a reader waits for its output to be taken is not the database's
cp "$fx" "$scratch/pipe.db"
q "$scratch/pipe.db" "INSERT INTO samples (run_id, pid, t_ns, addr, hit) WITH RECURSIVE c(x) AS (SELECT 1
  UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT 8, 1, x, x * 4096, x % 2 FROM c"
rows=$(TIERLAB_DB_TIMEOUT=0.5 "$TIERLAB" export --db "$scratch/pipe.db" samples 2>"$scratch/err" |
	{ sleep 2; wc -l; })
[ ! -s "$scratch/err" ] && [ "$rows" -gt 100000 ] ||
	fail "export into a pipe read 2 s late: $rows lines; $(cat "$scratch/err")"

# a view that never ends in place of runs: refused before any query, by readers, a writer and merge
cp "$fx" "$scratch/view.db"
# every column of runs, so a query over it runs (for ever) instead of failing at once
cols=$(q "$fx" "select group_concat(case name when 'id' then 'x as id' when 'run_key' then '''k'' || x as run_key'
  else 'k.\"' || name || '\"' end, ', ') from pragma_table_info('runs')")
q "$scratch/view.db" "PRAGMA foreign_keys = off; ALTER TABLE runs RENAME TO runs_kept;
  CREATE VIEW runs AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
  SELECT $cols FROM c, (SELECT * FROM runs_kept LIMIT 1) k"
said="database '$scratch/view.db': refused: its 'runs' is a view, not a table"
for c in "${readers[@]}"; do
	# shellcheck disable=SC2086
	ends 2 20 "$scratch/view.db" $c
	expect_contains "$out" "$said"
	[ "$(grep -c . <<<"$out")" = 1 ] || fail "more than one line from $c: $out"
done
ends 2 20 "$scratch/view.db" merge "$fx"
expect_contains "$out" "$said"
ends 1 20 "$scratch/main.db" merge "$scratch/view.db"
expect_contains "$out" "shard '$scratch/view.db' refused: its 'runs' is a view, not a table"
expect_contains "$out" "0 runs added, 0 already stored, 1 refused"

# tables only, but their indexes dropped under many rows: hours of work, given up at the budget
export TIERLAB_DB_TIMEOUT=1
slow="$scratch/slow.db"
cp "$fx" "$slow"
q "$slow" "PRAGMA foreign_keys = off;
  CREATE TABLE m AS SELECT * FROM metrics; DROP TABLE metrics; ALTER TABLE m RENAME TO metrics;
  DROP INDEX samples_run;
  INSERT INTO runs (experiment_id, run_key, config_key, rep, workload, size, policy, status, fom, fom_unit,
    higher_is_better) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
    SELECT 1, 'bulk-' || x, 'bulk', x, 'hpcg', 'small', 'lru', 'ok', 1.5, 'GF/s', 1 FROM c;
  INSERT INTO metrics (run_id, name, value) SELECT id, 'hit_rate', 0.5 FROM runs WHERE run_key LIKE 'bulk-%';
  INSERT INTO allocations (run_id, pid, seq, t_ns, addr, size) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL
    SELECT x + 1 FROM c WHERE x < 5000) SELECT 8, 1, x, x, x * 4096, 4096 FROM c;
  INSERT INTO samples (run_id, pid, t_ns, addr, hit) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL
    SELECT x + 1 FROM c WHERE x < 50000) SELECT 8, 1, x, (x % 5000) * 4096, x % 2 FROM c"
for c in "${readers[@]}"; do
	[ "$c" = "show 8" ] && continue	# one run's row: quick even so
	# shellcheck disable=SC2086
	ends 2 30 "$slow" $c
	expect_contains "$out" "database '$slow' is too slow or hostile: "
	expect_contains "$out" "(gave up after 1 s; TIERLAB_DB_TIMEOUT=SECONDS allows longer)"
done
# merge into a main database of 20,000 runs without its run-key index
cp "$slow" "$scratch/slow-main.db"
q "$scratch/slow-main.db" "DROP INDEX runs_run_key"
ends 1 30 "$scratch/slow-main.db" merge "$slow"
expect_contains "$out" "database '$scratch/slow-main.db' is too slow or hostile: "
expect_contains "$out" "1 refused"

# a shard of 30,000 runs without its run-key and environment indexes merges as one with them does
shard="$scratch/shard.db"
cp "$fx" "$shard"
q "$shard" "DROP INDEX runs_run_key; DROP INDEX environment_run;
  INSERT INTO runs (experiment_id, run_key, config_key, rep, policy, status, fom, fom_unit, higher_is_better)
    WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000)
    SELECT 1, 'bulk-' || x, 'bulk', x, 'lru', 'ok', 1.5, 'GF/s', 1 FROM c;
  INSERT INTO environment (experiment_id, run_id, key, value) SELECT 1, id, 'node', 'n1' FROM runs"
n=$(q "$shard" "select count(distinct run_key) from runs")
env=$(q "$shard" "select count(*) from environment where run_id is not null")
sum=$(md5sum <"$shard")
export TIERLAB_DB_TIMEOUT=20
ends 0 20 "$scratch/merged.db" merge "$shard"
expect_contains "$out" "$n runs added"
[ "$(md5sum <"$shard")" = "$sum" ] || fail "merge changed the shard"
[ "$(q "$scratch/merged.db" "select count(*) from environment where run_id is not null")" = "$env" ] ||
	fail "the runs' environment rows were not all merged"
echo ok
