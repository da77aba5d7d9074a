# The tiering runtime end to end through tierlab: a spec with runtime
# policies on a one-node machine (fast "0", slow "0": every placement and
# migration call is made and counted, nothing moves), DGEMM small with its
# three 32 MiB matrices managed, 40% budget, the fault sampler at 100 Hz
# (static samples too) and log mode. Checks that `tierlab run` sets the
# variables and collects the files: per-run metrics (hit_rate,
# migrated_bytes, rt.*) agree with the per-process counters, the report
# fills its hit-rate, GiB and achieved-rate columns, and
# every logged sample and migration lies inside a logged allocation. Then a
# workload that crashes under the runtime: its partial counters are still
# ingested and the sweep goes on. Last, a database given by a relative
# path, as `make demo` does: the run's files are still found (the workload
# runs in its output directory). Skips (77) while the policy plugins of
# lib/policies are not built.
. "$(dirname "$0")/lib.sh"

libdir=$B/lib/tierlab
[ -f "$libdir/libtiermem.so" ] || skip "libtiermem.so is not built in $libdir"
policies=()
for p in lru window; do
	[ -f "$libdir/policy-$p.so" ] || skip "policy plugin policy-$p.so is not built yet in $libdir (lib/policies)"
	policies+=("$p")
done
# static takes its fractions per allocation: A and B fast, C half fast
if [ -f "$libdir/policy-static.so" ]; then
	policies+=("{static: [1.0, 1.0, 0.5]}")
else
	echo "note: policy-static.so not built; static is left out"
fi
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
command -v python3 >/dev/null || skip "python3 is needed to read the report's CSV"
[ -x "$LIBEXEC/dgemm" ] || skip "the dgemm workload is not built"

plist=$(IFS=,; echo "${policies[*]}")
cat >"$scratch/rt.yaml" <<YAML
name: runtime-e2e
workload: {name: dgemm, size: small, threads: 1}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 1MiB, budget: 40%, rate: 100Hz, sampler: fault, log: log}
timeout: 5m
matrix:
  policy: [$plist]
YAML

n=${#policies[@]}
expect_exit 0 "$TIERLAB" run -q "$scratch/rt.yaml"
expect_contains "$out" "$n runs: $n ok, 0 failed"

q() { sqlite3 -batch -noheader "$TIERLAB_DB" "$1"; }
[ "$(q "select count(*) from runs where status = 'ok'")" = "$n" ] || fail "expected $n ok runs:
$(q 'select policy, status, error from runs')"

for id in $(q "select id from runs order by id"); do
	pol=$(q "select policy from runs where id = $id")
	m() { q "select value from metrics where run_id = $id and name = '$1'"; }
	# every runtime policy samples at the rate and with the sampler asked, static too
	case $pol in
	lru|window) dynamic=1 ;;
	*) dynamic=0 ;;
	esac
	want="100Hz fault log"
	[ "$(q "select coalesce(rate, '') || ' ' || coalesce(sampler, '') || ' ' || log from runs where id = $id")" = "$want" ] \
		|| fail "$pol: axes rate, sampler, log not stored as '$want'"

	# the runtime's counters, per process
	nstats=$(q "select count(*) from process_stats where run_id = $id")
	[ "$nstats" -ge 22 ] || fail "$pol: $nstats process_stats rows, expected the 22 counters at least"
	allocs=$(q "select sum(value) from process_stats where run_id = $id and name = 'allocs'")
	[ "${allocs:-0}" -ge 3 ] || fail "$pol: $allocs managed allocations, expected dgemm's 3 matrices"
	ticks=$(q "select sum(value) from process_stats where run_id = $id and name = 'ticks'")
	managed=$(q "select sum(value) from process_stats where run_id = $id and name = 'samples_managed'")
	[ "${ticks:-0}" -gt 0 ] && [ "${managed:-0}" -gt 0 ] \
		|| fail "$pol: ticks $ticks, samples_managed $managed: the fault sampler took no sample"

	# per-run metrics: present, and what the per-process counters say
	hr=$(m hit_rate)
	mb=$(m migrated_bytes)
	[ -n "$hr" ] || fail "$pol: no hit_rate metric"
	[ -n "$mb" ] || fail "$pol: no migrated_bytes metric"
	[ "$(q "select (select value from metrics where run_id = $id and name = 'hit_rate') =
		(select 1.0 * sum(case when name = 'hits' then value end) /
		        sum(case when name = 'samples_managed' then value end)
		 from process_stats where run_id = $id)")" = 1 ] || fail "$pol: hit_rate $hr is not hits / samples_managed"
	[ "$(q "select (select value from metrics where run_id = $id and name = 'migrated_bytes') =
		(select sum(value) from process_stats where run_id = $id
		 and name in ('bytes_slow_to_fast', 'bytes_fast_to_slow'))")" = 1 ] \
		|| fail "$pol: migrated_bytes $mb is not bytes_slow_to_fast + bytes_fast_to_slow"
	[ "$(q "select count(*) from metrics where run_id = $id and name = 'rt.allocs' and value = $allocs")" = 1 ] \
		|| fail "$pol: rt.allocs metric does not match the process_stats"
	# the sampler's own counts (its counts op) stored beside the core's: every sample it took
	# reached the core's ring, was dropped on a full ring (counted), or was still in the ring at exit
	armed=$(m sampler.armed) taken=$(m sampler.samples)
	awk -v a="${armed:-0}" -v t="${taken:-0}" 'BEGIN { exit !(a >= t && t > 0) }' ||
		fail "$pol: sampler.armed '$armed', sampler.samples '$taken': the fault sampler's counts were not stored"
	awk -v t="$taken" -v s="$(m rt.samples)" -v d="$(m rt.samples_dropped)" 'BEGIN { exit !(s + d <= t && t - s - d <= 4096) }' ||
		fail "$pol: the fault sampler took $taken samples, the core drained $(m rt.samples) and dropped $(m rt.samples_dropped)"
	echo "$pol: sampler.armed $armed, sampler.samples $taken, rt.samples $(m rt.samples), dropped $(m rt.samples_dropped)"
	# a dynamic policy with 40% of the chunks moves chunks as samples arrive; static never moves one
	if [ $dynamic = 1 ]; then
		awk -v v="$mb" 'BEGIN { exit !(v > 0) }' || fail "$pol: migrated_bytes is $mb after $managed samples at a 40% budget"
	else
		awk -v v="$mb" 'BEGIN { exit !(v == 0) }' || fail "$pol: migrated_bytes is $mb; static places once and never migrates"
	fi
	awk -v v="$hr" 'BEGIN { exit !(v >= 0 && v <= 1) }' || fail "$pol: hit_rate $hr outside [0, 1]"

	# log mode: allocations, samples and migrations, each inside an allocation's range
	nal=$(q "select count(*) from allocations where run_id = $id")
	nsm=$(q "select count(*) from samples where run_id = $id")
	nmg=$(q "select count(*) from migrations where run_id = $id")
	[ "$nal" -ge 3 ] || fail "$pol: $nal allocations logged"
	[ "$nsm" -gt 0 ] || fail "$pol: no samples logged"
	[ "$nmg" -gt 0 ] || fail "$pol: no migrations logged (not even initial placements)"
	[ "$nsm" = "$(q "select sum(value) from process_stats where run_id = $id and name = 'samples'")" ] \
		|| fail "$pol: $nsm samples logged, the counters say otherwise"
	stray=$(q "select count(*) from samples s where s.run_id = $id and not exists (
		select 1 from allocations a where a.run_id = s.run_id and a.pid = s.pid
		and s.addr >= a.addr and s.addr < a.addr + a.size)")
	[ "$stray" = 0 ] || fail "$pol: $stray of $nsm samples outside every logged allocation"
	# a partial last chunk migrates whole 4 KiB pages
	stray=$(q "select count(*) from migrations g where g.run_id = $id and not exists (
		select 1 from allocations a where a.run_id = g.run_id and a.pid = g.pid
		and g.addr >= a.addr and g.addr + g.bytes <= a.addr + (a.size + 4095) / 4096 * 4096)")
	[ "$stray" = 0 ] || fail "$pol: $stray of $nmg migrations outside every logged allocation"
	[ "$nsm" = 0 ] || [ "$(q "select count(*) from samples where run_id = $id and pc <> 0")" -gt 0 ] \
		|| fail "$pol: no sample carries a PC (the fault sampler reports one)"
	[ $dynamic = 0 ] || [ "$(q "select count(*) from migrations where run_id = $id and ok = 1
		and direction in ('slow-to-fast', 'fast-to-slow')")" -gt 0 ] \
		|| fail "$pol: no migration after initial placement in the log"
	[ "$(q "select count(*) from migrations where run_id = $id and direction like 'initial-%'")" -ge 3 ] \
		|| fail "$pol: the initial placement of the matrices is not in the log"
	echo "$pol: $allocs allocations, $ticks ticks, $managed samples, hit rate $hr, migrated $mb bytes, log $nal/$nsm/$nmg"
done

# the report fills hit rate, GiB migrated and the achieved rate for every runtime row
expect_exit 0 "$TIERLAB" report --format csv
printf '%s\n' "$out" >"$scratch/report.csv"
python3 - "$n" "$scratch/report.csv" <<'PY' || fail "report CSV: hit_rate / migrated_gib / rate_achieved_hz not filled:
$(cat "$scratch/report.csv")"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[2], newline="")) if r.get("experiment") == "runtime-e2e"]
assert len(rows) == int(sys.argv[1]), rows
for r in rows:
    dynamic = r["policy"] in ("lru", "window")
    assert r["migrated_gib"] != "", r
    assert r["hit_rate"] != "" and 0 <= float(r["hit_rate"]) <= 1, r
    assert r["rate"] == "100Hz" and float(r["rate_achieved_hz"]) > 0, r
    if dynamic:
        assert float(r["migrated_gib"]) > 0, r
    else:
        assert float(r["migrated_gib"]) == 0, r
PY
expect_exit 0 "$TIERLAB" report
expect_contains "$out" "hit rate"
expect_contains "$out" "GiB migrated"

# A workload that dies under the runtime (64 MiB managed, sampled for a
# while, then a real SIGSEGV): its counters file is incomplete, yet ingested;
# the sweep goes on to the next run.
py=$(python3 -c 'import sys; print(sys.executable)')
cat >"$scratch/crash.yaml" <<YAML
name: runtime-e2e-crash
machine: {fast: "0", slow: "0"}
runtime: {threshold: 1MiB, budget: 40%, rate: 100Hz, sampler: fault, log: counters}
timeout: 2m
workloads:
  - name: crash
    command: [$py, -c, "import ctypes, time; b = bytearray(64 << 20); t = time.time() + 0.5\nwhile time.time() < t: b[::4096] = bytes(len(b[::4096]))\nctypes.string_at(0)"]
  - {name: dgemm, size: tiny}
matrix:
  workload: [crash, dgemm]
  policy: [lru]
  threads: [1]
YAML
expect_exit 1 "$TIERLAB" run -q "$scratch/crash.yaml"
expect_contains "$out" "2 runs: 1 ok, 1 failed"
cid=$(q "select r.id from runs r join experiments e on e.id = r.experiment_id
	where e.name = 'runtime-e2e-crash' and r.workload = 'crash'")
[ -n "$cid" ] || fail "the crashing run is not in the store"
expect_contains "$(q "select status || '|' || coalesce(error, '') from runs where id = $cid")" "crashed|killed by SIGSEGV"
[ "$(q "select status from runs r join experiments e on e.id = r.experiment_id
	where e.name = 'runtime-e2e-crash' and r.workload = 'dgemm'")" = ok ] || fail "the run after the crash is not ok"
callocs=$(q "select max(value) from process_stats where run_id = $cid and name = 'allocs'")
[ "${callocs:-0}" -ge 1 ] || fail "crashed run: no managed allocation in its process_stats ($callocs)"
cticks=$(q "select max(value) from process_stats where run_id = $cid and name = 'ticks'")
[ "${cticks:-0}" -gt 0 ] || fail "crashed run: no ticks in its process_stats ($cticks)"
[ -n "$(q "select value from metrics where run_id = $cid and name = 'rt.allocs'")" ] \
	|| fail "crashed run: rt.* metrics not stored"
echo "crash: $callocs allocations, $cticks ticks ingested from the partial counters"

cat >"$scratch/rel.yaml" <<YAML
name: runtime-e2e-relative
workload: {name: memaccess, size: tiny}
machine: {fast: "0", slow: "0"}
runtime: {threshold: 1MiB, budget: 2MiB, rate: 100Hz}
matrix:
  policy: [lru]
YAML
expect_exit 0 sh -c "cd '$scratch' && '$TIERLAB' run -q --db relative/x.db rel.yaml"
[ "$(sqlite3 -batch -noheader "$scratch/relative/x.db" "select count(*) from process_stats")" -gt 0 ] \
	|| fail "relative --db: the runtime's counters were not ingested"
echo ok
