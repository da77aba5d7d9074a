#!/bin/sh
# The memory-policy baselines in the guest, run by
# tests/cli/mempolicy-guest.sh through run-in-guest.sh with the installed
# tierlab under /usr:
#
#   mempolicy-session.sh SPEC MORE-SPEC KILL-WEIGHTED KILL-PREFERRED NOOP-SPEC [MANAGED-SPEC]
#
#  1. `tierlab run SPEC` (preferred with a budget, interleave,
#     weighted-interleave with the spec's weights) and `tierlab run
#     MORE-SPEC` (preferred without a budget, weighted-interleave with
#     weights from the bandwidths), after `tierlab run MANAGED-SPEC` (scope
#     managed) when given, `tierlab report` (of the last), and the results;
#  2. tierlab killed with SIGKILL in the middle of a weighted-interleave
#     run, then of a preferred run with a budget, each followed by a new
#     `tierlab run NOOP-SPEC`.
# The settings (the nodes' interleave weights, node 0's huge pages) are
# printed as "TIERLAB-GUEST: settings WHEN ..." before and after each step.
export PATH=/usr/bin:/bin
WI=/sys/kernel/mm/mempolicy/weighted_interleave
H0=/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
say() { echo "TIERLAB-GUEST: $*"; }
settings() { say "settings $1 w0=$(cat $WI/node0) w1=$(cat $WI/node1) huge0=$(cat $H0)"; }
# wait_changed PID: until tierlab (PID) changed a setting and the workload runs
wait_changed() {
	local i=0 before=$2
	while [ $i -lt 600 ] && kill -0 $1 2>/dev/null; do
		if pidof placement >/dev/null && [ "$(settings x)" != "$before" ]; then
			sleep 1
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	say "the kernel was never set up"
	return 1
}

say "nodes $(ls -d /sys/devices/system/node/node[0-9]* | wc -l), kernel $(uname -r)"
mkdir -p /tmp/session && cd /tmp/session || exit 1
export TIERLAB_DB=/tmp/session/results/tierlab.db
settings before-run
# scope managed first: the report is of the last session's runs (SPEC's and MORE-SPEC's policies)
: >run.log
rc=0
if [ -n "$6" ]; then
	tierlab run "$6" >>run.log 2>&1 || rc=$?
fi
tierlab run "$1" >>run.log 2>&1 || rc=$?
tierlab run "$2" >>run.log 2>&1 || rc=$?
cat run.log
say "run exit $rc"
settings after-run
say "BEGIN report"
tierlab report
say "END report"
say "BEGIN results.tar.gz.b64"
tar -cf - results | gzip | base64
say "END results.tar.gz.b64"
export TIERLAB_DB=/tmp/session/other/tierlab.db
for k in weighted:"$3" preferred:"$4"; do
	pol=${k%%:*} spec=${k#*:}
	settings before-kill-$pol
	tierlab run "$spec" >kill-$pol.log 2>&1 &
	pid=$!
	wait_changed $pid "$(settings x)"
	settings during-kill-$pol
	kill -9 $pid
	wait $pid
	say "kill-$pol tierlab exit $?"
	cat kill-$pol.log
	sleep 1
	pidof placement >/dev/null && say "kill-$pol: the workload outlived tierlab"
	settings after-kill-$pol
	tierlab run "$5" >restart-$pol.log 2>&1
	say "restart-$pol exit $?"
	cat restart-$pol.log
	settings after-restart-$pol
done
exit $rc
