# tierlab plot and the report (also --by policy) over the fixture database of known rows
# (tests/plot/make-fixture.sh): the script and data of the bar chart and of
# the heatmap, and the report in every format, byte for byte against
# tests/golden/fixture/ (TIERLAB_UPDATE_GOLDEN=1 rewrites them; read the
# diff), the timeline of run 10's log; the SVG parses as XML and draws 9 bars (5 in the panel of rate
# 10Hz, 4 in 100Hz's: none in both) and 4 baseline lines, the heatmap 4 cells; a
# PNG when gnuplot has pngcairo; the refusals, and gnuplot missing.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
golden=$top/tests/golden/fixture
"$top/tests/plot/make-fixture.sh" "$TIERLAB" "$TIERLAB_DB" || fail "the fixture was not made"

# same GOLDEN FILE: FILE holds what tests/golden/fixture/GOLDEN holds
same() {
	if [ -n "${TIERLAB_UPDATE_GOLDEN:-}" ]; then
		cp "$2" "$golden/$1"
		return
	fi
	cmp -s "$golden/$1" "$2" || fail "$2 differs from $golden/$1:
$(diff "$golden/$1" "$2" | head -20)"
}

cd "$scratch" || fail "no scratch directory"
expect_exit 0 "$TIERLAB" plot --script-only -o bars.svg
[ "$out" = bars.gp ] || fail "--script-only printed '$out', expected the script's path"
[ ! -e bars.svg ] || fail "--script-only drew the image"
same bars.gp bars.gp
same bars.dat bars.dat
expect_exit 0 "$TIERLAB" plot --script-only --heatmap lru -o heatmap-lru.svg
same heatmap-lru.gp heatmap-lru.gp
same heatmap-lru.dat heatmap-lru.dat
expect_exit 0 "$TIERLAB" plot --script-only --timeline 10 -o timeline.svg
same timeline.gp timeline.gp
same timeline.dat timeline.dat
for f in text:txt markdown:md csv:csv json:json; do
	"$TIERLAB" report --format "${f%%:*}" >"report.${f#*:}" 2>&1 || fail "report --format ${f%%:*} failed"
	same "report.${f#*:}" "report.${f#*:}"
	"$TIERLAB" report --by policy --format "${f%%:*}" >"report-by-policy.${f#*:}" 2>&1 ||
		fail "report --by policy --format ${f%%:*} failed"
	same "report-by-policy.${f#*:}" "report-by-policy.${f#*:}"
done
# lru pooled over chunks and rates: 9 ok runs (the failed one counted), mean 15.89 / 9, hit 7.7 / 9
expect_exit 0 "$TIERLAB" report --by policy --wide
grep -Eq '^hpcg +small +lru +1\.766 ± 0\.17 \(9\) +90\.5% +noisy +9/1/0/0 +85\.6% \(9000\) ' <<<"$out" ||
	fail "report --by policy: lru is not 1.766 (9), 9/1/0/0, 85.6% of 9000 samples: $out"
expect_exit 0 "$TIERLAB" report --by chunks,rate
expect_contains "$out" "no % of baseline: the baseline 'policy=all-fast' names an axis that --by pools"
expect_exit 2 "$TIERLAB" report --by nosuch
# --stats: all-fast ran 1.9 2.0 1.95: median 1.95, t(0.975, 2) x 0.05 / sqrt(3) = 0.124
"$TIERLAB" report --stats --format markdown >report-stats.md 2>&1 || fail "report --stats failed"
same report-stats.md report-stats.md
grep -Eq '^\| hpcg +\| all-fast .*\| 1\.950 ± 0\.050 \(3\) +\| +1\.950 +\| +1\.900 +\| +2\.000 +\| +± 0\.12 +\|' report-stats.md ||
	fail "report --stats: all-fast is not median 1.950, min 1.900, max 2.000, +-0.12: $(cat report-stats.md)"
# lru chunks 2 at 10Hz migrated 2 GiB per run, three quarters of it slow-to-fast
expect_exit 0 "$TIERLAB" report --directions --wide
grep -Eq '^hpcg +lru +2 +10Hz .* 2\.00 +1\.50 +0\.500 +60\.0$' <<<"$out" ||
	fail "report --directions: lru 2 10Hz is not 2.00 = 1.50 to fast + 0.500 to slow:
$out"
# the numbers the goldens hold, by hand: lru chunks 8 at 10Hz ran 1.85 1.87 1.89:
# mean 1.87, sd 0.02, t(0.975, 2) = 4.302652730 so the 95% interval is +-0.0497
grep -q '^2.5 "lru" "lru 8" 1.87 0.0496827542350063[0-9]* 92 0.5 95.897435897435[0-9]* 3 ' bars.dat ||
	fail "bars.dat: lru chunks=8 10Hz is not mean 1.87 +-0.0497, hit 92%, 0.5 GiB, 95.9%:
$(cat bars.dat)"

# refusals: an unknown axis, a format gnuplot is not asked for, a policy with no cell, two rows in a cell
expect_exit 2 "$TIERLAB" plot --by nosuch
expect_contains "$out" "unknown axis 'nosuch'"
expect_exit 2 "$TIERLAB" plot -o fig.jpg
expect_contains "$out" "must end in .svg, .png, .pdf or .eps"
expect_exit 2 "$TIERLAB" plot --size 0.5x2 -o fig.svg
expect_contains "$out" "--size '0.5x2': expected column"
expect_exit 2 "$TIERLAB" plot --size wide -o fig.svg
expect_contains "$out" "--size 'wide'"
expect_exit 2 "$TIERLAB" plot --heatmap static -o h.svg
expect_contains "$out" "policy 'static' has no configuration"
expect_exit 2 "$TIERLAB" plot --heatmap window -o h.svg --script-only
expect_contains "$out" "two configurations at chunks=8 rate=10Hz"
expect_exit 0 "$TIERLAB" plot --heatmap window --where window=16 -o h.svg --script-only
[ "$(grep -vc '^#' h.dat)" = 2 ] || fail "--where window=16 kept $(grep -vc '^#' h.dat) cells, expected 2"
expect_exit 2 "$TIERLAB" plot --timeline 10 --heatmap lru
expect_contains "$out" "one figure at a time"
expect_exit 0 "$TIERLAB" plot --script-only --timeline 10 --pid 301 -o t301.svg
grep -q "'run lru8-10-10 (lru), pid 301'" t301.gp &&
	grep -q "'1 samples (1 hits, 0 misses, 0 outside), 0 migrations'" t301.gp || fail "--pid 301: $(grep label t301.gp)"
expect_exit 2 "$TIERLAB" plot --script-only --timeline 10 --pid 999 -o t999.svg
expect_contains "$out" "process 999 of run 'lru8-10-10' logged no managed allocation"
expect_exit 2 "$TIERLAB" plot --timeline 1 -o t.svg
expect_contains "$out" "logged no managed allocation"
expect_exit 2 "$TIERLAB" plot --figure nosuch -o f.svg
expect_contains "$out" "unknown figure 'nosuch'"
expect_exit 2 "$TIERLAB" plot --figure pct --heatmap lru -o f.svg
expect_contains "$out" "one figure at a time"
expect_exit 2 "$TIERLAB" plot --access-map 10 --timeline 10 -o f.svg
expect_contains "$out" "one figure at a time"
expect_exit 2 "$TIERLAB" plot --access-map 1 -o f.svg
expect_contains "$out" "logged no managed allocation"
# the access map counts the 5 samples of pid 300 that fell in its two bands (the sixth is outside)
expect_exit 0 "$TIERLAB" plot --script-only --access-map 10 -o map.svg
[ "$(awk '/^# access map/ { on = 1; next } on && NF { n += $5 } END { print n }' map.dat)" = 5 ] ||
	fail "the access map does not count 5 samples: $(cat map.dat)"
grep -q "5 samples in 2 allocations" map.gp || fail "the access map's caption: $(grep label map.gp)"
expect_exit 2 "$TIERLAB" plot --where policy=all-fast -o only-lines.svg
expect_contains "$out" "no configuration to draw as a bar"

command -v gnuplot >/dev/null || skip "gnuplot is not installed (scripts/deps.sh installs gnuplot-nox)"
expect_exit 2 env PATH=/nonexistent "$TIERLAB" plot -o nognuplot.svg
expect_contains "$out" "gnuplot not found"
[ -s nognuplot.gp ] || fail "the script was not kept when gnuplot is missing"

expect_exit 0 "$TIERLAB" plot -o bars.svg
# the page's width, 7 in, at 72 units an inch; a column and a size given
grep -q '^set terminal svg size 504,' bars.gp || fail "default size is not a page: $(grep terminal bars.gp)"
expect_exit 0 "$TIERLAB" plot --size column -o column.svg
grep -q 'viewBox="0 0 252 ' column.svg || fail "--size column is not 252 units wide: $(grep -m1 viewBox column.svg)"
expect_exit 0 "$TIERLAB" plot --size 5x4 -o five.svg
grep -q '^set terminal svg size 360,288 ' five.gp || fail "--size 5x4: $(grep terminal five.gp)"
counts=$(python3 "$top/tests/plot/svg-count.py" bars.svg) || fail "bars.svg is not XML"
grep -qx 'bars 9' <<<"$counts" || fail "expected 9 bars: $(head -3 <<<"$counts")"
grep -qx 'lines 4' <<<"$counts" || fail "expected 4 baseline lines: $(head -3 <<<"$counts")"
[ "$(grep -cx 'text 1.95' <<<"$counts")" = 2 ] || fail "no all-fast line's value in each panel"
grep -qx 'text all-fast, baseline (mean)' <<<"$counts" || fail "the key does not name the all-fast line"
grep -qx 'text rate 100Hz' <<<"$counts" || fail "no panel rate 100Hz"
grep -qx 'text 76.9%' <<<"$counts" || fail "lru chunks 2 at 100Hz: 76.9% of baseline not written"
# panels by number: 10Hz before 100Hz
[ "$(grep -x 'text rate 10*Hz' <<<"$counts" | tr '\n' ' ')" = "text rate 10Hz text rate 100Hz " ] ||
	fail "panels not in numeric order: $(grep -x 'text rate .*' <<<"$counts")"
expect_exit 0 "$TIERLAB" plot --by chunks -o by-chunks.svg
counts=$(python3 "$top/tests/plot/svg-count.py" by-chunks.svg) || fail "by-chunks.svg is not XML"
grep -qx 'text chunks 2' <<<"$counts" && grep -qx 'text chunks 8' <<<"$counts" || fail "no panels by chunks"
# none in both panels, lru chunks 2 at two rates, lru 8 and window 8 (16 twice, 128 once) at two rates
grep -qx 'bars 9' <<<"$counts" || fail "--by chunks: expected 9 bars: $(head -3 <<<"$counts")"
expect_exit 0 "$TIERLAB" plot --heatmap lru -o heatmap.svg
counts=$(python3 "$top/tests/plot/svg-count.py" heatmap.svg) || fail "heatmap.svg is not XML"
counts=$(python3 "$top/tests/plot/svg-count.py" heatmap.svg) || fail "heatmap.svg is not XML"
grep -qx 'cells 4' <<<"$counts" || fail "expected 4 heatmap cells: $(head -3 <<<"$counts")"
grep -qx 'text 76.9%' <<<"$counts" || fail "the heatmap does not write lru chunks 2 100Hz's 76.9%"
# a cell per row of the data, its runs written in it; hatched: the cells the data calls not significant
[ "$(grep -c '^text n=[0-9]' <<<"$counts")" = 4 ] || fail "the heatmap does not write n in each cell: $counts"
nsig=$(awk '!/^#/ && $8 == 0' heatmap.dat | wc -l)
grep -qx "hatched $nsig" <<<"$counts" || fail "expected $nsig hatched cells: $(grep hatched <<<"$counts")"
# lru 2 100Hz ran 1.4 and 1.6 against all-fast's 1.9 2.0 1.95: two runs cannot make it significant
grep -q '^0 1 76.92307692307[0-9]* "2" "100Hz" 2 [0-9.e-]* 0 1 ' heatmap.dat ||
	fail "lru 2 100Hz: not n=2, not significant, white text: $(grep '"100Hz"' heatmap.dat)"
# a row of the policy without a chunks value is said, not dropped in silence
cp "$TIERLAB_DB" nochunks.db
sqlite3 nochunks.db "insert into runs (id, experiment_id, run_key, config_key, rep, workload, size, policy, rate, status,
	fom, fom_unit, higher_is_better, wall_s) values (900, 1, 'lrudef-900', 'lrudef', 1, 'hpcg', 'small', 'lru',
	'10Hz', 'ok', 1.8, 'GF/s', 1, 60)"
expect_exit 0 "$TIERLAB" plot --db nochunks.db --heatmap lru --script-only -o nochunks.svg
expect_contains "$out" "1 configuration of policy 'lru' has no chunks or rate value"
# --by chunks: that lru ran with the default chunks, so it is its own panel, not a bar in every panel
expect_exit 0 "$TIERLAB" plot --db nochunks.db --by chunks -o nochunks-by.svg
counts=$(python3 "$top/tests/plot/svg-count.py" nochunks-by.svg) || fail "nochunks-by.svg is not XML"
grep -q '^text chunks default' <<<"$counts" || fail "--by chunks: no panel of the default chunks: $(grep '^text chunks' <<<"$counts")"
# 9 bars as before (none in both panels) and the default-chunks lru once, with none beside it: 11
grep -qx 'bars 11' <<<"$counts" || fail "--by chunks with a default-chunks lru: $(head -1 <<<"$counts")"

expect_exit 0 "$TIERLAB" plot --timeline 10 -o timeline.svg
counts=$(python3 "$top/tests/plot/svg-count.py" timeline.svg) || fail "timeline.svg is not XML"
grep -qx 'text #0 64 MiB' <<<"$counts" && grep -qx 'text app+0x1234' <<<"$counts" &&
	grep -qx 'text #1 32 MiB' <<<"$counts" && grep -qx 'text app+0x1300' <<<"$counts" ||
	fail "the timeline does not name its two bands by call site: $(grep '^text' <<<"$counts")"
expect_contains "$counts" "6 samples (3 hits, 2 misses, 1 outside), 4 migrations"
# no sample shares its colour with a migration: the fill colours of the points of each legend entry differ
python3 - timeline.svg <<'PY' || fail "timeline: two plots (a sample and a migration) share a colour"
import sys
import xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
seen = []
for g in ET.parse(sys.argv[1]).getroot().iter(NS + 'g'):
    if not g.get('id', '').startswith('gnuplot_plot'):
        continue
    # a plot's points: <use> of a point symbol in the plot's colour
    cols = {e.get('color').replace(' ', '') for e in g.iter(NS + 'use') if e.get('color')}
    seen.extend(cols)
sys.exit(0 if len(seen) == len(set(seen)) and len(seen) >= 6 else 1)
PY

# baselines at one height: both lines drawn, their values on either side, no text on another
cp "$TIERLAB_DB" samelines.db
sqlite3 samelines.db "update runs set fom = 1.95 where policy = 'all-slow'"
expect_exit 0 "$TIERLAB" plot --db samelines.db -o samelines.svg
python3 "$top/tests/plot/svg-check.py" samelines.svg || fail "samelines.svg: see above"
counts=$(python3 "$top/tests/plot/svg-count.py" samelines.svg) || fail "samelines.svg is not XML"
grep -qx 'lines 4' <<<"$counts" && [ "$(grep -cx 'text 1.95' <<<"$counts")" = 4 ] ||
	fail "two baselines at 1.95: expected 4 lines and 4 values: $(grep -E '^(lines|text 1)' <<<"$counts")"

# a panel whose runs recorded no sample says why it has no hit-rate point
cp "$TIERLAB_DB" nohits.db
sqlite3 nohits.db "delete from metrics where name = 'hit_rate' and run_id in (select id from runs where rate = '10Hz')"
expect_exit 0 "$TIERLAB" plot --db nohits.db -o nohits.svg
python3 "$top/tests/plot/svg-check.py" nohits.svg || fail "nohits.svg: see above"
counts=$(python3 "$top/tests/plot/svg-count.py" nohits.svg) || fail "nohits.svg is not XML"
[ "$(grep -c '^text rate 10Hz (no samples: no hit rate)$' <<<"$counts")" = 1 ] && grep -qx 'text rate 100Hz' <<<"$counts" ||
	fail "the 10Hz panel without hit rates does not say why (once): $(grep -i 'hit' <<<"$counts")"

if gnuplot -e 'set terminal' 2>&1 | grep -qw pngcairo; then
	expect_exit 0 "$TIERLAB" plot -o bars.png
	[ "$(head -c 8 bars.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "bars.png is not a PNG"
	expect_exit 0 "$TIERLAB" plot -o bars.pdf
	[ "$(head -c 5 bars.pdf)" = %PDF- ] || fail "bars.pdf is not a PDF"
	expect_exit 0 "$TIERLAB" plot -o bars.eps
	head -1 bars.eps | grep -q '^%!PS-Adobe-.* EPSF' || fail "bars.eps is not EPS: $(head -1 bars.eps)"
	# the cairo terminals are told the size in inches: a column is 3.5 in wide
	expect_exit 0 "$TIERLAB" plot --size column -o col.pdf
	grep -q '^set terminal pdfcairo size 3.50in,' col.gp || fail "--size column: $(grep terminal col.gp)"
else
	echo "gnuplot has no pngcairo: the PNG is not checked"
fi
echo ok
