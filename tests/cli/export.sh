# tierlab export over the fixture database (tests/plot/make-fixture.sh):
# every table in CSV and JSON against tests/golden/fixture/export.*; the
# JSON parses; NULLs stay empty / null (a sample outside managed memory,
# an allocation never freed, an unavailable counter); --run takes one run;
# a schema 2 database (before freed_ns) is read, not migrated;
# a big samples table streams: its peak memory stays that of a small one.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the command) is not installed"
golden=$top/tests/golden/fixture
"$top/tests/plot/make-fixture.sh" "$TIERLAB" "$TIERLAB_DB" || fail "the fixture was not made"
same() {
	if [ -n "${TIERLAB_UPDATE_GOLDEN:-}" ]; then
		cp "$2" "$golden/$1"
		return
	fi
	cmp -s "$golden/$1" "$2" || fail "$2 differs from $golden/$1:
$(diff "$golden/$1" "$2" | head -20)"
}
cd "$scratch" || fail "no scratch directory"
for t in samples migrations allocations counters report; do
	for f in csv json; do
		"$TIERLAB" export -f $f $t >"export-$t.$f" 2>&1 || fail "export -f $f $t failed: $(cat "export-$t.$f")"
		same "export-$t.$f" "export-$t.$f"
	done
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "export-$t.json" || fail "export-$t.json is not JSON"
done
grep -q '^lru8-10-10,10,300,2100000000,4096,,,$' <(tr -d '\r' <export-samples.csv) ||
	fail "the sample outside managed memory is not stored with hit, pc and tid empty"
grep -q '"hit": null' export-samples.json || fail "no null hit in JSON"
grep -q '"freed_ns": null' export-allocations.json || fail "no null freed_ns in JSON"
grep -q '"event": "cycles", "encoding": null, "value": null' export-counters.json ||
	fail "an unavailable counter is not null in JSON"

expect_exit 0 "$TIERLAB" export --run 10 samples
[ "$(grep -c '^lru8-10-10,' <<<"$out")" = 7 ] || fail "--run 10: expected its 7 samples:
$out"
expect_exit 2 "$TIERLAB" export nosuch
expect_contains "$out" "no table 'nosuch'"
expect_exit 2 "$TIERLAB" export -f xml samples

# a database from before schema 4 (no allocations.freed_ns) is read as it is: freed_ns empty, nothing migrated
cp "$TIERLAB_DB" old.db
sqlite3 old.db "ALTER TABLE allocations DROP COLUMN freed_ns; PRAGMA user_version = 3;" || fail "cannot make a schema 3 copy"
expect_exit 0 "$TIERLAB" export --db old.db --run 10 allocations
[ "$(tr -d '\r' <<<"$out" | grep -c ',$')" = 3 ] || fail "schema 3: freed_ns should be empty in every row:
$out"
expect_exit 0 "$TIERLAB" show --db old.db --allocations 10
expect_contains "$out" "/opt/app/bin/app+0x1234"
[ "$(sqlite3 old.db 'PRAGMA user_version')" = 3 ] || fail "a reader migrated the old database"

# streaming: 300,000 samples more cost no more memory than none (rows are written as they are read)
peak() { /usr/bin/time -f %M "$TIERLAB" export samples 2>&1 >/dev/null | tail -1; }
[ -x /usr/bin/time ] || { echo "no /usr/bin/time: streaming not measured"; echo ok; exit 0; }
small=$(peak)
sqlite3 "$TIERLAB_DB" "with recursive n(i) as (select 1 union all select i + 1 from n where i < 300000)
	insert into samples (run_id, pid, t_ns, addr, pc, tid, hit) select 10, 300, 4000000000 + i, 1099578736640 + i,
	4199000, 302, i % 2 from n;"
big=$(peak)
[ "$big" -lt $((small + 20000)) ] || fail "exporting 300,000 more samples took $big KiB at peak (vs $small KiB)"
echo "peak: $small KiB with 7 samples, $big KiB with 300,007"
echo ok
