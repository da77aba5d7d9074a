# tierlab show --allocations over the fixture database's log
# (tests/plot/make-fixture.sh, run 10), against numbers worked by hand:
# pid 300's allocation 0 (64 MiB, freed at 1.5 s) holds the samples at 1.2
# and 1.3 s, a hit and a miss (50%), and was placed slow then had 8 MiB
# moved to the fast tier (8 MiB at the end); allocation 1 (32 MiB, never
# freed) holds 3 samples, 2 hits (66.7%), placed fast less 8 MiB moved
# out (24 MiB); the sample outside managed memory counts in neither; pid
# 301's allocation has its one hit. A run without a log says so.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
"$top/tests/plot/make-fixture.sh" "$TIERLAB" "$TIERLAB_DB" || fail "the fixture was not made"

expect_exit 0 "$TIERLAB" show --allocations 10
grep -Eq '^ +300 +0 +0\.000 +1\.500 +64\.00 +2 +50\.0% +8\.00  /opt/app/bin/app\+0x1234$' <<<"$out" ||
	fail "pid 300 allocation 0: expected 64 MiB freed at 1.5 s, 2 samples, 50%, 8 MiB fast:
$out"
grep -Eq '^ +300 +1 +0\.100 +- +32\.00 +3 +66\.7% +24\.00  /opt/app/bin/app\+0x1300$' <<<"$out" ||
	fail "pid 300 allocation 1: expected 32 MiB never freed, 3 samples, 66.7%, 24 MiB fast:
$out"
grep -Eq '^ +301 +0 .* 1 +100\.0% +0\.00  /opt/app/bin/app\+0x1234$' <<<"$out" ||
	fail "pid 301 allocation 0: expected 1 sample, 100%, nothing fast:
$out"
[ "$(grep -c 'app+0x' <<<"$out")" = 3 ] || fail "expected 3 allocations:
$out"
expect_exit 0 "$TIERLAB" show --allocations 1
expect_contains "$out" "none logged"
echo ok
