# bench/fidelity's tools at toy sizes: accessgen's truth is what each
# pattern promises (counted exactly, shares as designed), bad options are
# refused, and run prints a row per sampler, with the reason for one that
# cannot run. No time is asserted. (tests/cli/fidelity.sh measures the
# fault sampler against this truth.)
. "$(dirname "$0")/lib.sh"
GEN="$B/bench/fidelity/accessgen"
[ -x "$GEN" ] || fail "build first: $GEN"

# gen PATTERN ARGS...: a 0.3 s run without the runtime; its truth in $truth
gen() {
	truth=$scratch/$1.tsv
	expect_exit 0 "$GEN" --pattern "$@" --seconds 0.3 --truth "$truth"
	expect_contains "$out" "validation: passed"
	grep -Eq '^figure-of-merit: [0-9.e+]+ accesses/s$' <<<"$out" || fail "no figure of merit: $out"
	# every part: its blocks' accesses add up to the part's, their shares to 1
	awk -F'\t' '$1 == "P" { want[$2] = $5 } $1 == "B" { got[$2] += $7; share[$2] += $6 }
		END { for (p in want) if (got[p] != want[p] || share[p] < 0.999999 || share[p] > 1.000001 || !want[p]) {
			print "part " p ": blocks " got[p] " accesses (shares " share[p] "), part " want[p]; exit 1 } }' \
		"$truth" || fail "$1: the truth does not add up: $(cat "$truth")"
}
field() { awk -F'\t' -v t="$1" -v p="$2" -v f="$3" '$1 == t && $2 == p { print $f; exit }' "$truth"; }
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }' || fail "$4: $1 not in [$2, $3]"; }

gen hotcold --arrays 8M,8M --hot-size 2M --hot-offset 4M --hot-frac 0.8
expect_contains "$(cat "$truth")" "U	2097152"
[ "$(grep -c '^B' "$truth")" = 8 ] || fail "hotcold: 8 blocks expected: $(cat "$truth")"
within "$(field H all 5)" 0.79 0.81 "hotcold: the hot set's share"
# uniform cold: the blocks outside the hot set share 0.2 equally
within "$(awk -F'\t' '$1 == "B" && $3 != 2 { if ($6 > m) m = $6 } END { print m }' "$truth")" 0.025 0.0315 \
	"hotcold: the largest cold block"

gen sweep --arrays 4M,6M --block 1M
# sequential passes: every block was swept k or k+1 times (16384 accesses of 64 bytes a pass)
awk -F'\t' '$1 == "B" { c[$7 / 16384]++; if ($7 % 16384) exit 1 } END { n = 0; for (k in c) n++; exit !(n <= 2) }' \
	"$truth" || fail "sweep: blocks not swept whole or unevenly: $(cat "$truth")"

gen sweep-fb --arrays 4M,4M --block 1M --mode rw

gen zipf --arrays 64M,64M --zipf-s 1
# rank 1 of 64 blocks: 1 / H(64) = 0.2106
within "$(awk -F'\t' '$1 == "B" && $6 > m { m = $6 } END { print m }' "$truth")" 0.20 0.22 "zipf: the top block's share"

gen phase --arrays 8M,8M --hot-size 2M --hot-offset 0 --phase-offset 4M --mode write
[ "$(grep -c '^P' "$truth")" = 2 ] || fail "phase: two parts expected: $(cat "$truth")"
[ "$(field P first 4)" = "$(field P second 3)" ] || fail "phase: the halves do not meet: $(cat "$truth")"
within "$(field H first 5)" 0.89 0.91 "phase: the first hot set's share"
within "$(field H second 5)" 0.89 0.91 "phase: the second hot set's share"
[ "$(field H first 3)" = "$(field A 0 3)" ] || fail "phase: the first hot set is not at the first array's start"
[ "$(field H second 3)" != "$(field H first 3)" ] || fail "phase: the hot set did not move"

gen lockstep --arrays 4M,4M --threads 2
[ "$(field H all 5)" = 0.500000000 ] || fail "lockstep: the second array's share is not exactly 0.5: $(cat "$truth")"
[ "$(field H all 3)" = "$(field A 1 3)" ] || fail "lockstep: its second access is not the last array"

expect_exit 2 "$GEN" --pattern nope
expect_exit 2 "$GEN" --arrays 4M --hot-offset 3M --hot-size 2M
expect_exit 2 "$GEN" --pattern lockstep --arrays 4M
expect_exit 2 "$GEN" --stride 12

expect_exit 0 "$top/bench/fidelity/run" --build "$B" --samplers "fault perf" --patterns sweep --rates 100 \
	--rounds 1 --seconds 0.5
expect_contains "$out" "| fault | 100 Hz | sweep |"
# perf is never available here: no CPU PMU on these VMs, or not built into this runtime
grep -Eq '^\| perf \| - \| - \| cannot run here: .+' <<<"$out" || fail "no row for perf with its reason: $out"
echo ok
