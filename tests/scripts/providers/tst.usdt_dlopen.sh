# usdt probes in objects mapped after a process started (w_usdtdl.c and
# its library w_usdtlib.c, whose dtuilib:::tick has a semaphore the
# workload waits for): a -c command's dlopen()ed library under
# dtuilib$target with -Z; with -Z and a glob, the libraries of processes
# started later, linked (mapped by the dynamic linker after the exec)
# and dlopen()ed; and the providers of exited processes are
# unregistered: after more short-lived processes with the library than
# the registry holds providers, a new one still gets its probes.  Exact
# counts and sums.
. ./lib.sh
need_root
command -v cc > /dev/null || { echo "no C compiler to build the workload"; exit 77; }
[ -f /usr/include/sys/sdt.h ] || [ -f /usr/include/x86_64-linux-gnu/sys/sdt.h ] ||
    { echo "no <sys/sdt.h> (systemtap-sdt-dev) to build the workload"; exit 77; }
cc -O1 -shared -fPIC -o "$W/libusdtlib.so" w_usdtlib.c &&
    cc -O1 -o "$W/usdtdl" w_usdtdl.c -ldl &&
    cc -O1 -DLINKED -o "$W/usdtdl_linked" w_usdtdl.c -L"$W" -lusdtlib \
    -Wl,-rpath,"$W" || fail "workload build failed"
cd "$W" || exit 1
# a -c command's dlopen
out=$(timeout 60 $DTRACE -q -Z -c "./usdtdl 100 $W/libusdtlib.so" -n '
dtuilib$target:::tick { @ = count(); @s = sum(arg1); }
END { printa("tick %@d sum %@d\n", @, @s); }' 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -qx 'enabled 100' || fail "-c dlopen: workload: $out"
echo "$out" | grep -qx 'tick 100 sum 10100' || fail "-c dlopen: counts: $out"
# start dtrace with a glob and -Z, wait until it traces
start() {
	rm -f "$W/ready"
	timeout 120 $DTRACE -q -w -Z -n '
BEGIN { system("touch '"$W/ready"'"); }
dtuilib*:::tick { @[probeprov == strjoin("dtuilib", lltostr(pid)) ?
    "tick" : probeprov] = count(); @s = sum(arg1); }
dtuilib*:::tick /arg0 == '"$1"'/ { n++; }
dtuilib*:::tick /arg0 == '"$1"' && n == '"$2"'/ { exit(0); }
END { printa("%s %@d\n", @); printa("sum %@d\n", @s); }' > "$W/dt.out" 2>&1 &
	dt=$!
	i=0
	while [ ! -f "$W/ready" ]; do
		kill -0 $dt 2> /dev/null || fail "dtrace ended early: $(cat "$W/dt.out")"
		i=$((i + 1))
		[ $i -lt 3000 ] || fail "dtrace never started tracing"
		sleep 0.01
	done
}
# processes started later: a linked library and a dlopen()ed one
start 50 2
out=$(timeout 30 ./usdtdl_linked 50 linked) || fail "linked: workload failed: $out"
[ "$out" = "enabled 50" ] || fail "linked: workload: $out"
out=$(timeout 30 ./usdtdl 50 "$W/libusdtlib.so") || fail "dlopen: workload failed: $out"
[ "$out" = "enabled 50" ] || fail "dlopen: workload: $out"
wait $dt || fail "dtrace failed: $(cat "$W/dt.out")"
[ "$(grep -v '^$' "$W/dt.out")" = "tick 100
sum $((2 * 50 * 51))" ] || fail "later processes: $(cat "$W/dt.out")"
# 1100 processes that map the library and exit (more than the 1024
# providers the registry holds), then one that waits for its probe
start 20 1
i=0
while [ $i -lt 1100 ]; do
	./usdtdl_linked 0 linked > /dev/null || fail "short-lived workload failed"
	i=$((i + 1))
done
out=$(timeout 30 ./usdtdl_linked 20 linked) || fail "last: workload failed: $out"
[ "$out" = "enabled 20" ] || fail "after 1100 exits: workload: $out"
wait $dt || fail "dtrace failed: $(cat "$W/dt.out")"
[ "$(grep -v '^$' "$W/dt.out")" = "tick 20
sum 420" ] || fail "after 1100 exits: $(cat "$W/dt.out")"
exit 0
