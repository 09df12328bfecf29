# The pid provider's use of the instruction decoder (w_pidrets.c, a
# function in assembly with three rets and a tail jump): return probes
# fire at each returning instruction with arg0 its offset (exact counts
# per offset, against the offsets objdump shows), instruction probes by
# glob are every instruction and only those (the list against objdump's,
# exact per-instruction counts at the branch targets), and an offset
# inside an instruction is refused with dtrace's message.
. ./lib.sh
need_root
command -v objdump > /dev/null || { echo "no objdump to read the workload"; exit 77; }
build pidrets
cd "$W" || exit 1
# pr_pick's instructions as offsets (hex, no leading zeros) and mnemonics
objdump -d --no-show-raw-insn pidrets | awk '
/^[0-9a-f]+ <pr_pick>:$/ { print "base", $1; on = 1; next }
on && /^$/ { exit }
on { sub(":", "", $1); print $1, $2 }' > raw || fail "objdump failed"
base=$(awk '$1 == "base" { print $2 }' raw)
[ -n "$base" ] || fail "no pr_pick in the workload"
grep -v '^base ' raw | while read -r a m; do
	printf '%x %s\n' $((0x$a - 0x$base)) "$m"
done > insns
[ "$(wc -l < insns)" -eq 15 ] || fail "pr_pick is not the expected shape: $(cat insns)"
rets=$(awk '$2 == "ret" || $2 == "repz" || $2 == "jmp" { print $1 }' insns)
set -- $rets
[ $# -eq 4 ] || fail "expected 3 rets and a jmp: $(cat insns)"
# each returning instruction with its count (x order: ret, ret, repz
# ret, tail jmp) and the sum of the rets' return values
out=$($DTRACE -q -c ./pidrets -n '
pid$target:a.out:pr_pick:return { @[arg0] = count(); }
pid$target:a.out:pr_pick:return /arg0 != '0x$4'/ { @v = sum(arg1); }
END { printa("r %x %@d\n", @); printa("v %@d\n", @v); }' 2>&1) ||
    fail "dtrace failed: $out"
for want in "r $1 50" "r $2 3" "r $3 38" "r $4 9" "v 1700"; do
	echo "$out" | grep -qx "$want" || fail "return: want '$want': $out"
done
[ "$(echo "$out" | grep -c '^r ')" -eq 4 ] || fail "other returns: $out"
# the probe list of name glob '*': entry, return and one probe per
# instruction, named by its hex offset
$DTRACE -l -c ./pidrets -n 'pid$target:a.out:pr_pick:*' > list 2>&1 ||
    fail "dtrace -l failed: $(cat list)"
awk 'NR > 1 && $2 ~ /^pid/ { print $5 }' list | sort > got
{ echo entry; echo return; cut -d' ' -f1 insns; } | sort > want
cmp -s got want || fail "instruction probes: $(diff want got)"
# every instruction probe fires as often as its instruction runs
out=$($DTRACE -q -c ./pidrets -n '
pid$target:a.out:pr_pick:* { @[probename] = count(); }
END { printa("%s %@d\n", @); }' 2>&1) || fail "dtrace failed: $out"
for want in "entry 100" "return 100" "0 100" "2 100" "4 91" "$1 50" "$2 3" "$3 38" \
    "$4 9"; do
	echo "$out" | grep -qx "$want" || fail "glob: want '$want': $out"
done
# an instruction probe inside an instruction: refused
out=$($DTRACE -q -c ./pidrets -n 'pid$target:a.out:pr_pick:1 { }' 2>&1) &&
    fail "offset 1 accepted: $out"
echo "$out" | grep -q 'offset 0x1 is not aligned on an instruction' ||
    fail "offset 1: $out"
exit 0
