# `make install PREFIX=...` gives a tierlab that finds its workloads and
# parts from the installed layout, away from the source tree.
. "$(dirname "$0")/lib.sh"

# Installed as built: a build here would relink the programs and libraries the
# tests running beside this one are using (they failed with "Permission denied")
make -s -q -C "$top" tool B="$B" || fail "$B is older than its sources: make first"
make -s -C "$top" install B="$B" PREFIX="$scratch/prefix" >/dev/null 2>&1 || fail "make install failed"
cd "$scratch" || exit 1
expect_exit 0 "$scratch/prefix/bin/tierlab" list workloads
expect_contains "$out" "$scratch/prefix/share/tierlab/workloads"
expect_contains "$out" "hpcg"
cat >"$scratch/one.yaml" <<'YAML'
name: installed
workload: {name: hpcg, size: tiny}
YAML
expect_exit 0 "$scratch/prefix/bin/tierlab" run -q "$scratch/one.yaml"
expect_contains "$out" "1 ok"
expect_exit 0 "$scratch/prefix/bin/tierlab" report
expect_contains "$out" "GF/s"
echo ok
