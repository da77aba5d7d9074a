# The multi-node guest (tests/guest/run-in-guest.sh): a page moves between
# nodes in a 2-node guest with THP on; the probe library (statically linked,
# tests/guest/probe-driver.c) sees 2 nodes in one memory tier without HMAT,
# and 3 nodes, the distances set on the QEMU command line and three separate
# memory tiers with HMAT. Skips (77) when QEMU, the kernel or busybox is
# missing or the guest does not boot.
# tierlab-test: serial (boots a QEMU guest under TCG, which must come up within its timeout)
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
guest=$top/tests/guest/run-in-guest.sh
for b in move-check probe-driver; do
	[ -x "$B/guest/$b" ] || fail "$B/guest/$b is not built (make $B/guest/$b)"
done

# boot NAME ARGS...: runs the guest, console in $scratch/NAME.out; skips when it cannot boot.
boot() {
	local name=$1; shift
	timeout 120 "$guest" --timeout 60 "$@" >"$scratch/$name.out" 2>&1
	local rc=$?
	[ $rc = 77 ] && skip "$(grep -a -m1 "^SKIP" "$scratch/$name.out" | sed "s/^SKIP: //")"
	[ $rc = 0 ] || fail "guest $name exited $rc; console:
$(tail -n 30 "$scratch/$name.out")"
}

boot move --nodes 2 --thp always -- "$B/guest/move-check"
out=$(cat "$scratch/move.out")
expect_contains "$out" "numa_num_configured_nodes: 2"
expect_contains "$out" "moved to node 1: now on node 1"
expect_contains "$out" "moved to node 0: now on node 0"
expect_contains "$out" "GUEST-EXIT 0"

# extract NAME: the probe's JSON from the console into $scratch/NAME.json
extract() {
	tr -d '\r' <"$scratch/$1.out" | sed -n '/PROBE-JSON-BEGIN/,/PROBE-JSON-END/p' | sed '1d;$d' >"$scratch/$1.json"
	[ -s "$scratch/$1.json" ] || fail "no probe JSON in guest $1's console"
}

boot plain --nodes 2 -- "$B/guest/probe-driver" 8
extract plain
python3 - "$scratch/plain.json" <<'PY' || fail "2-node probe: $(cat "$scratch/plain.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert [n["id"] for n in j["nodes"]] == [0, 1], j["nodes"]
assert j["distances"] == [[10, 20], [20, 10]], j["distances"]
assert j["nodes"][0]["cpus"] == "0-1" and j["nodes"][1]["cpus"] == "" and j["nodes"][1]["ncpus"] == 0
# no HMAT: no attributes, and every node in one tier
assert all(n["hmat"] is None for n in j["nodes"])
assert len(j["tiers"]) == 1 and j["nodes"][0]["tier"] == j["nodes"][1]["tier"], j["tiers"]
# binding to the CPU-less node worked: measured, not skipped
assert all(n["skipped"] is None and n["latency_ns"] > 0 for n in j["nodes"]), j["nodes"]
PY

boot hmat --nodes 3 --hmat -- "$B/guest/probe-driver" 8
extract hmat
python3 - "$scratch/hmat.json" <<'PY' || fail "3-node HMAT probe: $(cat "$scratch/hmat.json")"
import json, sys
j = json.load(open(sys.argv[1]))
n = j["nodes"]
assert [x["id"] for x in n] == [0, 1, 2], n
assert j["distances"] == [[10, 14, 26], [14, 10, 30], [26, 30, 10]], j["distances"]
assert [x["ncpus"] for x in n] == [2, 0, 0]
# the attributes given to QEMU (latency ns; bandwidth 60G/190G/30G -> MB/s)
assert [x["hmat"]["read_latency_ns"] for x in n] == [100, 120, 250], [x["hmat"] for x in n]
assert [x["hmat"]["read_bandwidth_mbs"] for x in n] == [61440, 194560, 30720]
assert all(x["hmat"]["initiators"] == "0" for x in n)
# three separate tiers: the HBM-like node above DRAM, the CXL-like node below
tiers = [x["tier"] for x in n]
assert len(set(tiers)) == 3 and len(j["tiers"]) == 3, j["tiers"]
assert tiers[1] < tiers[0] < tiers[2], tiers
for t in j["tiers"]:
    assert t["nodes"] == str([x["id"] for x in n if x["tier"] == t["id"]][0]), t
assert all(x["skipped"] is None for x in n), n
# move throughput measured between the recommended tiers: pages moved from the slow set's node to the fast
# set's; when the measured figures (TCG's) put every node in one set, between the kernel's lowest and highest tiers
m, r = j["migration"], j["recommendation"]
assert m["skipped"] is None and m["move_gbs"] > 0 and m["move_cost_us"] >= 0, m
if r["slow"]:
    assert str(m["from"]) == r["slow"].split(",")[0].split("-")[0] and str(m["to"]) == r["fast"].split(",")[0].split("-")[0], (m, r)
else:
    assert str(m["from"]) == j["tiers"][-1]["nodes"] and str(m["to"]) == j["tiers"][0]["nodes"], (m, j["tiers"])
PY
# the text printer in the guest says the same
expect_contains "$(cat "$scratch/hmat.out")" "nodes: 3"
expect_contains "$(cat "$scratch/hmat.out")" "hmat: read latency 250 ns"
echo ok
