#!/usr/bin/env bash
# Makes the gallery's database: the plot fixture (tests/plot/make-fixture.sh)
# and what its figures need besides, made of known rows (no live run):
#   - run 18 (lru chunks 8 at 100Hz) with a dense log: pid 400, three
#     allocations (256 MiB live throughout, 64 MiB freed at 3 s, 128 MiB),
#     3000 samples over 4 s whose hot spot in the first walks upwards, 85%
#     of them hits, and a migration every 0.2 s, for the timeline and the
#     access map;
#   - experiment 'allocators' (baseline allocator=system): mallocbench
#     under system, jemalloc and fat, three runs each, wall seconds (lower
#     is better), for the allocator bars; dTLB-load-misses and cycles
#     counted in each run (fat: a tenth of glibc's misses), and the page
#     tables' peak (VmPTE), for the counters figure.
#
#   tests/plot/make-gallery.sh TIERLAB DB
set -eu
tierlab=$1 db=$2
"$(dirname "$0")/make-fixture.sh" "$tierlab" "$db"
q() { sqlite3 -batch -noheader "$db" "$1"; }
A=1099511627776 M=1048576
q "insert into allocations (run_id, pid, seq, t_ns, addr, size, callsite, freed_ns) values
	(18, 400, 0, 1000000000, $A, $((256 * M)), '/opt/hpcg/bin/xhpcg+0x520b', null),
	(18, 400, 1, 1050000000, $((A + 512 * M)), $((64 * M)), '/opt/hpcg/bin/xhpcg+0x5340', 3000000000),
	(18, 400, 2, 1100000000, $((A + 1024 * M)), $((128 * M)), '/opt/hpcg/bin/xhpcg+0x61a0', null);
   with recursive s(i) as (select 0 union all select i + 1 from s where i < 2999)
   insert into samples (run_id, pid, t_ns, addr, pc, tid, hit)
   select 18, 400, 1000000000 + i * 1333333,
	case when i % 10 < 6 or (i % 10 < 8 and i >= 1500)
	     -- the hot spot: a fifth of the array, walking from its start to its end
	     then $A + (i * $((256 * M)) / 3000) * 7 / 10 + ((i * 7919) % 1000) * $((256 * M / 5000))
	     when i % 10 < 8 then $((A + 512 * M)) + ((i * 104729) % 1000) * $((64 * M / 1000))
	     else $((A + 1024 * M)) + ((i * 15485863) % 1000) * $((128 * M / 1000)) end,
	4198964, 400, case when (i * 31) % 100 < 85 then 1 else 0 end from s;
   with recursive m(i) as (select 0 union all select i + 1 from m where i < 19)
   insert into migrations (run_id, pid, t_ns, addr, bytes, direction, ok)
   select 18, 400, 1000000000 + i * 200000000 + 100000000, $A + i * $((12 * M)), $((4 * M)),
	case when i % 2 then 'fast-to-slow' else 'slow-to-fast' end, 1 from m;
   insert into migrations (run_id, pid, t_ns, addr, bytes, direction, ok) values
	(18, 400, 1000000100, $A, $((256 * M)), 'initial-slow', 1),
	(18, 400, 1050000100, $((A + 512 * M)), $((64 * M)), 'initial-fast', 1),
	(18, 400, 1100000100, $((A + 1024 * M)), $((128 * M)), 'initial-slow', 1);
   insert into experiments (id, name, baseline, created_at) values (2, 'allocators', 'allocator=system', 1700000100);"
n=100
for a in system:2.40:2.50:2.45 jemalloc:2.10:2.05:2.20 fat:1.20:1.25:1.22; do
	IFS=: read -r name w1 w2 w3 <<<"$a"
	for w in $w1 $w2 $w3; do
		n=$((n + 1))
		q "insert into runs (id, experiment_id, run_key, config_key, rep, workload, size, allocator, policy, status,
			fom, fom_unit, higher_is_better, wall_s)
		   values ($n, 2, '$name-$n', '$name', $n, 'mallocbench', 'small', '$name', 'none', 'ok', $w, 's', 0, $w);"
		# fat maps one 1 GiB page: its page tables are a twentieth of glibc's (VmPTE, kB)
		case $name in system) m=50000000 p=2000 ;; jemalloc) m=30000000 p=1600 ;; *) m=5000000 p=100 ;; esac
		q "insert into metrics (run_id, name, value, unit) values ($n, 'proc.vmpte_peak', $p, 'kB')"
		q "insert into counters (run_id, event, encoding, value, enabled_ns, running_ns, multiplex_pct, status, reason)
		   values ($n, 'dTLB-load-misses', 'type=3 config=0x10003', $m + $n, 1000000000, 1000000000, 100, 'ok', null),
			  ($n, 'cycles', 'type=0 config=0x0', $(awk "BEGIN { printf \"%.0f\", $w * 3000000000 }"), 1000000000, 1000000000, 100, 'ok', null);"
	done
done
