# A program with its own provider, built through dtrace -h (header) and
# dtrace -G (object with the semaphores): its usdt probes fire with their
# arguments exactly as often as it makes them, its is-enabled test is
# true exactly while a tracer enables the probe (N rounds traced, 0
# untraced), and -G's default object name is the script's with .o.
. ./lib.sh
need_root
command -v cc > /dev/null || { echo "no C compiler to build the workload"; exit 77; }
[ -f /usr/include/sys/sdt.h ] || [ -f /usr/include/x86_64-linux-gnu/sys/sdt.h ] ||
    { echo "no <sys/sdt.h> (systemtap-sdt-dev) to build the workload"; exit 77; }
N=2000
cat > "$W/usdtprov.d" <<'D'
provider dtuitest {
	probe tick(int, long);
	probe always();
	probe never__fired(char *);
};
D
(cd "$W" && $DTRACE -h -s usdtprov.d && $DTRACE -G -s usdtprov.d) ||
    fail "dtrace -h/-G failed"
[ -f "$W/usdtprov.h" ] && [ -f "$W/usdtprov.o" ] || fail "no usdtprov.h or usdtprov.o"
cc -O1 -I"$W" -o "$W/usdtprov" w_usdtprov.c "$W/usdtprov.o" || fail "workload build failed"
readelf -n "$W/usdtprov" 2>/dev/null | grep -q 'Name: never__fired' ||
    fail "no stapsdt note for never__fired"
out=$("$W/usdtprov" $N) || fail "untraced run failed"
[ "$out" = "enabled 0" ] || fail "untraced: tick enabled: $out"
"$W/usdtprov" $N wait > "$W/out" &
pid=$!
# always's clause comes first: enabled before tick, which starts the rounds
got=$(timeout 60 $DTRACE -q -p $pid -n '
dtuitest$target:::always { @a = count(); }
dtuitest$target:::tick { @t = count(); @s = sum(arg1); @i = sum(arg0); }
dtuitest$target:::never-fired { @n = count(); }
END { printa("always %@d\n", @a); printa("tick %@d\n", @t);
      printa("sum %@d\n", @s); printa("isum %@d\n", @i); }' 2>&1)
rc=$?
wait $pid
[ $rc -eq 0 ] || fail "dtrace failed ($rc): $got"
[ "$(cat "$W/out")" = "enabled $N" ] || fail "traced: $(cat "$W/out")"
want="always $N
tick $N
sum $((N * (N + 1)))
isum $((N * (N + 1) / 2))"
[ "$(echo "$got" | grep -v '^$')" = "$want" ] || fail "got: $got"
exit 0
