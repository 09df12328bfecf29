# A program with its own provider, built through dtrace -h (header) and
# dtrace -G (object with the semaphores): its usdt probes fire with their
# arguments exactly as often as it makes them, its is-enabled test is
# true exactly while a tracer enables the probe (N rounds traced, 0
# untraced), and -G's default object name is the script's with .o; -G
# without a script, or without a working C compiler, fails with a message
# and leaves no object.  The same probes through -c.
. ./lib.sh
need_root
N=2000
build_usdtprov
readelf -n "$W/usdtprov" 2>/dev/null | grep -q 'Name: never__fired' ||
    fail "no stapsdt note for never__fired"
out=$("$W/usdtprov" $N) || fail "untraced run failed"
[ "$out" = "enabled 0" ] || fail "untraced: tick enabled: $out"
usdtprov_traced env env ""
msg=$($DTRACE -G -n 'BEGIN' 2>&1) && fail "-G -n accepted: $msg"
[ "$msg" = "dtrace: -G requires a D script (-s); probe specifiers (-P -m -f -n -i) define no providers" ] ||
    fail "-G -n: $msg"
msg=$(cd "$W" && CC=/nonexistent/cc $DTRACE -G -s usdtprov.d -o bad.o 2>&1) &&
    fail "-G without a compiler succeeded"
echo "$msg" | grep -q "failed to create object file bad.o" || fail "-G without cc: $msg"
[ ! -e "$W/bad.o" ] || fail "-G left bad.o behind"
exit 0
