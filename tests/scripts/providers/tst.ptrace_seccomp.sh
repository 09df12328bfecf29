# The ptrace route as nobody with a -c target: the target's seccomp filter
# stops it only for the traced system call (getppid), counts stay exact,
# and the helper (DTUI_PTRACE_STOPS=1) reports far fewer stops than the
# 201234 system calls the workload makes.
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv"; exit 77; }
build pidmix
asnobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}
out=$(cd / && DTUI_PTRACE_STOPS=1 asnobody $DTRACE -q -c "$W/pidmix" -n '
syscall::getppid:entry /pid == $target/ { @e = count(); }
syscall::getppid:return /pid == $target/ { @r = count(); }
END { printa("e %@d\n", @e); printa("r %@d\n", @r); }' 2>&1) ||
    fail "dtrace failed: $out"
echo "$out" | grep -qx 'e 1234' || fail "entry count: $out"
echo "$out" | grep -qx 'r 1234' || fail "return count: $out"
stops=$(echo "$out" | sed -n 's/^dtrace: ptrace helper: \([0-9]*\) stops$/\1/p')
[ -n "$stops" ] || fail "no stop count: $out"
# entry and exit of each getppid, plus a few around the exec
[ "$stops" -ge 2468 ] && [ "$stops" -lt 5000 ] || fail "stops $stops: $out"
# entry probes only: one stop per getppid
out=$(cd / && DTUI_PTRACE_STOPS=1 asnobody $DTRACE -q -c "$W/pidmix" -n '
syscall::getppid:entry /pid == $target/ { @e = count(); }
END { printa("e %@d\n", @e); }' 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -qx 'e 1234' || fail "entry-only count: $out"
stops=$(echo "$out" | sed -n 's/^dtrace: ptrace helper: \([0-9]*\) stops$/\1/p')
[ -n "$stops" ] && [ "$stops" -ge 1234 ] && [ "$stops" -lt 2468 ] ||
    fail "entry-only stops $stops: $out"
