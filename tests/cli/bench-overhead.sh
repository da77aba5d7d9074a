# bench/overhead's tools still work on a clean checkout, at toy sizes (no
# time is asserted): the reference poison sampler takes samples and leaves
# the stream's data intact, bad options are refused, gaps reports its
# histogram, and run/gaps-run print one row per variant.
. "$(dirname "$0")/lib.sh"
OVH="$B/bench/overhead"
[ -x "$OVH/stream" ] && [ -x "$OVH/gaps" ] || fail "build first: $OVH/stream, $OVH/gaps"

expect_exit 0 "$OVH/stream" --gib 0.0625 --passes 400 --poison-ref 1000
expect_contains "$out" "validation: passed"
samples=$(sed -n 's/^samples: //p' <<<"$out")
[ "${samples:-0}" -gt 0 ] || fail "the reference poison sampler took no samples: $out"

expect_exit 2 "$OVH/stream" --poison-ref -1
expect_exit 2 "$OVH/gaps" --mib 3

expect_exit 0 "$OVH/gaps" --mib 16 --seconds 0.3 --poison-ref 1000
expect_contains "$out" "gaps    >200 us:"
grep -Eq '^stalled: [0-9]+ us of [0-9]+ us \([0-9.]+%\)$' <<<"$out" || fail "no stalled line: $out"
grep -Eq '^samples: [1-9]' <<<"$out" || fail "gaps --poison-ref took no samples: $out"

expect_exit 0 "$top/bench/overhead/run" --build "$B" --rounds 1 --kernels stream --rates 100 \
	--gib 0.0625 --passes 3
for row in "| stream | no preload |" "| stream | preload, sampler none |" "| stream | 100 Hz |" \
	"| stream | reference poison 100 Hz, no preload |"; do
	expect_contains "$out" "$row"
done

expect_exit 0 "$top/bench/overhead/gaps-run" --build "$B" --rounds 1 --rates 100 --mib 16 --seconds 0.2
for row in "| no preload |" "| libtiermem, sampler none |" "| fault sampler 100 Hz |" "| reference poison 100 Hz |"; do
	expect_contains "$out" "$row"
done
echo ok
