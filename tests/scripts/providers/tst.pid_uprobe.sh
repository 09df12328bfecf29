# The pid provider through uprobes (root) on a workload with known call
# counts (w_pidcalls.c): exact entry and return counts, arguments and
# return values, the returning instruction's offset (arg0) against an
# instruction probe at that offset, a libc function, globs on function
# names, copyinstr of an argument pointer, ustack/ucaller/usym family,
# a dlopen()ed library, -l listing of pid$target probes with -c, and bad input (no such pid,
# nothing matching, a stripped binary); without privileges, breakpoints.
. ./lib.sh
need_root
build pidcalls
cd "$W" || exit 1
# counts, arguments, return values
out=$($DTRACE -q -c ./pidcalls -n '
pid$target:a.out:pc_add:entry { @e = count(); @a = sum(arg1); }
pid$target:a.out:pc_add:return { @r = count(); @v = sum(arg1); }
pid$target:a.out:pc_leaf:return { @l = count(); @lv = max(arg1); }
END { printa("e %@d a %@d r %@d v %@d l %@d lv %@d\n", @e, @a, @r, @v, @l,
    @lv); }' 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -qx 'e 1000 a 999000 r 1000 v 1498500 l 7 lv 42' ||
    fail "counts: $out"
# return arg0: offset of the returning ret; an instruction probe there
# fires as often as the function returns
off=$($DTRACE -q -c ./pidcalls -n '
pid$target:a.out:pc_add:return { @[arg0] = count(); }
END { printa("%x %@d\n", @); }' 2>&1) || fail "dtrace failed: $off"
echo "$off" | grep -Eqx '[0-9a-f]+ 1000' || fail "return offsets: $off"
o=$(echo "$off" | grep -Ex '[0-9a-f]+ 1000' | cut -d' ' -f1)
[ "$o" != 0 ] || fail "return offset 0: the ret was not found"
out=$($DTRACE -q -c ./pidcalls -n "
pid\$target:a.out:pc_add:$o { @i = count(); }
pid\$target:a.out:pc_add:0 { @z = count(); }
END { printa(\"i %@d z %@d\n\", @i, @z); }" 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -qx 'i 1000 z 1000' || fail "instruction probes: $out"
# a libc function (module by file name), and globs on the function
out=$($DTRACE -q -c ./pidcalls -n '
pid$target:libc.so.6:exit:entry { printf("exit %d %s\n", arg0, probemod); }
pid$target:a.out:pc_*:entry { @[probefunc] = count(); }
END { printa("%s %@d\n", @); }' 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -qx 'exit 0 libc.so.6' || fail "libc exit: $out"
for want in 'pc_add 1000' 'pc_leaf 7' 'pc_str 1' 'pc_done 1'; do
	echo "$out" | grep -qx "$want" || fail "glob $want: $out"
done
# while the process is there (it pauses after pc_done): strings of
# argument pointers, stacks and symbols
out=$($DTRACE -q -c './pidcalls wait' -n '
pid$target:a.out:pc_str:entry { printf("str %s\n", copyinstr(arg0)); }
pid$target:a.out:pc_leaf:entry {
	@u[ufunc(ucaller), usym(uregs[R_PC]), umod(uregs[R_PC])] = count();
	@d = max(ustackdepth); @s[ustack(2)] = count();
}
pid$target:a.out:pc_leaf:return {
	@ru[usym(uregs[R_PC]), ufunc(ucaller)] = count();
	@ra[uaddr(uregs[R_PC]), arg0] = count();
}
pid$target:a.out:pc_done:entry { exit(0); }
END { printa("u %A %A %A %@d\n", @u); printa("d %@d\n", @d); printa(@s);
    printa("ru %A %A %@d\n", @ru); printa("ra %A %x %@d\n", @ra); }' 2>&1) ||
    fail "dtrace failed: $out"
# at a return probe, as fasttrap's: uregs[R_PC] is the returning
# instruction (function + arg0) in the function, ucaller its caller
echo "$out" | grep -qx 'ru pidcalls`pc_leaf pidcalls`main 7' ||
    fail "return usym/ucaller: $out"
echo "$out" | grep -Eqx 'ra pidcalls`pc_leaf\+0x([0-9a-f]+) \1 7' ||
    fail "return pc != function + arg0: $out"
echo "$out" | grep -qx 'str pid-provider-arg' || fail "copyinstr: $out"
echo "$out" | grep -qx 'u pidcalls`main pidcalls`pc_leaf pidcalls 7' ||
    fail "ufunc/usym/umod: $out"
echo "$out" | grep -Eqx 'd [2-9]' || fail "ustackdepth: $out"
echo "$out" | grep -q 'pidcalls`pc_leaf$' || fail "ustack top: $out"
echo "$out" | grep -q 'pidcalls`main+0x' || fail "ustack caller: $out"
# a library loaded later (dlopen) is followed: with -Z the description
# that matches nothing yet gets its probes when the library is mapped (the
# workload waits until pc_lib carries a breakpoint)
cc -O1 -shared -fPIC -o "$W/libpclib.so" "$OLDPWD/w_pidlib.c" ||
    fail "cannot build the library"
# (entry and return in two runs: each kind is a link of its own, and
# the workload sees the first one's breakpoint)
out=$($DTRACE -Z -q -c "./pidcalls $W/libpclib.so" -n '
pid$target:libpclib.so:pc_lib:entry { @e = count(); @a = sum(arg0); }
END { printa("lib e %@d a %@d\n", @e, @a); }' 2>&1) ||
    fail "dtrace failed: $out"
echo "$out" | grep -qx 'lib e 3 a 15' || fail "dlopen entry: $out"
out=$($DTRACE -Z -q -c "./pidcalls $W/libpclib.so" -n '
pid$target:libpclib.so:pc_lib:return { @r = count(); @v = sum(arg1); }
END { printa("lib r %@d v %@d\n", @r, @v); }' 2>&1) ||
    fail "dtrace failed: $out"
echo "$out" | grep -qx 'lib r 3 v 45' || fail "dlopen return: $out"
# release: a -p process keeps running with its code as it was (the
# breakpoint shows as int3 in its memory while traced, not after); a -c
# process still there at the end is killed
command -v nm > /dev/null || fail "nm (binutils) is needed to find pc_add"
./pidcalls wait &
p=$!
v=$(nm ./pidcalls | awk '$3 == "pc_add" { print $1 }')
byte() {
	base=$(awk '/pidcalls$/ && $3 == "00000000" { print $1; exit }' \
	    /proc/$p/maps | cut -d- -f1)
	dd if=/proc/$p/mem bs=1 skip=$((0x$base + 0x$v)) count=1 2>/dev/null |
	    od -An -tx1 | tr -d ' '
}
n=100
while [ $n -gt 0 ] && ! grep -q pidcalls /proc/$p/maps 2>/dev/null; do
	sleep 0.05; n=$((n - 1))
done
before=$(byte)
base=$(awk '/pidcalls$/ && $3 == "00000000" { print $1; exit }' \
    /proc/$p/maps | cut -d- -f1)
out=$($DTRACE -q -w -p $p -n '
pid$target:a.out:pc_add:entry { @ = count(); }
tick-100ms {
	system("dd if=/proc/%d/mem bs=1 skip=%d count=1 2>/dev/null | od -An -tx1",
	    $target, $1);
	exit(0);
}' $((0x$base + 0x$v)) 2>&1) || fail "dtrace -p failed: $out"
echo "$out" | grep -q 'cc' || fail "no breakpoint while traced: $out"
kill -0 $p 2>/dev/null || fail "-p process gone after dtrace"
[ "$(byte)" = "$before" ] && [ "$before" != cc ] ||
    fail "code not restored: $before -> $(byte)"
kill $p
out=$($DTRACE -q -c './pidcalls wait' -n '
pid$target:a.out:pc_done:entry { printf("child %d\n", pid); exit(0); }' 2>&1) ||
    fail "dtrace -c failed: $out"
c=$(echo "$out" | sed -n 's/^child //p')
[ -n "$c" ] || fail "no child pid: $out"
kill -0 "$c" 2>/dev/null && fail "-c process $c left running"
# a -c script is read as its interpreter (a.out is the shell)
printf '#!/bin/sh\necho one-line\n' > "$W/s.sh"
chmod 755 "$W/s.sh"
out=$($DTRACE -q -c "$W/s.sh" -n '
pid$target:libc.so.6:write:entry { @ = count(); }
END { printa("writes %@d\n", @); }' 2>&1) || fail "script: $out"
echo "$out" | grep -qx 'writes 1' || fail "script: $out"
# -l with -c lists the process's probes, created on demand
out=$($DTRACE -l -n 'pid$target:a.out:pc_a*:' -c ./pidcalls 2>&1) ||
    fail "dtrace -l failed: $out"
echo "$out" | grep -Eq '^ *[0-9]+ +pid[0-9]+ +a.out +pc_add entry$' ||
    fail "-l entry: $out"
echo "$out" | grep -Eq '^ *[0-9]+ +pid[0-9]+ +a.out +pc_add return$' ||
    fail "-l return: $out"
# bad input
out=$($DTRACE -n 'pid999999999:::entry' 2>&1) && fail "no such pid: $out"
echo "$out" | grep -q 'failed to grab pid 999999999: No such process' ||
    fail "no such pid: $out"
out=$($DTRACE -c ./pidcalls -n 'pid$target:a.out:no_such_fn:entry' 2>&1) &&
    fail "no such function: $out"
echo "$out" | grep -q 'a.out:no_such_fn:entry does not match any probes' ||
    fail "no such function: $out"
out=$($DTRACE -c ./pidcalls -n 'pid$target:libnosuch.so::entry' 2>&1) &&
    fail "no such module: $out"
echo "$out" | grep -q 'does not match any probes' || fail "no such module: $out"
# without privileges: int3 breakpoints through ptrace (more in
# tst.pid_ptrace.sh)
if command -v setpriv > /dev/null; then
	out=$(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    $DTRACE -q -c "$W/pidcalls" -n 'pid$target:a.out:pc_add:entry {
	    @ = count(); } END { printa("n %@d\n", @); }' 2>&1) ||
	    fail "nobody: $out"
	echo "$out" | grep -qx 'n 1000' || fail "nobody: $out"
fi
command -v strip > /dev/null || { echo "no strip: stripped binary not checked"; exit 0; }
strip -o pidcalls.stripped pidcalls
out=$($DTRACE -c ./pidcalls.stripped -n 'pid$target:a.out:pc_add:entry' \
    2>&1) && fail "stripped: $out"
echo "$out" | grep -q 'pc_add:entry does not match any probes' ||
    fail "stripped: $out"
exit 0
