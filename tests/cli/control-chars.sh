# Text a spec or a workload wrote (a unit, an argument, a workload's
# stderr) reaches the terminal made visible: the progress lines and `show`
# print "\x1b[2J", never the escape sequence itself, as `report` does.
. "$(dirname "$0")/lib.sh"

cat >"$scratch/c.yaml" <<'YAML'
name: ctl
workloads:
  - name: good
    command: [sh, -c, "echo 'rate: 2'", "x\e[2Jy"]
    fom: {regex: "rate: ([0-9.]+)", unit: "GF\e[2J/s"}
  - name: bad
    command: [sh, -c, "printf 'boom\\033[2J\\r\\n' >&2; exit 1", "a\e]0;title\ab"]
YAML
esc=$(printf '\033')
no_escape() { ! grep -q "$esc" <<<"$2" || fail "$1 printed a raw escape character:
$(cat -v <<<"$2")"; }

expect_exit 1 "$TIERLAB" run -q "$scratch/c.yaml"
no_escape "run" "$out"
expect_contains "$out" 'GF\x1b[2J/s'
for id in 1 2; do
	expect_exit 0 "$TIERLAB" show "$id"
	no_escape "show $id" "$out"
	! grep -q $'\r' <<<"$out" || fail "show $id printed a raw carriage return"
done
expect_contains "$out" 'boom\x1b[2J\r'
expect_contains "$out" 'a\x1b]0;title\x07b'
expect_exit 0 "$TIERLAB" report
no_escape "report" "$out"
echo ok
