#!/bin/sh
# The demo: run experiments/demo.yaml end to end into results/demo.db and
# print its report. Called by `make demo` after the build. Exits with
# tierlab's status, after the report, so failed runs are seen and noticed.
set -u
B=${1:-build}
db=results/demo.db
rm -f "$db" "$db-wal" "$db-shm"
"$B/bin/tierlab" run --db "$db" experiments/demo.yaml
rc=$?
[ $rc -le 1 ] || exit $rc
echo
"$B/bin/tierlab" report --db "$db" || exit $?
exit $rc
