# Each run writes into a directory of its own, never one that already
# holds files: a second database beside the first starts its experiment
# ids at 1 again, and its run of the same spec must not read the first
# one's runtime logs as its own (they used to be read together: a
# recording replayed as two processes, its samples doubled). The first
# run's files stay as they were.
. "$(dirname "$0")/lib.sh"
[ -f "$B/lib/tierlab/libtiermem.so" ] && [ -x "$LIBEXEC/memaccess" ] || skip "the runtime and memaccess are not built"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
cat >"$scratch/rec.yaml" <<'YAML'
name: rec
workload: {name: memaccess, size: tiny}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 1MiB, sampler: fault}
YAML
export TIERLAB_DB="$scratch/first.db"
expect_exit 0 "$TIERLAB" simulate --record "$scratch/rec.yaml"
first=$(run_dir "$(sqlite3 "$TIERLAB_DB" 'SELECT out_dir FROM runs')")
before=$(cd "$first" && ls -l --time-style=+%s.%N | sha256sum)
export TIERLAB_DB="$scratch/second.db"
expect_exit 0 "$TIERLAB" simulate --record "$scratch/rec.yaml"
second=$(run_dir "$(sqlite3 "$TIERLAB_DB" 'SELECT out_dir FROM runs')")
[ "$first" != "$second" ] || fail "the second database's run wrote into the first one's directory $first"
[ "$(cd "$first" && ls -l --time-style=+%s.%N | sha256sum)" = "$before" ] || fail "the first run's files changed"
[ "$(ls "$second"/tiermem-*.log | wc -l)" = 1 ] || fail "the second run's directory: $(ls "$second")"
key=$(sqlite3 "$TIERLAB_DB" 'SELECT run_key FROM runs')
expect_exit 0 "$TIERLAB" simulate --export "$key" -o "$scratch/t"
[ "$(grep -c '^T	' "$scratch/t")" = 1 ] || fail "the second recording holds $(grep -c '^T	' "$scratch/t") processes"
expect_exit 0 "$TIERLAB" simulate "$key" --verify
expect_contains "$out" "replay matches the run"
echo ok
