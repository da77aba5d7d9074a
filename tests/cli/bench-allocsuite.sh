# bench/allocsuite on a fake mimalloc-bench checkout of tiny programs of
# our own under the names the recipe builds (larson, mstress, mleak): the
# programs are built and run in pairs under every allocator, and the
# tables have their shape: one row per program that has sources, one
# column per allocator, "median [min-max]" cells, a throughput table with
# only the program that prints one, FAIL for a program that fails under
# one allocator, the missing programs listed, and the runtime's managed
# allocations (a block freed and allocated again comes from its cache);
# a kept work directory resumes without measuring again. No time is
# asserted.
. "$(dirname "$0")/lib.sh"
run=$top/bench/allocsuite/run
for f in "$B/lib/tierlab/libtiermem.so" "$B/lib/tierlab/libfatalloc.so" "$B/tests/tiermem/counters-dump"; do
	[ -e "$f" ] || fail "build first: $f"
done
command -v c++ >/dev/null || skip "no C++ compiler"
[ -x /usr/bin/time ] || skip "GNU time (/usr/bin/time) not installed"

S=$scratch/fake/bench
mkdir -p "$S/larson" "$S/mstress" "$S/mleak"
# larson: prints a throughput line as the real one does; built twice (-DSIZED for larsonN-sized)
cat >"$S/larson/larson.cpp" <<'EOF'
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv)
{
	long n = 0;
	for (int i = 0; i < 20000; i++) {
		char *p = new char[64 + i % 512];
		p[0] = 1;
		n += p[0];
		delete[] p;
	}
	std::printf("Throughput = %8.0f operations per second, relative time: 1.000s.\n", (double)n * 100 + argc);
	return 0;
}
EOF
# mstress: one 1 MiB block freed and allocated again, 20 times
cat >"$S/mstress/mstress.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
int main(void)
{
	for (int i = 0; i < 20; i++) {
		char *p = malloc(1 << 20);
		if (!p)
			return 1;
		memset(p, i, 1 << 20);
		free(p);
	}
	return 0;
}
EOF
# mleak: fails under libfatalloc only, so its cells say FAIL
cat >"$S/mleak/mleak.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
int main(void)
{
	const char *pre = getenv("LD_PRELOAD");
	free(malloc(100));
	return pre && strstr(pre, "libfatalloc") ? 1 : 0;
}
EOF

allocs=glibc-thp,fat,tiermem,tiermem-fault
je=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -n 1)
[ -n "$je" ] && allocs=jemalloc,$allocs
mi=$(ls /usr/lib/*/libmimalloc.so.2 2>/dev/null | head -n 1)
[ -n "$mi" ] && allocs=mimalloc,$allocs,tiermem-mimalloc
expect_exit 0 "$run" --suite "$scratch/fake" --build "$B" --work "$scratch/work" --rounds 2 --threads 2 \
	--allocators "$allocs" --threshold 512KiB
echo "$out" | sed -n '/^bench\/allocsuite:/,$p'
expect_contains "$out" "2 pair(s) per cell, --threads 2, libtiermem threshold 512KiB"
expect_contains "$out" "sources missing in the checkout, not run: cfrac espresso barnes alloc-test1"
expect_not_contains "$out" "not run: larsonN"
for prog in cfrac barnes; do
	! grep -q "^| $prog |" <<<"$out" || fail "a row for $prog, whose sources are missing"
done

# table TITLE: the lines of the table under the line starting with TITLE
table() { awk -v t="$1" 'index($0, t) == 1 {on = 1; next} on && /^\|/ {print; seen = 1; next} seen {exit}' <<<"$out"; }
header="| program | glibc | $(tr ',' '\n' <<<"$allocs" | paste -sd'|' | sed 's/|/ | /g') |"
cellre='[0-9]+\.[0-9]{2} \[[0-9]+\.[0-9]{2}-[0-9]+\.[0-9]{2}\]'
for t in "Wall time" "Throughput metric" "Per CPU share" "CPU time" "Peak RSS"; do
	tab=$(table "$t")
	[ -n "$tab" ] || fail "no table '$t'"
	[ "$(sed -n 1p <<<"$tab")" = "$header" ] || fail "table '$t' header: $(sed -n 1p <<<"$tab"), expected $header"
	case $t in
	"Throughput metric"|"Per CPU share") rows="larsonN larsonN-sized" ;;
	*) rows="larsonN larsonN-sized mstressN mleak10 mleak100" ;;
	esac
	[ "$(sed 1,2d <<<"$tab" | wc -l)" -eq "$(wc -w <<<"$rows")" ] || fail "table '$t': rows are not $rows:
$tab"
	for prog in $rows; do
		line=$(grep "^| $prog |" <<<"$tab") || fail "table '$t': no row $prog"
		ncells=$(awk -F' [|] ' '{print NF - 2}' <<<"${line% |}")
		[ "$ncells" -eq "$(tr ',' ' ' <<<"$allocs" | wc -w)" ] || fail "table '$t', $prog: $ncells cells: $line"
		for a in $(tr ',' ' ' <<<"$allocs"); do
			col=$(($(tr ',' '\n' <<<"$allocs" | grep -nx "$a" | cut -d: -f1) + 2))
			c=$(awk -F' [|] ' -v k="$col" '{print $k}' <<<"${line% |}")
			# these programs take under GNU time's 10 ms of CPU: there may be no ratio of CPU times
			case $t,$c in "Per CPU share,-"|"CPU time,nan [nan-nan]") continue ;; esac
			case $prog,$a in
			mleak*,fat) [ "$c" = "FAIL (fat exit 1)" ] || fail "$prog under fat: '$c', expected FAIL (fat exit 1)" ;;
			*,tiermem-fault) [ "$c" = n/a ] || grep -Eqx "$cellre" <<<"$c" || fail "table '$t', $prog, $a: '$c'" ;;
			*) grep -Eqx "$cellre" <<<"$c" || fail "table '$t', $prog, $a: '$c' is not 'median [min-max]'" ;;
			esac
		done
	done
done
grep -Eq '^\| larsonN \| [0-9.e+]+ \|' <<<"$(table "Throughput metric")" || fail "glibc's own throughput missing"
grep -Eq '^\| mstressN \| [0-9.]+ s \|' <<<"$(table "Wall time")" || fail "glibc's own wall time missing"
grep -Eq '^\| mstressN \| [0-9.]+ MiB \|' <<<"$(table "Peak RSS")" || fail "glibc's own peak RSS missing"
# the runtime managed mstress's 1 MiB blocks, 19 of 20 from its cache
expect_contains "$out" "tiermem, per run: managed allocations (reused from the cache of freed regions), first round:"
expect_contains "$out" "- mstressN: 20 (19)"
expect_contains "$out" "- larsonN: 0 (0)"

# a kept --work resumes: nothing measured again, the same tables
first=$(sed -n '/^Wall time/,$p' <<<"$out")
expect_exit 0 "$run" --suite "$scratch/fake" --build "$B" --work "$scratch/work" --rounds 2 --threads 2 \
	--allocators "$allocs" --threshold 512KiB
expect_not_contains "$out" "round 1/2:"
[ "$(sed -n '/^Wall time/,$p' <<<"$out")" = "$first" ] || fail "the tables changed when nothing was measured again"
expect_exit 2 "$run" --suite "$scratch/fake" --build "$B" --work "$scratch/work" --threshold 1MiB
expect_contains "$out" "holds results of other settings"

# --base: the pairs against another allocator, its column first; the CPU tables too
if [ -n "$mi" ]; then
	expect_exit 0 "$run" --suite "$scratch/fake" --build "$B" --rounds 1 --threads 2 --only larsonN,mstressN \
		--base mimalloc --allocators tiermem-mimalloc --threshold 512KiB
	for t in "Wall time, allocator / mimalloc" "Throughput metric printed by the program, allocator / mimalloc" \
		"Per CPU share: the throughput metric x wall / CPU time, allocator / mimalloc" \
		"CPU time (user + system), allocator / mimalloc" "Peak RSS, allocator / mimalloc"; do
		tab=$(table "$t")
		[ "$(sed -n 1p <<<"$tab")" = "| program | mimalloc | tiermem-mimalloc |" ] || fail "--base mimalloc, table '$t':
$tab"
		case $t in Per*|CPU*) grep -q "^| larsonN |" <<<"$tab" && continue ;; esac
		grep -Eq "^\| larsonN \| [0-9.e+]+( s| MiB)? \| $cellre \|$" <<<"$tab" || fail "--base mimalloc, table '$t': no larsonN cell:
$tab"
	done
	grep -q "^| mstressN |" <<<"$(table "Per CPU share")" && fail "a per-CPU-share row for mstressN, which prints no metric"
	expect_exit 2 "$run" --suite "$scratch/fake" --base mimalloc --allocators mimalloc
	expect_contains "$out" "--base mimalloc is also among --allocators"
fi
expect_exit 2 "$run" --suite "$scratch/fake" --base tcmalloc
expect_contains "$out" "--base: glibc, jemalloc, mimalloc, glibc-thp or fat, not 'tcmalloc'"
expect_exit 2 "$run" --suite "$scratch/nowhere"
expect_contains "$out" "not a mimalloc-bench checkout"
expect_exit 2 "$run" --suite "$scratch/fake" --only nosuch --work "$scratch/work"
expect_contains "$out" "unknown program 'nosuch'"
expect_exit 2 "$run" --suite "$scratch/fake" --allocators tcmalloc
expect_contains "$out" "unknown allocator 'tcmalloc'"
expect_exit 0 "$run" --suite "$scratch/fake" --threads 2 --list
expect_contains "$out" "rptestN: rptest 2 0 1 2 500 1000 100 8 16000  (throughput metric)"
echo ok
