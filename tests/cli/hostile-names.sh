# Names and run directories from outside (docs/reliability.md, "Hostile
# input"): an experiment's name is checked by the spec's one rule wherever
# it enters. A shard whose experiment is named '', '..', with a newline,
# an escape sequence or a backtick is refused by merge, and so is one
# whose run directory is /etc, ../.. or climbs out half way; nothing of
# it is added, a clean shard still merges. merge --experiment and probe
# --save take names by the same rule; simulate --import refuses a trace
# whose file name is no experiment name.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
cd "$scratch" || fail "no scratch directory"
cat >s.yaml <<'YAML'
name: m
workload: {command: [sh, -c, "echo figure 1.5"], fom: {regex: "figure ([0-9.]+)"}}
repetitions: 2
YAML
mkdir -p shards/clean
expect_exit 0 "$TIERLAB" run -q --db shards/clean/shard.db s.yaml
main="$scratch/main.db"

# hostile_shard NAME SQL: a copy of the clean shard changed by SQL
hostile_shard() {
	mkdir -p "shards/$1"
	cp shards/clean/shard.db "shards/$1/shard.db"
	sqlite3 "shards/$1/shard.db" "$2" || fail "shard $1 was not made"
}
hostile_shard empty "UPDATE experiments SET name = ''"
hostile_shard dotdot "UPDATE experiments SET name = '..'"
hostile_shard newline "UPDATE experiments SET name = 'm' || char(10) || 'x'"
hostile_shard escape "UPDATE experiments SET name = 'm' || char(27) || '[2J'"
hostile_shard backtick "UPDATE experiments SET name = 'm\`touch MARK\`'"
hostile_shard etc "UPDATE runs SET out_dir = '/etc' WHERE id = (SELECT min(id) FROM runs)"
hostile_shard up "UPDATE runs SET out_dir = '../..'"
hostile_shard midway "UPDATE runs SET out_dir = 'm/../../../x'"
for s in empty dotdot newline escape backtick etc up midway; do
	expect_exit 1 "$TIERLAB" merge --db "$main" "shards/$s/shard.db"
	expect_contains "$out" "shard 'shards/$s/shard.db' refused: "
	[ "$(wc -l <<<"$out")" = 2 ] || fail "merge $s: the refusal is not one line:
$out"
done
expect_contains "$("$TIERLAB" merge --db "$main" shards/newline/shard.db 2>&1)" \
	"refused: its experiment: 'm\\nx' may only hold letters, digits and . _ -"
expect_contains "$("$TIERLAB" merge --db "$main" shards/dotdot/shard.db 2>&1)" \
	"refused: its experiment: '..' would name a directory that is there already"
expect_contains "$("$TIERLAB" merge --db "$main" shards/etc/shard.db 2>&1)" "its directory: '/etc' is absolute, outside the results"
expect_contains "$("$TIERLAB" merge --db "$main" shards/midway/shard.db 2>&1)" "its directory: 'm/../../../x' climbs out of the results with '..'"
[ "$(sqlite3 "$main" 'SELECT count(*) FROM runs')" = 0 ] || fail "a refused shard added runs"
[ "$(sqlite3 "$main" 'SELECT count(*) FROM experiments')" = 0 ] || fail "a refused shard added its experiment"
expect_exit 0 "$TIERLAB" merge --db "$main" shards/clean/shard.db
expect_contains "$out" "2 runs added"
expect_exit 2 "$TIERLAB" merge --db "$main" --experiment '..' shards/clean/shard.db
expect_contains "$out" "--experiment: '..' would name a directory"
expect_exit 2 "$TIERLAB" probe --save 'a b'
expect_contains "$out" "--save: 'a b' may only hold letters, digits and . _ -"

# simulate --import names the experiment after the file
trace="$top/tests/fuzz/seeds/trace/hpcg-small.log"
for f in 'x`touch MARK`.log' "a b.log" '..log' "nl
x.log"; do
	cp "$trace" "$f"
	expect_exit 2 env TIERLAB_DB="$scratch/import.db" "$TIERLAB" simulate --import "$f"
	expect_contains "$out" "--import '"
	expect_contains "$out" "(rename the file)"
	[ "$(wc -l <<<"$out")" = 1 ] || fail "--import '$f': the refusal is not one line: $out"
done
[ ! -e import.db ] || [ "$(sqlite3 import.db 'SELECT count(*) FROM experiments')" = 0 ] ||
	fail "a refused import stored an experiment"
cp "$trace" good.log
expect_exit 0 env TIERLAB_DB="$scratch/import.db" "$TIERLAB" simulate --import good.log
expect_contains "$out" "(experiment good)"
[ -z "$(find "$scratch" -name MARK)" ] || fail "a name ran as a command"
echo ok
