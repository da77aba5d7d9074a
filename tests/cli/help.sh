# Every command's -h prints the usage generated from its option table, and
# its docs page (docs/commands/NAME.md) shows the same synopsis line.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$TIERLAB" --help
cmds=$(sed -n 's/^   \([a-z]*\) .*/\1/p' <<<"$out")
[ -n "$cmds" ] || fail "no commands listed by --help"
for c in $cmds; do
	expect_exit 0 "$TIERLAB" "$c" -h
	synopsis=$(sed -n 's/^usage: //p' <<<"$out")
	[ -n "$synopsis" ] || fail "'tierlab $c -h' printed no usage line"
	doc="$top/docs/commands/$c.md"
	[ -f "$doc" ] || fail "no $doc"
	grep -Fq -- "$synopsis" "$doc" || fail "$doc does not show the synopsis '$synopsis'"
	# every long option the command accepts is documented
	for opt in $(grep -o -- '--[a-z][a-z-]*' <<<"$out" | sort -u); do
		[ "$opt" = --help ] && continue
		grep -Fq -- "$opt" "$doc" || fail "$doc does not document $opt"
	done
	expect_exit 0 "$TIERLAB" help "$c"
done
echo ok
