# A database tierlab cannot write (issue 27): a new one on a read-only file
# system said only SQLite's "unable to open database file". Now the error
# names the read-only directory before SQLite opens anything; an existing
# database there is refused to a run in words (and still read by report).
# As root: a tmpfs mounted read-only in a private mount namespace (it goes
# with the namespace, whatever happens to the test); otherwise a directory
# without write permission.
. "$(dirname "$0")/lib.sh"

cat >"$scratch/spec.yaml" <<YAML
name: ro
workload: {name: t, command: [/bin/echo, "fom: 1"], fom: {regex: "fom: ([0-9]+)"}}
machine: {fast: "0", slow: "0"}
YAML
mkdir -p "$scratch/ro"

if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare -m --propagation private true 2>/dev/null; then
	cat >"$scratch/in-ns.sh" <<EOF
set -e
mount -t tmpfs -o size=4m tmpfs '$scratch/ro'
TIERLAB_DB='$scratch/ro/old.db' '$TIERLAB' run -q '$scratch/spec.yaml' >/dev/null
mount -o remount,ro '$scratch/ro'
set +e
echo "== new"; TIERLAB_DB='$scratch/ro/new.db' '$TIERLAB' run -q '$scratch/spec.yaml'; echo "rc=\$?"
echo "== old"; TIERLAB_DB='$scratch/ro/old.db' '$TIERLAB' run -q '$scratch/spec.yaml'; echo "rc=\$?"
echo "== report"; TIERLAB_DB='$scratch/ro/old.db' '$TIERLAB' report; echo "rc=\$?"
EOF
	out=$(unshare -m --propagation private bash "$scratch/in-ns.sh" 2>&1) || fail "in the namespace: $out"
	new=$(sed -n '/^== new/,/^== old/p' <<<"$out")
	expect_contains "$new" "error: database '$scratch/ro/new.db': its directory '$scratch/ro' is on a read-only file system: a new database cannot be made there"
	expect_contains "$new" "rc=2"
	expect_not_contains "$new" "unable to open database file"
	old=$(sed -n '/^== old/,/^== report/p' <<<"$out")
	expect_contains "$old" "error: database '$scratch/ro/old.db': on a read-only file system: runs cannot be stored in it"
	expect_contains "$old" "rc=2"
	expect_contains "$(sed -n '/^== report/,$p' <<<"$out")" "rc=0"
	mountpoint -q "$scratch/ro" && fail "the tmpfs outlived its namespace"
else
	chmod 555 "$scratch/ro"
	expect_exit 2 env TIERLAB_DB="$scratch/ro/new.db" "$TIERLAB" run -q "$scratch/spec.yaml"
	expect_contains "$out" "its directory '$scratch/ro' is read-only to you (Permission denied): a new database cannot be made there"
	chmod 755 "$scratch/ro"
fi
echo ok
