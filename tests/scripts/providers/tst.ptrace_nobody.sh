# The ptrace route as an unprivileged user: exact syscall counts, paths,
# exit status of a -c target.
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv"; exit 77; }
build calls
build paths
asnobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}
out=$(cd / && asnobody $DTRACE -q -c "$W/calls" -n '
syscall::getppid:entry /pid == $target/ { @ = count(); }
proc:::exit /pid == $target/ { printf("exit %d %d\n", arg0, arg1); }
END { printa("%@d\n", @); }' 2>&1) || fail "dtrace failed: $out"
# records of different CPUs print in CPU order, as dtrace does: sort
[ "$(echo "$out" | grep -v '^$' | sort)" = "1234
exit 1 0" ] || fail "counts: $out"
out=$(cd / && asnobody $DTRACE -q -c "$W/paths" -n '
syscall::openat:entry /pid == $target/ { printf("%s\n", copyinstr(arg1)); }
' 2>&1) || fail "dtrace failed: $out"
[ "$(echo "$out" | grep -c dtui-w-)" -eq 200 ] || fail "paths: $out"
echo "$out" | grep -q '^/nonexistent/dtui-w-137$' || fail "path 137: $out"
out=$(cd / && asnobody $DTRACE -q -n 'sched:::on-cpu { exit(0); }' 2>&1)
[ $? -ne 0 ] || fail "sched:::on-cpu should not be offered: $out"
echo "$out" | grep -q "root or CAP_PERFMON" || fail "no reason given: $out"
[ "$(cd / && asnobody $DTRACE -l | grep -c ' sched ')" -eq 0 ] ||
    fail "sched probes listed without privileges"
# proc:::exec-success's args[0] is a string (the new image's path) here too
out=$(cd / && asnobody $DTRACE -q -c "/bin/sh -c /bin/true" -n '
proc:::exec-success { printf("exec [%s] %s\n", args[0], execname); }' 2>&1) ||
    fail "dtrace failed: $out"
echo "$out" | grep -Eq '^exec \[(/usr)?/bin/true\] true$' ||
    fail "exec-success path: $out"
# -p of a process nobody may not trace is refused, not traced silently
out=$(cd / && timeout 20 setpriv --reuid=nobody --regid=nogroup \
    --clear-groups $DTRACE -q -p 1 -n '
syscall::getppid:entry { @ = count(); } tick-1s { exit(0); }' 2>&1)
echo "$out" | grep -q "failed to grab pid 1: Operation not permitted" ||
    fail "-p 1: $out"
