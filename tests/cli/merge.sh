# tierlab merge by hand, without Slurm: two shards written by `tierlab run
# --db` (as array tasks write them) fold into a main database; merging
# again adds nothing; a shard of another experiment, or of the same name
# from another spec, is refused (exit 1) and the rest still merges; the
# runs' files are found through the main database.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "no sqlite3 command"
cat >"$scratch/a.yaml" <<'YAML'
name: m
workload: {command: [sh, -c, "echo figure 1.5"], fom: {regex: "figure ([0-9.]+)"}}
repetitions: 4
YAML
keys=$("$TIERLAB" run -n "$scratch/a.yaml" | awk 'NR > 1 { print $2 }')
mkdir -p "$scratch/shards/1_0" "$scratch/shards/1_1"
expect_exit 0 "$TIERLAB" run -q --db "$scratch/shards/1_0/shard.db" --only "$(sed -n 1,2p <<<"$keys" | paste -sd,)" "$scratch/a.yaml"
expect_exit 0 "$TIERLAB" run -q --db "$scratch/shards/1_1/shard.db" --only "$(sed -n 3,4p <<<"$keys" | paste -sd,)" "$scratch/a.yaml"
main="$scratch/main.db"
expect_exit 0 "$TIERLAB" merge --db "$main" "$scratch"/shards/*/shard.db
expect_contains "$out" "merged 2 shards into $main: 4 runs added, 0 already stored, 0 refused"
expect_exit 0 "$TIERLAB" merge --db "$main" "$scratch"/shards/*/shard.db
expect_contains "$out" "0 runs added, 4 already stored"
expect_exit 0 "$TIERLAB" report --db "$main"
expect_contains "$out" "(4)"
expect_exit 0 "$TIERLAB" show --db "$main" "$(head -n 1 <<<"$keys")"
dir=$(sed -n 's/^files *//p' <<<"$out")
[ -f "$dir/stdout.txt" ] || fail "the merged run's files are not where the main database says: '$dir'"

# another experiment; the same name from another spec
sed 's/^name: m$/name: other/' "$scratch/a.yaml" >"$scratch/b.yaml"
sed 's/repetitions: 4/repetitions: 5/' "$scratch/a.yaml" >"$scratch/c.yaml"
expect_exit 0 "$TIERLAB" run -q --db "$scratch/other.db" "$scratch/b.yaml"
expect_exit 0 "$TIERLAB" run -q --db "$scratch/respec.db" "$scratch/c.yaml"
expect_exit 1 "$TIERLAB" merge --db "$main" "$scratch/shards/1_0/shard.db" "$scratch/other.db" "$scratch/respec.db"
expect_contains "$out" "shard '$scratch/other.db' refused: it holds experiment 'other'"
expect_contains "$out" "shard '$scratch/respec.db' refused: it holds experiment 'm' (spec"
expect_contains "$out" "merged 1 shard into $main: 0 runs added, 2 already stored, 2 refused"
expect_exit 1 "$TIERLAB" merge --db "$main" --experiment other "$scratch/shards/1_0/shard.db"
expect_exit 1 "$TIERLAB" merge --db "$main" "$scratch/missing.db"
expect_contains "$out" "missing.db': No such file or directory"
[ "$(sqlite3 "$main" 'SELECT count(*) FROM runs')" -eq 4 ] || fail "a refused shard added rows"
echo ok
