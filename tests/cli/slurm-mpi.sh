# hpcg-mpi, 2 ranks under lru, through a real one-node Slurm
# (scripts/slurm-local.sh): the spec's launch: {with: srun, args:
# [--mpi=pmix]} inside an array task of --ntasks 2, then the merge job.
# The main database holds one run; its rank rows 0 and 1; its hit rate is
# the hits over the samples of both ranks and its migrated bytes the sum of
# both ranks' (recomputed here from the per-rank rows); the report has one
# row; page faults are counted in each rank and summed. Skipped where Slurm, munge or hpcg-mpi is missing.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "no sqlite3 command"
[ -x "$LIBEXEC/hpcg-mpi" ] || skip "hpcg-mpi not built (no mpicc)"
export TIERLAB_SLURM_DIR="$scratch/slurm" TIERLAB_SLURM_PORT=${TIERLAB_SLURM_PORT:-$(free_port)}
export SLURM_CONF="$TIERLAB_SLURM_DIR/slurm.conf" OMP_NUM_THREADS=1
start=$("$top/scripts/slurm-local.sh" start 2>&1); rc=$?
[ $rc -eq 77 ] && skip "$start"
trap '"$top/scripts/slurm-local.sh" stop >/dev/null 2>&1; rm -rf "$scratch"' EXIT
[ $rc -eq 0 ] || fail "the local Slurm did not start: $start"
srun --mpi=list 2>&1 | grep -q pmix || skip "this Slurm has no pmix plugin (apt-get install libpmix2, then restart slurmd)"

cat >"$scratch/mpi.yaml" <<YAML
name: mpi-srun
workload: {name: hpcg-mpi, size: small}
launch: {ranks: 2, with: srun, args: [--mpi=pmix]}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 256KiB, budget: 16MiB, rate: 1000Hz, chunks: 16}
policy: lru
slurm: {ntasks: 2}
events: [page-faults]
YAML
db="$scratch/main.db"
expect_exit 0 "$TIERLAB" run --slurm --db "$db" "$scratch/mpi.yaml"
ids=$(sed -n 's/.* as array job \([0-9]*\) .*, merge job \([0-9]*\) .*/\1,\2/p' <<<"$out")
[ -n "$ids" ] || fail "no job ids in: $out"
for _ in $(seq 900); do
	[ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] && break
	sleep 0.2
done
[ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] || fail "jobs $ids still queued after 3 minutes"
q() { sqlite3 "$db" "$1"; }
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" -eq 1 ] ||
	fail "not one run ok: $(q 'SELECT status, error FROM runs'); $(cat "$scratch"/shards/mpi-srun/*.out)"
[ "$(q "SELECT group_concat(value) FROM (SELECT value FROM process_stats WHERE name = 'rank' ORDER BY value)")" = "0,1" ] ||
	fail "rank rows: $(q "SELECT pid, value FROM process_stats WHERE name = 'rank'")"
metric() { q "SELECT value FROM metrics WHERE name = '$1'"; }
stat() { q "SELECT sum(value) FROM process_stats WHERE name = '$1'"; }
hits=$(stat hits) samples=$(stat samples_managed)
[ "$(q "SELECT count(*) FROM process_stats WHERE name = 'samples_managed' AND value > 0")" -eq 2 ] ||
	fail "not both ranks sampled"
awk -v h="$hits" -v s="$samples" -v r="$(metric hit_rate)" 'BEGIN { d = h / s - r; exit !(d < 1e-12 && d > -1e-12) }' ||
	fail "hit_rate $(metric hit_rate), per-rank rows give $hits / $samples"
moved=$(( $(stat bytes_slow_to_fast) + $(stat bytes_fast_to_slow) ))
[ "$(metric migrated_bytes | cut -d. -f1)" = "$moved" ] || fail "migrated_bytes $(metric migrated_bytes), per-rank rows sum to $moved"
[ "$(stat mig_slow_to_fast)" -gt 0 ] || fail "lru migrated nothing"
# srun's ranks are not tierlab's children: their page faults are counted in
# each rank and summed, far more than srun's own
pf=$(q "SELECT sum(value) FROM process_stats WHERE name = 'perf.page-faults'")
[ "$(q "SELECT count(*) FROM process_stats WHERE name = 'perf.page-faults'")" -eq 2 ] || fail "not 2 ranks' page faults"
[ "$(q "SELECT printf('%.0f', value) FROM counters WHERE event = 'page-faults' AND status = 'ok'")" = "$pf" ] ||
	fail "page-faults $(q "SELECT value FROM counters WHERE event = 'page-faults'"), the ranks' sum $pf"
expect_exit 0 "$TIERLAB" report --db "$db" --format csv
[ "$(grep -c hpcg-mpi <<<"$out")" -eq 1 ] || fail "not one report row: $out"
echo ok
