# MPI ranks under the tiering runtime: hpcg-mpi, 2 ranks started by mpirun
# through the spec's launch:, under lru. Each rank writes its own files
# (tiermem-rankR-PID.*); the run is one run: one report row, rank rows 0
# and 1 kept, and its hit rate and migrated bytes are exactly what the
# per-rank rows give (hits and samples pooled over ranks, bytes summed),
# recomputed here from the stored per-rank rows. The percentage budget is
# calibrated through the same launcher (each rank's own footprint). With
# every rank printing a figure of merit, the one stored is rank 0's; perf
# events are counted in each rank and summed.
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null 2>&1 || skip "no mpirun (apt-get install openmpi-bin)"
command -v sqlite3 >/dev/null 2>&1 || skip "no sqlite3 command"
[ -x "$LIBEXEC/hpcg-mpi" ] || skip "hpcg-mpi not built (no mpicc)"
export OMP_NUM_THREADS=1
cat >"$scratch/mpi.yaml" <<YAML
name: mpi-lru
workload: {name: hpcg-mpi, size: small}
launch: {ranks: 2, with: mpirun, args: [--allow-run-as-root, --oversubscribe]}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 256KiB, budget: 40%, rate: 1000Hz, chunks: 16}
policy: lru
YAML
expect_exit 0 "$TIERLAB" run -q "$scratch/mpi.yaml"
expect_contains "$out" "1 ok"
db=$TIERLAB_DB
q() { sqlite3 "$db" "$1"; }
[ "$(q "SELECT count(*) FROM runs")" -eq 1 ] || fail "not one run row"
metric() { q "SELECT value FROM metrics WHERE name = '$1'"; }
# rank rows 0 and 1, one process each
[ "$(q "SELECT group_concat(value) FROM (SELECT value FROM process_stats WHERE name = 'rank' ORDER BY value)")" = "0,1" ] ||
	fail "rank rows: $(q "SELECT pid, value FROM process_stats WHERE name = 'rank'")"
[ "$(metric rt.ranks)" = 2.0 ] || fail "rt.ranks $(metric rt.ranks)"
# the files are per rank
dir=$(run_dir "$(q "SELECT out_dir FROM runs")")
ls "$dir"/tiermem-rank0-*.counters "$dir"/tiermem-rank1-*.counters >/dev/null || fail "no per-rank files in $dir: $(ls "$dir")"
# pooled and summed, from the per-rank rows
stat() { q "SELECT sum(value) FROM process_stats WHERE name = '$1'"; }
hits=$(stat hits) samples=$(stat samples_managed)
[ "$samples" -gt 0 ] || fail "no sample in any rank"
per_rank=$(q "SELECT count(*) FROM process_stats WHERE name = 'samples_managed' AND value > 0")
[ "$per_rank" -eq 2 ] || fail "only $per_rank rank(s) sampled"
awk -v h="$hits" -v s="$samples" -v r="$(metric hit_rate)" 'BEGIN { d = h / s - r; exit !(d < 1e-12 && d > -1e-12) }' ||
	fail "hit_rate $(metric hit_rate), per-rank rows give $hits / $samples"
moved=$(( $(stat bytes_slow_to_fast) + $(stat bytes_fast_to_slow) ))
[ "$(metric migrated_bytes | cut -d. -f1)" = "$moved" ] || fail "migrated_bytes $(metric migrated_bytes), per-rank rows sum to $moved"
[ "$(stat mig_slow_to_fast)" -gt 0 ] || fail "lru migrated nothing in either rank"
# the report: one row for the run
expect_exit 0 "$TIERLAB" report --format csv
[ "$(grep -c hpcg-mpi <<<"$out")" -eq 1 ] || fail "not one report row: $out"

# every rank of memaccess prints its own figure: the one stored is rank 0's
cat >"$scratch/two.yaml" <<YAML
name: two-figures
workload: {name: memaccess, size: tiny}
launch: {ranks: 2, with: mpirun, args: [--allow-run-as-root, --oversubscribe]}
events: [page-faults, task-clock]
YAML
expect_exit 0 "$TIERLAB" run -q "$scratch/two.yaml"
dir=$(run_dir "$(q "SELECT out_dir FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE e.name = 'two-figures'")")
rank0=$(sed -n 's/^\[[0-9]*,0\]<stdout>:figure-of-merit: \([0-9.]*\) .*/\1/p' "$dir/stdout.txt")
rank1=$(sed -n 's/^\[[0-9]*,1\]<stdout>:figure-of-merit: \([0-9.]*\) .*/\1/p' "$dir/stdout.txt")
[ -n "$rank0" ] && [ -n "$rank1" ] || fail "not both ranks' figures, labelled, in: $(cat "$dir/stdout.txt")"
fom=$(q "SELECT fom FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE e.name = 'two-figures'")
awk -v a="$fom" -v b="$rank0" 'BEGIN { d = a - b; exit !(d < 1e-6 * b && d > -1e-6 * b) }' ||
	fail "stored figure $fom, rank 0 printed $rank0 (rank 1 $rank1)"

# perf counters per rank (tierlab-rank in each rank), summed into the run's
ls "$dir"/perf-rank0-*.txt "$dir"/perf-rank1-*.txt >/dev/null || fail "no per-rank counts in $dir: $(ls "$dir")"
for ev in page-faults task-clock; do
	files=$(awk -F'\t' -v e="$ev" '$1 == e && $2 == "ok" { s += $3; n++ } END { if (n == 2) printf "%.0f", s }' "$dir"/perf-rank*.txt)
	rows=$(q "SELECT sum(p.value) FROM process_stats p JOIN runs r ON r.id = p.run_id JOIN experiments e ON e.id = r.experiment_id
		WHERE e.name = 'two-figures' AND p.name = 'perf.$ev'")
	stored=$(q "SELECT printf('%.0f', c.value) FROM counters c JOIN runs r ON r.id = c.run_id JOIN experiments e ON e.id = r.experiment_id
		WHERE e.name = 'two-figures' AND c.event = '$ev' AND c.status = 'ok'")
	[ -n "$files" ] && [ "$stored" = "$files" ] && [ "$rows" = "$files" ] ||
		fail "$ev: stored $stored, per-rank rows $rows, the ranks' files $files"
done
echo ok
