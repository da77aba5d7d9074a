#!/usr/bin/env bash
# Runs one statically linked program (or a shell script) in a small QEMU
# guest with 2 or 3 NUMA nodes (node 0: CPUs and memory; nodes 1-2: memory
# only, initiator 0), so tests can show what a one-node machine cannot:
# cross-node placement, migration, memory tiers.
#
#   run-in-guest.sh [--nodes 2|3] [--hmat] [--thp never|always] [--mem 512M]
#                   [--add SRC:DST]... [--append KERNEL-ARGS] [--cpu MODEL]
#                   [--timeout SECONDS] -- PROGRAM [ARGS]
#
# --mem is the memory of each node. --append adds to the guest kernel's
# command line (pti=on: DAMON under TCG sees accesses only with it).
# --cpu is QEMU's -cpu (qemu64,+pdpe1gb: the default CPU with 1 GiB pages,
# which it lacks; the guest kernel then offers hugepagesz=1G).
# --hmat publishes HMAT latency/bandwidth
# (node 0 DDR-like 100 ns / 60 GB/s; node 1 HBM-like 120 ns / 190 GB/s;
# node 2 CXL-like 250 ns / 30 GB/s) so the 6.12 guest kernel builds separate
# memory tiers. Distances: 0-1 14, 0-2 26, 1-2 30 (3 nodes); 0-1 20 (2).
#
# The kernel is ../shared/guest/vmlinuz beside the repository (or
# $TIERLAB_GUEST_KERNEL). QEMU exits 0 whatever happens inside, so the guest's
# /init prints markers that are grepped: "GUEST-INIT" once it runs,
# "GUEST-EXIT <code>" after the program. The console output is printed.
# Exit: the program's exit code; 77 with "SKIP: ..." when qemu, the kernel
# or busybox is missing or the guest did not boot; 1 when the guest booted
# but the program did not finish; 2 on bad usage.
set -u
usage() { sed -n '6,9p' "$0" | sed 's/^# *//' >&2; exit 2; }
skip() { echo "SKIP: $*"; exit 77; }

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
nodes=2 hmat=0 thp="" mem=512M timeout_s=60 append= cpu=
adds=()
while [ $# -gt 0 ]; do
	case $1 in
	--nodes) nodes=${2:-}; shift 2 ;;
	--hmat) hmat=1; shift ;;
	--thp) thp=${2:-}; shift 2 ;;
	--mem) mem=${2:-}; shift 2 ;;
	--add) adds+=("${2:-}"); shift 2 ;;
	--append) append=${2:-}; shift 2 ;;
	--cpu) cpu=${2:-}; shift 2 ;;
	--timeout) timeout_s=${2:-}; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ $# -ge 1 ] || usage
case $nodes in 2|3) ;; *) echo "error: --nodes must be 2 or 3" >&2; exit 2 ;; esac
case $thp in ""|never|always) ;; *) echo "error: --thp must be never or always" >&2; exit 2 ;; esac
[[ $mem =~ ^[0-9]+[MG]$ ]] || { echo "error: --mem takes a size like 512M or 1G" >&2; exit 2; }
[[ $timeout_s =~ ^[0-9]+$ ]] || { echo "error: --timeout takes seconds" >&2; exit 2; }
prog=$1; shift
[ -f "$prog" ] || { echo "error: no program '$prog'" >&2; exit 2; }
# Only static binaries (or scripts): the initramfs has no dynamic loader or
# libraries unless --add puts them there.
if LC_ALL=C readelf -l "$prog" 2>/dev/null | grep -q 'INTERP'; then
	echo "error: '$prog' is dynamically linked; build it with -static" >&2
	exit 2
fi

qemu=$(command -v qemu-system-x86_64) || skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
kernel=${TIERLAB_GUEST_KERNEL:-$top/../shared/guest/vmlinuz}
[ -r "$kernel" ] || skip "no guest kernel at $kernel"
busybox=$(command -v busybox) || skip "busybox not installed (apt-get install busybox-static)"
LC_ALL=C file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	skip "$busybox is not static (apt-get install busybox-static)"
command -v cpio >/dev/null || skip "cpio not installed"

tmp=$(mktemp -d /tmp/tierlab-guest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root"/{bin,proc,sys,dev,tmp}
cp "$busybox" "$root/bin/busybox"
cp "$prog" "$root/prog" && chmod +x "$root/prog"
for a in "${adds[@]}"; do
	src=${a%%:*} dst=${a#*:}
	[ -n "$src" ] && [ -n "$dst" ] && [ "$src" != "$a" ] || { echo "error: --add takes SRC:DST" >&2; exit 2; }
	mkdir -p "$root/$(dirname "$dst")" && cp -r "$src" "$root/$dst" || exit 2
done
{
	echo '#!/bin/busybox sh'
	echo '/bin/busybox --install -s /bin'
	echo 'mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs dev /dev 2>/dev/null'
	echo 'echo GUEST-INIT'
	printf '/prog'
	printf ' %q' "$@"
	echo
	echo 'echo "GUEST-EXIT $?"'
	echo 'poweroff -f'
} >"$root/init"
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$tmp/initrd.gz" || exit 2

machine=q35
[ $hmat = 1 ] && machine=q35,hmat=on
size_mb=${mem%[MG]}
[ "${mem: -1}" = G ] && size_mb=$((size_mb * 1024))
[ $hmat = 1 ] || hmat=""
# thread=single: with one host thread per vCPU the guest kernel sometimes
# oopsed at boot (int3 in sched_clock_cpu while it patched its own text);
# measured: 2 crashes in about 7 boots before, none in 9 after
args=(-accel tcg,thread=single -machine "$machine" -smp 2 -m $((size_mb * nodes))M -nographic -no-reboot
      -kernel "$kernel" -initrd "$tmp/initrd.gz")
[ -n "$cpu" ] && args+=(-cpu "$cpu")
for ((n = 0; n < nodes; n++)); do
	args+=(-object "memory-backend-ram,id=m$n,size=${size_mb}M")
	if [ $n = 0 ]; then
		args+=(-numa "node,nodeid=0,cpus=0-1,memdev=m0")
	else
		# QEMU takes initiator= only with hmat=on
		args+=(-numa "node,nodeid=$n,memdev=m$n${hmat/#1/,initiator=0}")
	fi
done
if [ "$nodes" = 3 ]; then
	args+=(-numa dist,src=0,dst=1,val=14 -numa dist,src=0,dst=2,val=26 -numa dist,src=1,dst=2,val=30)
else
	args+=(-numa dist,src=0,dst=1,val=20)
fi
if [ -n "$hmat" ]; then
	lat=(100 120 250) bw=(60G 190G 30G)
	[ "$nodes" = 2 ] && lat=(100 250) bw=(60G 30G)
	for ((n = 0; n < nodes; n++)); do
		args+=(-numa "hmat-lb,initiator=0,target=$n,hierarchy=memory,data-type=access-latency,latency=${lat[n]}"
		       -numa "hmat-lb,initiator=0,target=$n,hierarchy=memory,data-type=access-bandwidth,bandwidth=${bw[n]}")
	done
fi
cmdline="console=ttyS0 panic=-1 rdinit=/init loglevel=3"
[ -n "$thp" ] && cmdline+=" transparent_hugepage=$thp"
[ -n "$append" ] && cmdline+=" $append"
args+=(-append "$cmdline")

timeout -k 5 "$timeout_s" "$qemu" "${args[@]}" </dev/null >"$tmp/console" 2>&1
qrc=$?
tr -d '\r' <"$tmp/console" | grep -av '^\s*$'
if ! grep -aq 'GUEST-INIT' "$tmp/console"; then
	# TCG occasionally trips the kernel while it patches its own text: say so
	grep -aq -e 'Oops:' -e 'Kernel panic' "$tmp/console" &&
		skip "the guest kernel crashed while booting ($(grep -a -m1 -o -e 'Oops:.*' -e 'Kernel panic.*' "$tmp/console" | tr -d '\r'))"
	[ $qrc = 124 ] && skip "the guest did not boot within ${timeout_s}s (no GUEST-INIT on the console)"
	skip "the guest did not boot (qemu exited $qrc, no GUEST-INIT on the console)"
fi
code=$(tr -d '\r' <"$tmp/console" | sed -n 's/.*GUEST-EXIT \([0-9]*\)$/\1/p' | tail -n 1)
if [ -z "$code" ]; then
	echo "error: the guest booted but the program did not finish (qemu exit $qrc${qrc/#124/, timed out after ${timeout_s}s})" >&2
	exit 1
fi
exit "$code"
