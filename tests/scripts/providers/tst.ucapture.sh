# pid and usdt probes on the root route copy the user memory their
# clauses read (copyinstr, copyin of an argument) at the event, in the
# uprobe's BPF program: a -c program that exits at once has every string
# printed, none lost or read as "invalid address" (the process is gone
# when the records are processed, and its buffer was reused between
# calls).  Entry arguments, a return value, two strings in one clause,
# copyin bytes, strings as aggregation keys, and usdt string operands in
# registers and on the stack (-O0 and -O1 builds).
. ./lib.sh
need_root
N=500
build pidstr
cd "$W" || exit 1
# check FILE WHAT: every line of FILE is "<i> <WHAT>-<i>", for i 0..N-1
check() {
	awk -v n=$N -v w="$2" '
	NF == 0 { next }
	$1 == "pair" || $1 == "two" { next }
	$2 != w "-" $1 || seen[$1]++ { bad++ }
	{ k++ }
	END { if (k != n || bad) { printf "%d of %d, %d wrong\n", k, n, bad; exit 1 } }' "$1"
}
$DTRACE -q -c "./pidstr $N" -n '
pid$target:a.out:ps_str:entry { printf("%d %s\n", arg1, copyinstr(arg0)); }' \
    > out 2> err || fail "dtrace failed: $(cat err)"
[ ! -s err ] || fail "errors: $(head -3 err)"
r=$(check out str) || fail "entry strings: $r"
# a return value (arg1) pointing into a static buffer rewritten each call
$DTRACE -q -c "./pidstr $N" -n '
pid$target:a.out:ps_name:entry { self->i = arg0; }
pid$target:a.out:ps_name:return { printf("%d %s\n", self->i, copyinstr(arg1)); }' \
    > out 2> err || fail "dtrace failed: $(cat err)"
[ ! -s err ] || fail "errors: $(head -3 err)"
r=$(check out ret) || fail "return strings: $r"
# two strings, bytes through copyin, strings as keys
out=$($DTRACE -q -c "./pidstr $N" -n '
pid$target:a.out:ps_two:entry { printf("two %s %s\n", copyinstr(arg0), copyinstr(arg1)); }
pid$target:a.out:ps_blob:entry { tracemem(copyin(arg0, 16), 16); }
pid$target:a.out:ps_str:entry { @[copyinstr(arg0)] = count(); }
END { printa("%s %@d\n", @); }' 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -qx 'two left right' || fail "two strings: $out"
echo "$out" | grep -q ' 0: 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f ' ||
    fail "copyin bytes: $out"
k=$(echo "$out" | grep -Ec '^str-[0-9]+ 1$')
[ "$k" = $N ] || fail "string keys: $k of $N: $(echo "$out" | head -5)"
echo "$out" | grep -q 'invalid address' && fail "faults: $out"
# usdt string operands: in a register, and on the stack (the pair probe's
# volatile locals at -O1: 8@40(%rsp))
[ -f /usr/include/sys/sdt.h ] || [ -f /usr/include/x86_64-linux-gnu/sys/sdt.h ] ||
    { echo "PASS (pid only: no <sys/sdt.h> for the usdt half)"; exit 0; }
for o in 0 1; do
	cc -O$o -o "usdtstr$o" "$OLDPWD/w_usdtstr.c" || fail "usdt workload build"
	$DTRACE -q -c "./usdtstr$o $N" -n '
	ustrtest$target:::name { printf("%d %s\n", arg1, copyinstr(arg0)); }
	ustrtest$target:::pair { printf("pair %s %s\n", copyinstr(arg0), copyinstr(arg1)); }' \
	    > out 2> err || fail "dtrace failed (-O$o): $(cat err)"
	[ ! -s err ] || fail "errors (-O$o): $(head -3 err)"
	r=$(check out str) || fail "usdt strings (-O$o): $r"
	grep -qx 'pair left right' out || fail "usdt pair (-O$o): $(tail -3 out)"
done
exit 0
