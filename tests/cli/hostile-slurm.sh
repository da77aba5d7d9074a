# tierlab run --slurm with hostile values (docs/reliability.md, "Hostile
# input"): a newline in a spec's slurm.partition, account, time or sbatch
# entry, in --partition, --account, --sbatch-arg or the --db path is
# refused naming the field, before a script is written; an empty
# --time-limit and a count of 0 are refused as a negative one is. Paths
# and values with spaces, quotes, #, $(...), backticks and a newline (the
# spec's path) are quoted: bash reads the task's command back word for
# word, running nothing, and (where a one-node Slurm can be started,
# scripts/slurm-local.sh) sbatch reads the #SBATCH values back, its logs
# landing in the shard directory of the hostile database path.
. "$(dirname "$0")/lib.sh"
mkdir "$scratch/work"
cd "$scratch/work" || fail "no work directory"

# the spec's values: refused at their place, no script printed
nl='p1
#SBATCH --uid=0
touch MARK-spec'
for key in partition account time; do
	printf 'name: h\nworkload: {command: [sleep, "0"]}\nslurm: {%s: "p1\\n#SBATCH --uid=0\\ntouch MARK-spec"}\n' \
		"$key" >s.yaml
	expect_exit 2 "$TIERLAB" run --slurm -n s.yaml
	expect_contains "$out" "s.yaml:3:"
	expect_contains "$out" "slurm.$key: 'p1\\n#SBATCH --uid=0\\ntouch MARK-spec' holds a newline, which would end its #SBATCH line"
	expect_not_contains "$out" "#!/bin/bash"
done
printf 'name: h\nworkload: {command: [sleep, "0"]}\nslurm: {sbatch: [--qos=a, "--qos=b\\rx\\ntouch MARK-spec"]}\n' >s.yaml
expect_exit 2 "$TIERLAB" run --slurm -n s.yaml
expect_contains "$out" "slurm.sbatch[1]: '--qos=b\\rx\\ntouch MARK-spec' holds a"
printf 'name: h\nworkload: {command: [sleep, "0"]}\nslurm: {time: ""}\n' >s.yaml
expect_exit 2 "$TIERLAB" run --slurm -n s.yaml
expect_contains "$out" "s.yaml:3:15: slurm.time: '' is empty (leave it out for Slurm's default)"

# the command line's: the same refusals, naming the option
printf 'name: h\nworkload: {command: [sleep, "0"]}\nrepetitions: 2\n' >s.yaml
for opt in --partition --account --sbatch-arg; do
	expect_exit 2 "$TIERLAB" run --slurm -n "$opt" "$nl" s.yaml
	expect_contains "$out" "error: $opt: 'p1\\n#SBATCH --uid=0\\ntouch MARK-spec' holds a newline"
	expect_not_contains "$out" "#!/bin/bash"
done
expect_exit 2 "$TIERLAB" run --slurm -n --db "$scratch/a
b/t.db" s.yaml
expect_contains "$out" "error: --db: '$scratch/a\\nb/t.db' holds a newline"
expect_exit 2 "$TIERLAB" run --slurm -n --time-limit '' s.yaml
expect_contains "$out" "--time-limit: '' is empty (leave it out for Slurm's default)"
expect_not_contains "$out" "#SBATCH --time="
for bad in "--runs-per-task 0" "--nodes -3" "--ntasks 0" "--array-limit x" "--nodes 1048577"; do
	set -- $bad
	expect_exit 2 "$TIERLAB" run --slurm -n "$1" "$2" s.yaml
	expect_contains "$out" "$1: expected a number from 1 to 1048576, got '$2'"
done

# quoting: a database path and a spec path holding what a shell or sbatch would act on
dbdir="$scratch/r #1 \"q\" 'x' \$(touch MARK-db) \`touch MARK-db2\` hetjob"
specdir="$scratch/s \$(touch MARK-sp);
EOF
touch MARK-sp2"
mkdir -p "$dbdir" "$specdir"
cp s.yaml "$specdir/s.yaml"
expect_exit 0 "$TIERLAB" run --slurm -n --db "$dbdir/main.db" --partition 'a b"#c' "$specdir/s.yaml"
script=$out
expect_contains "$script" "#SBATCH --partition=\"a b\\\"#c\""
expect_contains "$script" "#SBATCH --output=\"$scratch/r #1 \\\"q\\\" 'x' \$(touch MARK-db) \`touch MARK-db2\` hetjo\\b/shards/h/slurm-%A_%a.out\""
# one line per directive: nothing a value held became a line of the script
[ "$(grep -c '^EOF$' <<<"$script")" = 0 ] || fail "a value became a line of the script: $script"
[ "$(grep -c '^touch' <<<"$script")" = 0 ] || fail "a value became a line of the script: $script"
# bash reads back the words of task 1's command, with exec replaced by a printer
array=$(sed -n '/^# the array job/,/^# EOF/p' <<<"$script" | sed '1d;$d')
body=$(sed -n '/^runs=(/,$p' <<<"$array" | sed 's/^exec /printf "%s\\0" /')
printf '%s\n' "$body" | SLURM_ARRAY_JOB_ID=5 SLURM_ARRAY_TASK_ID=1 bash >words || fail "the task's command does not run in bash: $body"
mapfile -d '' got <words
[ "${got[5]}" = "$dbdir/shards/h/5_1/shard.db" ] || fail "the shard's path read back as '${got[5]}'"
[ "${got[8]}" = "$specdir/s.yaml" ] || fail "the spec's path read back as '${got[8]}'"
merge=$(sed -n '/^# the merge job/,/^# EOF/p' <<<"$script" | sed '1d;$d')
sed -e '/^if \[/d' -e 's/^exec /printf "%s\\0" /' <<<"$merge" | bash >mwords
mapfile -d '' got <mwords
[ "${got[3]}" = "$dbdir/main.db" ] || fail "the merge job's database read back as '${got[3]}'"
markers=$(find "$scratch" -name 'MARK-*')
[ -z "$markers" ] || fail "a value ran as a command: $markers"

# sbatch itself: the --output value is read back, so the logs land in the hostile directory
export TIERLAB_SLURM_DIR="$scratch/slurm" TIERLAB_SLURM_PORT=${TIERLAB_SLURM_PORT:-$(free_port)}
export SLURM_CONF="$TIERLAB_SLURM_DIR/slurm.conf"
start=$("$top/scripts/slurm-local.sh" start 2>&1); rc=$?
[ $rc -eq 77 ] && skip "the offline checks passed; no Slurm for sbatch's: $start"
trap '"$top/scripts/slurm-local.sh" stop >/dev/null 2>&1; rm -rf "$scratch"' EXIT
[ $rc -eq 0 ] || fail "the local Slurm did not start: $start"
expect_exit 0 "$TIERLAB" run --slurm --db "$dbdir/main.db" --sbatch-arg='--comment="x y #z"' "$specdir/s.yaml"
array=$(sed -n 's/.* as array job \([0-9]*\) .*/\1/p' <<<"$out")
merge=$(sed -n 's/.*, merge job \([0-9]*\) .*/\1/p' <<<"$out")
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in: $out"
for _ in $(seq 900); do
	[ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
	sleep 0.2
done
for f in "slurm-${array}_0.out" "slurm-${array}_1.out" "slurm-$merge-merge.out"; do
	[ -f "$dbdir/shards/h/$f" ] || fail "sbatch did not read the --output path back: no '$dbdir/shards/h/$f' ($(ls "$dbdir/shards/h"))"
done
grep -q "merged 2 shards" "$dbdir/shards/h/slurm-$merge-merge.out" ||
	fail "the merge job did not merge: $(cat "$dbdir/shards/h/slurm-$merge-merge.out")"
[ "$(sqlite3 "$dbdir/main.db" "SELECT count(*) FROM runs WHERE status = 'ok'" 2>/dev/null)" = 2 ] ||
	fail "the main database in the hostile directory does not hold the 2 runs"
markers=$(find "$scratch" / -maxdepth 1 -name 'MARK-*' 2>/dev/null; find "$scratch" -name 'MARK-*')
[ -z "$markers" ] || fail "a value ran as a command: $markers"
echo ok
