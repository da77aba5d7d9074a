# tierlab plot over a database someone hands you (docs/reliability.md,
# "Hostile input"): the fixture of tests/plot/make-fixture.sh with its text
# made hostile through every channel that reaches a figure (the experiment's
# name, a spec's fom.unit, a policy plugin's path, policy_args, a malloc
# call site), each holding a backtick command that would touch a marker
# file in the figure's directory, quotes and a newline followed by a
# gnuplot command. Every figure is drawn by gnuplot and no marker appears;
# gnuplot here does run a backtick in a double-quoted string (the control),
# so the markers' absence means something. Without gnuplot the scripts are
# still checked: no backtick outside a single-quoted string, no line that
# the hostile text began.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
"$top/tests/plot/make-fixture.sh" "$TIERLAB" "$TIERLAB_DB" || fail "the fixture was not made"
sqlite3 "$TIERLAB_DB" <<'SQL' || fail "the fixture was not made hostile"
UPDATE experiments SET name = 'fix`touch pwned-name`"; $(touch pwned-name2)' || char(10) || 'system("touch pwned-nl")';
UPDATE runs SET fom_unit = 'GF`touch pwned-unit`/s''' || char(10) || '!touch pwned-unit-nl';
UPDATE runs SET policy = './lru"`touch pwned-policy`.so' WHERE policy = 'lru';
UPDATE runs SET policy_args = 'k=`touch pwned-args`,j=''\' WHERE policy = 'window';
UPDATE allocations SET callsite = '/opt/app`touch pwned-site`''x+0x1234' WHERE seq = 0;
SQL
mkdir "$scratch/plots"
cd "$scratch/plots" || fail "no plots directory"

figures=(
	"bars.svg"
	"by-policy.svg --by policy"
	"by-args.svg --by policy_args"
	"heatmap.svg --heatmap window --where window=16"
	"timeline.svg --timeline 10"
)
# every backtick of a script inside a single-quoted string ('' is a quote in it), comments aside
backticks_quoted() {
	awk '/^#/ { next } { q = 0
	       for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		if (c == "\x27") q = !q
		else if (c == "`" && !q) { print FILENAME ":" NR ": " $0; bad = 1 }
	       } } END { exit bad }' "$1"
}
for f in "${figures[@]}"; do
	set -- $f
	img=$1; shift
	expect_exit 0 "$TIERLAB" plot --script-only "$@" -o "$img"
	gp=${img%.svg}.gp
	grep -q 'touch pwned-' "$gp" || fail "$gp: the hostile text did not reach the script (the test would prove nothing)"
	backticks_quoted "$gp" || fail "$gp: a backtick outside single quotes"
	! grep -Eq '^(system|!touch|set output .?/tmp)' "$gp" || fail "$gp: the hostile text began a line: $(grep -E '^(system|!touch)' "$gp")"
done
grep -qF "title 'fix\`touch pwned-name\`\"; \$(touch pwned-name2)\\nsystem(\"touch pwned-nl\")'" bars.gp ||
	fail "bars.gp: the experiment's name is not in one single-quoted string, its newline shown as \\n: $(grep multiplot bars.gp)"
grep -qF "'GF\`touch pwned-unit\`/s''\\n!touch pwned-unit-nl (higher is better)'" bars.gp ||
	fail "bars.gp: the unit is not quoted: $(grep ylabel bars.gp | head -1)"
# a data file cannot escape a double quote: the plugin's is written \x22, the row keeps its fields
grep -q '^1.5 "./lru\\x22`touch pwned-policy`.so" "./lru\\x22`touch pwned-policy`.so 2 10Hz n=2" 1.75 ' by-args.dat ||
	fail "by-args.dat: the plugin's path is not one field: $(grep pwned-policy by-args.dat | head -1)"

command -v gnuplot >/dev/null || skip "gnuplot is not installed: the scripts are checked, not run (scripts/deps.sh installs gnuplot-nox)"
gnuplot -e 'print "`touch pwned-control`"' >/dev/null 2>&1
[ -e pwned-control ] || fail "control: this gnuplot did not run a backtick in a double-quoted string"
rm -f pwned-control
for f in "${figures[@]}"; do
	set -- $f
	img=$1; shift
	expect_exit 0 "$TIERLAB" plot "$@" -o "$img"
	[ -s "$img" ] || fail "$img was not drawn"
	markers=$(ls pwned-* 2>/dev/null)
	[ -z "$markers" ] || fail "plot $*: gnuplot ran the database's text: $markers"
done
counts=$(python3 "$top/tests/plot/svg-count.py" timeline.svg) || fail "timeline.svg is not XML"
expect_contains "$counts" "text app\`touch pwned-site\`'x+0x1234"
echo ok
