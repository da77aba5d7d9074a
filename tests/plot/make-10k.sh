#!/usr/bin/env bash
# Adds experiment 'big' to a fixture database (tests/plot/make-fixture.sh):
# 10,000 runs, 1,000 configurations of 10 repetitions (all-fast, and lru at
# 100 chunk counts x 10 rates), each with a hit rate and GiB migrated, for
# timing `tierlab plot` over a database that size (docs/commands/plot.md):
#
#   tests/plot/make-fixture.sh build/bin/tierlab /tmp/big.db
#   tests/plot/make-10k.sh /tmp/big.db
#   time build/bin/tierlab plot --db /tmp/big.db --script-only -o /tmp/big.svg
set -eu
sqlite3 "$1" "
insert into experiments (id, name, baseline, created_at) values (9, 'big', 'policy=all-fast', 1800000000);
with recursive n(i) as (select 0 union all select i + 1 from n where i < 9999)
insert into runs (experiment_id, run_key, config_key, rep, workload, size, policy, chunks, rate, status, fom,
	fom_unit, higher_is_better, wall_s)
select 9, 'k' || i, case when i < 10 then 'fast' else 'c' || (i / 10) end, i % 10 + 1, 'hpcg', 'small',
	case when i < 10 then 'all-fast' else 'lru' end,
	case when i < 10 then null else cast((i / 10) % 100 + 1 as text) end,
	case when i < 10 then null else ((i / 1000) + 1) * 10 || 'Hz' end,
	'ok', 1.5 + (i % 7) * 0.01, 'GF/s', 1, 60 from n;
insert into metrics (run_id, name, value, unit)
	select id, 'hit_rate', 0.9, null from runs where experiment_id = 9 and policy = 'lru';
insert into metrics (run_id, name, value, unit)
	select id, 'migrated_bytes', 1e9, 'B' from runs where experiment_id = 9 and policy = 'lru';"
