# `machine: NAME` takes its node sets from a profile saved by
# `tierlab probe --save NAME`; an unknown profile is a clear error.
. "$(dirname "$0")/lib.sh"

cat >"$scratch/m.yaml" <<'YAML'
name: profiled
machine: here
workload: {name: t, command: [true]}
matrix:
  policy: [all-fast, all-slow]
YAML
expect_exit 2 "$TIERLAB" run -n "$scratch/m.yaml"
expect_contains "$out" "m.yaml:2:10: machine profile 'here'"
expect_exit 0 "$TIERLAB" probe --quick --save here
expect_exit 0 "$TIERLAB" run -q "$scratch/m.yaml"
expect_contains "$out" "2 ok"
fast=$(sqlite3 "$TIERLAB_DB" "select value from environment where key='machine.fast'")
[ -n "$fast" ] || fail "the profile's fast node set was not used"
expect_exit 2 "$TIERLAB" run -n "$(sed 's/machine: here/machine: elsewhere/' "$scratch/m.yaml" >"$scratch/m2.yaml"; echo "$scratch/m2.yaml")"
expect_contains "$out" "m2.yaml:2:10: machine profile 'elsewhere' is not in"
# the spec reference describes profiles as they work
! grep -qi "not implemented" "$top/docs/spec.md" || fail "docs/spec.md: $(grep -i "not implemented" "$top/docs/spec.md")"
echo ok
