# A size, budget or rate without its unit is refused everywhere tierlab
# takes one, with the forms it could have meant: `budget: 40` was 40
# bytes, silently (show printed "budget 40B", the run was ok with a 0% hit
# rate), while 140% was refused. In a spec (FILE:LINE:COL and the field),
# on the command line (sweep's axis options, --where, probe --size) and in
# the runtime's TIERLAB_* variables (TIERLAB_STRICT=1 makes a bad value
# fatal). A bare 0 is zero in every unit; the SHAMBLES_* aliases keep
# their documented byte counts.
. "$(dirname "$0")/lib.sh"

cat >"$scratch/bare.yaml" <<YAML
name: bare
workload: {name: t, command: [true]}
runtime: {budget: 40, rate: 100Hz}
matrix:
  policy: [lru]
YAML
expect_exit 2 "$TIERLAB" run --dry-run "$scratch/bare.yaml"
expect_contains "$out" "error: $scratch/bare.yaml:3:19: runtime.budget: '40' has no unit (write 40% of the footprint, or a size: 40MiB, 40GiB, 40B for bytes)"
sed -i 's/budget: 40,/budget: 40%,/; s/rate: 100Hz/rate: 100/' "$scratch/bare.yaml"
expect_exit 2 "$TIERLAB" run --dry-run "$scratch/bare.yaml"
expect_contains "$out" "runtime.rate: '100' has no unit (write 100Hz or 100kHz)"
sed -i 's/rate: 100}/rate: 100Hz, threshold: 4096}/' "$scratch/bare.yaml"
expect_exit 2 "$TIERLAB" run --dry-run "$scratch/bare.yaml"
expect_contains "$out" "runtime.threshold: '4096' has no unit (write 4096B for bytes, or 4096KiB, 4096MiB)"
sed -i 's/threshold: 4096}/threshold: 4096B}/' "$scratch/bare.yaml"
expect_exit 0 "$TIERLAB" run --dry-run "$scratch/bare.yaml"

# the command line
expect_exit 2 "$TIERLAB" sweep --dry-run "$scratch/bare.yaml" --budget 40
expect_contains "$out" "--budget: '40' has no unit"
expect_exit 2 "$TIERLAB" sweep --dry-run "$scratch/bare.yaml" --rate 10Hz,100
expect_contains "$out" "--rate: '100' has no unit (write 100Hz or 100kHz)"
expect_exit 0 "$TIERLAB" sweep --dry-run "$scratch/bare.yaml" --rate 10Hz,100Hz
expect_exit 2 "$TIERLAB" run --dry-run --where rate=100 "$scratch/bare.yaml"
expect_contains "$out" "rate: '100' has no unit"
expect_exit 2 "$TIERLAB" probe --size 64
expect_contains "$out" "error: --size: '64' has no unit (write 64B for bytes, or 64KiB, 64MiB)"

# the runtime's variables: refused with the same words; 0 and the SHAMBLES_* byte counts are not
rt="$B/lib/tierlab/libtiermem.so"
[ -f "$rt" ] || skip "libtiermem.so is not built"
under_rt() { env LD_PRELOAD="$rt" TIERLAB_POLICY=lru TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 TIERLAB_STRICT=1 TIERLAB_OUT="$scratch" "$@" true; }
expect_exit 2 under_rt TIERLAB_FAST_MEM=40
expect_contains "$out" "tiermem: TIERLAB_FAST_MEM='40': no unit (write 40% of the footprint, or a size: 40MiB, 40GiB, 40B for bytes)"
expect_exit 2 under_rt TIERLAB_RATE=100
expect_contains "$out" "TIERLAB_RATE='100': no unit (write 100Hz or 100kHz)"
expect_exit 2 under_rt TIERLAB_THRESHOLD=4096
expect_contains "$out" "TIERLAB_THRESHOLD='4096': no unit"
expect_exit 0 under_rt TIERLAB_FAST_MEM=40MiB TIERLAB_CACHE=0
expect_exit 0 under_rt SHAMBLES_FAST_MEM_SIZE=41943040 SHAMBLES_SIZE_THRESHOLD=4096
echo ok
