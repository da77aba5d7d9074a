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
# run --dry-run and simulate plan such a spec alike: the profile's node
# sets are part of each configuration's key (simulate once planned
# without them, so its configurations matched no run of the spec)
{
	printf 'P\t1099511627776\t524288\t1048576\t2097152\t4294967295\t0\t16\t1000\t262144\tstatic:0\t-\t0\n'
	printf 'A\t1000\t0\t0x10000000\t524288\t0\t1\t0x0\t-\n'
	for i in 1 2 3 4 5 6 7 8; do
		printf 'S\t%d\t0x%x\t0x0\t1\t0\t0\t0\n' $((1000000 * i)) $((0x10000000 + i * 4096))
	done
} >"$scratch/t.log"
expect_exit 0 "$TIERLAB" run -n "$scratch/m.yaml"
planned=$(awk '$1 ~ /^[0-9]+$/ { sub(/-r[0-9]+$/, "", $2); print $2 }' <<<"$out" | sort -u)
[ "$(wc -l <<<"$planned")" -eq 2 ] || fail "run -n planned '$planned': $out"
expect_exit 0 "$TIERLAB" simulate --trace "$scratch/t.log" "$scratch/m.yaml"
simulated=$(sqlite3 "$TIERLAB_DB" "select distinct substr(config_key, 1, 16) from runs where config_key like '%-sim'" | sort -u)
[ "$planned" = "$simulated" ] || fail "run -n planned the configurations $planned, simulate $simulated"
expect_exit 2 "$TIERLAB" simulate --no-store --trace "$scratch/t.log" "$scratch/m2.yaml"
expect_contains "$out" "m2.yaml:2:10: machine profile 'elsewhere' is not in"
# the spec reference describes profiles as they work
! grep -qi "not implemented" "$top/docs/spec.md" || fail "docs/spec.md: $(grep -i "not implemented" "$top/docs/spec.md")"
echo ok
