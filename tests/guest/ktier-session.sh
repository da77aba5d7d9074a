#!/bin/sh
# The kernel policies in the guest, run by tests/cli/ktier-guest.sh through
# run-in-guest.sh with the installed tierlab under /usr: what a user types,
# and what happens to the kernel's settings around it.
#
#   ktier-session.sh SPEC KILL-SPEC-AUTONUMA KILL-SPEC-DAMOS NOOP-SPEC
#   ktier-session.sh SPEC        (step 1 only: a run repeated by the host)
#
#  1. `tierlab run SPEC` (every policy on one hot/cold workload), then
#     `tierlab report` as text and CSV, and the results;
#  2. tierlab killed with SIGKILL in the middle of an autonuma run, then of
#     a damos run, each followed by a new `tierlab run NOOP-SPEC`;
#  3. tierlab stopped with SIGINT in the middle of an autonuma run;
#  4. the workload killed with SIGKILL in the middle of a damos run.
# The settings (numa_balancing, demotion_enabled, the promotion rate limit,
# the scan knobs, nr_kdamonds and kdamond 0's state, node 0's huge pages)
# are printed as "TIERLAB-GUEST: settings WHEN ..." before and after each
# step, for the host to compare; the results directory comes back as a
# base64 tar.gz. Exit: the first tierlab run's status.
export PATH=/usr/bin:/bin
DBG=/sys/kernel/debug/sched/numa_balancing
KD=/sys/kernel/mm/damon/admin/kdamonds
say() { echo "TIERLAB-GUEST: $*"; }
section() {
	local name=$1
	shift
	say "BEGIN $name"
	"$@"
	say "END $name (exit $?)"
}
settings() {
	local st=-
	[ "$(cat $KD/nr_kdamonds)" = 0 ] || st=$(cat $KD/0/state)
	say "settings $1 nb=$(cat /proc/sys/kernel/numa_balancing) demotion=$(cat /sys/kernel/mm/numa/demotion_enabled)" \
		"rate=$(cat /proc/sys/kernel/numa_balancing_promote_rate_limit_MBps) delay=$(cat $DBG/scan_delay_ms)" \
		"pmin=$(cat $DBG/scan_period_min_ms) pmax=$(cat $DBG/scan_period_max_ms) hot=$(cat $DBG/hot_threshold_ms)" \
		"kdamonds=$(cat $KD/nr_kdamonds) state=$st" \
		"huge0=$(cat /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages)"
}
# wait_changed PID: until tierlab (PID) has set the kernel up and the workload runs (at most 600 tries)
wait_changed() {
	local i=0
	while [ $i -lt 600 ] && kill -0 $1 2>/dev/null; do
		if pidof hotcold >/dev/null && { [ "$(cat /proc/sys/kernel/numa_balancing)" = 2 ] ||
			[ "$(cat $KD/nr_kdamonds)" = 1 ]; }; then
			sleep 1
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	say "the kernel was never set up"
	return 1
}

mount -t debugfs none /sys/kernel/debug || exit 1
say "nodes $(ls -d /sys/devices/system/node/node[0-9]* | wc -l), tiers $(ls -d /sys/devices/virtual/memory_tiering/memory_tier* | wc -l)"
mkdir -p /tmp/session && cd /tmp/session || exit 1
export TIERLAB_DB=/tmp/session/results/tierlab.db

settings before-run
tierlab run "$1" >run.log 2>&1
rc=$?
cat run.log
say "run exit $rc"
settings after-run
section report tierlab report
section csv tierlab report --format csv
section results.tar.gz.b64 sh -c 'tar -cf - results | gzip | base64'
[ $# -eq 1 ] && exit $rc
# the runs below go to a database of their own: the report is the comparison's
export TIERLAB_DB=/tmp/session/other/tierlab.db

# 2. SIGKILL of tierlab mid-run, then the next tierlab start
for k in autonuma:"$2" damos:"$3"; do
	pol=${k%%:*} spec=${k#*:}
	settings before-kill-$pol
	tierlab run "$spec" >kill-$pol.log 2>&1 &
	pid=$!
	wait_changed $pid
	settings during-kill-$pol
	kill -9 $pid
	wait $pid
	say "kill-$pol tierlab exit $?"
	cat kill-$pol.log
	sleep 1
	pidof hotcold >/dev/null && say "kill-$pol: the workload outlived tierlab"
	settings after-kill-$pol
	tierlab run "$4" >restart-$pol.log 2>&1
	say "restart-$pol exit $?"
	cat restart-$pol.log
	settings after-restart-$pol
done

# 3. SIGINT of tierlab mid-run
settings before-int
tierlab run "$2" >int.log 2>&1 &
pid=$!
wait_changed $pid
settings during-int
kill -INT $pid
wait $pid
say "int tierlab exit $?"
cat int.log
settings after-int

# 4. SIGKILL of the workload mid-run
settings before-wlkill
tierlab run "$3" >wlkill.log 2>&1 &
pid=$!
wait_changed $pid
settings during-wlkill
w=$(pidof hotcold)
if [ -n "$w" ]; then kill -9 $w; else kill -9 $pid; fi
wait $pid
say "wlkill tierlab exit $?"
cat wlkill.log
settings after-wlkill

exit $rc
