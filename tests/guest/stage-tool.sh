# Sourced by the guest tests after tests/cli/lib.sh. stage_tool PROGRAM:
# the installed tool (make install into $scratch/root, without the
# workloads: only tierlab, its runtime and allocators), PROGRAM as
# /opt/tierlab-test/NAME, and every shared library they need (ldd) at the
# paths the loader looks for them; sets adds to run-in-guest.sh's --add
# arguments for all of it.
stage_tool() {
	local stage=$scratch/root f lib d
	make -s -C "$top" install B="$B" DESTDIR="$stage" PREFIX=/usr >"$scratch/install.log" 2>&1 ||
		fail "make install failed: $(tail -n 5 "$scratch/install.log")"
	install -D -m 755 "$1" "$stage/opt/tierlab-test/$(basename "$1")"
	for f in "$stage"/usr/bin/* "$stage"/usr/lib/tierlab/* "$stage"/opt/tierlab-test/*; do
		LC_ALL=C ldd "$f" 2>/dev/null | sed "s|^|$f: |"
	done >"$scratch/ldd.txt"
	! grep 'not found' "$scratch/ldd.txt" || fail "a library the installed programs need is missing on this machine"
	awk '$3 == "=>" && $4 ~ /^\// { print $4 } $2 ~ /^\// { print $2 }' "$scratch/ldd.txt" | sort -u >"$scratch/libs.txt"
	while read -r lib; do
		mkdir -p "$stage$(dirname "$lib")" && cp -L "$lib" "$stage$lib" || fail "cannot copy $lib"
	done <"$scratch/libs.txt"
	rm -rf "$stage/usr/libexec"
	adds=()
	for d in "$stage"/*; do
		adds+=(--add "$d:/$(basename "$d")")
	done
}
