# Hostile spec files end at once with one clear line and store nothing:
# a device of NULs or random bytes stops at the first NUL, a file over the
# size limit is refused naming it, and 80,000 nested lists stop at the
# depth limit where it was passed. `timeout` only guards against a hang.
. "$(dirname "$0")/lib.sh"

run_spec() { expect_exit 2 timeout 60 "$TIERLAB" run "$@"; }

run_spec /dev/zero
[ "$out" = "error: /dev/zero:1:1: the file contains a NUL byte; a spec is text" ] || fail "/dev/zero: $out"
run_spec /dev/urandom
expect_contains "$out" "error: /dev/urandom:"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "expected one error line, got: $out"

head -c $((16 * 1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$scratch/big.yaml"
run_spec "$scratch/big.yaml"
expect_contains "$out" "big.yaml: larger than 16 MiB; a spec is a text file of at most 16 MiB"

python3 -c 'print("[" * 80000)' >"$scratch/deep.yaml"
run_spec "$scratch/deep.yaml"
expect_contains "$out" "deep.yaml:1:65: lists and maps nested more than 64 deep"

[ ! -e "$TIERLAB_DB" ] || fail "a refused spec created the database"
echo ok
