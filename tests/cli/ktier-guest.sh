# The kernel's tiering as tierlab policies, on real tiers: the installed
# tool in a 2-node QEMU guest with HMAT (node 0: CPUs, DRAM-like, memory
# tier 4; node 1: CPU-less, CXL-like, a lower tier), fast 0 and slow 1,
# 512 MiB each, pti=on (DAMON under TCG sees accesses only with it),
# THP never. In the guest (tests/guest/ktier-session.sh):
#
#  - `tierlab run` of tests/guest/hotcold (32 chunks of 2 MiB, 99% of its
#    reads to 4 hot chunks in the second half, which first touch puts
#    slow) under all-fast, all-slow, lru, window (the runtime, budget 24
#    MiB, fault sampler) and autonuma, damos (the kernel, budget 24 MiB);
#    then `tierlab report`. Checked: every run ok; autonuma ends with at
#    least half of the hot pages on node 0 (move_pages, by the program;
#    measured: all of them) where all-slow has none, and a placement that
#    serves fast at least 1.5 times the reads its number of fast pages
#    would serve placed blind; damos with a hot page likelier on node 0
#    than a cold one (measured 39-80% of the hot set, varying with the
#    emulated CPU's speed, docs/benchmarks.md);
#    autonuma promoted pages (vmstat.pgpromote_success > 0), damos
#    applied migrate_hot to bytes
#    (damos.hot.sz_applied > 0); the fast node had the budget free when
#    the run started, the reservation is still whole at the end, and the
#    program's pages on node 0 at the end, less those that pages of others
#    leaving the node during the run made room for (node 0's free memory
#    at the start and at the end), are at most 1.5 times the budget
#    (their total was 1.03-1.38 x, once 1.67 x; unbound it would hold all
#    64 MiB, 2.7 x), printed with the reservation; the report names every
#    policy. Printed per policy: the share of the program's reads its
#    placement at the end serves from node 0 (0.99 x hot share on node 0 +
#    0.01 x cold share), comparable across all policies where the runtime's
#    sampled hit rate is not (the kernel policies have none).
#  - the settings (numa_balancing, demotion_enabled, rate limit, scan
#    knobs, nr_kdamonds, node 0's huge pages) after the runs are the ones
#    before;
#  - kill -9 of tierlab in the middle of an autonuma run and of a damos
#    run: the settings are still changed after the kill (so the test shows
#    the journal's work), and the next `tierlab run` puts every one back;
#  - SIGINT of tierlab mid-run (autonuma), and SIGKILL of the workload
#    mid-run (damos): the settings are back when tierlab exits.
# Skips (77) when QEMU, the kernel, busybox, sqlite3 or python3 is missing
# or the guest does not boot.
# tierlab-test: serial (boots a QEMU guest under TCG, which must come up within its timeout)
. "$(dirname "$0")/lib.sh"
guest=$top/tests/guest/run-in-guest.sh
session=$top/tests/guest/ktier-session.sh
hotcold=$B/guest/hotcold
secs=${KTIER_GUEST_SECONDS:-8}
[ -x "$hotcold" ] || fail "$hotcold is not built (make $hotcold)"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
command -v python3 >/dev/null || skip "python3 is needed to read the report's CSV"

. "$top/tests/guest/stage-tool.sh"
stage_tool "$hotcold"

# 99% hot: at 24 M reads/s (this host's guest in 2026-12) a 90% hot share reads every
# cold page each ~6 ms, inside every DAMON sample, and DAMOS cannot tell the hot
# set from the cold (it had fewer hot pages fast than cold in 2 runs of 3)
hs=0.99
wl='{name: hotcold, command: [/opt/tierlab-test/hotcold, --chunks, "32", --hot, "4", --hot-share, "'$hs'", --seconds, "'$secs'"], fom: {regex: "figure-of-merit: ([0-9.]+)", unit: Mreads/s}}'
an_args='scan_delay=100,scan_period=100'
da_args='hot_min=5,cold_max=0,cold_age=10'
cat >"$scratch/spec.yaml" <<YAML
name: ktier-guest
description: a hot/cold program under tierlab's policies and the kernel's (node 0 fast, node 1 slow)
workload: $wl
machine: {fast: "0", slow: "1"}
runtime: {threshold: 1MiB, budget: 24MiB, chunks: 12, rate: 100Hz, window: 128, sampler: fault, log: counters}
timeout: 120s
baseline: {policy: all-fast}
matrix:
  policy: [all-fast, all-slow, lru, window, autonuma, damos]
  policy_args: ["$an_args,$da_args"]
YAML
for pol in autonuma damos; do
	args=$an_args
	[ $pol = damos ] && args=$da_args
	sed -e "s/seconds, \"$secs\"/seconds, \"60\"/" -e "s/policy: \[.*\]/policy: [$pol]/" \
		-e "s/policy_args: .*/policy_args: [\"$args\"]/" -e "/^baseline:/d" "$scratch/spec.yaml" >"$scratch/kill-$pol.yaml"
done
cat >"$scratch/noop.yaml" <<'YAML'
name: noop
workload: {name: true, command: [/bin/true]}
YAML
adds+=(--add "$scratch/spec.yaml:/spec.yaml" --add "$scratch/kill-autonuma.yaml:/kill-autonuma.yaml"
       --add "$scratch/kill-damos.yaml:/kill-damos.yaml" --add "$scratch/noop.yaml:/noop.yaml")

failed=0
bad() { echo "FAIL: $*"; failed=1; }

for try in 1 2; do
	timeout 590 "$guest" --nodes 2 --hmat --mem 512M --thp never --append pti=on --timeout 570 "${adds[@]}" \
		-- "$session" /spec.yaml /kill-autonuma.yaml /kill-damos.yaml /noop.yaml >"$scratch/console" 2>&1
	rc=$?
	[ $rc = 77 ] && grep -aq '^SKIP: the guest' "$scratch/console" && [ $try = 1 ] && continue
	break
done
[ $rc = 77 ] && skip "$(grep -a -m1 '^SKIP' "$scratch/console" | sed 's/^SKIP: //')"
console=$(tr -d '\r' <"$scratch/console")
[ -z "${KTIER_GUEST_CONSOLE:-}" ] || cp "$scratch/console" "$KTIER_GUEST_CONSOLE"
grep -a -e '^TIERLAB-GUEST:' -e 'runs:' -e 'error' -e 'warning' <<<"$console" | grep -v -e 'BEGIN' -e 'END' | head -60
[ $rc = 0 ] || fail "the guest session exited $rc; console:
$(grep -av '^[A-Za-z0-9+/=]*$' <<<"$console" | tail -n 60)"
expect_contains "$console" "TIERLAB-GUEST: nodes 2, tiers 2"
expect_contains "$console" "6 runs: 6 ok, 0 failed"

setting() { sed -n "s/^TIERLAB-GUEST: settings $1 //p" <<<"$console"; }
before=$(setting before-run)
[ -n "$before" ] || fail "no settings printed before the runs"
echo "settings before: $before"
[ "$(setting after-run)" = "$before" ] || bad "settings after the runs: $(setting after-run)"
for pol in autonuma damos; do
	during=$(setting during-kill-$pol) killed=$(setting after-kill-$pol) back=$(setting after-restart-$pol)
	[ -n "$during" ] && [ "$during" != "$before" ] || bad "kill -9 $pol: nothing changed during the run: '$during'"
	[ "$killed" != "$before" ] || bad "kill -9 $pol: settings already back before tierlab started again (nothing shown)"
	[ "$back" = "$before" ] || bad "kill -9 $pol: the next tierlab start did not put everything back: $back"
	grep -q "kill-$pol: the workload outlived tierlab" <<<"$console" && bad "kill -9 $pol: the workload outlived tierlab"
	echo "kill -9 of tierlab during $pol: during '$during'; after the kill '$killed'; after the next start '$back'"
done
expect_contains "$console" "a tierlab that died left kernel tiering settings changed: put back as they were"
for step in int wlkill; do
	during=$(setting during-$step) after=$(setting after-$step)
	[ "$during" != "$before" ] || bad "$step: nothing changed during the run"
	[ "$after" = "$before" ] || bad "$step: settings after: $after"
	echo "$step: during '$during'; after '$after'"
done

mkdir -p "$scratch/out"
sed -n '/^TIERLAB-GUEST: BEGIN results.tar.gz.b64$/,/^TIERLAB-GUEST: END results.tar.gz.b64/p' <<<"$console" |
	sed '1d;$d' | base64 -d | tar -C "$scratch/out" -xzf - || fail "the results did not come back whole over the console"
res=$scratch/out/results
q() { sqlite3 -batch -noheader "$res/tierlab.db" "$1"; }
mi() { q "select cast(value as integer) from metrics where run_id = $id and name = '$1'"; }
report=$(sed -n '/^TIERLAB-GUEST: BEGIN report$/,/^TIERLAB-GUEST: END report/p' <<<"$console" | sed '1d;$d')
echo "$report"
budget_pages=$((24 * 256))
# judge POL: the checks of one policy's run in $res; 2 when only damos's placement failed
judge() {
	local pol=$1 id dir out h0 c0 ph line wm free_kb huge from_free placed=0
	id=$(q "select id from runs where policy = '$pol'")
	[ -n "$id" ] || { bad "$pol: no run"; return 1; }
	dir=$(q "select out_dir from runs where id = $id")
	out=$(cat "$res/$dir/stdout.txt" 2>/dev/null)
	read -r _ _ _ _ h0 _ _ _ <<<"$(grep '^hotcold: hot pages' <<<"$out")"
	read -r _ _ _ _ c0 _ _ _ <<<"$(grep '^hotcold: cold pages' <<<"$out")"
	[ -n "${h0:-}" ] || { bad "$pol: no placement lines: $out"; return 1; }
	grep -q '^hotcold: data intact$' <<<"$out" || bad "$pol: data not intact"
	# the share of the program's reads its final placement serves from the fast node (uniform within hot and cold)
	ph=$(awk -v s="$hs" -v h="$h0" -v c="$c0" 'BEGIN { printf "%.3f", s * h / 2048 + (1 - s) * c / 14336 }')
	line="$pol: hot pages on node 0 $h0/2048, cold $c0/14336, node 0 total $((h0 + c0)) pages (budget $budget_pages);"
	line+=" reads the end placement serves fast $ph;"
	line+=" promoted $(mi vmstat.pgpromote_success), demoted $(($(mi vmstat.pgdemote_kswapd || echo 0) + $(mi vmstat.pgdemote_direct || echo 0))),"
	line+=" migrated $(mi migrated_bytes) bytes; $(grep '^hotcold: .* reads in' <<<"$out")"
	case $pol in
	autonuma|damos)
		wm=$(( ($(mi ktier.fast_free_bytes) - $(mi ktier.budget_bytes)) / 4096 ))
		line+=" reserved $(( $(mi ktier.reserved_bytes) >> 20 )) MiB, node 0 free at start $(( $(mi ktier.fast_free_bytes) >> 20 )) MiB"
		# the hot set moved up (it starts wholly slow), at least half of it, and the placement
		# follows the reads: it serves fast at least 1.5 times the reads that as many fast
		# pages placed blind to them would (their share of all pages); the budget leaves room
		# for 2 cold pages per hot one, so cold pages fast are no fault
		# damos: its thresholds are access counts per sampling interval, blind to the program's
		# speed, and its regions physical ranges where hot and cold pages interleave, so how
		# much of the hot set it moves up varies with the speed of the (emulated) CPU (39-80%
		# measured): it must favour hot pages, a hot page likelier fast than a cold one, when
		# it moved any. On a loaded host the emulated CPU can be too slow for any region to
		# reach hot_min (0 of 51 regions once): then there is no placement of its to judge,
		# only that the scheme looked at the program's memory
		if [ $pol = autonuma ]; then
			awk -v h="$h0" -v c="$c0" -v ph="$ph" 'BEGIN { exit !(2 * h >= 2048 && ph >= 1.5 * (h + c) / 16384) }'
		elif [ "$(mi damos.hot.sz_applied)" -gt 0 ]; then
			awk -v h="$h0" -v c="$c0" 'BEGIN { exit !(h > 0 && h / 2048 > c / 14336) }'
		else
			echo "note: damos: migrate_hot found no region hot enough ($(mi damos.hot.nr_tried) tried): placement not judged"
			[ "$(mi damos.hot.nr_tried)" -gt 0 ]
		fi || {
			line+=" placement: $h0 of 2048 hot pages and $c0 of 14336 cold pages on the fast node at the end (serving $ph of the reads)"
			if [ $pol = damos ]; then placed=2; else bad "$pol:$line"; fi
		}
		# the set-up left the budget free on the fast node, and the binding held: the reservation
		# was still there at the end, and the program's pages there came from the room left free
		# at the start (the budget and the kernel's watermark: at most 1.5 x the budget) and from
		# pages of others (processes, page cache, the kernel's) that left the node during the run,
		# demoted or freed: node 0's free memory and huge pages, read by the program at the end
		# beside its placement, say how much (once 4141 pages, where the program's total was
		# 1.67 x the budget); unbound the program would have all 16384 pages there
		[ "$wm" -ge 0 ] || bad "$pol: the fast node had $(( $(mi ktier.fast_free_bytes) >> 20 )) MiB free at the start, less than the budget"
		read -r _ _ _ free_kb _ huge <<<"$(grep '^hotcold: node0 free_kb' <<<"$out")"
		if [ -z "${huge:-}" ] || [ "$free_kb" -lt 0 ] || [ "$huge" -lt 0 ]; then
			bad "$pol: no reading of node 0's free memory and huge pages at the end: $(grep '^hotcold: node0' <<<"$out")"
		else
			from_free=$(( $(mi ktier.fast_free_bytes) / 4096 - free_kb / 4 ))
			line+=" node 0 free at the end $((free_kb >> 10)) MiB, $huge huge pages;"
			line+=" node 0's free room shrank by $from_free pages, its other pages (processes', page cache, the kernel's) changed by $((from_free - h0 - c0))"
			[ $((huge * 2 * 1024 * 1024)) -ge "$(mi ktier.reserved_bytes)" ] ||
				bad "$pol: node 0 held $huge huge pages at the end, fewer than tierlab reserved ($(( $(mi ktier.reserved_bytes) >> 20 )) MiB)"
			[ $((2 * from_free)) -le $((3 * budget_pages)) ] ||
				bad "$pol: the program took $from_free pages of node 0's free room, over 1.5 times the budget ($budget_pages)"
		fi
		;;
	all-slow)
		[ "$h0" = 0 ] || bad "all-slow: $h0 hot pages on node 0"
		;;
	esac
	[ $pol = autonuma ] && { [ "$(mi vmstat.pgpromote_success)" -gt 0 ] || bad "autonuma promoted nothing"; }
	if [ $pol = damos ]; then
		line+=" migrate_hot applied to $(mi damos.hot.sz_applied) bytes ($(mi damos.hot.nr_applied) regions of $(mi damos.hot.nr_tried) tried), migrate_cold $(mi damos.cold.sz_applied) bytes"
		[ "$(mi damos.hot.nr_tried)" -gt 0 ] || bad "damos: migrate_hot tried no region"
	fi
	echo "$line"
	return $placed
}
for pol in all-fast all-slow lru window autonuma damos; do
	grep -Fq -- "$pol" <<<"$report" || bad "the report does not name $pol"
	judge $pol && continue
	[ $? = 2 ] || continue
	# DAMOS's regions are physical ranges where hot and cold pages interleave, and how
	# many of them reach hot_min varies with the emulated CPU's speed: on a busy host one
	# run in several leaves fewer hot pages than cold ones fast (21% against 36% once).
	# Its placement is the kernel's, not tierlab's: one run again, alone, in a fresh
	# guest, must favour hot pages.
	echo "note: damos's placement did not favour hot pages; the damos run again, in a fresh guest"
	sed -e "s/policy: \[.*\]/policy: [damos]/" -e "s/policy_args: .*/policy_args: [\"$da_args\"]/" \
		-e "/^baseline:/d" "$scratch/spec.yaml" >"$scratch/again.yaml"
	timeout 300 "$guest" --nodes 2 --hmat --mem 512M --thp never --append pti=on --timeout 280 "${adds[@]}" \
		--add "$scratch/again.yaml:/again.yaml" -- "$session" /again.yaml >"$scratch/console2" 2>&1 ||
		{ bad "damos again: the guest session exited $?"; continue; }
	mkdir -p "$scratch/out2"
	tr -d '\r' <"$scratch/console2" | sed -n '/^TIERLAB-GUEST: BEGIN results.tar.gz.b64$/,/^TIERLAB-GUEST: END results.tar.gz.b64/p' |
		sed '1d;$d' | base64 -d | tar -C "$scratch/out2" -xzf - || { bad "damos again: no results"; continue; }
	res=$scratch/out2/results
	judge damos || bad "damos: its placement favoured cold pages in two runs of two"
	res=$scratch/out/results
done
[ $failed = 0 ] || exit 1
echo ok
