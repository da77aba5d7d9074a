# A program that does what daemons do (issue 27, tests/tiermem/daemon.c):
# after its first large allocation it closes every descriptor from 3 up,
# the runtime's among them, takes the numbers again for a pipe of its own
# (and every other number up to 1023 with copies of it), and talks to
# itself through the pipe while it keeps using its memory. Under the fault
# sampler it used to hang at exit for ever (the exit path waited on
# handler threads polling a descriptor that was gone, and wrote its wake-up
# into the program's pipe). Now, with close_range and with a close loop,
# under every sampler that runs here and both log modes: it exits at once
# with its pipe data and memory exact, the fault sampler says once on
# stderr that it stops, and the log goes on to its end.
. "$(dirname "$0")/lib.sh"
SO="$B/lib/tierlab/libtiermem.so"
T="$B/tests/tiermem"
[ -f "$SO" ] && [ -x "$T/daemon" ] || fail "build first: $SO, $T/daemon"
policy="$T/policy-test.so"
[ -f "$B/lib/tierlab/policy-lru.so" ] && policy=lru
mkdir -p "$scratch/out"

for sampler in fault uffd-wp none; do
	for how in close-range loop; do
		for log in counters log; do
			rm -f "$scratch/out"/*
			start=$(date +%s.%N)
			expect_exit 0 timeout 60 env LD_PRELOAD="$SO" TIERLAB_POLICY="$policy" TIERLAB_FAST_NODES=0 \
				TIERLAB_SLOW_NODES=0 TIERLAB_SAMPLER=$sampler TIERLAB_RATE=1kHz TIERLAB_LOG=$log \
				TIERLAB_OUT="$scratch/out" "$T/daemon" $how 300
			took=$(echo "$(date +%s.%N) - $start" | bc)
			if grep -q "sampler '$sampler'.*\(cannot\|not\)\|TIERLAB_SAMPLER" <<<"$out"; then
				echo "$sampler: cannot run here: $(grep -m1 tiermem <<<"$out")"
				continue 2
			fi
			expect_contains "$out" "daemon: 300 rounds, 2894 bytes through the pipe and back, memory intact"
			[ "$(echo "$took < 20" | bc)" = 1 ] || fail "$sampler $how $log: took $took s"
			said=
			[ $sampler = fault ] && said='fault sampler: the program closed its userfaultfd'
			[ $sampler = uffd-wp ] && said='uffd-wp sampler: the program closed its descriptors'
			[ -z "$said" ] || [ "$(grep -c "$said" <<<"$out")" = 1 ] || fail "$sampler $how $log: not said once:
$out"
			if [ $log = log ]; then
				# the log was written to its end: the last samples after the close loop, cut to size (no NUL tail)
				f=$(ls "$scratch"/out/tiermem-*.log)
				[ "$(tr -d '\0' <"$f" | wc -c)" = "$(wc -c <"$f")" ] || fail "$sampler $how: the log was not completed"
				grep -q '^A' "$f" || fail "$sampler $how: no allocation in the log"
			fi
			echo "$sampler $how $log: ok in ${took%???????} s"
		done
	done
done
echo ok
