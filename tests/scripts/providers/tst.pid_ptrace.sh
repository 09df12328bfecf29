# The pid provider through the ptrace route (int3 breakpoints the ptrace
# helper writes), as nobody and as root with -x uroute=ptrace, on
# workloads with known call counts (w_pidcalls.c, w_pidthreads.c): exact
# entry, return and instruction-probe counts, arguments and return
# values, a libc function (planted once ld.so has mapped libc), globs,
# copyinstr of an argument, ucaller and usym, a dlopen()ed library, a
# multithreaded process with exact counts and a right result, and
# release: a -p process traced mid-run goes on with its code restored and
# computes the right sums, also when dtrace is killed (-9) while tracing;
# one killed while traced ends dtrace cleanly.
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv to run as nobody"; exit 77; }
build pidcalls
build pidthreads
cc -O1 -shared -fPIC -o "$W/libpclib.so" w_pidlib.c || fail "cannot build the library"
chmod 777 "$W"
nobody() {
	(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups "$@")
}
# check HOW FLAGS: the checks with dtrace run by HOW (nobody, or env: as
# root) with FLAGS
check() {
	how=$1
	f=$2
	out=$($how timeout 60 $DTRACE $f -q -c "$W/pidcalls" -n '
pid$target:a.out:pc_add:entry { @e = count(); @a = sum(arg1); }
pid$target:a.out:pc_add:return { @r = count(); @v = sum(arg1); }
pid$target:a.out:pc_leaf:return { @l = count(); @lv = max(arg1); }
pid$target:a.out:pc_str:entry { printf("str %s\n", copyinstr(arg0)); }
pid$target:libc.so.6:exit:entry { printf("exit %d %s\n", arg0, probemod); }
pid$target:a.out:pc_leaf:entry {
	@u[ufunc(ucaller), usym(uregs[R_PC])] = count();
}
END { printa("e %@d a %@d r %@d v %@d l %@d lv %@d\n", @e, @a, @r, @v, @l,
    @lv); printa("u %A %A %@d\n", @u); }' 2>&1) || fail "$how: dtrace failed: $out"
	for want in 'e 1000 a 999000 r 1000 v 1498500 l 7 lv 42' \
	    'str pid-provider-arg' 'exit 0 libc.so.6' \
	    'u pidcalls`main pidcalls`pc_leaf 7'; do
		echo "$out" | grep -qx "$want" || fail "$how: want '$want': $out"
	done
	# an instruction probe at the returning ret fires as often
	off=$($how timeout 60 $DTRACE $f -q -c "$W/pidcalls" -n '
pid$target:a.out:pc_add:return { @[arg0] = count(); }
END { printa("%x %@d\n", @); }' 2>&1) || fail "$how: dtrace failed: $off"
	o=$(echo "$off" | grep -Ex '[0-9a-f]+ 1000' | cut -d' ' -f1)
	[ -n "$o" ] && [ "$o" != 0 ] || fail "$how: return offsets: $off"
	out=$($how timeout 60 $DTRACE $f -q -c "$W/pidcalls" -n "
pid\$target:a.out:pc_add:$o { @i = count(); }
pid\$target:a.out:pc_add:0 { @z = count(); }
pid\$target:a.out:pc_*:entry { @g[probefunc] = count(); }
END { printa(\"i %@d z %@d\n\", @i, @z); printa(\"%s %@d\n\", @g); }" 2>&1) ||
	    fail "$how: dtrace failed: $out"
	for want in 'i 1000 z 1000' 'pc_add 1000' 'pc_leaf 7' 'pc_done 1'; do
		echo "$out" | grep -qx "$want" || fail "$how: want '$want': $out"
	done
	# a library loaded later (the workload waits for an int3 on pc_lib:
	# entry and return in two runs, each is attached on its own)
	out=$($how timeout 60 $DTRACE $f -Z -q -c "$W/pidcalls $W/libpclib.so" -n '
pid$target:libpclib.so:pc_lib:entry { @e = count(); @a = sum(arg0); }
END { printa("lib e %@d a %@d\n", @e, @a); }' 2>&1) ||
	    fail "$how: dtrace failed: $out"
	echo "$out" | grep -qx 'lib e 3 a 15' || fail "$how: dlopen entry: $out"
	out=$($how timeout 60 $DTRACE $f -Z -q -c "$W/pidcalls $W/libpclib.so" -n '
pid$target:libpclib.so:pc_lib:return { @r = count(); @v = sum(arg1); }
END { printa("lib r %@d v %@d\n", @r, @v); }' 2>&1) ||
	    fail "$how: dtrace failed: $out"
	echo "$out" | grep -qx 'lib r 3 v 45' || fail "$how: dlopen return: $out"
	# threads: every call seen, the program's sums right
	out=$($how timeout 120 $DTRACE $f -q -c "$W/pidthreads" -n '
pid$target:a.out:mt_add:entry { @a = count(); }
pid$target:a.out:mt_add:return { @r = count(); @s = sum(arg1); }
pid$target:a.out:mt_push:entry { @p = count(); }
END { printa("a %@d r %@d p %@d s %@d\n", @a, @r, @p, @s); }' 2>&1) ||
	    fail "$how: dtrace failed: $out"
	for want in 'total 25499000' 'a 10000 r 10000 p 2000 s 25497000'; do
		echo "$out" | grep -qx "$want" || fail "$how: threads: want '$want': $out"
	done
	# -p mid-run: traced for 3000 returns, then let go; the process goes
	# on, its sums right and its code as it was
	rm -f "$W/stop"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$W/pidthreads" \
	    "$W/stop" > "$W/pt.out" &
	p=$!
	wait_maps $p pidthreads
	out=$($how timeout 120 $DTRACE $f -q -p $p -n '
pid$target:a.out:mt_add:entry { @a = count(); }
pid$target:a.out:mt_push:return { @r = count(); }
pid$target:a.out:mt_add:return /++n == 3000/ { exit(0); }' 2>&1) ||
	    { kill $p; fail "$how: -p: dtrace failed: $out"; }
	kill -0 $p 2>/dev/null || fail "$how: -p process gone after dtrace: $out"
	touch "$W/stop"
	wait $p || fail "$how: -p process failed: $(cat "$W/pt.out")"
	grep -qx 'code 48' "$W/pt.out" || fail "$how: code after release: $(cat "$W/pt.out")"
	grep -Eqx 'ok [0-9]+' "$W/pt.out" || fail "$how: sums after release: $(cat "$W/pt.out")"
	# dtrace killed (-9) while tracing: its helper, seeing it gone, takes
	# every int3 and replaced return address out and lets go
	rm -f "$W/stop" "$W/dk.out"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$W/pidthreads" \
	    "$W/stop" > "$W/pt.out" &
	p=$!
	wait_maps $p pidthreads
	if [ "$how" = nobody ]; then
		set -- setpriv --reuid=nobody --regid=nogroup --clear-groups
	else
		set -- env
	fi
	"$@" $DTRACE $f -q -p $p -n '
pid$target:a.out:mt_add:entry { @ = count(); }
pid$target:a.out:mt_add:return /++n == 1000/ { printf("traced\n"); }' \
	    > "$W/dk.out" 2>&1 &
	d=$!
	i=0
	until grep -q traced "$W/dk.out"; do
		i=$((i + 1))
		[ $i -lt 3000 ] || { kill $p $d; fail "$how: never traced: $(cat "$W/dk.out")"; }
		sleep 0.01
	done
	kill -9 $d
	wait_untraced $p "$how: after dtrace died"
	touch "$W/stop"
	wait $p || fail "$how: target failed after dtrace died: $(cat "$W/pt.out")"
	grep -qx 'code 48' "$W/pt.out" && grep -Eqx 'ok [0-9]+' "$W/pt.out" ||
	    fail "$how: after dtrace died: $(cat "$W/pt.out")"
	# a -p process killed while traced: dtrace ends
	rm -f "$W/stop"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$W/pidthreads" \
	    "$W/stop" > /dev/null &
	p=$!
	wait_maps $p pidthreads
	out=$($how timeout 60 $DTRACE $f -w -q -p $p -n '
pid$target:a.out:mt_add:entry /++n == 100/ { system("kill -9 %d", pid); }' 2>&1)
	rc=$?
	wait $p
	[ $rc -eq 0 ] || fail "$how: killed target: dtrace exit $rc: $out"
}
check nobody ""
check env "-x uroute=ptrace"
exit 0
