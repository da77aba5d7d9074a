# tierlab run --slurm without Slurm: --dry-run prints the array's and the
# merge job's scripts (the spec's slurm: key, the command line over it),
# --resume leaves out the runs the database holds ok, and a submission
# where sbatch is missing fails saying so, storing and submitting nothing.
. "$(dirname "$0")/lib.sh"
cat >"$scratch/s.yaml" <<'YAML'
name: sl
workload: {command: [sleep, "0"]}
slurm: {partition: p1, time: "0:10:00", ntasks: 4, runs_per_task: 2, array_limit: 3, sbatch: [--qos=a]}
repetitions: 5
YAML
expect_exit 0 "$TIERLAB" run --slurm -n --partition p2 --sbatch-arg=--qos=b "$scratch/s.yaml"
expect_contains "$out" "#SBATCH --array=0-2%3"
expect_contains "$out" "#SBATCH --partition=p2"
expect_not_contains "$out" "--partition=p1"
expect_contains "$out" "#SBATCH --time=0:10:00"
expect_contains "$out" "#SBATCH --ntasks=4"
expect_contains "$out" "#SBATCH --qos=a
#SBATCH --qos=b"
expect_contains "$out" "# tierlab: experiment sl, 5 runs in 3 array tasks"
# every task stores its runs under the submission's session (a fresh key, or the one given)
grep -Eq '^export TIERLAB_SESSION=[0-9a-f]{16}$' <<<"$out" || fail "the array script names no session:
$out"
TIERLAB_SESSION=sweep-7 expect_exit 0 "$TIERLAB" run --slurm -n "$scratch/s.yaml"
expect_contains "$out" "export TIERLAB_SESSION=sweep-7"
TIERLAB_SESSION='a b' expect_exit 2 "$TIERLAB" run --slurm -n "$scratch/s.yaml"
expect_contains "$out" "error: TIERLAB_SESSION 'a b': a session key is 1-64 letters, digits, '_' or '-'"
[ ! -e "$TIERLAB_DB" ] || fail "a dry run made the database"
[ ! -e "$(dirname "$TIERLAB_DB")/shards" ] || fail "a dry run made the shard directory"
# 2 of the 5 runs stored ok: --resume submits the other 3
keys=$("$TIERLAB" run -n "$scratch/s.yaml" | awk 'NR > 1 { print $2 }')
expect_exit 0 "$TIERLAB" run -q --only "$(head -n 2 <<<"$keys" | paste -sd,)" "$scratch/s.yaml"
expect_exit 0 "$TIERLAB" run --slurm -n --resume --runs-per-task 1 "$scratch/s.yaml"
expect_contains "$out" "# tierlab: experiment sl, 3 runs in 3 array tasks"
for k in $(head -n 2 <<<"$keys"); do expect_not_contains "$out" "$k"; done
for k in $(tail -n 3 <<<"$keys"); do expect_contains "$out" "  $k"; done
# all stored: nothing to submit
expect_exit 0 "$TIERLAB" run -q --resume "$scratch/s.yaml"
expect_exit 0 "$TIERLAB" run --slurm --resume "$scratch/s.yaml"
expect_contains "$out" "every selected run is stored ok"
# a spec of MPI ranks: each array task asks for as many tasks as a run has ranks
cat >"$scratch/r.yaml" <<'YAML'
name: ranked
workload: {command: [sleep, "0"]}
launch: {ranks: 6, with: srun}
YAML
expect_exit 0 "$TIERLAB" run --slurm -n "$scratch/r.yaml"
expect_contains "$out" "#SBATCH --ntasks=6"
expect_exit 0 "$TIERLAB" run --slurm -n --ntasks 12 "$scratch/r.yaml"
expect_contains "$out" "#SBATCH --ntasks=12"

# Slurm's options without --slurm: refused, nothing runs
expect_exit 2 "$TIERLAB" run --partition p1 "$scratch/s.yaml"
expect_contains "$out" "go with --slurm"
expect_exit 2 "$TIERLAB" run --slurm -n --array-limit -1 "$scratch/s.yaml"
# no sbatch on PATH: refused with the reason
mkdir "$scratch/bin"
ln -s "$TIERLAB" "$scratch/bin/tierlab"
PATH="$scratch/bin" expect_exit 2 "$TIERLAB" run --slurm "$scratch/s.yaml"
expect_contains "$out" "cannot submit the array job: sbatch is not installed (no Slurm here)"
echo ok
