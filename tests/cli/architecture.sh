# The architecture's rules, as docs/architecture.md states them:
# - the folders of lib/ and cmd/ include one another in one direction only:
#   a file includes headers of its own folder and of the folders listed
#   below its own in the layer list, never above (no cycle between folders),
#   and every folder is in the list;
# - only lib/store/ talks to SQLite (one writer, one query module).
. "$(dirname "$0")/lib.sh"

doc="$top/docs/architecture.md"
layers=$(sed -n '/<!-- layers: top to bottom -->/,/<!-- \/layers -->/p' "$doc" | grep -v '<!--')
[ -n "$layers" ] || fail "no layer list in $doc"

declare -A rank
r=$(wc -l <<<"$layers")
while read -r line; do
	for word in $line; do
		case $word in
		*/) rank[${word%/}]=$r ;;
		*) break ;;
		esac
	done
	r=$((r - 1))
done <<<"$layers"
[ ${#rank[@]} -ge 10 ] || fail "only ${#rank[@]} folders in the layer list"

cd "$top" || exit 2
for dir in cmd lib/*/; do
	f=${dir%/}; f=${f#lib/}
	[ -n "${rank[$f]:-}" ] || fail "folder '$f' is not in the layer list of docs/architecture.md"
done

bad=0 edges=0
while IFS=: read -r file line inc; do
	from=${file#lib/}; from=${from%%/*}
	to=${inc#*\"}; to=${to%%/*}
	[ "$to" = "$from" ] && continue
	[ -n "${rank[$to]:-}" ] || continue	# a header of the same folder, by its plain name
	edges=$((edges + 1))
	if [ "${rank[$to]}" -ge "${rank[$from]}" ]; then
		echo "$file:$line: $from/ includes $to/ (${inc#\#include }), which is not below it"
		bad=$((bad + 1))
	fi
done < <(find lib cmd -name '*.[ch]' | sort | xargs grep -n '^#include "[a-z-]*/')
[ "$edges" -gt 20 ] || fail "only $edges includes between folders found: is the scan broken?"
[ "$bad" -eq 0 ] || fail "$bad includes point up"

sql=$(grep -rln 'sqlite3' lib cmd | grep -v '^lib/store/' || true)
[ -z "$sql" ] || fail "SQLite used outside lib/store/: $sql"
grep -q 'sqlite3_step' lib/store/store-write.c || fail "lib/store/store-write.c writes nothing: is the scan broken?"
echo "ok: $edges includes between folders, all pointing down; SQLite only in lib/store/"
