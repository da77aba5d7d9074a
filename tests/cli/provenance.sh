# A run's provenance (issue 26, item 5): every run stores the host's load
# before and after it, the CPUs, the clock and governor (or why not), the
# program's build id or sha256, its compiler and flags (the built-in
# workloads are compiled with -frecord-gcc-switches), the variables that
# set its threads; show prints them, report marks and warns of runs taken
# on a busy host (a 1-minute load above the CPUs), and run --quiet-host
# waits for a quiet one and records how that went.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }

cat >"$scratch/p.yaml" <<'YAML'
name: prov
workload: {name: t, command: [sh, -c, 'echo "fom: 10"'], fom: {regex: "fom: ([0-9.]+)", unit: ops, higher_is_better: true}}
repetitions: 3
baseline: {threads: 1}
matrix:
  threads: [1, 2]
YAML
OMP_PROC_BIND=close expect_exit 0 "$TIERLAB" run -q --quiet-host 1000 "$scratch/p.yaml"
for m in host.load1_before host.load1_after host.running_before host.running_after host.cpus host.quiet_wait_s; do
	[ "$(q "select count(*) from metrics where name = '$m'")" = 6 ] || fail "not every run has the metric $m"
done
[ "$(q "select min(value) from metrics where name = 'host.cpus'")" = "$(getconf _NPROCESSORS_ONLN).0" ] ||
	fail "host.cpus is not the CPUs online"
env1() { q "select value from environment where run_id = 1 and key = '$1'"; }
for k in host.loadavg_before host.loadavg_after cpu.freq_mhz cpu.governor workload.program workload.compiler \
	workload.cflags host.quiet; do
	[ -n "$(env1 "$k")" ] || fail "run 1 has no environment row $k"
done
grep -Eq '^[0-9]+\.[0-9]{2} [0-9]+\.[0-9]{2} [0-9]+\.[0-9]{2}$' <<<"$(env1 host.loadavg_before)" ||
	fail "host.loadavg_before: '$(env1 host.loadavg_before)'"
[ -e /sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq ] || [ "$(env1 cpu.freq_mhz)" = "unreadable (no cpufreq in sysfs)" ] ||
	fail "cpu.freq_mhz without cpufreq: '$(env1 cpu.freq_mhz)'"
sh=$(env1 workload.program)
[ -x "$sh" ] || fail "workload.program '$sh' is not the program run"
if [ -n "$(env1 workload.build_id)" ]; then
	readelf -n "$sh" 2>/dev/null | grep -q "Build ID: $(env1 workload.build_id)" || ! command -v readelf >/dev/null ||
		fail "workload.build_id is not $sh's"
else
	[ "$(env1 workload.sha256)" = "$(sha256sum "$sh" | cut -d' ' -f1)" ] || fail "workload.sha256 is not $sh's"
fi
[ "$(env1 env.OMP_PROC_BIND)" = close ] || fail "the run's OMP_PROC_BIND was not recorded"
grep -Eq '^load [0-9.]+ below 1000 after 0 s$' <<<"$(env1 host.quiet)" || fail "host.quiet: '$(env1 host.quiet)'"

# a script is named by its content, and says it has no compiler to tell
printf '#!/bin/sh\necho "fom: 3"\n' >"$scratch/w.sh"
chmod +x "$scratch/w.sh"
cat >"$scratch/s.yaml" <<YAML
name: script
workload: {name: w, command: [$scratch/w.sh], fom: {regex: "fom: ([0-9.]+)", unit: ops}}
YAML
expect_exit 0 "$TIERLAB" run -q "$scratch/s.yaml"
id=$(q "select max(id) from runs")
[ "$(q "select value from environment where run_id = $id and key = 'workload.sha256'")" = \
	"$(sha256sum "$scratch/w.sh" | cut -d' ' -f1)" ] || fail "the script's sha256 is not recorded"
[ "$(q "select value from environment where run_id = $id and key = 'workload.compiler'")" = \
	"unknown (not an ELF program)" ] || fail "a script's compiler"
[ "$(q "select value from environment where run_id = $id and key = 'env.threading'")" = \
	"none of OMP_*, GOMP_*, KMP_*, MKL_*, OPENBLAS_* set" ] || fail "no env.threading where none was set"

# a built-in workload says how it was compiled
cat >"$scratch/b.yaml" <<'YAML'
name: builtin
workloads: [{name: hpcg, size: tiny}]
YAML
expect_exit 0 "$TIERLAB" run -q "$scratch/b.yaml"
id=$(q "select max(id) from runs")
cflags=$(q "select value from environment where run_id = $id and key = 'workload.cflags'")
grep -q -- '-O3' <<<"$cflags" || fail "hpcg's flags are not recorded: '$cflags'"
grep -Eq 'GCC|clang' <<<"$(q "select value from environment where run_id = $id and key = 'workload.compiler'")" ||
	fail "hpcg's compiler is not recorded"
[ -n "$(q "select value from environment where run_id = $id and key = 'workload.build_id'")" ] ||
	fail "hpcg has no build id"
expect_exit 0 "$TIERLAB" show "$id"
expect_contains "$out" "program        $B/libexec/tierlab/hpcg, build id "
expect_contains "$out" "compiler       "
grep -Eq '^host +1-minute load [0-9.]+ before, [0-9.]+ after, [0-9]+ CPUs online' <<<"$out" || fail "show: no host line:
$out"
grep -Eq '^clock +' <<<"$out" || fail "show: no clock line:
$out"

# bad --quiet-host values are refused before anything is stored
runs=$(q "select count(*) from runs")
expect_exit 2 "$TIERLAB" run --quiet-host x "$scratch/p.yaml"
expect_contains "$out" "error: --quiet-host: 'x': LOAD is a 1-minute load average above 0"
expect_exit 2 "$TIERLAB" sweep --quiet-host 2:soon "$scratch/p.yaml" --threads 1
expect_contains "$out" "error: --quiet-host: '2:soon': WAIT is a duration"
[ "$(q "select count(*) from runs")" = "$runs" ] || fail "a refused --quiet-host stored runs"

# the report marks a busy host: threads=2's runs at a load of 9 on 2 CPUs
q "update metrics set value = 0.5 where name in ('host.load1_before', 'host.load1_after');
   update metrics set value = 2 where name = 'host.cpus';
   update metrics set value = 9 where name = 'host.load1_after' and run_id in
	(select id from runs where threads = '2' and experiment_id = 1)"
expect_exit 0 "$TIERLAB" report -e prov --wide
grep -Eq '^t +2 +10\.00 ± 0 \(3\) +100\.0% +busy host' <<<"$out" || fail "threads=2 is not marked busy host:
$out"
grep -Eq '^t +1 +10\.00 ± 0 \(3\) +100\.0% ' <<<"$out" && ! grep -Eq '^t +1 .*busy host' <<<"$out" ||
	fail "the baseline was not busy:
$out"
expect_contains "$out" "warning: workload=t threads=2: 3 of 3 runs on a busy host (1-minute load up to 9.00 on 2 CPUs)"
expect_contains "$out" "busy host: some of its runs, or its baseline's, had a 1-minute load above the CPUs online"
expect_exit 0 "$TIERLAB" report -e prov -f json
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); r=[r for r in d["rows"] if r["config"]["threads"]=="2"][0]; assert r["busy_runs"]==3 and "busy host" in r["caution"], r' "$out" ||
	fail "JSON: $out"
# a busy baseline shakes every % that stands on it
q "update metrics set value = 0.5 where name = 'host.load1_after';
   update metrics set value = 2.5 where name = 'host.load1_before' and run_id in
	(select id from runs where threads = '1' and experiment_id = 1)"
expect_exit 0 "$TIERLAB" report -e prov --wide
grep -Eq '^t +2 .*100\.0% +busy host' <<<"$out" || fail "threads=2 stands on a busy baseline:
$out"
expect_contains "$out" "warning: workload=t threads=1: 3 of 3 runs on a busy host (1-minute load up to 2.50 on 2 CPUs)"
expect_not_contains "$out" "warning: workload=t threads=2"
expect_exit 0 "$TIERLAB" compare -e prov threads=1 threads=2
expect_contains "$out" "busy host"
echo ok
