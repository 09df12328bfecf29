# A probe with a clause that records (printf) next to one that only
# aggregates is delivered as records, and both stay exact; a probe of
# aggregations only next to it is still counted in the kernel.
. ./lib.sh
need_root
build calls
out=$($DTRACE -q -c "$W/calls" -n '
syscall::getppid:entry /pid == $target/ { @e = count(); }
syscall::getppid:entry /pid == $target/ { printf("x\n"); }
syscall::getppid:return /pid == $target/ { @r = count(); }
END { printa("e %@d\n", @e); printa("r %@d\n", @r); }') ||
    fail "dtrace failed: $out"
[ "$(echo "$out" | grep -c '^x$')" = 1234 ] || fail "printf lines: $(echo "$out" | grep -vc '^x$') others"
echo "$out" | grep -qx 'e 1234' || fail "entry count: $(echo "$out" | grep -v '^x$')"
echo "$out" | grep -qx 'r 1234' || fail "return count: $(echo "$out" | grep -v '^x$')"
exit 0
