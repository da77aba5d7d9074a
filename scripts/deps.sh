#!/bin/sh
# Installs the Debian packages tierlab needs that are missing; runs
# apt-get update first, and only when something must be installed.
# Needs root (or sudo) only in that case.
set -eu
pkgs="gcc make pkg-config libyaml-dev libnuma-dev libpfm4-dev libsqlite3-dev libcmocka-dev
libopenblas-dev libjemalloc2 libmimalloc2.0 sqlite3 valgrind qemu-system-x86 busybox-static cpio libopenmpi-dev openmpi-bin
python3 gnuplot-nox libpmix2 munge slurm-wlm"

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
