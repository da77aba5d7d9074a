# tierlab probe on this machine (one node): the text and the JSON carry the
# same facts (parsed with python3 and compared line by line), one node with
# distances [[10]], counters as this VM has them, --save into the store.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"

expect_exit 0 "$TIERLAB" probe --quick --size 16M
text=$out
expect_exit 0 "$TIERLAB" probe --quick --size 16M --format json
printf '%s\n' "$out" >"$scratch/probe.json"
printf '%s\n' "$text" >"$scratch/probe.txt"

python3 - "$scratch/probe.json" "$scratch/probe.txt" <<'PY' || fail "text and JSON disagree"
import json, re, sys
j = json.load(open(sys.argv[1]))
t = open(sys.argv[2]).read()
def need(s):
    if s not in t:
        sys.exit("text lacks %r" % s)
assert len(j["nodes"]) == 1, j["nodes"]
need("nodes: %d\n" % len(j["nodes"]))
assert j["distances"] == [[10]], j["distances"]
for n in j["nodes"]:
    need("node %d: cpus %s, memory %d MiB" % (n["id"], n["cpus"] or "none", n["memory_bytes"] >> 20))
    assert n["ncpus"] >= 1 and n["memory_bytes"] > 0
    # measured twice (text run and JSON run): the same node measured, both positive
    assert n["skipped"] is None and n["latency_ns"] > 0 and n["read_gbs"] > 0 and n["copy_gbs"] > 0, n
    assert re.search(r"^\s+%d\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+$" % n["id"], t, re.M), "no measured row"
for d in j["distances"]:
    need("     0" + "".join(" %4d" % v for v in d))
for tier in j["tiers"]:
    need("tier %d: nodes %s" % (tier["id"], tier["nodes"]))
r = j["recommendation"]
assert r["basis"] == "measured" and r["latency_bound"] == "0" and r["bandwidth_bound"] == "0", r
assert r["fast"] == "0" and r["slow"] is None, r
need("fastest for latency-bound work: nodes 0 (by measured)")
need("fastest for bandwidth-bound work: nodes 0 (by measured)")
need("machine profile: fast 0, slow none")
m = j["migration"]
assert m["move_gbs"] is None and m["skipped"] == "one memory tier: nothing to move between", m
need("migration: not measured (one memory tier: nothing to move between)")
for c in j["counters"]:
    if c["available"]:
        need("%-18s ok" % c["event"])
    else:
        need("%-18s unavailable: %s" % (c["event"], c["reason"]))
ev = {c["event"]: c["available"] for c in j["counters"]}
assert ev["task-clock"] and ev["page-faults"], ev
need("thp: enabled %s, defrag %s" % (j["thp"]["enabled"], j["thp"]["defrag"]))
for h in j["hugetlb"]:
    need("pages %d (%d free)" % (h["pages"], h["free"]))
PY

# THP state is the kernel's
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
expect_contains "$text" "thp: enabled $thp,"

# --save: a row in machine_profiles whose JSON is the probe's
expect_exit 0 "$TIERLAB" probe --quick --size 16M --save here --db "$scratch/p.db"
expect_contains "$out" "saved machine profile 'here'"
if command -v sqlite3 >/dev/null; then
	got=$(sqlite3 "$scratch/p.db" "SELECT json_extract(json, '\$.recommendation.fast'), json_array_length(json, '\$.nodes'), (SELECT user_version FROM pragma_user_version) FROM machine_profiles WHERE name = 'here'")
	[ "$got" = "0|1|5" ] || fail "stored profile: '$got' (fast node, nodes, schema version 5)"
fi

# bad input
expect_exit 2 "$TIERLAB" probe --format yaml
expect_contains "$out" "unknown format 'yaml'"
expect_exit 2 "$TIERLAB" probe --size 12parsecs
expect_exit 2 "$TIERLAB" probe --cpu-node 9 --quick --size 4M
expect_contains "$out" "--cpu-node 9"
echo ok
