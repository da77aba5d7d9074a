#!/bin/sh
# libfatalloc on 1 GiB hugetlb pages, in a guest booted with them
# (hugepagesz=1G hugepages=N; when boot got fewer than N, which happens in
# one boot of two, the rest are asked for at run time, in the guest's
# fresh memory), run by tests/cli/fat-guest.sh through
# run-in-guest.sh with memaccess, libfatalloc, tests/alloc/reuse and their
# libraries under /usr and /opt/tierlab-test:
#   - memaccess --order random --size SIZE under glibc, then under
#     libfatalloc: exit, wall (from /proc/uptime), and the peaks of VmPTE,
#     HugetlbPages and AnonHugePages sampled every 100 ms; the program's
#     own figure and validation; fatalloc's status file;
#   - reuse tail 1024 under libfatalloc with TIERLAB_FAT_TRIM=512M: the
#     hugetlb pages held before and after freeing a 1 GiB block;
#   - the free 1 GiB pages at the start and after each program.
#
#   fat-session.sh SIZE PAGES
#
# Console markers: "FAT-GUEST: ..." lines. Exit: 0 when every program ran
# (the host checks the figures).
export PATH=/usr/bin:/bin
HP=/sys/kernel/mm/hugepages/hugepages-1048576kB
MEM=/usr/libexec/tierlab/memaccess
FAT=/usr/lib/tierlab/libfatalloc.so
say() { echo "FAT-GUEST: $*"; }
size=$1 pages=$2
rc=0

boot=$(cat $HP/nr_hugepages 2>/dev/null || echo none)
[ "$boot" != none ] && [ "$boot" -lt "$pages" ] && echo "$pages" >$HP/nr_hugepages
say "start: 1G pages $(cat $HP/nr_hugepages 2>/dev/null || echo none) (boot gave $boot)," \
	"free $(cat $HP/free_hugepages 2>/dev/null)," \
	"thp $(grep -o '\[[a-z]*\]' /sys/kernel/mm/transparent_hugepage/enabled | tr -d '[]')," \
	"MemTotal $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) kB"

field() { awk -v f="$1:" '$1 == f {print $2}' "$2" 2>/dev/null; }

# measure NAME CMD...: runs CMD, samples its status file, prints one line
measure() {
	name=$1
	shift
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" >/tmp/$name.out 2>&1 &
	pid=$!
	pte=0 htlb=0 anon=0
	while kill -0 $pid 2>/dev/null; do
		p=$(field VmPTE /proc/$pid/status)
		h=$(field HugetlbPages /proc/$pid/status)
		a=$(field AnonHugePages /proc/$pid/smaps_rollup)
		[ "${p:-0}" -gt $pte ] && pte=$p
		[ "${h:-0}" -gt $htlb ] && htlb=$h
		[ "${a:-0}" -gt $anon ] && anon=$a
		sleep 0.1
	done
	wait $pid
	code=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	[ $code = 0 ] || rc=1
	say "$name exit $code wall $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')" \
		"vmpte_kb $pte hugetlb_kb $htlb anonhuge_kb $anon free_1g_after $(cat $HP/free_hugepages)"
	grep -e '^figure-of-merit' -e '^validation' -e '^fatalloc' /tmp/$name.out | sed "s/^/FAT-GUEST: $name /"
}

mkdir -p /tmp/out
measure glibc $MEM --order random --size "$size" --accesses 1
measure fat env LD_PRELOAD=$FAT TIERLAB_OUT=/tmp/out TIERLAB_FAT_VERBOSE=1 $MEM --order random --size "$size" --accesses 1
sed 's/^/FAT-GUEST: status /' /tmp/out/fatalloc-*.txt

# a 1 GiB block freed: its page goes back (the pool's free tail past 512M)
env LD_PRELOAD=$FAT TIERLAB_FAT_TRIM=512M /opt/tierlab-test/reuse tail 1024 >/tmp/tail.out 2>&1 || rc=1
sed 's/^/FAT-GUEST: tail /' /tmp/tail.out
say "end: free 1G pages $(cat $HP/free_hugepages)"
exit $rc
