# The fault sampler's samples follow the program's accesses: accessgen
# (bench/fidelity) runs a known distribution under the runtime at 100 Hz,
# and bench/fidelity/score compares the samples with the truth it wrote.
#   - hot/cold: 90% of the reads in an 8 MiB hot set of 128 MiB (two 64
#     MiB arrays), budget 16 MiB in 8 chunks of 2 MiB: lru and window hit
#     rates >= 0.8 (the oracle, computed from the truth, ~0.9), and the hot
#     set's share of the samples >= 0.8. The hot set sits 40 MiB into the
#     first array, outside the 8 chunks placed fast at allocation, so only
#     samples can bring it in. A sampler that visits blocks in turn (the
#     defect this guards against) samples the hot set 4 times in 64, and
#     makes lru evict exactly the hot chunks: both checks fail; the test
#     also shows the checks fail on such a stream, built by hand;
#   - uniform sweeps over 64 MiB (two 32 MiB arrays), budget 24 MiB in 8
#     chunks of 3 MiB: hit rates within 0.2-0.55 (the truth: 0.375), and
#     the TV distance of the sampled per-chunk distribution from the truth
#     below E + 4 sd of an ideal sampler's TV with as many samples (score's
#     tv_ideal and tv_sd: the TV of n independent draws from the truth,
#     ~0.1 +- 0.02 at 300 samples over 22 chunks);
#   - one sample per access, and lru and window hit rates an ideal sampler
#     would give, on Zipf at 1 kHz (below);
#   - the same hot/cold run with TIERLAB_SAMPLER=none takes no sample.
# Every check needs at least 150 samples (3 s at 100 Hz gives ~300; the
# sweeps run 4 s: there lru and window migrate on most samples, and then
# fewer ticks yield a sample, ~85% against ~95% with no migration). No time is
# asserted: the runs last 3-4 s each, whatever they achieve.
# tierlab-test: serial (the fault sampler's live hit rates at 100 Hz and 1 kHz against the truth: starved of CPU, it takes too few samples)
. "$(dirname "$0")/lib.sh"
GEN="$B/bench/fidelity/accessgen"
SCORE="$top/bench/fidelity/score"
DUMP="$B/tests/tiermem/counters-dump"
TIERMEM="$B/lib/tierlab/libtiermem.so"
[ -x "$GEN" ] && [ -x "$DUMP" ] && [ -f "$TIERMEM" ] || fail "build first: $GEN, $DUMP, $TIERMEM"

# run NAME SAMPLER POLICY BUDGET-ENV... -- ACCESSGEN-ARGS...: one run in $scratch/NAME
run() {
	local name=$1 sampler=$2 policy=$3; shift 3
	local -a env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	mkdir -p "$scratch/$name"
	expect_exit 0 env LD_PRELOAD="$TIERMEM" TIERLAB_POLICY="$policy" TIERLAB_SAMPLER="$sampler" \
		TIERLAB_RATE=100Hz TIERLAB_THRESHOLD=1M TIERLAB_FAST_NODES=0 TIERLAB_SLOW_NODES=0 \
		TIERLAB_LOG=log TIERLAB_OUT="$scratch/$name" "${env[@]}" \
		"$GEN" --truth "$scratch/$name/truth.tsv" "$@"
	expect_contains "$out" "validation: passed"
	counters=$(ls "$scratch/$name"/tiermem-*.counters)
	dump=$("$DUMP" "$counters")
	expect_contains "$dump" "sampler $sampler"
	log=$(ls "$scratch/$name"/tiermem-*.log)
	# a loaded machine arms fewer ticks (133 samples in 3 s once, at load 12): once more, longer
	if [ "$sampler" != none ] && [ "$(val samples_managed "$dump")" -lt "${want:-200}" ] && [ -z "${again:-}" ]; then
		echo "note: $name: $(val samples_managed "$dump") samples in managed chunks; again for 9 s"
		rm -rf "${scratch:?}/$name"
		again=1 run "$name" "$sampler" "$policy" "${env[@]}" -- "$@" --seconds 9
	fi
}
val() { awk -v k="$1" '$1 == k { print $2; exit }' <<<"$2"; }
# ge X Y: X >= Y as numbers; check_ge/check_le WHAT X Y fail saying what
ge() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x + 0 >= y + 0) }'; }
check_ge() { ge "$2" "$3" || fail "$1: $2 < $3"; }
check_le() { ge "$3" "$2" || fail "$1: $2 > $3"; }
# hit rate from the counters: hits / samples in managed chunks
hit_rate() {
	local h m
	h=$(val hits "$dump") m=$(val samples_managed "$dump")
	[ "$m" -ge 150 ] || fail "$1: only $m samples in managed chunks (counters: $dump)"
	awk -v h="$h" -v m="$m" 'BEGIN { printf "%.4f", h / m }'
}

hotcold=(--pattern hotcold --arrays 64M,64M --hot-size 8M --hot-offset 40M --hot-frac 0.9 --mode read --seconds 3)
budget16=(TIERLAB_FAST_MEM=16M TIERLAB_CHUNKS=8)
for policy in lru window; do
	run "hc-$policy" fault "$policy" "${budget16[@]}" -- "${hotcold[@]}"
	score=$("$SCORE" --chunks 8 "$scratch/hc-$policy/truth.tsv" "$log")
	hit_rate "hotcold $policy" >/dev/null	# enough samples
	# the pattern's own hit rate: the fill before it sweeps every block, and on a
	# loaded machine it lasts longer and takes more of the samples the counters pool
	hit=$(val hit "$score")
	echo "hotcold $policy: hit $hit in the pattern (counters, fill included: $(val hits "$dump")/$(val samples_managed "$dump")); score:" $score
	check_ge "hotcold $policy: hit rate" "$hit" 0.8
	[ "$(val samples "$score")" -ge 150 ] || fail "hotcold $policy: too few samples in the pattern: $score"
	check_ge "hotcold $policy: hot share of samples" "$(val hot "$score")" 0.8
	check_ge "hotcold $policy: oracle" "$(val oracle "$score")" 0.88
	check_le "hotcold $policy: oracle" "$(val oracle "$score")" 0.93
	[ "$(val misplaced "$score")" = 0 ] || fail "hotcold $policy: samples whose chunk is not their block: $score"
done

# The checks have teeth: a stream that visits the 64 blocks in turn, one
# sample per block and round, fails the hot share check (and its TV is far
# from an ideal sampler's).
truth=$scratch/hc-lru/truth.tsv
awk -F'\t' '$1 == "P" { t0 = $3; t1 = $4 } $1 == "B" { addr[n++] = $4 }
	END { for (i = 0; i < 320; i++) printf "S\t%.0f\t%s\t0x0\t0\t-1\t0\t0\n", t0 + (t1 - t0) * i / 320, addr[i % n] }' \
	"$truth" >"$scratch/in-turn.log"
score=$("$SCORE" --chunks 8 "$truth" "$scratch/in-turn.log")
echo "blocks in turn: score:" $score
ge "$(val hot "$score")" 0.8 && fail "a stream visiting blocks in turn passed the hot share check: $score"
ge "$(val tv "$score")" "$(awk -v e="$(val tv_ideal "$score")" -v s="$(val tv_sd "$score")" 'BEGIN { print e + 4 * s }')" ||
	fail "a stream visiting blocks in turn passed the TV check: $score"

sweep=(--pattern sweep --arrays 32M,32M --block 3M --mode read --seconds 4)
budget24=(TIERLAB_FAST_MEM=24M TIERLAB_CHUNKS=8)
# A sweep's position is its progress: where a loaded host stalls the program,
# the next access after a tick is at the stalled position, and the samples
# weight it (CI once: TV 0.167 against a bound of 0.148, beside another
# engineer's tests; 0.097 alone). A run over only the TV bound is made once
# more, and the second must pass; every other check holds the first time.
for policy in lru window; do
	for try in 1 2; do
		rm -rf "${scratch:?}/sw-$policy"
		run "sw-$policy" fault "$policy" "${budget24[@]}" -- "${sweep[@]}"
		expect_contains "$dump" "chunk_size 3145728"
		score=$("$SCORE" --chunks 8 "$scratch/sw-$policy/truth.tsv" "$log")
		hit=$(hit_rate "sweep $policy")
		bound=$(awk -v e="$(val tv_ideal "$score")" -v s="$(val tv_sd "$score")" 'BEGIN { printf "%.4f", e + 4 * s }')
		echo "sweep $policy: hit $hit (counters: $(val hits "$dump")/$(val samples_managed "$dump")); TV bound $bound; score:" $score
		check_ge "sweep $policy: hit rate" "$hit" 0.2
		check_le "sweep $policy: hit rate" "$hit" 0.55
		check_ge "sweep $policy: oracle" "$(val oracle "$score")" 0.36
		check_le "sweep $policy: oracle" "$(val oracle "$score")" 0.39
		[ "$(val samples "$score")" -ge 150 ] || fail "sweep $policy: too few samples in the pattern: $score"
		[ "$(val misplaced "$score")" = 0 ] || fail "sweep $policy: samples whose chunk is not their block: $score"
		ge "$bound" "$(val tv "$score")" && break
		[ "$try" = 1 ] || check_le "sweep $policy: TV distance" "$(val tv "$score")" "$bound"
		echo "note: sweep $policy: TV distance $(val tv "$score") over its bound $bound; once more"
	done
done

# One sample per access event, and the hit rate an ideal sampler would give:
# Zipf(1.0) popularity over 64 blocks of 2 MiB at 1 kHz, budget 8 chunks,
# lru and window. bench/fidelity/ideal replays the run's samples with each
# address replaced by an independent draw from the truth (same count, same
# times) through the same policy, 1000 times. A run passes when
#   - under 1% of its samples repeat the previous sample's byte address
#     (these programs practically never do; a sampler that samples an
#     access twice does it at every sample whose thread was slow to retry);
#   - its samples follow each other within one chunk no more often than an
#     ideal sampler's do (ideal's same_chunk, within its 99% top and 1
#     point: ~0.07 here, the sum of the squared block shares), so a sampler
#     that takes the program again where it waited (on the chunk just
#     moved, say) fails without repeating an address;
#   - its hit rate lies in the ideal's central 99% interval, whose lower
#     end is taken 2 points lower: the fault sampler weighs an access by
#     the time the program spends on it, which on these programs oversamples
#     the colder blocks by ~1 point of the top-8 share and lowers lru's hit
#     rate by 1-2 points (docs/samplers.md). Repeated samples raise it.
#   - and the replay of its own samples decides as the runtime did.
IDEAL="$B/bench/fidelity/ideal"
[ -x "$IDEAL" ] || fail "build first: $IDEAL"
# faithful IDEAL-OUTPUT: 0 when the run passes, else 1 with the reason on stdout
faithful() {
	awk '{ v[$1] = $2 } END {
		if (v["samples"] < 400) { print "only " v["samples"] " samples"; exit 1 }
		if (v["dup_frac"] > 0.01) { print "repeated samples: " v["duplicates"] " of " v["samples"]; exit 1 }
		if (v["same_chunk"] > v["same_chunk_hi99"] + 0.01) {
			print "samples in the chunk of the one before: " v["same_chunk"] " (an ideal sampler: " \
				v["same_chunk_ideal"] ", at most " v["same_chunk_hi99"] ")"; exit 1 }
		if (v["live_hit"] > v["ideal_hi99"] || v["live_hit"] < v["ideal_lo99"] - 0.02) {
			print "hit rate " v["live_hit"] " outside [" v["ideal_lo99"] " - 0.02, " v["ideal_hi99"] "]"; exit 1 }
	}' <<<"$1"
}
zipf=(--pattern zipf --arrays 64M,64M --mode rw --seconds 3)
# The bias below the ideal varies from run to run (1.3 points on average over
# ten runs, 4.1 once; 4.9 once for window in a CI run on a busy host), and
# once, in a clean-clone CI run, window lay 13 points above with no sample
# repeated (0.562 against 0.434 +- 0.011; 23 runs here since, alone and
# beside a busy CPU, all inside): a run whose hit rate alone is outside is
# made once more, saying how its samples lay against the truth (score), and
# the second must pass. Repeated samples fail at once, and a sampler that
# repeats them does so in every run.
for policy in lru window; do
	for try in 1 2; do
		rm -rf "${scratch:?}/zipf-$policy"
		want=1200 run "zipf-$policy" fault "$policy" TIERLAB_CHUNKS=8 TIERLAB_CHUNK_SIZE=2M TIERLAB_RATE=1000Hz -- "${zipf[@]}"
		ideal=$("$IDEAL" "$scratch/zipf-$policy/truth.tsv" "$log") || fail "ideal: $ideal"
		echo "zipf 1 kHz $policy:" $ideal
		why=$(faithful "$ideal") && break
		hit_only=$(awk '{ v[$1] = $2 } END { print (v["dup_frac"] <= 0.01 && v["samples"] >= 400 &&
			v["same_chunk"] <= v["same_chunk_hi99"] + 0.01) ? 1 : 0 }' <<<"$ideal")
		[ "$try" = 1 ] && [ "$hit_only" = 1 ] || fail "zipf 1 kHz $policy: $why"
		echo "note: zipf 1 kHz $policy: $why; its samples against the truth:" \
			$("$SCORE" --chunks 8 "$scratch/zipf-$policy/truth.tsv" "$log") "; once more"
	done
	[ "$(val replay_differs "$ideal")" = 0 ] || fail "zipf $policy: the replay of the run's samples differs from it"
done

# The checks have teeth: the lru run's log with the defect they guard
# against put in, a second sample of every 7th sample's access right after
# the drain that handled it (the thread retried its access under the next
# arming), a hit since its chunk was just promoted, as the runtime counted it.
# second SHIFT: the log with a second sample after every 7th, SHIFT bytes from it (0: the same access; 8: another
# access in its chunk, the program sampled again where it waited)
second() {
	awk -F'\t' -v shift="$1" '
	function flush(    f, i, line, d) {
		if (dup == "") return
		split(dup, f, "\t")
		f[2] = sprintf("%.0f", last + 1); f[7] = 1; f[8] = 0
		if (shift) {	# the last hex digit, 8 bytes over: the same 16 bytes, so the same chunk
			d = index("0123456789abcdef", substr(f[3], length(f[3]))) - 1
			f[3] = substr(f[3], 1, length(f[3]) - 1) substr("0123456789abcdef", (d + 8) % 16 + 1, 1)
		}
		line = f[1]
		for (i = 2; i <= 8; i++) line = line "\t" f[i]
		print line
		dup = ""
	}
	$1 == "D" { flush() }
	{ print; if ($1 == "S" || $1 == "M") last = $2 }
	$1 == "S" && $6 != -1 && ++n % 7 == 0 { dup = $0 }
	END { flush() }' "$scratch/zipf-lru"/tiermem-*.log
}
second 0 >"$scratch/repeats.log"
[ "$(grep -c '^S' "$scratch/repeats.log")" -gt "$(grep -c '^S' "$scratch/zipf-lru"/tiermem-*.log)" ] ||
	fail "no repeat was put into the log (no D records?)"
ideal=$("$IDEAL" "$scratch/zipf-lru/truth.tsv" "$scratch/repeats.log") || fail "ideal: $ideal"
echo "with every 7th access sampled twice:" $ideal
faithful "$ideal" && fail "a log that samples accesses twice passed: $ideal"
# and each check alone: its hit rate (the repeats dropped from the count) and its repeats (at the hit rate it had)
awk '{ v[$1] = $2 } END { exit !(v["live_hit"] > v["ideal_hi99"]) }' <<<"$ideal" ||
	fail "samples twice and its hit rate is within the ideal's: $ideal"
[ "$(val duplicates "$ideal")" -gt "$(awk -v n="$(val samples "$ideal")" 'BEGIN { print int(n / 10) }')" ] ||
	fail "a log with a repeat after every 7th sample shows few: $ideal"
# samples that follow each other within a chunk at other addresses: no repeat, but same_chunk says so
second 8 >"$scratch/near.log"
ideal=$("$IDEAL" "$scratch/zipf-lru/truth.tsv" "$scratch/near.log") || fail "ideal: $ideal"
echo "with a sample 8 bytes from every 7th right after it:" $ideal
[ "$(val duplicates "$ideal")" = 0 ] || fail "samples 8 bytes apart counted as repeats: $ideal"
faithful "$ideal" && fail "a log that samples every 7th access's chunk twice passed: $ideal"
awk '{ v[$1] = $2 } END { exit !(v["same_chunk"] > v["same_chunk_hi99"] + 0.01) }' <<<"$ideal" ||
	fail "samples every 7th access's chunk twice and same_chunk is within the ideal's: $ideal"

run hc-none none lru "${budget16[@]}" -- "${hotcold[@]}"
echo "hotcold, sampler none: samples $(val samples "$dump"), ticks $(val ticks "$dump")"
[ "$(val samples "$dump")" = 0 ] || fail "sampler none took samples: $dump"
! grep -q '^S' "$log" || fail "sampler none logged samples: $(grep -m3 '^S' "$log")"
[ "$(val allocs "$dump")" = 2 ] || fail "sampler none: the runtime did not manage the two arrays: $dump"
echo ok
