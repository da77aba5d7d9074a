# A requeued array task carries on where it stopped, through a real
# one-node Slurm (scripts/slurm-local.sh): one task of 3 runs is requeued
# (scontrol requeue, as a preemption or node failure would) after it
# stored its first run; it runs again into the same shard with --resume,
# skips the stored run, runs the other two, and its log keeps both
# attempts; the main database ends with each run once. Skipped where Slurm
# or munge is not installed.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "no sqlite3 command"
export TIERLAB_SLURM_DIR="$scratch/slurm" TIERLAB_SLURM_PORT=${TIERLAB_SLURM_PORT:-$(free_port)}
export SLURM_CONF="$TIERLAB_SLURM_DIR/slurm.conf"
start=$("$top/scripts/slurm-local.sh" start 2>&1); rc=$?
[ $rc -eq 77 ] && skip "$start"
trap '"$top/scripts/slurm-local.sh" stop >/dev/null 2>&1; rm -rf "$scratch"' EXIT
[ $rc -eq 0 ] || fail "the local Slurm did not start: $start"

cat >"$scratch/s.yaml" <<'YAML'
name: rq
workload: {command: [sleep, "5"]}
repetitions: 3
YAML
db="$scratch/main.db"
expect_exit 0 "$TIERLAB" run --slurm --runs-per-task 3 --db "$db" "$scratch/s.yaml"
array=$(sed -n 's/.* as array job \([0-9]*\) .*/\1/p' <<<"$out")
merge=$(sed -n 's/.*, merge job \([0-9]*\) .*/\1/p' <<<"$out")
shard="$scratch/shards/rq/${array}_0/shard.db"
for _ in $(seq 300); do
	[ -f "$shard" ] && [ "$(sqlite3 "$shard" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)" -ge 1 ] && break
	sleep 0.1
done
[ "$(sqlite3 "$shard" 'SELECT count(*) FROM runs')" -eq 1 ] || fail "the task had not stored exactly its first run"
scontrol requeue "${array}_0" || fail "scontrol requeue ${array}_0 failed"
# Slurm holds a requeued job back (BeginTime, ~2 minutes here): let it
# start now, whenever the hold shows (late on a loaded machine). Right
# after the requeue the task can be missing from squeue for a moment: an
# empty queue counts only once the requeued task has stored its runs and
# its second attempt has written its lines. (Each run sleeps 5 s, so the
# requeue lands while the first attempt still has two runs to make, even
# on a loaded host.)
for i in $(seq 1500); do
	# pending for whatever reason the hold shows as (BeginTime, or late on a loaded
	# slurmctld another): ask for now, once a second; the job may start between the
	# two commands, so a refusal is no failure
	if [ $((i % 5)) = 1 ] && [ "$(squeue -h -j "${array}_0" -o %t 2>/dev/null)" = PD ]; then
		scontrol update JobId="${array}_0" StartTime=now >/dev/null 2>&1 || true
	fi
	[ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] &&
		[ "$(sqlite3 "$shard" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)" -ge 3 ] &&
		grep -q "(stored ok)" "$scratch/shards/rq/slurm-${array}_0.out" 2>/dev/null && break
	sleep 0.2
done
[ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] || fail "jobs still queued after 5 minutes: $(squeue)"
log="$scratch/shards/rq/slurm-${array}_0.out"
grep -q "(stored ok)" "$log" ||
	fail "the requeued task did not skip the run it had stored: $(cat "$log")
the task: $(scontrol show job "${array}_0" 2>&1 | head -n 12)
slurmctld: $(grep -E "${array}|requeue|Requeue" "$TIERLAB_SLURM_DIR/slurmctld.log" 2>/dev/null | tail -n 15)"
grep -q "; interrupted" "$log" || fail "the first attempt's lines are not in the log: $(cat "$log")"
[ "$(sqlite3 "$shard" 'SELECT count(*) || " " || count(DISTINCT run_key) FROM runs')" = "3 3" ] ||
	fail "the shard holds $(sqlite3 "$shard" 'SELECT count(*) FROM runs') rows for 3 runs"
[ "$(sqlite3 "$db" "SELECT count(*) || ' ' || count(DISTINCT run_key) FROM runs WHERE status = 'ok'")" = "3 3" ] ||
	fail "the main database holds $(sqlite3 "$db" 'SELECT count(*) FROM runs') rows for 3 runs"
[ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check failed"
echo ok
