# The architecture's rules, as docs/architecture.md states them:
# - the folders of lib/ and cmd/ include one another in one direction only:
#   a file includes headers of its own folder and of the folders listed
#   below its own in the layer list, never above (no cycle between folders),
#   and every folder is in the list;
# - only lib/store/ talks to SQLite (one writer, one query module);
# - a policy, a sampler and a report format are each one file plus one row
#   ("How to add" in docs/architecture.md): every one defined has its row.
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
grep -q 'sqlite3_step' lib/store/store.c || fail "lib/store/store.c steps no statement: is the scan broken?"
# each defined policy, sampler and report format has its one row
rows() { sed -n "/#define $1(X)/,/^\$/p" "$2"; }
n=0
for id in $(sed -n 's/^TLP_POLICY_ENTRY(\([a-z_0-9]*\),.*/\1/p' lib/policies/*.c); do
	rows TLP_BUILTINS lib/policies/policies.h | grep -q "X($id," || fail "policy '$id' has no row in TLP_BUILTINS"
	n=$((n + 1))
done
for ops in $(sed -n 's/^const struct rt_sampler_ops \(rt_sampler_[a-z_0-9]*\) = .*/\1/p' lib/tiermem/sampler-*.c); do
	rows TL_SAMPLERS lib/axis/axes.h | grep -q " $ops," || fail "sampler '$ops' has no row in TL_SAMPLERS"
	n=$((n + 1))
done
for name in $(sed -n 's/^int tl_report_print_\([a-z_0-9]*\)(const struct tl_report .*/\1/p' lib/report/report-*.c); do
	rows TL_REPORT_FORMATS lib/report/report.h | grep -q ", $name)" || fail "report format '$name' has no row"
	n=$((n + 1))
done
[ "$n" -ge 12 ] || fail "only $n policies, samplers and formats found: is the scan broken?"
echo "ok: $edges includes between folders, all pointing down; SQLite only in lib/store/; $n policies, samplers and formats, one row each"
