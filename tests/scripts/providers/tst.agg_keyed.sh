# Aggregations counted in the kernel, keyed by and over arguments: 600
# getpriority(PRIO_PROCESS, who) calls, who = 900000000 + i % 3 (w_prio.c).
. ./lib.sh
need_root
build prio
out=$($DTRACE -q -c "$W/prio" -n '
syscall::getpriority:entry /pid == $target/ {
	@c[pid, arg1] = count();
	@s = sum(arg1 - 900000000);
	@m = max(arg1);
	@q = quantize(arg1 - 900000000);
}
END { printa("c %d %d %@d\n", @c); printa("s %@d\n", @s);
	printa("m %@d\n", @m); printa(@q); }') || fail "dtrace failed: $out"
for who in 900000000 900000001 900000002; do
	echo "$out" | grep -q "^c [0-9]* $who 200\$" || fail "key $who: $out"
done
[ "$(echo "$out" | grep -c '^c ')" = 3 ] || fail "keys: $out"
echo "$out" | grep -qx 's 600' || fail "sum: $out"
echo "$out" | grep -qx 'm 900000002' || fail "max: $out"
# quantize rows: value, then count; 0, 1 and 2 (bucket 2 holds 2..3)
for v in 0 1 2; do
	echo "$out" | awk -v v=$v '$1 == v && $NF == 200 { ok = 1 } END { exit !ok }' ||
	    fail "quantize bucket $v: $out"
done
# :return keyed by its return value: -ESRCH reads -1 (errno aside)
out=$($DTRACE -q -c "$W/prio" -n '
syscall::getpriority:return /pid == $target/ { @r[arg0] = count(); }
END { printa("r %d %@d\n", @r); }') || fail "dtrace failed: $out"
[ "$out" = "r -1 600" ] || fail "return values: $out"
# errinfo style: keyed by errno (ESRCH is 3)
out=$($DTRACE -q -c "$W/prio" -n '
syscall::getpriority:return /pid == $target && errno != 0/ { @e[execname, errno] = count(); }
END { printa("e %s %d %@d\n", @e); }') || fail "dtrace failed: $out"
[ "$out" = "e prio 3 600" ] || fail "errno keys: $out"
exit 0
