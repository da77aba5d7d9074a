# The text report fits a terminal of 100 columns: over runs shaped like
# the demo's (two workloads in two units, four policies, lru with budget,
# threshold, rate, sampler and log set and everything else not), written
# straight into the store, every line of `report` is at most 100 columns,
# a note names what was left out, and no figure is cut; --wide keeps every
# column (the 178 columns this table had), --columns chooses them, and
# --where keeps the runs that match and the baseline's.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"

cat >"$scratch/t.yaml" <<YAML
name: wide
workload: {name: t, command: [true]}
YAML
expect_exit 0 "$TIERLAB" run -q "$scratch/t.yaml"
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
exp=$(q "select id from experiments where name = 'wide'")
q "delete from metrics; delete from environment where run_id is not null; delete from runs; update experiments set baseline = 'policy=all-fast' where id = $exp"
n=0
# run WORKLOAD SIZE POLICY FOM UNIT HIGHER
run() {
	local rt=null
	n=$((n + 1))
	[ "$3" = lru ] && rt="'x'"
	q "insert into runs (experiment_id, run_key, config_key, rep, workload, size, policy, budget, threshold, rate,
		sampler, log, status, fom, fom_unit, higher_is_better, wall_s)
	   values ($exp, 'r$n', '$1-$3', $n, '$1', '$2', '$3', iif($rt is null, null, '40%'),
		iif($rt is null, null, '256KiB'), iif($rt is null, null, '100Hz'), iif($rt is null, null, 'fault'),
		iif($rt is null, null, 'counters'), 'ok', $4, '$5', $6, 5.1)"
	[ "$3" = lru ] && q "insert into metrics (run_id, name, value, unit) values
		((select max(id) from runs), 'rt.samples', 540, null), ((select max(id) from runs), 'rt.ticks', 560, null),
		((select max(id) from runs), 'rt.run_ns', 6e9, 'ns'), ((select max(id) from runs), 'hit_rate', 0.44, null),
		((select max(id) from runs), 'rt.samples_managed', 550, null), ((select max(id) from runs), 'rt.hits', 242, null),
		((select max(id) from runs), 'migrated_bytes', 1.3e9, 'bytes')"
	return 0
}
for p in all-fast:211.0 all-fast:214.4 all-slow:225.5 all-slow:245.5 none:269.4 none:381.4 lru:265.4 lru:272.0; do
	run memaccess small "${p%%:*}" "${p#*:}" ns/access 0
done
for p in all-fast:0.1166 all-fast:0.2128 all-slow:0.5731 all-slow:1.563 none:0.1527 none:0.6619 lru:0.1934 lru:1.599; do
	run hpcg tiny "${p%%:*}" "${p#*:}" GF/s 1
done

widest() { python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in sys.stdin))'; }

expect_exit 0 "$TIERLAB" report
text=$out
[ "$(widest <<<"$text")" -le 100 ] || fail "a line is wider than 100 columns:
$text"
expect_contains "$text" "note: left out to fit 100 columns: budget, threshold, rate, achieved Hz, sampler, log,"
# each figure whole on its row, beside its % base and caution; hpcg all-slow is 648.5% of a noisy baseline
grep -Eq '^hpcg +tiny +all-slow +1\.068 ± 0\.70 \(2\) +GF/s +648\.5% +n<3, noisy ' <<<"$text" ||
	fail "hpcg all-slow is not one line with its figure, % base and caution:
$text"
grep -Eq '^memaccess +small +lru +268\.7 ± 4\.7 \(2\) +ns/access +79\.2% +n<3 +44\.0% \(1100\)' <<<"$text" ||
	fail "memaccess lru is not one line with its hit rate and samples:
$text"

expect_exit 0 "$TIERLAB" report --wide
[ "$(widest <<<"$out")" -gt 150 ] || fail "--wide left columns out:
$out"
head -2 <<<"$out" | tail -1 | grep -Eq '^workload +size +policy +budget +threshold +rate +achieved Hz +sampler +log +fom ' ||
	fail "--wide does not show every axis:
$out"
expect_not_contains "$out" "left out to fit"

expect_exit 0 "$TIERLAB" report --columns policy,fom,pct,hit
[ "$(sed -n 2p <<<"$out")" = "policy                   fom  % base  hit (samples)" ] ||
	fail "--columns policy,fom,pct,hit: header is '$(sed -n 2p <<<"$out")'"
expect_exit 0 "$TIERLAB" report --columns workload,wall --format markdown
[ "$(sed -n 3p <<<"$out")" = "| workload  | wall s |" ] || fail "--columns in markdown: '$(sed -n 3p <<<"$out")'"
expect_exit 2 "$TIERLAB" report --columns policy,nosuch
expect_contains "$out" "error: --columns: unknown column 'nosuch' (an axis, or source, achieved, fom,"

# --where: lru, and all-fast for its % base; the same % base as without
expect_exit 0 "$TIERLAB" report --where policy=lru
grep -Eq '^hpcg +tiny +lru .* 544\.1% ' <<<"$out" || fail "--where changed lru's % base:
$out"
[ "$(grep -Ec '^(memaccess|hpcg) ' <<<"$out")" = 4 ] || fail "--where policy=lru: expected lru and all-fast rows:
$out"
expect_not_contains "$out" "all-slow"
expect_exit 2 "$TIERLAB" report --where policy=window
expect_contains "$out" "matches no run"
expect_exit 2 "$TIERLAB" report --where nosuch=1
echo ok
