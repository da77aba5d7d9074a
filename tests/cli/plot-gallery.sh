# The gallery (make figures): every kind of figure tierlab plot makes,
# drawn from tests/plot/make-gallery.sh's database, page and column wide,
# as SVG, each checked as a reviewer reads it (tests/plot/svg-check.py):
# a title, its axis labels with their units and its legend entries drawn,
# no two texts on one another and none off the edge, by the coordinates
# gnuplot writes, and no text under 7 pt printed at its width (a column's
# 3.5 in, a page's 7). The allocator figure draws its two allocators as
# bars and the baseline, glibc's, as a line.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
command -v gnuplot >/dev/null || skip "gnuplot is not installed (scripts/deps.sh installs gnuplot-nox)"
cd "$scratch" || fail "no scratch directory"
"$top/tests/plot/make-gallery.sh" "$TIERLAB" gallery.db >/dev/null 2>&1 || fail "the gallery's database was not made"
"$top/tests/plot/gallery.sh" "$TIERLAB" gallery.db img svg 2>gallery.err || fail "a figure was not drawn: $(cat gallery.err)"
[ ! -s gallery.err ] || fail "gnuplot or tierlab complained while drawing: $(head -5 gallery.err)"

# check NAME TEXT...: NAME.svg and NAME-column.svg pass svg-check with those texts drawn
check() {
	local name=$1 f w args=()
	shift
	for t in "$@"; do args+=(--has "$t"); done
	for f in "img/$name.svg" "img/$name-column.svg"; do
		[ -s "$f" ] || fail "$f was not drawn"
		case $f in *-column.svg) w=3.5 ;; *) w=7 ;; esac
		python3 "$top/tests/plot/svg-check.py" "$f" --print-width "$w" "${args[@]}" || fail "$f: see above"
	done
}
check gallery-bars 'GF/s (higher is better)' 'hit rate (%)' 'policy, chunks, window' 'rate 10Hz' 'rate 100Hz' \
	none lru window '95% interval (n >= 3)' 'runs (n < 3: no interval)' 'hit rate (right axis)' \
	'all-fast, baseline (mean)' 'all-slow (mean)' 'in each bar: its % of policy=all-fast'
check gallery-by-chunks 'GF/s (higher is better)' 'policy, rate, window' 'chunks 2' 'chunks 8' none lru window
check gallery-heatmap 'chunks (count)' 'sampling rate' '% of baseline' '10Hz' '100Hz'
check gallery-timeline 'seconds since the first allocation' 'allocation (live)' 'sample, fast tier' \
	'sample, slow tier' 'migration slow-to-fast' 'migration fast-to-slow' 'initial placement'
check gallery-access-map 'seconds since the first allocation' 'samples per cell'
check gallery-allocators 's (lower is better)' allocator jemalloc fat 'system, baseline (mean)'
check gallery-figure-pct '% of policy=all-fast' 'chunks (count, log scale)' 'lru 10Hz' 'lru 100Hz'
check gallery-figure-migrated 'GiB migrated per run' 'chunks (count, log scale)' 'lru 10Hz'
check gallery-figure-hit 'hit rate (%)' 'chunks (count, log scale)' 'lru 10Hz'
check gallery-figure-counters '% of allocator=system' dTLB-load-misses cycles jemalloc fat
# fat's misses are a tenth of glibc's: about 10% (the runs' ids are added to the counts)
# (events in name order: cycles is metric 0, dTLB-load-misses 1; bars: jemalloc 0, fat 1)
awk '!/^#/ && $3 == 1 && $2 == 1 { found = 1; ok = $4 > 9.9 && $4 < 10.1 } END { exit !(found && ok) }' \
	img/gallery-figure-counters.dat ||
	fail "counters: fat's dTLB-load-misses are not 10% of system's: $(cat img/gallery-figure-counters.dat)"
# without counters (a machine without a PMU): wall time, and the figure says so
cp gallery.db nocounters.db
sqlite3 nocounters.db "update counters set value = null, status = 'unavailable',
	reason = 'not supported on this machine: ENOENT' where run_id > 100"
expect_exit 0 "$TIERLAB" plot --db nocounters.db -e allocators --figure counters -o nocounters.svg
python3 "$top/tests/plot/svg-check.py" nocounters.svg --print-width 3.5 --has 'wall time' --has 'VmPTE (page tables)' \
	--has 'no hardware counter was counted (unavailable),' --has 'so wall time and VmPTE instead' ||
	fail "nocounters.svg: see above"
# fat's page tables: 100 kB against glibc's 2000: 5%
awk '!/^#/ && $2 == 1 && $3 == 1 { found = 1; ok = $4 == 5 } END { exit !(found && ok) }' nocounters.dat ||
	fail "nocounters: fat's VmPTE is not 5% of system's: $(cat nocounters.dat)"
# the figures' data: lru at 10Hz over chunks 2 and 8, sorted by chunks, % of all-fast as the report has it
[ "$(awk '/^# line 0/{on=1; next} /^$/{on=0} on {print $1}' img/gallery-figure-pct.dat | tr '\n' ' ')" = "2 8 " ] ||
	fail "figure pct: lru 10Hz is not the points at chunks 2, 8: $(cat img/gallery-figure-pct.dat)"
grep -q '^8 95.897435897435[0-9]* ' img/gallery-figure-pct.dat || fail "figure pct: lru 8 10Hz is not 95.9%"
# the check itself catches what it is for: two texts at one place, a text off the edge
python3 - img/gallery-bars.svg broken.svg <<'PY'
import re, sys
s = open(sys.argv[1]).read()
# move every text group to one point: they all overlap
open(sys.argv[2], 'w').write(re.sub(r'transform="translate\([0-9.]+,[0-9.]+\)', 'transform="translate(100.00,100.00)', s))
PY
! python3 "$top/tests/plot/svg-check.py" broken.svg >check.out || fail "svg-check passed texts drawn on one another"
grep -q 'texts overlap' check.out || fail "svg-check did not say why: $(head -3 check.out)"

# the allocators: jemalloc and fat are bars, system (the baseline) is a line, not a bar
counts=$(python3 "$top/tests/plot/svg-count.py" img/gallery-allocators.svg) || fail "not XML"
grep -qx 'bars 2' <<<"$counts" || fail "allocators: expected 2 bars: $(head -4 <<<"$counts")"
grep -qx 'lines 1' <<<"$counts" || fail "allocators: expected the baseline as 1 line: $(head -4 <<<"$counts")"
! grep -qx 'text system' <<<"$counts" || fail "allocators: the baseline has a bar's tic label"
echo ok
