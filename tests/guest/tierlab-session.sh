#!/bin/sh
# What a user types in the guest, run by tests/cli/tierlab-guest.sh through
# run-in-guest.sh (as the guest's program, with the installed tierlab under
# /usr): `tierlab run SPEC`, then `tierlab report` as text, CSV and JSON,
# then the results directory (database, each run's output and the runtime's
# files) as a base64 tar.gz on the console, for the host to check.
#
#   tierlab-session.sh SPEC [NUMA_BALANCING]
#
# NUMA_BALANCING (0, 1 or 2) is written to /proc/sys/kernel/numa_balancing;
# when it is on, the scanner starts 100 ms after a process does and rescans
# every 100 ms (defaults: after 1 s, then every 1 to 60 s), so what the
# kernel's balancing does to a 2-second run is what it would do to any
# longer run, not a matter of timing. Without it the kernel's default
# stays (1 with two nodes).
#
# Console markers: "TIERLAB-GUEST: ..." lines; "TIERLAB-GUEST: BEGIN X" and
# "TIERLAB-GUEST: END X" around each output X. Exit: tierlab run's status.
export PATH=/usr/bin:/bin
say() { echo "TIERLAB-GUEST: $*"; }
section() {
	local name=$1
	shift
	say "BEGIN $name"
	"$@"
	say "END $name (exit $?)"
}

spec=$1
nb=${2:-}
if [ -n "$nb" ]; then
	echo "$nb" >/proc/sys/kernel/numa_balancing || exit 1
	if [ "$nb" != 0 ]; then
		mount -t debugfs none /sys/kernel/debug || exit 1
		echo 100 >/sys/kernel/debug/sched/numa_balancing/scan_delay_ms || exit 1
		echo 100 >/sys/kernel/debug/sched/numa_balancing/scan_period_min_ms || exit 1
		echo 100 >/sys/kernel/debug/sched/numa_balancing/scan_period_max_ms || exit 1
	fi
fi
say "nodes $(ls -d /sys/devices/system/node/node[0-9]* | wc -l), thp $(grep -o '\[[a-z]*\]' /sys/kernel/mm/transparent_hugepage/enabled | tr -d '[]'), numa_balancing $(cat /proc/sys/kernel/numa_balancing)"
mkdir -p /tmp/session && cd /tmp/session || exit 1
export TIERLAB_DB=/tmp/session/results/tierlab.db
# through a file: on the console (a tty) the progress line would redraw itself
tierlab run "$spec" >run.log 2>&1
rc=$?
cat run.log
say "run exit $rc"
section report tierlab report
section csv tierlab report --format csv
section json tierlab report --format json
section results.tar.gz.b64 sh -c 'tar -cf - results | gzip | base64'
exit $rc
