# report, show and list read a database as it is: read-only (also in a
# read-only directory, as a user who may not write there), never creating,
# migrating or changing it, not even an empty file; and they find a run's
# files from any directory, also after the results moved, because run
# directories are stored relative to the database.
. "$(dirname "$0")/lib.sh"

unset TIERLAB_DB
cat >"$scratch/s.yaml" <<'YAML'
name: small
workload: {command: [sh, -c, "echo 'the reason it failed' >&2; exit 3"]}
YAML
mkdir "$scratch/a"
(cd "$scratch/a" && "$TIERLAB" run -q ../s.yaml) >/dev/null 2>&1
db="$scratch/a/results/tierlab.db"
[ -f "$db" ] || fail "no database at $db"
stored=$(sqlite3 "$db" "select out_dir from runs")
case $stored in /* | results/*) fail "out_dir '$stored' is not relative to the database's directory" ;; esac

# from another directory, show names the run's files and prints its stderr
cd "$scratch" || exit 1
expect_exit 0 "$TIERLAB" show --db a/results/tierlab.db 1
expect_contains "$out" "files          $scratch/a/results/small/"
expect_contains "$out" "the reason it failed"

# the results moved: the files are still found
mv "$scratch/a/results" "$scratch/moved"
expect_exit 0 "$TIERLAB" show --db "$scratch/moved/tierlab.db" 1
expect_contains "$out" "files          $scratch/moved/small/"
expect_contains "$out" "the reason it failed"
db="$scratch/moved/tierlab.db"

# readers change nothing, and leave no -wal or -shm beside it
sum=$(md5sum <"$db")
expect_exit 0 "$TIERLAB" report --db "$db"
expect_exit 0 "$TIERLAB" list experiments --db "$db"
expect_contains "$out" "small"
[ "$(md5sum <"$db")" = "$sum" ] || fail "a reader changed the database"
[ ! -e "$db-wal" ] && [ ! -e "$db-shm" ] || fail "a reader left $(ls "$db"-*) behind"

# an empty file is not filled with a schema
: >"$scratch/e.db"
expect_exit 2 "$TIERLAB" report --db "$scratch/e.db"
expect_contains "$out" "database '$scratch/e.db': holds no tierlab results (an empty database)"
[ ! -s "$scratch/e.db" ] || fail "report wrote $(stat -c %s "$scratch/e.db") bytes into an empty file"
[ ! -e "$scratch/e.db-wal" ] || fail "report left e.db-wal"
expect_exit 2 "$TIERLAB" show --db "$scratch/nothing.db" 1
[ ! -e "$scratch/nothing.db" ] || fail "show created a database"

# a read-only directory, as a user who cannot write there (root writes anyway)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	chmod 755 "$scratch"
	chmod -R a+rX "$scratch/moved"
	chmod a-w "$scratch/moved"
	as_nobody test -r "$TIERLAB" -a -x "$TIERLAB" || skip "the build is not readable by nobody"
	expect_exit 0 as_nobody "$TIERLAB" report --db "$db"
	expect_contains "$out" "experiment small"
	expect_exit 0 as_nobody "$TIERLAB" show --db "$db" 1
	expect_contains "$out" "the reason it failed"
	# a database an older tierlab left in WAL mode, which SQLite reads through -shm and -wal files
	chmod u+w "$scratch/moved"
	sqlite3 "$db" "pragma journal_mode = wal" >/dev/null
	chmod a-w "$scratch/moved"
	expect_exit 0 as_nobody "$TIERLAB" report --db "$db"
	expect_contains "$out" "experiment small"
	chmod u+w "$scratch/moved"
else
	echo "note: not root or no setpriv: the read-only directory case is not tried"
fi
echo ok
