#!/bin/sh
# Installs the Debian packages tierlab needs that are missing; runs
# apt-get update first, and only when something must be installed.
# Needs root (or sudo) only in that case.
#
#   scripts/deps.sh demo   what building and running the demo need (make
#                          demo-tool: the compiler and the tool's libraries)
#   scripts/deps.sh tool   that and OpenBLAS, for the dgemm workload, which
#                          `make tool` (and `make install`) builds too
#   scripts/deps.sh [all]  that and what the tests use (allocators, QEMU,
#                          Open MPI, Slurm, valgrind, gnuplot, sqlite3, python3)
set -eu
demo="gcc make libyaml-dev libnuma-dev libpfm4-dev libsqlite3-dev"
tool="$demo libopenblas-dev"
tests="libcmocka-dev libjemalloc2 libmimalloc2.0 sqlite3 valgrind qemu-system-x86 busybox-static cpio libopenmpi-dev openmpi-bin
python3 gnuplot-nox libpmix2 munge slurm-wlm"
case ${1:-all} in
demo) pkgs=$demo ;;
tool) pkgs=$tool ;;
all) pkgs="$tool $tests" ;;
*) echo "deps: '$1': say demo, tool or all" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "deps: installing:$missing"
if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "deps: not root and no sudo; install as root: apt-get install$missing" >&2
	exit 1
fi
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
