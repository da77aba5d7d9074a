# Every `tierlab ...` example of README.md and docs/commands/*.md runs as
# written (issue 26, item 11), so that an example cannot rot: each file's
# examples in order, in a directory of their own holding a copy of one
# fixture database (built here from tiny stand-ins of the specs the
# examples name: experiments/hpcg-40pct.yaml, demo.yaml and
# simulate-hpcg.yaml, with HPCG at 16^3), as a reader would type them
# there. An example exits 0, or, shown as `$ tierlab ...` followed by an
# `error:` line, fails with that error. A code block after the line
#   <!-- not executed by tests/cli/doc-examples.sh: REASON -->
# is not run (Slurm, hardware this machine lacks); they are listed.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -f "$B/lib/tierlab/libtiermem.so" ] || skip "the tiering runtime is not built"
unset TIERLAB_DB	# the examples use the default database, results/tierlab.db beside them
export PATH="$B/bin:$PATH"

# the examples: FILE<TAB>LINE<TAB>EXPECT<TAB>COMMAND, EXPECT 0 or the error's first words;
# not executed ones as FILE<TAB>LINE<TAB>skip: REASON<TAB>COMMAND
python3 - "$top" >"$scratch/examples" <<'PY'
import glob, os, re, sys
top = sys.argv[1]
files = [os.path.join(top, "README.md")] + sorted(glob.glob(os.path.join(top, "docs/commands/*.md")))
marker = re.compile(r"<!-- not executed by tests/cli/doc-examples\.sh: (.+?) -->")
for path in files:
    lines = open(path).read().split("\n")
    skip, in_block = None, False
    i = 0
    while i < len(lines):
        line = lines[i]
        code = line.startswith("    ")
        if in_block and not code and line.strip():
            skip, in_block = None, False	# a marker holds for one code block
        m = marker.search(line)
        if m:
            skip = m.group(1)
        in_block |= code
        text = line.strip()
        first, n = i + 1, i
        if code and re.match(r"(\$ )?tierlab ", text):
            while text.endswith("\\") and n + 1 < len(lines):
                n += 1
                text = text[:-1] + " " + lines[n].strip()
            cmd = text[2:] if text.startswith("$ ") else text
            following = lines[n + 1].strip() if n + 1 < len(lines) else ""
            # a synopsis names its placeholders: <spec.yaml>, [<options>]
            if not re.search(r"<[a-z]", cmd):
                if skip:
                    expect = "skip: " + skip
                elif text.startswith("$ ") and following.startswith("error:"):
                    expect = ":".join(following.split(":")[:2]) + ":"
                else:
                    expect = "0"
                print("%s\t%d\t%s\t%s" % (os.path.relpath(path, top), first, expect, cmd))
        i = n + 1
PY
nall=$(wc -l <"$scratch/examples")
[ "$nall" -ge 40 ] || fail "only $nall examples found: the extraction is broken:
$(cat "$scratch/examples")"

# the fixture: the specs the examples name, made tiny (HPCG at one thread: two would spin
# at their barriers against the tests beside this one), and a database
# whose latest experiment is hpcg-40pct (lru and window 16 and 128 beside
# one another), with hpcg-40pct-newkernel and a sweep of two rates logged
fix=$scratch/fixture
mkdir -p "$fix/experiments/machines" "$fix/docs/img" "$fix/results"
cp "$top/experiments/machines/xeon-max-9468.yaml" "$fix/experiments/machines/"
common='machine: {fast: "0", slow: "0"}
timeout: 2m
baseline: {policy: all-fast}'
cat >"$fix/experiments/hpcg-40pct.yaml" <<YAML
name: hpcg-40pct
description: a stand-in for the docs' examples (tests/cli/doc-examples.sh)
workload: {name: hpcg, size: tiny, threads: 1}
runtime: {threshold: 256KiB, budget: 40%, sampler: fault, log: counters}
$common
matrix:
  policy: [all-fast, all-slow, lru, window]
  chunks: [2]
  rate: [10Hz]
  window: [16, 128]
YAML
cat >"$fix/experiments/demo.yaml" <<YAML
name: demo
workloads: [{name: hpcg, size: tiny}]
runtime: {threshold: 256KiB, budget: 40%, rate: 100Hz}
$common
matrix:
  policy: [all-fast, all-slow, none, lru]
  threads: [1]
YAML
cat >"$fix/experiments/simulate-hpcg.yaml" <<YAML
name: simulate-hpcg
workload: {name: hpcg, size: tiny, threads: 1}
runtime: {threshold: 64KiB, budget: 40%, sampler: fault, log: counters}
$common
matrix:
  policy: [all-fast, all-slow, lru]
  chunks: [2, 8]
  rate: [100Hz]
YAML
sed 's/^name: hpcg-40pct$/name: hpcg-40pct-newkernel/' "$fix/experiments/hpcg-40pct.yaml" >"$scratch/newkernel.yaml"
cat >"$scratch/sweep.yaml" <<YAML
name: sweep
workload: {name: hpcg, size: tiny, threads: 1}
runtime: {threshold: 256KiB, budget: 40%, log: log}
machine: {fast: "0", slow: "0"}
matrix:
  policy: [lru]
  rate: [10Hz, 100Hz]
YAML
for s in "$scratch/newkernel.yaml" "$scratch/sweep.yaml" "$fix/experiments/hpcg-40pct.yaml"; do
	(cd "$fix" && tierlab run -q "$s") >"$scratch/fixture.log" 2>&1 || fail "fixture: $s: $(cat "$scratch/fixture.log")"
done

# each file's examples in order, in a copy of the fixture
n=0 skipped=0
while IFS=$'\t' read -r file line expect cmd; do
	case $expect in
	skip:*)
		echo "not executed: $file:$line: $cmd (${expect#skip: })"
		skipped=$((skipped + 1))
		continue ;;
	esac
	dir=$scratch/run/$(tr / _ <<<"$file")
	[ -d "$dir" ] || { mkdir -p "$scratch/run" && cp -r "$fix" "$dir"; }
	out=$(cd "$dir" && timeout 600 bash -c "$cmd" 2>&1 </dev/null)
	rc=$?
	if [ "$expect" = 0 ]; then
		[ $rc -eq 0 ] || fail "$file:$line: '$cmd' exited $rc:
$out"
	else
		[ $rc -ne 0 ] && grep -qF -- "$expect" <<<"$out" || fail "$file:$line: '$cmd' exited $rc, expected it to fail with '$expect':
$out"
	fi
	n=$((n + 1))
done <"$scratch/examples"
echo "$n examples ran as written, $skipped not executed (listed above)"
[ "$skipped" -lt 10 ] || fail "$skipped examples are not executed"
echo ok
