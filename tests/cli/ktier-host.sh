# The kernel policies (autonuma, damos) on this host, which has one NUMA
# node and one memory tier, and whose DAMON (a kdamond that runs) belongs
# to the machine: `tierlab run` must refuse each before the database is
# made, with the reason, and change nothing. Under strace, nothing under
# /proc/sys/kernel, /sys/kernel/mm or /sys/devices/system/node is opened
# for writing; numa_balancing, demotion_enabled, nr_kdamonds and the
# kdamonds' states read the same after. The reasons checked are the
# pieces this host lacks, read from the host itself: not root, else one
# memory tier (the fast node not ranked above the slow one) and, for
# damos, DAMON busy (a kdamond runs that is not tierlab's): a refusal names
# every missing piece. Also: an unknown parameter of a
# kernel policy is refused by the spec with did-you-mean, and
# `tierlab list policies` names both with their parameters.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace not installed (it shows that nothing is written)"
tiers=/sys/devices/virtual/memory_tiering
admin=/sys/kernel/mm/damon/admin/kdamonds

out=$("$TIERLAB" list policies 2>&1)
expect_contains "$out" "autonuma takes rate_limit"
expect_contains "$out" "damos takes quota_mb"

snapshot() {
	cat /proc/sys/kernel/numa_balancing /sys/kernel/mm/numa/demotion_enabled 2>/dev/null
	cat "$admin/nr_kdamonds" "$admin"/[0-9]*/state 2>/dev/null
	cat /sys/devices/system/node/node*/hugepages/hugepages-2048kB/nr_hugepages 2>/dev/null
}

spec() {	# spec POLICY [ARGS]
	cat >"$scratch/$1.yaml" <<YAML
name: ktier-host
workload: {name: sleep, command: [/bin/true], fom: {regex: "x([0-9]+)"}}
machine: {fast: "0", slow: "0"}
runtime: {budget: 16MiB}
matrix:
  policy: [$1]
${2:+  policy_args: [\"$2\"]}
YAML
}

ntiers=$(ls -d "$tiers"/memory_tier* 2>/dev/null | wc -l)
for pol in autonuma damos; do
	spec $pol
	before=$(snapshot)
	rm -f "$TIERLAB_DB"
	strace -f -qq -o "$scratch/$pol.strace" -e trace=open,openat,openat2 \
		"$TIERLAB" run "$scratch/$pol.yaml" >"$scratch/$pol.out" 2>&1
	rc=$?
	out=$(cat "$scratch/$pol.out")
	[ $rc != 0 ] || fail "$pol ran on a host that cannot run it:
$out"
	expect_contains "$out" "policy '$pol' cannot run here: "
	if [ "$(id -u)" != 0 ]; then
		expect_contains "$out" "needs root"
	else
		[ "$ntiers" -ge 2 ] || expect_contains "$out" "the kernel does not rank fast node 0 above slow node 0"
		if [ $pol = damos ] && [ "$(cat "$admin/nr_kdamonds" 2>/dev/null || echo 0)" != 0 ]; then
			state=$(cat "$admin/0/state")
			if [ "$state" = on ]; then
				expect_contains "$out" "DAMON is busy: kdamond 0 runs (pid $(cat "$admin/0/pid")) and is not tierlab's"
			else
				expect_contains "$out" "DAMON is configured by someone else"
			fi
		fi
	fi
	[ ! -e "$TIERLAB_DB" ] || fail "$pol: the database was made although the run was refused"
	bad=$(grep -E '"/(proc/sys/kernel|sys/kernel/mm|sys/devices/system/node)[^"]*", [^)]*(O_WRONLY|O_RDWR)' "$scratch/$pol.strace" || true)
	[ -z "$bad" ] || fail "$pol: a kernel setting was opened for writing:
$bad"
	[ "$(snapshot)" = "$before" ] || fail "$pol: the kernel's settings changed:
before: $before
after: $(snapshot)"
	echo "$pol refused: $(grep -o "cannot run here: .*" <<<"$out")"
done

spec damos "quota_bm=10"
expect_exit 2 "$TIERLAB" run "$scratch/damos.yaml"
expect_contains "$out" "no policy of this spec takes a parameter 'quota_bm' (did you mean 'quota_mb'?)"
echo ok
