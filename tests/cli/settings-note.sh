# A report over runs taken under different settings says so.
. "$(dirname "$0")/lib.sh"

cat >"$scratch/s.yaml" <<'YAML'
name: settings
repetitions: 2
workload: {name: t, command: [true]}
YAML
expect_exit 0 "$TIERLAB" run -q --only 1 "$scratch/s.yaml"
expect_exit 0 "$TIERLAB" report
expect_not_contains "$out" "different settings"
# the second repetition runs with another OpenMP setting in the environment
OMP_PROC_BIND=close expect_exit 0 "$TIERLAB" run -q --resume "$scratch/s.yaml"
expect_exit 0 "$TIERLAB" report
expect_contains "$out" "runs compared were taken under different settings"
expect_contains "$out" "OMP_PROC_BIND"
echo ok
