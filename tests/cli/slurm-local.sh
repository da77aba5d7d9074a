# tierlab sweep --slurm through a real one-node Slurm (scripts/slurm-local.sh):
# the demo's plan (experiments/demo.yaml at --size tiny, 16 runs) as an
# array of 2 tasks of 8 runs and a merge job; one task is cancelled after it
# stored its first run, so its shard holds part of its runs and the merge
# job (afterany) folds what there is; --resume submits exactly the runs the
# main database lacks; in the end every planned run is stored once, ok, and
# the database passes integrity_check; merging every shard again adds
# nothing. Skipped where Slurm or munge is not installed or not root.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "no sqlite3 command"
export TIERLAB_SLURM_DIR="$scratch/slurm" TIERLAB_SLURM_PORT=${TIERLAB_SLURM_PORT:-$(free_port)}
export SLURM_CONF="$TIERLAB_SLURM_DIR/slurm.conf"
start=$("$top/scripts/slurm-local.sh" start 2>&1); rc=$?
[ $rc -eq 77 ] && skip "$start"
trap '"$top/scripts/slurm-local.sh" stop >/dev/null 2>&1; rm -rf "$scratch"' EXIT
[ $rc -eq 0 ] || fail "the local Slurm did not start: $start"

spec="$top/experiments/demo.yaml"
db="$scratch/main.db"
sweep() { "$TIERLAB" sweep --slurm --db "$db" "$@" "$spec" --size tiny; }
# waits until none of these jobs is in the queue (at most 3 minutes)
wait_jobs() {
	for _ in $(seq 900); do
		[ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	fail "jobs $1 still queued after 3 minutes: $(squeue)"
}
q() { sqlite3 "$1" "$2"; }

# the dry run prints both scripts and submits nothing
expect_exit 0 sweep --dry-run --runs-per-task 8 --array-limit 1 --time-limit 10 --sbatch-arg=--comment=t
expect_contains "$out" "#SBATCH --array=0-1%1"
expect_contains "$out" "#SBATCH --time=10"
expect_contains "$out" "#SBATCH --comment=t"
expect_contains "$out" "--quiet --resume --db \"\$shard\" --only \"\${runs[\$SLURM_ARRAY_TASK_ID]}\" $spec --size tiny"
expect_contains "$out" "--dependency=afterany:ARRAY_JOB_ID"
expect_contains "$out" " merge --db $db --experiment demo --spec-hash "
[ -z "$(squeue -h)" ] || fail "a dry run submitted something: $(squeue)"
keys=$("$TIERLAB" sweep --dry-run "$spec" --size tiny | awk 'NR > 1 { print $2 }' | sort)
[ "$(wc -l <<<"$keys")" -eq 16 ] || fail "the demo plans $(wc -l <<<"$keys") runs, not 16"

# submit; cancel task 0 once it stored its first run (it has 7 more to go)
expect_exit 0 sweep --runs-per-task 8
expect_contains "$out" "demo: 16 runs submitted as array job"
array=$(sed -n 's/.* as array job \([0-9]*\) .*/\1/p' <<<"$out")
merge=$(sed -n 's/.*, merge job \([0-9]*\) .*/\1/p' <<<"$out")
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in: $out"
shard0="$scratch/shards/demo/${array}_0/shard.db"
for _ in $(seq 600); do
	[ -f "$shard0" ] && [ "$(q "$shard0" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)" -ge 1 ] && break
	sleep 0.1
done
scancel "${array}_0" || fail "scancel ${array}_0 failed"
wait_jobs "$array,$merge"
# tierlab in the task took Slurm's SIGTERM: it stopped the run in progress and stored it not
grep -q "; interrupted" "$scratch/shards/demo/slurm-${array}_0.out" ||
	fail "the cancelled task did not stop as interrupted: $(cat "$scratch/shards/demo/slurm-${array}_0.out")"
killed=$(q "$shard0" "SELECT count(*) FROM runs WHERE status = 'ok'")
[ "$killed" -ge 1 ] && [ "$killed" -lt 8 ] || fail "the cancelled task stored $killed of its 8 runs (expected some, not all)"
grep -q "merged 2 shards" "$scratch/shards/demo/slurm-$merge-merge.out" ||
	fail "the merge job did not merge both shards: $(cat "$scratch/shards/demo/slurm-$merge-merge.out")"
stored=$(q "$db" "SELECT count(DISTINCT run_key) FROM runs WHERE status = 'ok'")
[ "$stored" -eq $((8 + killed)) ] || fail "main database holds $stored runs ok, expected $((8 + killed))"

expect_exit 0 "$TIERLAB" status --db "$db" demo
expect_contains "$out" "demo: array job $array (2 tasks, 16 runs), merge job $merge"
expect_contains "$out" "2 of 2 tasks wrote one; $stored runs stored ok"
expect_contains "$out" "database: $stored runs of demo stored ok"
expect_contains "$out" "merge job $merge: merged 2 shards"

# resume: only what the main database lacks
expect_exit 0 sweep --resume --runs-per-task 4
expect_contains "$out" "demo: $((16 - stored)) run"
array2=$(sed -n 's/.* as array job \([0-9]*\) .*/\1/p' <<<"$out")
merge2=$(sed -n 's/.*, merge job \([0-9]*\) .*/\1/p' <<<"$out")
wait_jobs "$array2,$merge2"

# every planned run once, ok; the database whole
got=$(q "$db" "SELECT run_key FROM runs WHERE status = 'ok' ORDER BY run_key")
[ "$got" = "$keys" ] || fail "stored runs differ from the plan:
$(diff <(echo "$keys") <(echo "$got"))"
[ "$(q "$db" 'SELECT count(*) FROM runs')" -eq 16 ] || fail "$(q "$db" 'SELECT count(*) FROM runs') run rows, expected 16"
[ "$(q "$db" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check: $(q "$db" 'PRAGMA integrity_check')"
[ -z "$(q "$db" 'PRAGMA foreign_key_check')" ] || fail "foreign keys broken"
# merging every shard again adds nothing
expect_exit 0 "$TIERLAB" merge --db "$db" "$scratch"/shards/demo/*/shard.db
expect_contains "$out" "0 runs added, 16 already stored"
# the report reads the merged runs, and a run's files are found through the main database
expect_exit 0 "$TIERLAB" report --db "$db" --experiment demo
expect_contains "$out" "memaccess"
expect_exit 0 "$TIERLAB" show --db "$db" "$(head -n 1 <<<"$keys")"
dir=$(sed -n 's/^files *//p' <<<"$out")
[ -f "$dir/stdout.txt" ] || fail "no stdout.txt in the run's directory '$dir': $out"
echo ok
