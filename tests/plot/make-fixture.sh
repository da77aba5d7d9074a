#!/usr/bin/env bash
# Makes the plot and analysis fixture: a database whose experiment
# 'fixture' holds known runs inserted row by row (no live run: its numbers
# would vary), for the golden outputs of tests/cli/plot.sh.
#
#   tests/plot/make-fixture.sh TIERLAB DB
#
# HPCG-like, higher is better, baseline policy=all-fast:
#   all-fast                2.0 1.9 1.95 GF/s        (mean 1.95)
#   all-slow                1.2 1.25                 (mean 1.225)
#   none                    1.5 1.6                  (no rate: a bar in every panel)
#   lru chunks 2, 8  x rate 10Hz, 100Hz, window chunks 8 window 16 x the same
#                           two or three runs each, hit_rate and migrated_bytes per run;
#                           window chunks 8 window 128 at 10Hz once (two window rows in a cell),
#                           and one failed run (lru chunks 8 100Hz) that counts nowhere;
#                           each hit rate from 1000 managed samples (rt.samples_managed,
#                           rt.hits), but window 128's from 10 (6 hits: too few to read)
set -eu
tierlab=$1 db=$2
tmp=$(mktemp -d /tmp/tierlab-fixture.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
rm -f "$db"
# tierlab makes the schema: one trivial experiment, whose run is removed below
cat >"$tmp/t.yaml" <<YAML
name: schema
workload: {name: t, command: [true]}
YAML
TIERLAB_DB=$db "$tierlab" run -q "$tmp/t.yaml" >/dev/null 2>&1 || true
q() { sqlite3 -batch -noheader "$db" "$1"; }
[ "$(q "select count(*) from experiments where name = 'schema'")" = 1 ] || { echo "no schema in $db" >&2; exit 1; }
# every row the trivial run left (its metrics name the host's load: the fixture's runs would inherit them)
q "delete from metrics; delete from counters; delete from process_stats; delete from environment;
   delete from runs; delete from sessions; delete from experiments;
   insert into experiments (id, name, baseline, created_at) values (1, 'fixture', 'policy=all-fast', 1700000000);"

key=0
# run CONFIG POLICY CHUNKS RATE WINDOW STATUS FOM HIT MIGRATED_BYTES [SAMPLES]
run() {
	local n=$((++key)) v
	for v in 3 4 5 8 9; do	# SQL NULL for '-'
		[ "${!v}" = - ] && eval "a$v=null" || eval "a$v=\"'${!v}'\""
	done
	q "insert into runs (id, experiment_id, run_key, config_key, rep, workload, size, policy, chunks, rate, window,
		status, fom, fom_unit, higher_is_better, wall_s)
	   values ($n, 1, '$1-$n', '$1', $n, 'hpcg', 'small', '$2', $a3, $a4, $a5, '$6',
		$([ "$7" = - ] && echo null || echo "$7"), 'GF/s', 1, 60);"
	[ "$8" = - ] || q "insert into metrics (run_id, name, value, unit) values ($n, 'hit_rate', $8, null),
		($n, 'rt.samples_managed', ${10:-1000}, null), ($n, 'rt.hits', round($8 * ${10:-1000}), null);"
	# three quarters of it moved slow-to-fast, one quarter fast-to-slow
	[ "$9" = - ] || q "insert into metrics (run_id, name, value, unit) values ($n, 'migrated_bytes', $9, 'B'),
		($n, 'rt.bytes_slow_to_fast', $9 * 3 / 4, 'bytes'), ($n, 'rt.bytes_fast_to_slow', $9 / 4, 'bytes');"
}
G=1073741824
run fast all-fast - - - ok 2.0 - -
run fast all-fast - - - ok 1.9 - -
run fast all-fast - - - ok 1.95 - -
run slow all-slow - - - ok 1.2 - -
run slow all-slow - - - ok 1.25 - -
run none none - - - ok 1.5 - -
run none none - - - ok 1.6 - -
run lru2-10 lru 2 10Hz - ok 1.7 0.80 $((2 * G))
run lru2-10 lru 2 10Hz - ok 1.8 0.82 $((2 * G))
run lru8-10 lru 8 10Hz - ok 1.85 0.90 $((G / 2))
run lru8-10 lru 8 10Hz - ok 1.87 0.92 $((G / 2))
run lru8-10 lru 8 10Hz - ok 1.89 0.94 $((G / 2))
run win8-10 window 8 10Hz 16 ok 1.80 0.88 $G
run win8-10 window 8 10Hz 16 ok 1.82 0.86 $G
run win8-10-128 window 8 10Hz 128 ok 1.6 0.60 $((4 * G)) 10
run lru2-100 lru 2 100Hz - ok 1.4 0.70 $((6 * G))
run lru2-100 lru 2 100Hz - ok 1.6 0.74 $((8 * G))
run lru8-100 lru 8 100Hz - ok 1.9 0.95 $G
run lru8-100 lru 8 100Hz - ok 1.88 0.93 $G
run lru8-100 lru 8 100Hz - failed 9.9 - -
run win8-100 window 8 100Hz 16 ok 1.75 0.85 $((3 * G))
run win8-100 window 8 100Hz 16 ok 1.77 0.87 $((3 * G))

# run 10 (lru chunks 8 at 10Hz) in log mode: two allocations of pid 300 (the
# first freed at 1.5 s), one of pid 301 (a second process: not drawn), six
# samples (3 in the fast tier, 2 not, 1 outside managed memory: hit NULL,
# no PC or thread), four migrations; times in ns from 1e9
q "insert into allocations (run_id, pid, seq, t_ns, addr, size, callsite, freed_ns) values
	(10, 300, 0, 1000000000, 1099511627776, 67108864, '/opt/app/bin/app+0x1234', 2500000000),
	(10, 300, 1, 1100000000, 1099578736640, 33554432, '/opt/app/bin/app+0x1300', null),
	(10, 301, 0, 1000000000, 1099511627776, 67108864, '/opt/app/bin/app+0x1234', null);
   insert into samples (run_id, pid, t_ns, addr, pc, tid, hit) values
	(10, 300, 1200000000, 1099511627776 + 16777216, 4198964, 300, 1),
	(10, 300, 1300000000, 1099511627776 + 50331648, 4198964, 300, 0),
	(10, 300, 1400000000, 1099578736640 + 8388608, 4199000, 302, 1),
	(10, 300, 2000000000, 1099578736640, 4199000, 302, 0),
	(10, 300, 2100000000, 4096, null, null, null),
	(10, 300, 3000000000, 1099578736640 + 16777216, 4199000, 302, 1),
	(10, 301, 1200000000, 1099511627776, 4198964, 301, 1);
   insert into migrations (run_id, pid, t_ns, addr, bytes, direction, ok) values
	(10, 300, 1000000100, 1099511627776, 67108864, 'initial-slow', 1),
	(10, 300, 1100000100, 1099578736640, 33554432, 'initial-fast', 1),
	(10, 300, 1350000000, 1099511627776 + 50331648, 8388608, 'slow-to-fast', 1),
	(10, 300, 1350000000, 1099578736640 + 25165824, 8388608, 'fast-to-slow', 1);"

# counters: all-fast's runs and lru chunks 8 at 10Hz's counted instructions
# and dTLB-load-misses; cycles was unavailable (this machine has no PMU);
# lru's third run lost dTLB-load-misses (failed to read)
counter() {	# counter RUN EVENT VALUE|- STATUS
	local v=$3 reason=null
	[ "$v" = - ] && v=null && reason="'not supported on this machine: ENOENT'"
	[ "$4" = failed ] && reason="'read: EIO'"
	q "insert into counters (run_id, event, encoding, value, enabled_ns, running_ns, multiplex_pct, status, reason)
	   values ($1, '$2', $([ "$4" = unavailable ] && echo null || echo "'type=0 config=0x1'"), $v,
		   1000000000, 1000000000, $([ "$4" = ok ] && echo 100 || echo null), '$4', $reason);"
}
for r in 1 2 3; do
	counter $r instructions $((1000000000 * r)) ok
	counter $r dTLB-load-misses $((1000000 * r)) ok
	counter $r cycles - unavailable
done
counter 10 instructions 2000000000 ok
counter 10 dTLB-load-misses 4000000 ok
counter 11 instructions 2000000000 ok
counter 11 dTLB-load-misses 6000000 ok
counter 12 instructions 2000000000 ok
counter 12 dTLB-load-misses - failed
for r in 10 11 12; do counter $r cycles - unavailable; done
