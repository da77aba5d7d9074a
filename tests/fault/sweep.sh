# Fault injection: tierlab run of a tiny spec (memaccess, 20000 accesses, two
# repetitions, fast = slow = node 0) with the Nth call of one kind failed
# inside tierlab (tests/fault/fault-inject.c: write, fsync, rename, malloc,
# SQLite's open, read and write), for every N a clean run makes, in two
# scenarios: a new database, and --resume over one where the first run is
# stored. After each:
#   - tierlab exits 0 with everything stored (the fault was absorbed: SQLite
#     ignores a failed fsync of a directory), or exits non-zero with an
#     error line or a run reported failed with its reason; never killed by
#     a signal;
#   - PRAGMA integrity_check is ok;
#   - no run is stored ok twice, and a stored run is whole (its metrics and
#     run environment as a clean run has them; its experiment's environment);
#   - tierlab run --resume, without faults, completes the experiment: each
#     planned run stored ok exactly once.
# Every call of the I/O points is swept; of malloc's thousands, an even
# sample of FAULT_MALLOC_SAMPLE (default 60) calls, or all of them with
# FAULT_ALL=1 (about half an hour). FAULT_POINTS limits the points,
# FAULT_SCENARIOS the scenarios (default both). tests/cli/fault-inject-new.sh
# and fault-inject-resume.sh run one scenario each, so that tests/run.sh
# runs them side by side; `bash tests/fault/sweep.sh` runs both.
. "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"
SHIM="$B/tests/fault/fault-inject.so"
[ -f "$SHIM" ] || fail "build first: $SHIM"
[ -x "$LIBEXEC/memaccess" ] || fail "build first: $LIBEXEC/memaccess"
points=${FAULT_POINTS:-write fsync rename malloc sqlite-open sqlite-read sqlite-write}
scenarios=${FAULT_SCENARIOS:-new resume}
sample=${FAULT_MALLOC_SAMPLE:-60}

# memaccess as an external program with a hundredth of size tiny's
# accesses: what is swept is tierlab's I/O, and each of the ~300 runs of a
# scenario would otherwise spend 0.2 s chasing pointers.
cat >"$scratch/tiny.yaml" <<YAML
name: tiny
workload:
  name: memaccess
  command: ["$LIBEXEC/memaccess", --size, 1M, --accesses, "20000"]
  fom: {regex: "figure-of-merit: ([0-9.eE+-]+)", unit: ns/access, higher_is_better: false}
machine: {fast: "0", slow: "0"}
repetitions: 2
YAML

q() { sqlite3 "$1" "$2" 2>/dev/null; }

# A clean run: the planned keys and what a whole run holds.
"$TIERLAB" run -q "$scratch/tiny.yaml" --db "$scratch/ref.db" >"$scratch/ref.out" 2>&1 ||
	fail "a clean run failed: $(cat "$scratch/ref.out")"
keys=$(q "$scratch/ref.db" "select run_key from runs order by run_key")
[ "$(echo "$keys" | wc -l)" -eq 2 ] || fail "a clean run stored: $keys"
# (the vmstat deltas are always there; the process peaks only when the run lasted a sampling tick)
min_metrics=$(q "$scratch/ref.db" "select min(n) from (select count(*) n from metrics where name like 'vmstat.%' group by run_id)")
run_env=$(q "$scratch/ref.db" "select min(n) from (select count(*) n from environment where run_id is not null group by run_id)")
exp_env=$(q "$scratch/ref.db" "select count(*) from environment where run_id is null")
[ "${min_metrics:-0}" -gt 0 ] && [ "${exp_env:-0}" -gt 0 ] || fail "a clean run stored no metrics or environment"

# Is the database consistent: integrity, no run ok twice, stored runs whole? ("" when it is)
problems() {
	local db=$1 p
	[ -e "$db" ] || return 0
	p=$(q "$db" "pragma integrity_check")
	[ "$p" = ok ] || { echo "integrity_check: $p"; return; }
	q "$db" "select 'stored ok twice: ' || run_key from runs where status = 'ok' group by run_key having count(*) > 1"
	q "$db" "select 'run ' || r.run_key || ' has ' || count(m.name) || ' vmstat metrics, a whole one $min_metrics' from runs r
		left join metrics m on m.run_id = r.id and m.name like 'vmstat.%' where r.status = 'ok' group by r.id
		having count(m.name) < $min_metrics"
	q "$db" "select 'run ' || r.run_key || ' has ' || (select count(*) from environment e where e.run_id = r.id) ||
		' environment rows, a whole one $run_env' from runs r where r.status = 'ok' and
		(select count(*) from environment e where e.run_id = r.id) < $run_env"
	q "$db" "select 'experiment ' || x.id || ' has ' || (select count(*) from environment e where e.experiment_id = x.id
		and e.run_id is null) || ' environment rows, a whole one $exp_env' from experiments x where
		(select count(*) from environment e where e.experiment_id = x.id and e.run_id is null) < $exp_env"
}

# Each planned run stored ok exactly once? ("" when so)
incomplete() {
	local got
	got=$(q "$1" "select run_key from runs where status = 'ok' order by run_key")
	[ "$got" = "$keys" ] || echo "runs stored ok: '$(echo $got)', planned: '$(echo $keys)'"
}

# One run of the scenario with fault POINT:N; fails the test on a broken promise.
absorbed=0 reported=0 unreached=0 total=0
try() {
	local scenario=$1 point=$2 n=$3 db="$scratch/f.db" rc out fired p
	rm -rf "$db" "$db"-* "$scratch/tiny" "$scratch/fi.out"
	if [ "$scenario" = resume ]; then
		cp "$scratch/base.db" "$db"
		cp -r "$scratch/base.tiny" "$scratch/tiny"
	fi
	TLFI_POINT=$point TLFI_FAIL=$n TLFI_OUT="$scratch/fi.out" LD_PRELOAD="$SHIM" \
		"$TIERLAB" run -q $([ "$scenario" = resume ] && echo --resume) "$scratch/tiny.yaml" --db "$db" \
		>"$scratch/run.out" 2>&1
	rc=$?
	out=$(grep -v "LD_PRELOAD is set" "$scratch/run.out")
	fired=$(grep '^failed' "$scratch/fi.out" 2>/dev/null)
	total=$((total + 1))
	local what="$scenario: $point #$n (exit $rc)"
	if [ -z "$fired" ]; then
		# this run made fewer such calls than the counted one (SQLite's checkpoints vary): a clean run
		[ "$rc" -eq 0 ] && [ -z "$(problems "$db")$(incomplete "$db")" ] ||
			fail "$what: no call failed, yet: $out"
		unreached=$((unreached + 1))
		return
	fi
	[ "$rc" -lt 128 ] || fail "$what: killed by signal $((rc - 128)):
$out
$(cat "$scratch/fi.out")"
	p=$(problems "$db")
	[ -z "$p" ] || fail "$what: $p
$out
$(cat "$scratch/fi.out")"
	if [ "$rc" -eq 0 ]; then
		p=$(incomplete "$db")
		[ -z "$p" ] || fail "$what: exit 0, but $p
$out
$(cat "$scratch/fi.out")"
		absorbed=$((absorbed + 1))
	else
		# an error line, or a run reported failed with its reason (stored so, and run again by --resume)
		grep -Eq '^(error|fatal): |^\[[0-9]+/[0-9]+\] failed .* [a-z]' <<<"$out" || fail "$what: no error line:
$out
$(cat "$scratch/fi.out")"
		reported=$((reported + 1))
	fi
	"$TIERLAB" run -q --resume "$scratch/tiny.yaml" --db "$db" >"$scratch/resume.out" 2>&1 ||
		fail "$what: --resume failed: $(cat "$scratch/resume.out")
first run: $out"
	p=$(problems "$db")$(incomplete "$db")
	[ -z "$p" ] || fail "$what: after --resume: $p
first run: $out"
}

# The calls a clean run of the scenario makes, per point.
count_calls() {
	local scenario=$1 db="$scratch/f.db"
	rm -rf "$db" "$db"-* "$scratch/tiny"
	if [ "$scenario" = resume ]; then
		cp "$scratch/base.db" "$db"
		cp -r "$scratch/base.tiny" "$scratch/tiny"
	fi
	TLFI_OUT="$scratch/counts" LD_PRELOAD="$SHIM" \
		"$TIERLAB" run -q $([ "$scenario" = resume ] && echo --resume) "$scratch/tiny.yaml" --db "$db" \
		>"$scratch/run.out" 2>&1 || fail "$scenario: a clean run under the shim failed: $(cat "$scratch/run.out")"
}

# The resume scenario starts from a database with the first run stored.
"$TIERLAB" run -q --only 1 "$scratch/tiny.yaml" --db "$scratch/base.db" >/dev/null 2>&1 || fail "--only 1"
mv "$scratch/tiny" "$scratch/base.tiny"

for scenario in $scenarios; do
	count_calls "$scenario"
	for point in $points; do
		calls=$(awk -v p="$point" '$1 == p { print $2 }' "$scratch/counts")
		[ -n "$calls" ] || fail "the shim does not know the point '$point'"
		if [ "$point" = malloc ] && [ -z "${FAULT_ALL:-}" ] && [ "$calls" -gt "$sample" ]; then
			ns=$(awk -v c="$calls" -v s="$sample" 'BEGIN { for (i = 0; i < s; i++) print 1 + int(i * c / s) }')
		else
			ns=$(seq 1 "$calls")
		fi
		echo "$scenario: $point: $calls calls, failing $(echo $ns | wc -w) of them"
		for n in $ns; do
			try "$scenario" "$point" "$n"
		done
	done
done
echo "ok: $total faults: $reported reported with an error, $absorbed absorbed with everything stored, $unreached not reached"
