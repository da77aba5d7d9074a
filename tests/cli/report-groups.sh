# report --by never pools what cannot stand in one mean: an experiment of
# two workloads in two units and directions (memaccess in ns/access, lower
# is better; hpcg in GF/s, higher is better), runs written straight into
# the store. --by policy and --by chunks,rate keep workload and size as
# leading keys, each group's baseline is its own workload's, and a
# baseline selector that names hpcg gives memaccess none.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"

cat >"$scratch/t.yaml" <<YAML
name: two-units
workload: {name: t, command: [true]}
YAML
expect_exit 0 "$TIERLAB" run -q "$scratch/t.yaml"
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
exp=$(q "select id from experiments where name = 'two-units'")
q "delete from metrics; delete from environment where run_id is not null; delete from runs"
n=0
# run WORKLOAD SIZE POLICY CHUNKS RATE FOM UNIT HIGHER
run() {
	n=$((n + 1))
	q "insert into runs (experiment_id, run_key, config_key, rep, workload, size, policy, chunks, rate,
		status, fom, fom_unit, higher_is_better, wall_s)
	   values ($exp, 'r$n', '$1-$2-$3-$4', $n, '$1', '$2', '$3', $4, $5, 'ok', $6, '$7', $8, 1)"
}
for f in 200 210; do run memaccess small all-fast null null $f ns/access 0; done
for f in 250 260; do run memaccess small lru 2 "'10Hz'" $f ns/access 0; done
for f in 240 250; do run memaccess small lru 8 "'10Hz'" $f ns/access 0; done
for f in 2.0 2.2; do run hpcg tiny all-fast null null $f GF/s 1; done
for f in 1.6 1.8; do run hpcg tiny lru 2 "'10Hz'" $f GF/s 1; done
for f in 1.0 1.2; do run hpcg tiny lru 8 "'10Hz'" $f GF/s 1; done
q "update experiments set baseline = 'policy=all-fast' where id = $exp"

# --by policy: four rows, workload and size first; lru of memaccess is
# 250 ns/access against its own all-fast (205): 205/250 = 82.0%;
# lru of hpcg 1.4 GF/s against 2.1: 66.7%
expect_exit 0 "$TIERLAB" report --by policy
text=$out
head -2 <<<"$text" | tail -1 | grep -Eq '^workload +size +policy ' || fail "workload and size do not lead:
$text"
grep -Eq '^memaccess +small +lru +250\.0 ± .* ns/access +82\.0%' <<<"$text" || fail "memaccess lru is not its own:
$text"
grep -Eq '^hpcg +tiny +lru +1\.400 ± .* GF/s +66\.7%' <<<"$text" || fail "hpcg lru is not its own:
$text"
[ "$(grep -Ec '^(memaccess|hpcg) ' <<<"$text")" = 4 ] || fail "expected four groups:
$text"

# --by chunks,rate as CSV: every row one workload, one unit
expect_exit 0 "$TIERLAB" report --by chunks,rate --format csv
csv=$(tr -d '\r' <<<"$out")
rows=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $c["workload"] "|" $c["size"] "|" $c["chunks"] "|" $c["fom_mean"] "|" $c["fom_unit"] "|" $c["pct_of_baseline"] }' <<<"$csv")
grep -qx 'memaccess|small|8|245|ns/access|' <<<"$rows" || fail "memaccess chunks=8 pooled wrongly:
$rows"
grep -qx 'hpcg|tiny|8|1.1|GF/s|' <<<"$rows" || fail "hpcg chunks=8 pooled wrongly:
$rows"
[ "$(grep -c . <<<"$rows")" = 6 ] || fail "expected six groups (3 per workload):
$rows"

# a baseline that names hpcg's all-fast is no baseline of memaccess
expect_exit 0 "$TIERLAB" report --by policy --baseline workload=hpcg,policy=all-fast
grep -Eq '^memaccess +small +lru +250\.0 ± [^%]* ns/access +- ' <<<"$out" || fail "memaccess took hpcg's baseline:
$out"
expect_contains "$out" "configurations have no baseline that agrees on the other axes"
echo ok
