# Sourced by the shell tests: a scratch directory, the built programs, and
# assertions that say what they expected. Not a test itself (no .sh run of
# its own: tests/run.sh skips files named lib.sh).
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${TIERLAB_BUILD:-$top/build}
TIERLAB="$B/bin/tierlab"
LIBEXEC="$B/libexec/tierlab"
scratch=$(mktemp -d /tmp/tierlab-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
export TIERLAB_DB="$scratch/test.db"

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# expect_exit CODE CMD...: runs CMD, output in $out (stdout+stderr), checks the exit code.
expect_exit() {
	local want=$1; shift
	out=$("$@" 2>&1); local rc=$?
	[ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want; output:
$out"
}
expect_contains() { grep -Fq -- "$2" <<<"$1" || fail "expected '$2' in:
$1"; }
expect_not_contains() { ! grep -Fq -- "$2" <<<"$1" || fail "did not expect '$2' in:
$1"; }
# run_dir OUT_DIR: a run's directory as the store keeps it (relative to the
# database's directory, docs/schema.md), as a path to open from here.
run_dir() { case $1 in /*) echo "$1" ;; *) echo "$(dirname "$TIERLAB_DB")/$1" ;; esac; }
# free_port: a TCP port that nothing on this machine listens on, nor on the
# one after it (a test's own daemons: tests running side by side, or
# another checkout's suite, must not meet on a fixed port)
free_port() {
	local p
	for _ in $(seq 100); do
		p=$((20000 + RANDOM % 12000))	# below the kernel's ephemeral ports (32768 up)
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
		(exec 3<>"/dev/tcp/127.0.0.1/$((p + 1))") 2>/dev/null && continue
		echo "$p"
		return 0
	done
	fail "no free TCP port found"
}
