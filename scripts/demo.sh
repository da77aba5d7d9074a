#!/bin/sh
# The demo: run experiments/demo.yaml end to end into the default database
# (results/tierlab.db, or $TIERLAB_DB), where the README's next command,
# `tierlab report`, finds it, and print its report. Called by `make demo`
# after the build. Exits with tierlab's status, after the report, so
# failed runs are seen and noticed.
set -u
B=${1:-build}
"$B/bin/tierlab" run experiments/demo.yaml
rc=$?
[ $rc -le 1 ] || exit $rc
echo
"$B/bin/tierlab" report || exit $?
exit $rc
