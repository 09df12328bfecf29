# A full kernel aggregation map (DTUI_AGG_MAXKEYS=8 keys) counts what fits
# and reports every other firing as an aggregation drop: 100 calls with
# 100 different keys give at most 8 keys, and counted + drops == 100.
. ./lib.sh
need_root
build prio
out=$(DTUI_AGG_MAXKEYS=8 $DTRACE -q -c "$W/prio 100" -n '
syscall::getpriority:entry /pid == $target/ { @[arg1] = count(); }
END { printa("k %d %@d\n", @); }' 2>&1) || fail "dtrace failed: $out"
keys=$(echo "$out" | grep -c '^k ')
kept=$(echo "$out" | awk '/^k / { s += $3 } END { print s + 0 }')
drops=$(echo "$out" | awk '/aggregation drops? on CPU/ { s += $2 } END { print s + 0 }')
[ "$keys" -le 8 ] || fail "$keys keys in 8: $out"
[ "$drops" -gt 0 ] || fail "no drops reported: $out"
[ $((kept + drops)) = 100 ] || fail "kept $kept + drops $drops != 100: $out"
exit 0
