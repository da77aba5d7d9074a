# The kernel-settings journal as someone else could leave it (issue 27):
# `tierlab run` replays $TIERLAB_STATE_DIR/ktier.journal at every start,
# whatever the policy, as root here. A journal that names a file that is
# not a tiering setting, or that is a symbolic link, must write and
# truncate nothing, say why in one line, and keep the run going (good
# journals, replayed and not, are tests/unit/test_ktier_journal.c's, over
# files standing for the settings: this host's are never written).
. "$(dirname "$0")/lib.sh"

export TIERLAB_STATE_DIR="$scratch/state"
mkdir -p "$TIERLAB_STATE_DIR"
journal=$TIERLAB_STATE_DIR/ktier.journal
cat >"$scratch/spec.yaml" <<YAML
name: ktier-journal
workload: {name: t, command: [/bin/echo, "fom: 1"], fom: {regex: "fom: ([0-9]+)"}}
machine: {fast: "0", slow: "0"}
YAML

# an entry naming any file: written as root before the fix
echo precious >"$scratch/victim"
printf 'W %s 0\n' "$scratch/victim" >"$journal"
chmod 600 "$journal"
expect_exit 0 "$TIERLAB" run -q "$scratch/spec.yaml"
expect_contains "$out" "warning: settings journal $journal: line 1: '$scratch/victim' is not a kernel setting tierlab changes: not replayed"
[ "$(cat "$scratch/victim")" = precious ] || fail "the journal wrote $scratch/victim"
[ -s "$journal" ] || fail "a journal that is not tierlab's was emptied"
[ "$(grep -c 'settings journal' <<<"$out")" = 1 ] || fail "not one line: $out"

# a symbolic link: its target was truncated to 0 bytes before the fix
rm -f "$journal" "$TIERLAB_DB"
echo precious >"$scratch/target"
ln -s "$scratch/target" "$journal"
expect_exit 0 "$TIERLAB" run -q "$scratch/spec.yaml"
expect_contains "$out" "warning: settings journal $journal is a symbolic link; it must be a regular file of yours that only you can write: not used"
[ "$(cat "$scratch/target")" = precious ] || fail "the journal's symlink target changed: $(wc -c <"$scratch/target") bytes"

# writable by others
rm -f "$journal" "$TIERLAB_DB"
printf 'W %s 0\n' "$scratch/victim" >"$journal"
chmod 666 "$journal"
expect_exit 0 "$TIERLAB" run -q "$scratch/spec.yaml"
expect_contains "$out" "is writable by others (mode 0666)"
[ "$(cat "$scratch/victim")" = precious ] || fail "the journal wrote $scratch/victim"

# none at all: nothing said
rm -f "$journal" "$TIERLAB_DB"
expect_exit 0 "$TIERLAB" run -q "$scratch/spec.yaml"
expect_not_contains "$out" "warning:"
echo ok
